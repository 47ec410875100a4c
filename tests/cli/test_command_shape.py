"""The one command shape (clicmd.command): an Outcome prints JSON under --json and text
otherwise, a refusal is exit 1 with one JSON document, and a command that reaches hosts turns
an unreachable host into that refusal, not an internal error."""

from __future__ import annotations

import json

from brickyard.cli import main
from brickyard.clicmd import remote_common
from brickyard.clicmd.command import Outcome
from brickyard.core import topofile
from brickyard.remote.executor import ExecutorError

from ..remote.test_provision import vrep_topology


def test_an_outcome_prints_its_document_under_json_and_its_text_otherwise(capsys):
    outcome = Outcome(1, doc={"ok": False, "x": float("nan")}, text=["one", "two"], notes=["to stderr"], indent=None)
    assert outcome.show(True) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"ok": False, "x": None} and captured.err == "to stderr\n"
    assert outcome.show(False) == 1
    assert capsys.readouterr().out == "one\ntwo\n"
    assert Outcome(0, text="no newline").show(False) == 0 and capsys.readouterr().out == "no newline\n"


def test_an_unreachable_host_is_a_refusal_naming_it_in_every_remote_command(tmp_path, capsys, monkeypatch):
    path = tmp_path / "t.brickyard.json"
    topofile.save(vrep_topology(), path)

    def unreachable(args, body):
        raise ExecutorError("node1", "cannot connect: Connection refused")

    monkeypatch.setattr(remote_common, "run_with_pool", unreachable)
    for argv in (["provision", str(path), "--yes"], ["teardown", str(path), "--confirm", "vrep"]):
        assert main([*argv, "--json"]) == 1
        captured = capsys.readouterr()
        assert json.loads(captured.out) == {"ok": False, "error": "node1: cannot connect: Connection refused",
                                            "exit": 1}
        assert "Connection refused" in captured.err

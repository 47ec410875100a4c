"""With --json, stdout is always one JSON document: also when the input is bad (exit 2),
when the command line itself is wrong, and when Ctrl-C stops the command (exit 130)."""

from __future__ import annotations

import json

import pytest

from brickyard.cli import main
from brickyard.core import topofile

from ..remote.test_provision import vrep_topology


@pytest.fixture
def topo_file(tmp_path):
    path = tmp_path / "t.brickyard.json"
    topofile.save(vrep_topology(), path)
    return str(path)


def _cases(topo_file: str, tmp_path) -> list[tuple[list[str], str]]:
    missing = str(tmp_path / "missing.brickyard.json")
    bad = tmp_path / "bad.brickyard.json"
    bad.write_text("{not json")
    taken = tmp_path / "taken.brickyard.json"
    taken.write_text("{}")
    return [
        (["plan", missing], "No such file"),
        (["plan", str(bad)], ""),
        (["plan", topo_file, "--volume", "nosuch"], "nosuch"),
        (["preflight", missing], "No such file"),
        (["preflight", topo_file, "--volume", "nosuch"], "nosuch"),
        (["provision", str(bad)], ""),
        (["provision", topo_file, "--volume", "nosuch"], "nosuch"),
        (["provision", topo_file, "--accept-host-key", "WRONG", "--yes"], "--accept-host-key"),
        (["provision", topo_file, "--ssh-config", str(tmp_path / "none"), "--yes"], "--ssh-config"),
        (["teardown", missing], "No such file"),
        (["teardown", topo_file], "--confirm vrep"),
        (["teardown", topo_file, "--confirm", "vre"], "--confirm vrep"),
        (["teardown", topo_file, "--volume", "nosuch", "--confirm", "nosuch"], "nosuch"),
        (["import", "node1", "--out", str(taken)], "exists"),
        (["import", "node1"], "--out"),  # argparse: a required option is missing
        (["bench"], "--workload"),
        (["history", "list", "--since", "yesterday", "--db", f"sqlite:///{tmp_path / 'h.db'}"], "--since"),
        (["lab", "status", "--bogus"], "--bogus"),
        (["provision", topo_file, "--no-such-flag"], "--no-such-flag"),
    ]


def test_every_bad_input_prints_one_json_document_on_stdout_and_exits_2(topo_file, tmp_path, capsys):
    for argv, words in _cases(topo_file, tmp_path):
        code = main([*argv, "--json"])
        captured = capsys.readouterr()
        assert code == 2, (argv, captured)
        doc = json.loads(captured.out)  # exactly one JSON document, nothing else
        assert doc["ok"] is False and doc["exit"] == 2 and words in doc["error"], (argv, doc)
        assert captured.err.strip(), argv  # the human line stays on stderr


def test_without_json_stdout_stays_empty_on_bad_input(topo_file, capsys):
    assert main(["teardown", topo_file]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--confirm vrep" in captured.err


def test_ctrl_c_before_any_report_is_json_with_exit_130(topo_file, capsys, monkeypatch):
    from brickyard.clicmd import provision

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(provision, "provision_plan", interrupted)
    assert main(["provision", topo_file, "--json"]) == 130
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"ok": False, "error": "interrupted (Ctrl-C)", "exit": 130, "interrupted": True}

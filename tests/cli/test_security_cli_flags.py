"""The command line's boundary: a canary (``$(touch …)``, backquotes, ``;``, ``|``, a
newline, ``${IFS}``) planted in every flag that takes text never runs, and each such
command line ends with exit 1 or 2 and exactly one JSON document under --json. Nothing
here may reach a real host: host names are refused before any connection, and ``lab up``
is stopped before it could start anything should its checks ever let a canary through."""

from __future__ import annotations

import json

import pytest

from brickyard.cli import main
from brickyard.core import topofile

from ..conftest import EXAMPLES


def _canaries(target: str) -> list[str]:
    return [f"$(touch {target})", f"`touch {target}`", f"x; touch {target}", f"x | touch {target}",
            f"x\ntouch {target}", f"x${{IFS}}touch${{IFS}}{target}", f"-oProxyCommand=touch {target}"]


@pytest.fixture
def topo(tmp_path):
    path = tmp_path / "t.brickyard.json"
    path.write_bytes((EXAMPLES / "two-server-12-disk.brickyard.json").read_bytes())
    return str(path)


@pytest.fixture
def no_lab(monkeypatch):
    from brickyard.lab import sandbox

    def refuse(*args, **kwargs):
        raise AssertionError("lab up got past its checks with a canary in its flags")
    monkeypatch.setattr(sandbox, "lab_up", refuse)


def _command_lines(c: str, topo: str, tmp: str) -> list[list[str]]:
    return [
        ["plan", topo, "--volume", c],
        ["plan", topo, "--fail", c],
        ["plan", c],
        ["preflight", topo, "--volume", c],
        ["preflight", topo, "--ssh-config", c],
        ["provision", topo, "--volume", c, "--dry-run"],
        ["provision", topo, "--accept-host-key", c, "--yes"],
        ["teardown", topo, "--volume", c, "--confirm", c],
        ["import", c, "--out", f"{tmp}/imported.brickyard.json"],
        ["import", "node1", "--out", f"{tmp}/{c}/x.brickyard.json"],
        ["bench", "--workload", c, "--target", "local:/nonexistent"],
        ["bench", "--workload", "dd", "--target", "local:/nonexistent", "--param", f"{c}=1"],
        ["bench", "--workload", "dd", "--target", "local:/nonexistent", "--param", f"size={c}"],
        ["bench", "--workload", "dd", "--target", "local:/nonexistent", "--link", c],
        ["bench", "--workload", "dd", "--target", "local:/nonexistent", "--server", c],
        ["history", "list", "--db", f"sqlite:///{tmp}/{c}/h.db"],
        ["history", "list", "--db", c],
        ["history", "list", "--db", f"sqlite:///{tmp}/h.db", "--since", c],
        ["history", "show", "--db", f"sqlite:///{tmp}/h.db", c],
        ["history", "import", "--db", f"sqlite:///{tmp}/h.db", c],
        ["history", "export", "--db", f"sqlite:///{tmp}/h.db", "-o", f"{tmp}/{c}/out.json"],
        ["lab", "up", "1", "--dir", f"{tmp}/lab", "--prefix", c],
        ["lab", "up", "1", "--dir", f"{tmp}/lab", "--subnet", c],
        ["lab", "up", "1", "--dir", f"{tmp}/lab", "--admin-user", c],
        ["lab", "up", "1", "--dir", f"{tmp}/lab", "--delay", f"node1={c}"],
        ["lab", "up", "1", "--dir", f"{tmp}/lab", "--brick-size", c],
        ["campaign", c, "--dry-run"],
    ]


def test_a_canary_in_any_flag_never_runs_and_every_answer_is_one_json_document(topo, tmp_path, capsys, no_lab):
    canary = tmp_path / "planted"
    tmp = str(tmp_path)
    for c in _canaries(str(canary)):
        for argv in _command_lines(c, topo, tmp):
            code = main([*argv, "--json"])
            captured = capsys.readouterr()
            assert code in (1, 2), (argv, code, captured.err[-2000:])
            doc = json.loads(captured.out)
            assert doc.get("ok") is False, (argv, doc)
            assert "Traceback" not in captured.err, (argv, captured.err)
            assert not canary.exists(), argv
    assert {p.name for p in tmp_path.iterdir()} <= {"t.brickyard.json", "h.db"}   # nothing else made on the way


def test_the_plan_commands_quote_every_planted_string_they_print(tmp_path, capsys):
    canary = tmp_path / "planted"
    topo = topofile.load(EXAMPLES / "two-server-12-disk.brickyard.json")
    topo.volumes[0].options["auth.allow"] = f"$(touch {canary})"
    path = tmp_path / "t.brickyard.json"
    topofile.save(topo, path)
    assert main(["plan", str(path), "--json"]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    line = next(c for c in doc["commands_text"] if "auth.allow" in c)
    assert f"'$(touch {canary})'" in line          # one shell word, never a substitution
    assert not canary.exists()

"""Under --json every command prints exactly one JSON document on stdout, also where it used
to print text or nothing: bench --list, history export -o FILE, lab up/down, a command line
with no command, and a bug (an internal error still ends in JSON, with the traceback on
stderr for the report)."""

from __future__ import annotations

import json

from brickyard import cli
from brickyard.cli import main


def _one_document(text: str) -> object:
    def refuse(name):
        raise AssertionError(f"bare {name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_bench_list_json_lists_every_workload_with_its_parameters(capsys):
    assert main(["bench", "--list", "--json"]) == 0
    doc = _one_document(capsys.readouterr().out)
    names = {w["name"] for w in doc["workloads"]}
    assert {"dd", "fio", "smallfile", "metadata", "randread", "pgbench"} <= names
    dd = next(w for w in doc["workloads"] if w["name"] == "dd")
    assert any(p["name"] == "block_sizes" and p["kind"] == "sizes" for p in dd["params"])


def test_lab_down_and_status_without_a_lab_answer_in_json(tmp_path, capsys):
    assert main(["lab", "down", "--dir", str(tmp_path / "nolab"), "--json"]) in (0, 1)
    doc = _one_document(capsys.readouterr().out)
    assert "ok" in doc
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "lab.json").write_text("{not json")
    assert main(["lab", "status", "--dir", str(tmp_path / "broken"), "--json"]) == 1
    doc = _one_document(capsys.readouterr().out)
    assert doc["ok"] is False and doc["error"]


def test_lab_up_bad_input_is_json(tmp_path, capsys):
    assert main(["lab", "up", "0", "--dir", str(tmp_path / "lab"), "--json"]) == 2
    assert _one_document(capsys.readouterr().out)["exit"] == 2


def test_no_command_under_json_is_a_json_error(capsys):
    assert main(["--json"]) == 2
    assert _one_document(capsys.readouterr().out)["exit"] == 2


def test_a_bug_still_ends_in_one_json_document_and_a_traceback_on_stderr(tmp_path, capsys, monkeypatch):
    from brickyard.clicmd import plan

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(plan, "plan_volume", broken)
    from ..conftest import EXAMPLES

    path = tmp_path / "t.brickyard.json"
    path.write_bytes((EXAMPLES / "two-server-12-disk.brickyard.json").read_bytes())
    assert main(["plan", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    doc = _one_document(captured.out)
    assert doc["internal_error"] is True and "ZeroDivisionError" in doc["error"]
    assert "Traceback" in captured.err


def test_emit_json_never_prints_nan_or_a_lone_surrogate(capsys):
    cli.emit_json({"a": float("nan"), "b": [float("inf")], "c": "x\ud800"})
    out = capsys.readouterr().out
    assert _one_document(out) == {"a": None, "b": [None], "c": "x\ud800"}
    out.encode("utf-8")


def test_a_refused_5000_digit_flag_is_quoted_by_its_ends(capsys):
    assert main(["plan", "x.json", "--replica", "9" * 5000, "--json"]) == 2
    doc = _one_document(capsys.readouterr().out)
    assert "(5000 characters)" in doc["error"] and len(doc["error"]) < 200

"""`brickyard change` before it reaches a host: what it refuses and what it lists (the change
itself runs against the real lab in tests/e2e/test_change_lab.py)."""

from __future__ import annotations

import json

from brickyard.cli import main
from brickyard.store import HistoryStore

from ..conftest import EXAMPLES

TOPO = str(EXAMPLES / "three-site.brickyard.json")


def _run(capsys, *argv: str) -> tuple[int, dict | list]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def test_resume_and_rollback_exclude_each_other(capsys, tmp_path):
    code, doc = _run(capsys, "change", TOPO, "--volume", "gv3", "--resume", "--rollback", "--json",
                     "--db", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    assert code == 2 and "exclude each other" in doc["error"]


def test_resume_without_an_unfinished_change_is_refused_before_any_host_is_reached(capsys, tmp_path):
    code, doc = _run(capsys, "change", TOPO, "--volume", "gv3", "--resume", "--json",
                     "--db", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    assert code == 1 and "no unfinished change of gv3" in doc["error"]


def test_a_new_change_is_refused_while_the_volume_has_an_unfinished_one(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    with HistoryStore(db) as store:
        store.changes.create("feedc0de01", "gv3", ["expand", "rebalance"], TOPO, {}, {"outputs": {}}, {}, {"steps": []},
                             {"steps": {}, "message": "cancelled"}, "interrupted", 10.0)
    code, doc = _run(capsys, "change", TOPO, "--volume", "gv3", "--yes", "--json", "--db", db)
    assert code == 1 and "feedc0de01"[:12] in doc["error"] and "--resume" in doc["error"]


def test_list_shows_each_change_with_its_steps(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    with HistoryStore(db) as store:
        plan = {"steps": [{"key": "add-brick", "title": "add 1 brick", "predicted_seconds":
                           {"low": 1.0, "expected": 3.0, "high": 15.0}}]}
        store.changes.create("feedc0de02", "gv0", ["expand"], TOPO, {}, {"outputs": {}}, {}, plan,
                             {"steps": {"add-brick": {"status": "done", "seconds": 1.5}}}, "complete", 3.0)
    code, doc = _run(capsys, "change", "--list", "--json", "--db", db)
    assert code == 0 and doc[0]["change_id"] == "feedc0de02" and doc[0]["steps"][0]["seconds"] == 1.5
    assert main(["change", "--list", "--db", db]) == 0
    text = capsys.readouterr().out
    # the same words as the plan, the window and the record: '0 s, 0-5' read like nothing at all
    assert "gv0: expand" in text and "add 1 brick (predicted ~3.0 s (1.0 s–15 s))" in text


def test_the_topology_file_is_required_unless_listing(capsys, tmp_path):
    code, doc = _run(capsys, "change", "--json", "--db", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    assert code == 2 and "topology file" in doc["error"]

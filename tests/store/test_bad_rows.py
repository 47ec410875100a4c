"""One bad stored row breaks no reader (issue 25 point 7): a step whose params hold a control
character or text that is not UTF-8, a sweep point an import now refuses, a run field that is
not UTF-8: `history list/show/compare/export`, `decision` and `report` take every row they
can, name the ones they cannot on stderr, and exit 0. `history import` refuses every field a
later reader depends on. A read-only database is read by the reading commands and called
read-only by the writing ones."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess

import pytest

from brickyard.cli import main
from brickyard.store import HistoryStore
from brickyard.store.exchange import export_document
from brickyard.store.synthetic import synthetic_run

from ..tmpfs import needs_root, tmpfs


def three_runs(url: str) -> list[str]:
    store = HistoryStore(url)
    rng = random.Random(7)
    runs = [synthetic_run(rng, repeats=2, block_sizes=(4096, 1 << 20), started_at=1.76e9 + i) for i in range(3)]
    for run in runs:
        store.add_run(run)
    store.close()
    return [r.run_id for r in runs]


def sql(url: str, statement: str, *args) -> None:
    db = sqlite3.connect(url.removeprefix("sqlite:///"))
    db.execute(statement, args)
    db.commit()
    db.close()


def first_step(url: str, run_id: str) -> int:
    db = sqlite3.connect(url.removeprefix("sqlite:///"))
    step = db.execute("select steps.id from steps join runs on runs.id = steps.run_pk where runs.run_id = ? "
                      "order by steps.idx, steps.repeat limit 1", (run_id,)).fetchone()[0]
    db.close()
    return step


READERS = {
    "history list": lambda url, ids, tmp: ["history", "list", "--db", url],
    "history show": lambda url, ids, tmp: ["history", "show", "--db", url, ids[1]],
    "history compare": lambda url, ids, tmp: ["history", "compare", "--db", url, *ids],
    "history export": lambda url, ids, tmp: ["history", "export", "--db", url, "-o", str(tmp / "all.json")],
    "history export csv": lambda url, ids, tmp: ["history", "export", "--db", url, "--format", "csv",
                                                 "-o", str(tmp / "all.csv")],
    "decision": lambda url, ids, tmp: ["decision", *ids, "--db", url, "--json"],
}


@pytest.mark.parametrize("damage", ["control character", "not UTF-8", "sideways"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_bad_step_row_is_left_out_and_named_and_everything_else_is_read(sqlite_url, tmp_path, capsys, damage,
                                                                           reader):
    ids = three_runs(sqlite_url)
    step = first_step(sqlite_url, ids[1])
    if damage == "control character":
        sql(sqlite_url, "update steps set params_json = replace(params_json, '\"write\"', '\"wr' || char(1) || 'ite\"') "
                        "where id = ?", step)
    elif damage == "not UTF-8":
        sql(sqlite_url, "update steps set params_json = CAST(x'7b22ff223a317d' AS TEXT) where id = ?", step)
    else:       # stored by an older Brickyard, whose import let it through
        sql(sqlite_url, "update steps set params_json = replace(params_json, '\"write\"', '\"sideways\"') "
                        "where id = ?", step)
    code = main(READERS[reader](sqlite_url, ids, tmp_path))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err and "internal error" not in err
    if reader != "history list":
        assert f"run {ids[1][:12]}: step 0 repeat 0 left out: " in err, err
        assert {"control character": "not valid JSON", "not UTF-8": "params is not valid UTF-8",
                "sideways": "params.direction must be write or read, not 'sideways'"}[damage] in err
    if reader == "history export":
        runs = json.loads((tmp_path / "all.json").read_text())["runs"]
        assert sorted(r["run_id"] for r in runs) == sorted(ids)
        damaged = next(r for r in runs if r["run_id"] == ids[1])
        assert len(damaged["steps"]) == 7 and "step 0 repeat 0 left out" in damaged["error"]
    if reader == "decision":
        assert json.loads(out)["rows"]


def test_a_run_field_that_is_not_utf8_is_read_with_a_replacement_and_named(sqlite_url, capsys):
    ids = three_runs(sqlite_url)
    sql(sqlite_url, "update runs set error = CAST(x'41ff42' AS TEXT) where run_id = ?", ids[0])
    assert main(["history", "list", "--db", sqlite_url]) == 0
    out, err = capsys.readouterr()
    assert all(i[:12] in out for i in ids)
    assert f"run {ids[0][:12]}: its error is not valid UTF-8 (read with U+FFFD" in err
    assert main(["history", "show", "--db", sqlite_url, ids[0]]) == 0
    assert "A\ufffdB" in capsys.readouterr().out


def test_report_takes_the_rows_it_can(sqlite_url, tmp_path, capsys):
    ids = three_runs(sqlite_url)
    sql(sqlite_url, "update steps set params_json = replace(params_json, '\"write\"', '\"wr' || char(1) || 'ite\"') "
                    "where id = ?", first_step(sqlite_url, ids[1]))
    assert main(["report", "--runs", ",".join(ids), "--db", sqlite_url, "--out", str(tmp_path / "r.html")]) == 0
    err = capsys.readouterr().err
    assert f"run {ids[1][:12]}: step 0 repeat 0 left out: its stored params are not valid JSON" in err
    assert (tmp_path / "r.html").stat().st_size > 0


@pytest.mark.parametrize("field,value,words", [
    ("direction", "sideways", "params.direction: must be write or read, not 'sideways'"),
    ("block_size", -4096, "params.block_size: must be a block size in bytes"),
    ("block_size", True, "params.block_size: must be a block size in bytes"),
    ("concurrency", "4", "params.concurrency: must be a number of files or workers"),
    ("concurrency", 0, "params.concurrency: must be a number of files or workers"),
])
def test_import_refuses_a_sweep_point_later_readers_cannot_read(sqlite_url, tmp_path, capsys, field, value, words):
    run = synthetic_run(random.Random(1), repeats=1, block_sizes=(4096,))
    doc = json.loads(json.dumps(export_document([run])))
    doc["runs"][0]["steps"][1]["params"][field] = value
    (tmp_path / "x.json").write_text(json.dumps(doc))
    assert main(["history", "import", "--db", sqlite_url, str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "nothing imported" in err and f"runs[0].steps[1].{words}" in err, err
    assert HistoryStore(sqlite_url).list_runs() == []


@pytest.fixture
def read_only_history(tmp_path):
    """A history with one run on a filesystem mounted read-only (root: CI runs as root)."""
    needs_root("mounting a read-only tmpfs")
    with tmpfs(tmp_path / "ro", "size=4m") as point:
        url = f"sqlite:///{point / 'history.sqlite3'}"
        ids = three_runs(url)
        subprocess.run(["mount", "-o", "remount,ro", str(point)], check=True)
        yield url, ids


def test_a_read_only_history_is_read_by_reading_commands_and_named_by_writing_ones(read_only_history, tmp_path,
                                                                                   capsys):
    url, ids = read_only_history
    for argv in (["history", "list", "--db", url], ["history", "show", "--db", url, ids[0][:8]],
                 ["decision", *ids, "--db", url], ["history", "export", "--db", url, "-o", str(tmp_path / "x.json")],
                 ["campaign", "--list", "--db", url]):
        assert main(argv) == 0, (argv, capsys.readouterr().err)
    out = capsys.readouterr().out
    assert ids[0][:12] in out
    (tmp_path / "in.json").write_text(json.dumps(export_document([synthetic_run(random.Random(9), repeats=1,
                                                                                block_sizes=(4096,))])))
    assert main(["history", "import", "--db", url, str(tmp_path / "in.json")]) == 2
    err = capsys.readouterr().err
    assert "the history database is read-only" in err and "read-only filesystem" in err
    assert main(["bench", "--target", f"local:{tmp_path}", "--workload", "dd", "--param", "block_sizes=64K",
                 "--param", "size=1M", "--param", "repeats=1", "--param", "concurrency=1", "--param", "direction=write",
                 "--save", "--db", url]) == 2
    err = capsys.readouterr().err
    assert "the history database is read-only" in err and "free" not in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1

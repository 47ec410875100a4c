"""The history import boundary: every hostile export of tests/fixtures/hostile/import is
refused whole with the field path (nothing half-imported), on SQLite and PostgreSQL; and a
database that already holds bad rows (written by an older Brickyard) still lists, shows,
compares and exports every other run, with --json output that is always strict JSON."""

from __future__ import annotations

import io
import json
import random

import pytest
from sqlalchemy import text

from brickyard.cli import main
from brickyard.store import HistoryStore, exchange
from brickyard.store.exchange import ExchangeError
from brickyard.store.synthetic import synthetic_run

from ..conftest import FIXTURES

HOSTILE = FIXTURES / "hostile"
INDEX = json.loads((HOSTILE / "index.json").read_text())
IMPORT_CASES = sorted(k for k in INDEX if k.startswith("import/"))


@pytest.fixture
def store(db_url):
    s = HistoryStore(db_url)
    yield s
    s.close()


@pytest.mark.parametrize("name", IMPORT_CASES)
def test_every_hostile_export_is_refused_whole_with_its_field_path(name, db_url):
    store = HistoryStore(db_url)
    try:
        with pytest.raises(ExchangeError) as err:
            store.import_json(HOSTILE / name)
        expected = INDEX[name]["path"]
        if expected:
            assert expected in [p.path for p in err.value.problems], err.value.problems
        assert store.run_count() == 0       # nothing half-imported
    finally:
        store.close()


def test_every_problem_of_an_export_is_reported_not_the_first(store):
    doc = exchange.export_document([synthetic_run(random.Random(6), repeats=1, concurrencies=(1,))] * 2)
    doc = json.loads(json.dumps(doc))
    doc["runs"][0]["started_at"] = -5
    doc["runs"][0]["steps"][0]["metrics"][0]["value"] = "fast"
    doc["runs"][1]["provenance"]["hosts"] = {"gfs1": {"gluster": 10}}
    doc["runs"][1]["steps"][1]["workers"][0]["worker"] = 2**40
    with pytest.raises(ExchangeError) as err:
        store.import_json(io.StringIO(json.dumps(doc)))
    assert [p.path for p in err.value.problems] == [
        "runs[0].started_at", "runs[0].steps[0].metrics[0].value",
        "runs[1].provenance.hosts.gfs1.gluster", "runs[1].steps[1].workers[0].worker"]
    assert store.run_count() == 0


def test_the_same_step_twice_in_a_run_is_refused_not_skipped_silently(store):
    run = synthetic_run(random.Random(8), repeats=1, concurrencies=(1,))
    doc = json.loads(json.dumps(exchange.export_document([run])))
    doc["runs"][0]["steps"].append(doc["runs"][0]["steps"][0])
    with pytest.raises(ExchangeError, match=r"runs\[0\]\.steps\[\d+\]: repeats step 0 repeat 0"):
        store.import_json(io.StringIO(json.dumps(doc)))


def test_an_import_is_one_transaction_a_database_error_half_way_keeps_nothing(store, monkeypatch):
    rng = random.Random(9)
    runs = [synthetic_run(rng, repeats=1, concurrencies=(1,)) for _ in range(3)]
    buf = io.StringIO(json.dumps(exchange.export_document(runs)))
    real = store._insert_run
    calls = []

    def failing(conn, run, topology, owned):
        calls.append(run.run_id)
        if len(calls) == 3:
            raise RuntimeError("disk full")
        return real(conn, run, topology, owned)

    monkeypatch.setattr(store, "_insert_run", failing)
    with pytest.raises(RuntimeError):
        store.import_json(buf)
    assert store.run_count() == 0


def test_devices_fifos_and_oversized_exports_are_refused_before_reading(store, tmp_path, monkeypatch):
    with pytest.raises(ExchangeError, match="not a regular file"):
        store.import_json("/dev/zero")
    big = tmp_path / "big.json"
    big.write_text(json.dumps(exchange.export_document([])))
    monkeypatch.setattr(exchange, "MAX_IMPORT_BYTES", 10)
    with pytest.raises(ExchangeError, match="at most 10 bytes"):
        store.import_json(big)


@pytest.fixture
def poisoned(tmp_path):
    """A SQLite history with four good runs, three of them then damaged the way an old
    Brickyard let imports damage them, plus one sound run."""
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    store = HistoryStore(url)
    rng = random.Random(1)
    runs = [synthetic_run(rng, repeats=1, concurrencies=(1,)) for _ in range(5)]
    for r in runs:
        store.add_run(r)
    with store.engine.begin() as c:
        c.execute(text("update runs set started_at=1e300 where run_id=:i"), {"i": runs[0].run_id})
        c.execute(text("update runs set started_at=-1e20, ended_at=1e308 where run_id=:i"), {"i": runs[1].run_id})
        c.execute(text("update samples set value=9e999 where run_pk=(select id from runs where run_id=:i)"),
                  {"i": runs[2].run_id})
        c.execute(text("update runs set provenance_json='{\"hosts\": 5', status='weird' where run_id=:i"),
                  {"i": runs[3].run_id})
    store.close()
    return url, runs


def _json(capsys) -> object:
    return json.loads(capsys.readouterr().out)   # strict: Python accepts NaN, so check below too


def _strict(doc_text: str) -> object:
    def refuse(name):
        raise ValueError(f"bare {name} in JSON output")
    return json.loads(doc_text, parse_constant=refuse)


def test_a_history_with_bad_rows_still_lists_shows_compares_and_exports_the_rest(poisoned, tmp_path, capsys):
    url, runs = poisoned
    for argv in (["list"], ["list", "--since", "2020-01-01"], ["list", "--json"]):
        assert main(["history", *argv, "--db", url]) == 0
        out = capsys.readouterr().out
        if "--json" in argv:
            assert len(_strict(out)) == 5
    for run in runs:
        assert main(["history", "show", "--db", url, run.run_id]) == 0
        assert run.run_id in capsys.readouterr().out
        assert main(["history", "show", "--db", url, run.run_id, "--json"]) == 0
        _strict(capsys.readouterr().out)
    assert main(["history", "compare", "--db", url, runs[0].run_id, runs[2].run_id, "--json"]) == 0
    _strict(capsys.readouterr().out)
    assert main(["history", "compare", "--db", url, runs[1].run_id, runs[4].run_id]) == 0
    capsys.readouterr()
    out = tmp_path / "x.json"
    assert main(["history", "export", "--db", url, "-o", str(out), "--json"]) == 0
    report = _strict(capsys.readouterr().out)
    assert report["runs"] == 2 and len(report["left_out"]) == 3
    assert main(["history", "export", "--db", url, "--format", "csv", "-o", str(tmp_path / "x.csv")]) == 0
    assert "left out run" in capsys.readouterr().err
    again = f"sqlite:///{tmp_path / 'again.sqlite3'}"
    assert main(["history", "import", "--db", again, str(out), "--json"]) == 0   # what is exported imports
    assert len(_strict(capsys.readouterr().out)["added"]) == 2


def test_csv_to_stdout_under_json_is_refused_with_a_json_document(poisoned, capsys):
    url, _ = poisoned
    assert main(["history", "export", "--db", url, "--format", "csv", "--json"]) == 2
    doc = _strict(capsys.readouterr().out)
    assert doc["ok"] is False and "-o FILE" in doc["error"]

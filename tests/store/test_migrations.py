"""Schema migrations from an empty database and from the previous revision, on SQLite and
PostgreSQL; the models must equal the migrated schema."""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from brickyard.core.results import RunStatus
from brickyard.store import DatabaseError, HistoryStore
from brickyard.store.engine import create_history_engine, current_revision, head_revision, migrate
from brickyard.store.models import Base
from brickyard.store.synthetic import synthetic_run

HEAD = "change_records"


def test_empty_database_migrates_to_head_and_matches_the_models(db_url):
    engine = create_history_engine(db_url)
    assert current_revision(engine) is None
    migrate(engine)
    assert current_revision(engine) == head_revision() == HEAD
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    assert diffs == []
    migrate(engine)                           # a second start-up is a no-op
    assert current_revision(engine) == HEAD
    engine.dispose()


@pytest.mark.parametrize("start", ["0001", "0002", "0003", "0004", "0005", "0006_cancelled_run_status",
                                   "steps_concurrency_index"])
def test_previous_revision_upgrades_keeping_runs_and_marks_orphans_interrupted(db_url, start):
    engine = create_history_engine(db_url)
    migrate(engine, start)
    assert current_revision(engine) == start
    columns = {c["name"] for c in sa.inspect(engine).get_columns("runs")}
    assert ("heartbeat_at" in columns) == (start >= "0002")
    with engine.begin() as conn:             # a run left 'running' by the 0001-era app
        conn.execute(sa.text(
            "INSERT INTO runs (run_id, workload, status, started_at, error, failed_host, target, target_kind,"
            " brickyard_version, hosts, gluster_versions, provenance_json, step_count, sample_count) VALUES"
            " ('old1', 'dd', 'running', 1234.5, '', '', 'client1:/mnt/gv0', 'gluster', '0.0.9', 'gfs1', '10.3',"
            " :prov, 1, 1)"), {"prov": '{"brickyard_version": "0.0.9", "hosts": {"gfs1": {"gluster": "10.3"}},'
                                       ' "target": "client1:/mnt/gv0", "target_kind": "gluster"}'})
        pk = conn.execute(sa.text("SELECT id FROM runs WHERE run_id = 'old1'")).scalar_one()
        conn.execute(sa.text("INSERT INTO steps (run_pk, idx, repeat, params_json, block_size, start_skew_json,"
                             " flags_json, valid, note) VALUES (:pk, 0, 0, '{\"block_size\": 4096}', 4096, '{}',"
                             " '[]', :valid, '')"), {"pk": pk, "valid": True})
        step = conn.execute(sa.text("SELECT id FROM steps")).scalar_one()
        conn.execute(sa.text("INSERT INTO samples (step_id, run_pk, seq, name, value, unit, label) VALUES"
                             " (:s, :pk, 0, 'throughput', 1.25e8, 'B/s', '')"), {"s": step, "pk": pk})
    engine.dispose()

    store = HistoryStore(db_url)             # start-up migrates to head
    assert current_revision(store.engine) == HEAD
    indexes = {i["name"] for i in sa.inspect(store.engine).get_indexes("steps")}
    assert {"ix_steps_point", "ix_steps_concurrency"} <= indexes
    assert store.sweep_values() == ([4096], [])   # the 0001-era step: a block size, no concurrency
    old = store.load_run("old1")
    assert old.status is RunStatus.RUNNING and old.steps[0].metric("throughput").value == 1.25e8
    assert store.mark_interrupted_runs() == ["old1"]
    old = store.load_run("old1")
    assert old.status is RunStatus.INTERRUPTED and "no process owns it" in old.error
    assert old.ended_at == 1234.5
    store.add_run(synthetic_run(random.Random(1), repeats=1))   # the new schema takes new runs
    assert store.run_count() == 2
    store.close()


def test_database_from_a_newer_brickyard_is_refused_by_name(db_url):
    engine = create_history_engine(db_url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0099'"))
    with pytest.raises(DatabaseError, match="revision '0099'.*newer version"):
        migrate(engine)
    engine.dispose()


def test_bad_urls_get_a_clear_error():
    with pytest.raises(DatabaseError, match="not a database URL"):
        create_history_engine("::nonsense::")
    with pytest.raises(DatabaseError, match="no driver"):
        create_history_engine("nosuchdb://x/y")


def test_sqlite_file_uses_wal_foreign_keys_and_a_busy_timeout(sqlite_url):
    store = HistoryStore(sqlite_url)
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 10_000
    store.close()


def test_opening_a_new_file_waits_for_another_instance_that_holds_its_write_lock(sqlite_url, tmp_path):
    """The race behind instances starting at once: while one holds the write lock of a file
    still in rollback mode, SQLite refuses another's switch to WAL at once ("database is
    locked", no busy handler), so the store must wait for the lock itself."""
    import sqlite3
    import threading

    other = sqlite3.connect(tmp_path / "history.sqlite3", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    try:
        store = HistoryStore(sqlite_url)
    finally:
        release.join()
        other.close()
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert current_revision(store.engine) == head_revision()
    store.close()


def test_instances_starting_at_once_migrate_once_without_errors(db_url):
    import subprocess
    import sys

    code = "import sys; from brickyard.store import HistoryStore; HistoryStore(sys.argv[1]).close(); print('ok')"
    procs = [subprocess.Popen([sys.executable, "-c", code, db_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(3)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err[-500:] for _, err in results]
    engine = create_history_engine(db_url)
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM alembic_version")).scalar() == 1
    engine.dispose()


def test_stonewall_estimates_of_old_runs_are_renamed_not_mixed_with_measured_ones(db_url):
    """Revision 0005: a stonewall saved before Brickyard measured it was the sum of rates again;
    it becomes ``stonewall_estimate``, in the database and in an old export being imported."""
    import importlib
    import json
    from pathlib import Path

    from brickyard.store import legacy
    from brickyard.store.codec import run_from_dict

    migration = importlib.import_module("brickyard.store.migrations.versions.0005_stonewall_estimates")
    assert (migration.OLD_LABEL, migration.NEW_LABEL) == (legacy.OLD_STONEWALL_LABEL, legacy.ESTIMATE_LABEL)
    export = json.loads((Path(__file__).parents[1] / "fixtures" / "runs" / "local-dd-both-4K-1M.json").read_text())
    old_run, new_run = run_from_dict(export["runs"][0]), synthetic_run(random.Random(2), repeats=1)
    assert any(m.label == legacy.OLD_STONEWALL_LABEL for s in old_run.steps for m in s.metrics)

    engine = create_history_engine(db_url)
    migrate(engine, "0004")
    engine.dispose()
    engine = create_history_engine(db_url)
    with engine.begin() as conn:                     # rows an 0004-era Brickyard wrote
        conn.execute(sa.text("INSERT INTO runs (run_id, workload, status, started_at, error, failed_host, target,"
                             " target_kind, brickyard_version, hosts, gluster_versions, provenance_json, step_count,"
                             " sample_count) VALUES ('old1', 'dd', 'complete', 1.0, '', '', 'local:/x', 'local',"
                             " '0.0.9', 'local', '', :prov, 1, 2)"),
                     {"prov": '{"brickyard_version": "0.0.9", "hosts": {}, "target": "local:/x", "target_kind": "local"}'})
        pk = conn.execute(sa.text("SELECT id FROM runs WHERE run_id = 'old1'")).scalar_one()
        conn.execute(sa.text("INSERT INTO steps (run_pk, idx, repeat, params_json, start_skew_json, flags_json, valid,"
                             " note) VALUES (:pk, 0, 0, '{}', '{}', '[]', :v, '')"), {"pk": pk, "v": True})
        step = conn.execute(sa.text("SELECT id FROM steps")).scalar_one()
        for seq, (name, label) in enumerate([("stonewall_throughput", legacy.OLD_STONEWALL_LABEL),
                                             ("throughput", "total bytes ÷ (last end − first start)")]):
            conn.execute(sa.text("INSERT INTO samples (step_id, run_pk, seq, name, value, unit, label) VALUES"
                                 " (:s, :pk, :seq, :name, 1.5e8, 'B/s', :label)"),
                         {"s": step, "pk": pk, "seq": seq, "name": name, "label": label})
    engine.dispose()
    store = HistoryStore(db_url)                     # start-up migrates to 0005
    (old_step,) = store.load_run("old1").steps
    assert [m.name for m in old_step.metrics] == ["stonewall_estimate", "throughput"]
    assert old_step.metrics[0].label == legacy.ESTIMATE_LABEL
    store.add_run(old_run)                           # an old export, imported now
    names = {m.name for s in store.load_run(old_run.run_id).steps for m in s.metrics}
    assert "stonewall_estimate" in names and "stonewall_throughput" not in names
    store.add_run(new_run)                           # a measured stonewall keeps its name
    assert all(m.label != legacy.ESTIMATE_LABEL for s in store.load_run(new_run.run_id).steps for m in s.metrics)
    store.close()


def test_runs_an_older_brickyard_stored_partial_or_failed_after_a_cancel_become_cancelled(db_url):
    """Revision 0006: History and the CLI say cancelled where the Run tab did (issue 21 item 7), in
    the database and in an old export being imported."""
    import dataclasses

    engine = create_history_engine(db_url)
    migrate(engine, "0005")
    with engine.begin() as conn:
        for run_id, status, error, steps in (("c1", "partial", "cancelled by the user", 3),
                                             ("c2", "failed", "cancelled by the user", 0),
                                             ("p1", "partial", "gfs2 stopped answering", 2)):
            conn.execute(sa.text(
                "INSERT INTO runs (run_id, workload, status, started_at, error, failed_host, target, target_kind,"
                " brickyard_version, hosts, gluster_versions, provenance_json, step_count, sample_count) VALUES"
                " (:id, 'dd', :st, 1.0, :err, '', 'local:/x', 'local', '0.0.9', 'local', '',"
                " '{\"brickyard_version\": \"0.0.9\", \"hosts\": {}, \"target\": \"local:/x\", \"target_kind\": \"local\"}',"
                " :steps, 0)"), {"id": run_id, "st": status, "err": error, "steps": steps})
    engine.dispose()
    store = HistoryStore(db_url)
    assert current_revision(store.engine) == HEAD
    assert [store.load_run(r).status for r in ("c1", "c2", "p1")] == [RunStatus.CANCELLED, RunStatus.CANCELLED,
                                                                       RunStatus.PARTIAL]
    from brickyard.store import RunFilter
    assert {s.run_id for s in store.list_runs(RunFilter(status="cancelled"))} == {"c1", "c2"}
    old = dataclasses.replace(synthetic_run(random.Random(3), repeats=1), status=RunStatus.PARTIAL,
                              error="cancelled by the user")
    store.add_run(old)                               # an old export, imported now
    assert store.load_run(old.run_id).status is RunStatus.CANCELLED
    store.close()
    from alembic import command

    from brickyard.store.engine import _alembic_config

    engine = create_history_engine(db_url)
    with engine.begin() as conn:                     # and back: what an older Brickyard can read
        command.downgrade(_alembic_config(conn), "0005")
    with engine.connect() as conn:
        rows = dict(conn.execute(sa.text("SELECT run_id, status FROM runs")).all())
    assert (rows["c1"], rows["c2"], rows["p1"]) == ("partial", "failed", "partial")


def test_the_shipped_head_is_read_without_alembic_as_alembic_reads_it():
    from brickyard.store.engine import shipped_head

    assert shipped_head() == head_revision()


def test_alembic_loads_only_when_a_migration_is_due(tmp_path):
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    probe = ("import sys; from brickyard.store import HistoryStore; HistoryStore(sys.argv[1]).close(); "
             "print(sorted({'alembic', 'mako'} & set(sys.modules)))")

    def opened() -> str:
        proc = subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    assert opened() == "['alembic', 'mako']"     # a new file: the schema is created by the migrations
    assert opened() == "[]"                      # at the newest revision: nothing to migrate, no Alembic
    engine = create_history_engine(url)
    with engine.begin() as conn:                 # one revision behind (as an older Brickyard left it)
        conn.execute(sa.text("UPDATE alembic_version SET version_num = 'steps_concurrency_index'"))
        conn.execute(sa.text("DROP TABLE change_outputs"))
        conn.execute(sa.text("DROP TABLE changes"))
    engine.dispose()
    assert opened() == "['alembic', 'mako']"
    engine = create_history_engine(url)
    assert current_revision(engine) == head_revision()
    engine.dispose()

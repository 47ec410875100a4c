"""HistorySink: the real run engine (dd on this machine) streams into a real history, and
what is stored equals what the engine returned — including provenance learnt mid-run."""

from __future__ import annotations

import asyncio
import dataclasses
import random

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore, RunFilter
from brickyard.store.sink import HistorySink
from brickyard.store.synthetic import synthetic_run


def test_real_dd_run_streams_into_the_history_step_by_step(tmp_path, sqlite_url):
    from brickyard.bench import registry
    from brickyard.bench.engine import TargetSpec, run_benchmark
    from brickyard.remote.local import LocalExecutor

    store = HistoryStore(sqlite_url)
    seen_while_running: list[int] = []

    class Watching(HistorySink):
        def step_finished(self, run, step):
            super().step_finished(run, step)
            # committed before the engine goes on: another connection sees it at once
            reader = HistoryStore(sqlite_url, migrate_schema=False)
            seen_while_running.append(len(reader.load_run(run.run_id).steps))
            assert reader.list_runs()[0].status is RunStatus.RUNNING
            reader.close()

    dd = registry.find("dd", tmp_path / "no-user-plugins")
    target = tmp_path / "target"
    target.mkdir()
    run = asyncio.run(run_benchmark(dd, {"block_sizes": "64K,1M", "concurrency": "1,2", "size": "2M",
                                         "repeats": "2", "direction": "write"},
                                    [(TargetSpec("local", str(target)), LocalExecutor("local"))],
                                    sink=Watching(store)))
    assert run.status is RunStatus.COMPLETE, run.error
    assert seen_while_running == list(range(1, len(run.steps) + 1))
    assert store.load_run(run.run_id) == run
    assert store.list_runs(RunFilter(host="local", workload="dd"))[0].run_id == run.run_id
    store.close()


def test_provenance_learnt_after_the_start_replaces_the_sparse_one(db_url):
    store = HistoryStore(db_url)
    full = synthetic_run(random.Random(60), repeats=1, concurrencies=(1,), block_sizes=(4096, 65536))
    sparse = dataclasses.replace(full.provenance, hosts={}, volume_name="", layout={}, volume_options={},
                                 target_kind="unknown")
    run = dataclasses.replace(full, status=RunStatus.RUNNING, ended_at=None, steps=[], provenance=sparse)
    sink = HistorySink(store)
    sink.run_started(run)
    assert store.list_runs()[0].gluster_versions == ""
    run.provenance = full.provenance            # what the engine does once it has asked the hosts
    for step in full.steps:
        run.steps.append(step)
        sink.step_finished(run, step)
    run.status, run.ended_at = RunStatus.COMPLETE, full.ended_at
    sink.run_finished(run)
    assert store.load_run(run.run_id) == full
    summary = store.list_runs(RunFilter(gluster_version="10.3", option="performance.write-behind=on"))[0]
    assert summary.layout == "replica 3 (3 bricks)" and summary.status is RunStatus.COMPLETE
    store.close()


def test_progress_events_renew_the_heartbeat_now_and_then(sqlite_url):
    wall = [1000.0]
    store = HistoryStore(sqlite_url, clock=lambda: wall[0])
    mono = [0.0]
    sink = HistorySink(store, clock=lambda: mono[0])
    run = synthetic_run(random.Random(61), repeats=1, status=RunStatus.RUNNING)
    run = dataclasses.replace(run, steps=[])
    sink.run_started(run)

    def heartbeat() -> float:
        with store.engine.connect() as conn:
            return conn.exec_driver_sql("SELECT heartbeat_at FROM runs").scalar()

    for t in (1.0, 10.0, 29.0):                 # first event writes, the next ones within 30 s do not
        wall[0], mono[0] = 1000.0 + t, t
        sink.progress(run, object())
    assert heartbeat() == 1001.0
    wall[0], mono[0] = 1031.5, 31.5
    sink.progress(run, object())
    assert heartbeat() == 1031.5
    store.close()

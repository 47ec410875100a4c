"""HistoryStore against real SQLite files and a real PostgreSQL server."""

from __future__ import annotations

import dataclasses
import io
import json
import random

import pytest

from brickyard.core.results import Metric, RunStatus, StepResult
from brickyard.store import HistoryStore, RunFilter, StoreError
from brickyard.store import exchange
from brickyard.store.synthetic import synthetic_run


@pytest.fixture
def store(db_url):
    s = HistoryStore(db_url)
    yield s
    s.close()


def _running(run):
    return dataclasses.replace(run, status=RunStatus.RUNNING, ended_at=None, steps=[])


def test_run_written_step_by_step_reads_back_equal(store):
    run = synthetic_run(random.Random(1), repeats=2)
    store.begin_run(_running(run))
    for step in run.steps:
        store.add_step(run.run_id, step)
    store.finish_run(run.run_id, RunStatus.COMPLETE, ended_at=run.ended_at)
    back = store.load_run(run.run_id)
    assert back == run          # every float, dict order, worker and metric label survives
    summary = store.list_runs()[0]
    assert (summary.step_count, summary.sample_count) == (len(run.steps), sum(len(s.metrics) for s in run.steps))
    assert summary.layout == "replica 3 (3 bricks)" and summary.gluster_versions == "10.3"


def test_steps_of_a_batch_commit_together_and_duplicates_are_refused(store):
    run = synthetic_run(random.Random(2), repeats=1, concurrencies=(1,))
    store.begin_run(_running(run))
    store.add_steps(run.run_id, run.steps[:3])
    with pytest.raises(StoreError, match="already stored"):
        store.add_steps(run.run_id, [run.steps[3], run.steps[0]])   # whole batch rolls back
    assert [s.index for s in store.load_run(run.run_id).steps] == [0, 1, 2]
    with pytest.raises(StoreError, match="already in the history"):
        store.begin_run(_running(run))


def test_finished_run_refuses_more_steps_and_unknown_runs_are_named(store):
    run = synthetic_run(random.Random(3), repeats=1, concurrencies=(1,))
    store.begin_run(_running(run))
    store.finish_run(run.run_id, "partial", error="gfs2 stopped answering", failed_host="gfs2")
    with pytest.raises(StoreError, match="is partial"):
        store.add_step(run.run_id, run.steps[0])
    loaded = store.load_run(run.run_id)
    assert (loaded.status, loaded.error, loaded.failed_host) == (RunStatus.PARTIAL, "gfs2 stopped answering", "gfs2")
    with pytest.raises(StoreError, match="not in the history: nope"):
        store.load_run("nope")
    with pytest.raises(StoreError, match="final status"):
        store.finish_run(run.run_id, RunStatus.RUNNING)


def test_list_filters_by_volume_layout_workload_host_version_option_and_date(store):
    rng = random.Random(4)
    small = dict(block_sizes=(4096,), concurrencies=(1,), repeats=1)
    a = synthetic_run(rng, gluster="3.12.15", layout="replica", started_at=1000.0, **small)
    b = synthetic_run(rng, gluster="6.0", layout="disperse", started_at=2000.0,
                      options={"performance.write-behind": "off"}, **small)
    c = synthetic_run(rng, gluster="6.0", layout="replica", started_at=3000.0, workload="smallfile", **small)
    for r in (a, b, c):
        store.add_run(r)
    ids = lambda **kw: [s.run_id for s in store.list_runs(RunFilter(**kw))]  # noqa: E731
    assert ids() == [c.run_id, b.run_id, a.run_id]             # newest first
    assert ids(gluster_version="6.0") == [c.run_id, b.run_id]
    assert ids(layout="disperse") == [b.run_id]
    assert ids(layout="disperse 6 redundancy 2 (6 bricks)") == [b.run_id]
    assert ids(workload="smallfile") == [c.run_id]
    assert ids(option="performance.write-behind=off") == [b.run_id]
    assert ids(option="performance.write-behind") == [c.run_id, b.run_id, a.run_id]
    assert ids(since=1500.0, until=2500.0) == [b.run_id]
    assert ids(host="gfs2", volume="gv0") == [c.run_id, b.run_id, a.run_id]
    assert ids(host="elsewhere") == []
    choices = store.filter_choices()
    assert choices.gluster_versions == ["3.12.15", "6.0"]
    assert "performance.write-behind=off" in choices.options and choices.workloads == ["dd", "smallfile"]


def test_json_export_imports_elsewhere_without_duplicates(store, sqlite_url):
    rng = random.Random(5)
    runs = [synthetic_run(rng, repeats=2, concurrencies=(1,), block_sizes=(4096, 1 << 20)) for _ in range(3)]
    for r in runs:
        store.add_run(r)
    buf = io.StringIO()
    assert store.export_json([runs[0].run_id, runs[2].run_id], buf).written == 2
    other = HistoryStore(sqlite_url if "postgresql" in store.url else sqlite_url.replace(".sqlite3", "-2.sqlite3"))
    first = other.import_json(io.StringIO(buf.getvalue()))
    again = other.import_json(io.StringIO(buf.getvalue()))
    assert first.added == [runs[0].run_id, runs[2].run_id] and first.skipped == []
    assert again.added == [] and again.skipped == first.added
    assert other.load_run(runs[2].run_id) == runs[2]
    assert other.run_count() == 2
    other.close()


def test_import_rejects_a_bad_file_with_the_field_named(store):
    doc = exchange.export_document([synthetic_run(random.Random(6), repeats=1, concurrencies=(1,))])
    doc["runs"][0]["steps"][0]["metrics"][0]["value"] = "fast"
    with pytest.raises(exchange.ExchangeError, match=r"runs\[0\]\.steps\[0\]\.metrics\[0\]\.value: must be a number"):
        store.import_json(io.StringIO(json.dumps(doc)))
    with pytest.raises(exchange.ExchangeError, match="not a Brickyard history export"):
        store.import_json(io.StringIO('{"runs": []}'))
    assert store.run_count() == 0


def test_csv_export_has_one_row_per_metric_of_each_step(store):
    run = synthetic_run(random.Random(7), repeats=2, concurrencies=(1, 4), block_sizes=(4096, 65536),
                        metrics=("throughput", "tail"))
    store.add_run(run)
    buf = io.StringIO()
    store.export_csv([], buf)
    lines = buf.getvalue().splitlines()
    assert lines[0].split(",")[:3] == ["run_id", "workload", "status"]
    assert len(lines) == 1 + len(run.steps) * 2
    first = run.steps[0].metric("throughput")
    assert lines[1].endswith(f"throughput,{first.value!r},B/s")


def test_topology_snapshot_is_stored_once_and_read_back(store):
    from brickyard.core import topofile
    from brickyard.core.topology import Topology

    topo = Topology(name="lab")
    rng = random.Random(8)
    a, b = (dataclasses.replace(synthetic_run(rng, repeats=1), status=RunStatus.RUNNING) for _ in range(2))
    store.begin_run(a, topology=topo)
    store.begin_run(b, topology=topo)
    assert store.topology_snapshot(a.run_id) == topofile.dumps(topo) == store.topology_snapshot(b.run_id)


def test_metric_values_keep_full_double_precision(store):
    run = synthetic_run(random.Random(9), repeats=1, concurrencies=(1,), block_sizes=(4096,))
    odd = dataclasses.replace(run.steps[0], metrics=(Metric("lstat_us", 0.1 + 0.2, "us", "x"),
                                                     Metric("tiny", 5e-324, "s")))
    store.add_run(dataclasses.replace(run, steps=[odd]))
    assert store.load_run(run.run_id).steps[0].metrics == odd.metrics


def test_delete_run_removes_its_steps_and_samples(store):
    rng = random.Random(10)
    keep, drop = synthetic_run(rng, repeats=1), synthetic_run(rng, repeats=1)
    store.add_run(keep)
    store.add_run(drop)
    store.delete_run(drop.run_id)
    assert [s.run_id for s in store.list_runs()] == [keep.run_id]
    assert store.load_run(keep.run_id) == keep


def test_step_with_unusual_params_round_trips(store):
    run = synthetic_run(random.Random(11), repeats=1, concurrencies=(1,), block_sizes=(4096,))
    step = StepResult(index=0, params={"files": 1000, "op": "create", "nested": {"a": [1, 2]}}, repeat=0,
                      workers=(), metrics=(Metric("files_per_s", 812.5, "files/s"),), flags=("stall",), valid=False,
                      note="worker 3 stalled")
    store.add_run(dataclasses.replace(run, steps=[step]))
    assert store.load_run(run.run_id).steps == [step]


def test_metric_trend_gives_one_median_per_run_at_a_point_oldest_first(store):
    rng = random.Random(12)
    runs = [synthetic_run(rng, started_at=t, repeats=3, block_sizes=(4096, 1 << 20), concurrencies=(1, 4))
            for t in (3000.0, 1000.0, 2000.0)]
    for r in runs:
        store.add_run(r)
    trend = store.metric_trend("throughput", block_size=1 << 20, concurrency=4, direction="write")
    assert [t[0] for t in trend] == [1000.0, 2000.0, 3000.0]
    from brickyard.core.series import value_at
    for started, run_id, median, series in trend:
        run = next(r for r in runs if r.run_id == run_id)
        assert median == value_at(run, "throughput", 1 << 20, 4).median
        assert series == "gluster gv0"
    assert len(store.metric_trend("throughput", filters=RunFilter(since=1500.0))) == 2


def test_in_memory_sqlite_keeps_one_database_for_the_store():
    store = HistoryStore("sqlite://")
    run = synthetic_run(random.Random(13), repeats=1, concurrencies=(1,), block_sizes=(4096,))
    store.add_run(run)
    assert store.load_run(run.run_id) == run
    store.close()


def test_filter_choices_and_pickers_list_each_stored_value_once_in_order(store):
    import dataclasses

    rng = random.Random(8)
    store.add_run(synthetic_run(rng, gluster="10.3", block_sizes=(1 << 20, 4096), concurrencies=(8, 1), repeats=1))
    store.add_run(synthetic_run(rng, gluster="9.6", block_sizes=(65536,), concurrencies=(4,), repeats=1,
                                workload="fio"))
    local = synthetic_run(rng, gluster="11.1", block_sizes=(4096,), concurrencies=(1,), repeats=1)
    # a local baseline on a machine that has gluster 11.1 installed: not a gluster version measured
    store.add_run(dataclasses.replace(local, provenance=dataclasses.replace(
        local.provenance, target="local:/var/tmp/base", target_kind="local")))
    assert store.sweep_values() == ([4096, 65536, 1 << 20], [1, 4, 8])
    choices = store.filter_choices()
    assert choices.gluster_versions == ["9.6", "10.3"]
    assert choices.workloads == ["dd", "fio"] and choices.hosts == ["gfs1", "gfs2", "gfs3"]

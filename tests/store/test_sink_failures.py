"""A history database that fails mid-run never stops the measurement: the real dd run
completes with every step in its result, what could be stored is stored without a gap, and
the stored run ends up complete (the database recovered), interrupted with the reason, or
left for the next start to mark. (A real full disk: tests/cli/test_bench_full_disk.py.)"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.exc import OperationalError

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core.results import RunStatus
from brickyard.remote.local import LocalExecutor
from brickyard.store import HistoryStore
from brickyard.store.sink import HistorySink

DD = {"block_sizes": "64K,1M", "concurrency": "1,2", "size": "1M", "repeats": "1", "direction": "write"}


def disk_full() -> OperationalError:
    return OperationalError("INSERT INTO steps …", {}, Exception("database or disk is full"))


class Failing:
    """Makes chosen store methods raise a real SQLAlchemy 'disk full' error while ``on``."""

    def __init__(self, store: HistoryStore, *methods: str):
        self.on = False
        for name in methods:
            real = getattr(store, name)

            def wrapped(*args, _real=real, **kw):
                if self.on:
                    raise disk_full()
                return _real(*args, **kw)
            setattr(store, name, wrapped)


class SwitchingSink(HistorySink):
    """A HistorySink that calls ``after_step(steps so far)`` once each step is handed over."""

    def __init__(self, store, after_step=None):
        super().__init__(store)
        self.after_step = after_step

    def step_finished(self, run, step):
        super().step_finished(run, step)
        if self.after_step:
            self.after_step(len(run.steps))


def dd_run(tmp_path, sink):
    target = tmp_path / "target"
    target.mkdir(exist_ok=True)
    return asyncio.run(run_benchmark(registry.find("dd", tmp_path / "no-plugins"), DD,
                                     [(TargetSpec("local", str(target)), LocalExecutor("local"))], sink=sink))


def test_steps_that_could_not_be_stored_go_in_with_the_next_one_once_the_database_recovers(tmp_path, sqlite_url):
    store = HistoryStore(sqlite_url)
    failing = Failing(store, "add_steps", "update_provenance", "heartbeat")
    sink = SwitchingSink(store, after_step=lambda n: setattr(failing, "on", n in (1, 2)))
    run = dd_run(tmp_path, sink)
    assert run.status is RunStatus.COMPLETE and len(run.steps) == 4, run.error
    assert "disk is full" in sink.problem and "step #1" in sink.problem
    assert sink.outcome[run.run_id] == "complete"
    assert store.load_run(run.run_id) == run          # no gap: steps 2 and 3 went in with step 4
    store.close()


def test_a_database_that_stays_full_marks_the_run_interrupted_with_the_reason(tmp_path, sqlite_url):
    store = HistoryStore(sqlite_url)
    failing = Failing(store, "add_steps", "update_provenance")
    sink = SwitchingSink(store, after_step=lambda n: setattr(failing, "on", True))
    run = dd_run(tmp_path, sink)
    assert run.status is RunStatus.COMPLETE and len(run.steps) == 4 and all(s.valid for s in run.steps)
    stored = store.load_run(run.run_id)
    assert stored.status is RunStatus.INTERRUPTED and len(stored.steps) == 1
    assert "database or disk is full" in stored.error and "1 of 4 measured steps were stored" in stored.error
    assert sink.outcome[run.run_id].startswith("interrupted:")
    store.close()


def test_a_run_the_database_never_took_is_measured_whole_and_said_not_stored(tmp_path, sqlite_url):
    store = HistoryStore(sqlite_url)
    failing = Failing(store, "begin_run", "finish_run")
    failing.on = True
    sink = HistorySink(store)
    run = dd_run(tmp_path, sink)
    assert run.status is RunStatus.COMPLETE and len(run.steps) == 4 and run.error == ""
    assert sink.outcome[run.run_id] == "not stored" and "storing the new run" in sink.problem
    assert store.list_runs() == []
    store.close()


def test_when_even_the_final_mark_fails_the_next_start_marks_the_run_interrupted(tmp_path, sqlite_url, monkeypatch):
    store = HistoryStore(sqlite_url)
    failing = Failing(store, "add_steps", "update_provenance", "finish_run")
    sink = SwitchingSink(store, after_step=lambda n: setattr(failing, "on", True))
    run = dd_run(tmp_path, sink)
    assert run.status is RunStatus.COMPLETE and len(run.steps) == 4
    assert sink.outcome[run.run_id].startswith("left running")
    later = HistoryStore(sqlite_url)      # the next start, in a new process: this one is gone by then
    later.pid = -1
    monkeypatch.setattr("brickyard.store.history.pid_alive", lambda pid: False)
    assert later.mark_interrupted_runs() == [run.run_id]
    stored = later.load_run(run.run_id)
    assert stored.status is RunStatus.INTERRUPTED and len(stored.steps) == 1
    later.close()
    store.close()


def test_a_sink_that_raises_never_stops_the_measurement_and_is_named_in_the_result(tmp_path):
    class Broken:
        def run_started(self, run):
            raise OSError(28, "No space left on device")

        def step_finished(self, run, step):
            raise OSError(28, "No space left on device")

        def progress(self, run, event):
            raise OSError(28, "No space left on device")

        def run_finished(self, run):
            raise OSError(28, "No space left on device")

    target = tmp_path / "target"
    target.mkdir()
    run = asyncio.run(run_benchmark(registry.find("dd", tmp_path / "no-plugins"), DD,
                                    [(TargetSpec("local", str(target)), LocalExecutor("local"))], sink=Broken()))
    assert run.status is RunStatus.COMPLETE and len(run.steps) == 4 and all(s.valid for s in run.steps)
    assert run.error.count("the result sink failed") == 1 and "No space left on device" in run.error
    assert list(target.iterdir()) == []


@pytest.mark.parametrize("first_fails", [True, False])
def test_one_failing_sink_does_not_keep_steps_from_the_others(first_fails):
    from brickyard.bench.request import FanOutSink

    got = []

    class Good:
        def step_finished(self, run, step):
            got.append(step)

    class Bad:
        def step_finished(self, run, step):
            raise RuntimeError("screen closed")

    fan = FanOutSink([Bad(), Good()] if first_fails else [Good(), Bad()])
    with pytest.raises(RuntimeError):
        fan.step_finished(None, "step")
    assert got == ["step"]

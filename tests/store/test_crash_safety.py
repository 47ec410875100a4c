"""Nothing committed is lost: a child process writing a run is SIGKILLed mid-run; every
step it reported committed is readable afterwards, and the next start-up marks the run
interrupted only once its writer is really gone. Two instances on one SQLite file."""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run

WRITER = textwrap.dedent("""
    import dataclasses, random, sys
    from brickyard.core.results import RunStatus
    from brickyard.store import HistoryStore
    from brickyard.store.synthetic import synthetic_run
    url, seed, hold = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "hold"
    run = synthetic_run(random.Random(seed), repeats=3)
    store = HistoryStore(url)
    store.begin_run(dataclasses.replace(run, status=RunStatus.RUNNING, ended_at=None, steps=[]))
    print("begun", run.run_id, flush=True)
    if hold:
        sys.stdin.readline()
    for step in run.steps:
        store.add_step(run.run_id, step)
        print("committed", step.index, flush=True)
    store.finish_run(run.run_id, RunStatus.COMPLETE)
    print("done", flush=True)
""")


def _spawn(url: str, seed: int, hold: bool = False) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, url, str(seed), "hold" if hold else "go"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stdin.close()


def test_sigkill_mid_run_keeps_every_committed_step(db_url):
    HistoryStore(db_url).close()              # migrate first, so the child starts writing at once
    child = _spawn(db_url, seed=21)
    run_id = child.stdout.readline().split()[1]
    committed = []
    while len(committed) < 12:
        line = child.stdout.readline()
        assert line.startswith("committed"), line
        committed.append(int(line.split()[1]))
    _kill(child)

    expected = synthetic_run(random.Random(21), repeats=3)
    store = HistoryStore(db_url)
    got = store.load_run(run_id)
    assert got.status is RunStatus.RUNNING
    assert len(got.steps) >= len(committed)                 # the kill may land after one more commit
    by_index = {s.index: s for s in expected.steps}
    for step in got.steps:                                   # what is there is whole and exact
        assert step == by_index[step.index]
    assert {s.index for s in got.steps} >= set(committed)
    assert store.mark_interrupted_runs() == [run_id]
    got = store.load_run(run_id)
    assert got.status is RunStatus.INTERRUPTED and f"{len(got.steps)} measured steps were kept" in got.error
    assert store.mark_interrupted_runs() == []
    store.close()


def test_a_live_run_of_another_instance_is_not_marked_interrupted(sqlite_url):
    HistoryStore(sqlite_url).close()
    child = _spawn(sqlite_url, seed=22, hold=True)
    run_id = child.stdout.readline().split()[1]
    store = HistoryStore(sqlite_url)
    try:
        assert store.mark_interrupted_runs() == []           # its owner is alive
        assert store.load_run(run_id).status is RunStatus.RUNNING
    finally:
        _kill(child)
    assert store.mark_interrupted_runs() == [run_id]
    store.close()


def test_stale_heartbeat_from_another_host_counts_as_gone(sqlite_url):
    now = [10_000.0]
    store = HistoryStore(sqlite_url, clock=lambda: now[0])
    run = synthetic_run(random.Random(23), repeats=1, status=RunStatus.RUNNING)
    store.begin_run(dataclasses.replace(run, steps=[]))
    other = HistoryStore(sqlite_url, clock=lambda: now[0])
    other.host = "another-workstation"
    now[0] += 60
    assert other.mark_interrupted_runs(stale_after=600) == []
    now[0] += 600
    assert other.mark_interrupted_runs(stale_after=600) == [run.run_id]
    assert "no sign of life from" in other.load_run(run.run_id).error
    store.add_step(run.run_id, run.steps[0])          # the owner was alive after all: it runs on
    back = store.load_run(run.run_id)
    assert (back.status, back.error, back.ended_at) == (RunStatus.RUNNING, "", None)
    store.close()
    other.close()


def test_two_instances_writing_one_sqlite_file_at_once_do_not_corrupt_it(sqlite_url):
    HistoryStore(sqlite_url).close()
    children = [_spawn(sqlite_url, seed=s) for s in (31, 32, 33)]
    run_ids = []
    for child in children:
        run_ids.append(child.stdout.readline().split()[1])
    for child in children:
        child.stdin.close()
        out = child.stdout.read()
        child.stdout.close()
        assert child.wait(timeout=300) == 0 and out.rstrip().endswith("done")
    store = HistoryStore(sqlite_url)
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
    for seed, run_id in zip((31, 32, 33), run_ids):
        got = store.load_run(run_id)
        assert got.status is RunStatus.COMPLETE
        assert got.steps == synthetic_run(random.Random(seed), repeats=3).steps
    store.close()


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_a_zombie_owner_counts_as_gone(sqlite_url):
    """A killed app whose parent has not reaped it yet still has a pid; it is not alive."""
    HistoryStore(sqlite_url).close()
    child = _spawn(sqlite_url, seed=24, hold=True)
    run_id = child.stdout.readline().split()[1]
    os.kill(child.pid, signal.SIGKILL)
    for _ in range(200):                               # not reaped yet: a zombie
        with open(f"/proc/{child.pid}/stat") as fh:
            if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.05)
    store = HistoryStore(sqlite_url)
    assert store.mark_interrupted_runs() == [run_id]
    store.close()
    child.wait(timeout=30)
    child.stdout.close()
    child.stdin.close()


def test_next_start_of_the_cli_marks_a_killed_run_interrupted(sqlite_url, capsys):
    import json

    from brickyard.cli import main

    HistoryStore(sqlite_url).close()
    child = _spawn(sqlite_url, seed=25, hold=True)
    run_id = child.stdout.readline().split()[1]
    _kill(child)
    assert main(["history", "list", "--db", sqlite_url, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["run_id"], row["status"]) == (run_id, "interrupted")
    assert "is gone" in row["error"]

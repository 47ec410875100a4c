"""`brickyard bench --save --json` with the history database on a real tmpfs that fills up
mid-run: the measurement completes, stdout is one whole JSON document holding every step and
saying the run was not saved and why, the exit code is 1, and once there is space again the
run is readable and not left "running" (marked interrupted at the latest by the next start).
A database already full when the run starts is refused up front (exit 2), naming the space.

Mounting a tmpfs needs root: without it these skip, except under CI=true, where they fail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore

from ..conftest import ROOT
from ..tmpfs import needs_root, tmpfs

DD = ["--workload", "dd", "--param", "block_sizes=64K,1M", "--param", "concurrency=1,2", "--param", "size=1M",
      "--param", "direction=write", "--param", "repeats=1"]

# runs `brickyard bench` in a process of its own (so the next start sees its owner gone),
# filling the database's file system right after the first step has been stored
FILL_AFTER_FIRST_STEP = r"""
import sys
sys.path.insert(0, sys.argv[1])                     # the checkout: tests.tmpfs
import brickyard.store.sink as sink
from brickyard.cli import main
from tests.tmpfs import fill

filler, real = sys.argv[2], sink.HistorySink.step_finished

def step_finished(self, run, step):
    real(self, run, step)
    if len(run.steps) == 1:
        fill(filler)

sink.HistorySink.step_finished = step_finished
if sys.argv[3] == "now":
    fill(filler)
sys.exit(main(sys.argv[4:]))
"""


@pytest.fixture
def small_fs(tmp_path):
    needs_root("the full-disk test (it mounts a tmpfs)")
    with tmpfs(tmp_path / "small-fs", "size=2m,mode=0700") as point:
        yield point


def bench(tmp_path, fs: Path, when: str) -> tuple[int, dict]:
    url = f"sqlite:///{fs / 'history.sqlite3'}"
    HistoryStore(url).close()                       # a migrated, empty history before the disk fills
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-c", FILL_AFTER_FIRST_STEP, str(ROOT), str(fs / "filler"), when,
                           "bench", "--target", f"local:{work}", *DD, "--save", "--db", url, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    out = json.loads(proc.stdout)                   # one whole document, nothing else on stdout
    assert list(work.iterdir()) == []
    (fs / "filler").unlink()                        # space again: the next start
    return proc.returncode, out


def test_a_database_that_fills_mid_run_keeps_the_measurement_and_the_run_is_recoverable(tmp_path, small_fs):
    code, out = bench(tmp_path, small_fs, "after-first-step")
    assert out["status"] == "complete" and len(out["steps"]) == 4 and all(s["valid"] for s in out["steps"])
    assert code == 1 and out["exit_code"] == 1
    saved = out["history"]
    assert saved["saved"] is False and "database or disk is full" in saved["problem"], saved
    with HistoryStore.open(f"sqlite:///{small_fs / 'history.sqlite3'}") as store:   # marks what was left running
        run = store.load_run(out["run_id"])
        assert run.status is RunStatus.INTERRUPTED, run.status
        assert [s.index for s in run.steps] == [0] and run.steps[0] == _step(out["steps"][0], run.steps[0])
        assert store.list_runs()[0].run_id == out["run_id"]


def test_a_database_full_before_the_run_is_refused_up_front_naming_the_free_space(tmp_path, small_fs):
    """Nothing measured is lost here: the run is refused before it starts, saying why."""
    code, out = bench(tmp_path, small_fs, "now")
    assert code == 2 and out["ok"] is False and out["exit"] == 2
    assert out["error"].startswith("cannot open the history database") and "nothing was measured" in out["error"]
    assert f"the file system holding {small_fs / 'history.sqlite3'} has" in out["error"], out["error"]
    with HistoryStore.open(f"sqlite:///{small_fs / 'history.sqlite3'}") as store:
        assert store.list_runs() == []


def _step(doc: dict, stored):
    """The stored step must be the one the JSON has: compare index, params and the headline."""
    assert doc["index"] == stored.index and doc["params"] == stored.params
    assert next(m["value"] for m in doc["metrics"] if m["name"] == "throughput") == stored.metric("throughput").value
    return stored

"""fio's headline covers each job's I/O as fio timed it, not fio's start-up, layout and exit
(a 256 MiB run reported a third of fio's own bandwidth): the window from fio's JSON (recorded
from fio 3.33, which has no job start, and 3.36, which has), placed on the workstation clock."""

import asyncio
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from brickyard_fio import Fio, extract_json, job_stats
from brickyard_fio.window import REPORT_SLACK, io_window, records_job_start

from brickyard.bench import registry
from brickyard.bench.engine import parse_target, run_benchmark
from brickyard.core.results import WorkerTiming
from brickyard.remote.local import LocalExecutor

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "fio"


@dataclass
class Run:
    """What a WorkerRun gives the window: the process's times here, the host's clock offsets."""

    timing: WorkerTiming
    clock_offset: float = 0.0
    wall_offset: float | None = None

    def local_time(self, host_monotonic):
        return host_monotonic - self.clock_offset

    def local_from_wall(self, host_realtime):
        return None if self.wall_offset is None else self.local_time(host_realtime - self.wall_offset)


def fixture(version):
    text = (FIX / f"seq-write-64M-1job-fio{version}.json").read_text()
    return text, job_stats(extract_json(text))[0]


def test_only_a_fio_that_records_job_starts_is_asked_for_them():
    assert records_job_start("fio-3.36\n") and records_job_start("fio-3.41")
    assert not records_job_start("fio-3.33") and not records_job_start("fio-3.4") and not records_job_start("")


def test_a_job_window_starts_where_fio_recorded_the_jobs_start_on_the_agents_clock():
    _, job = fixture("3.36")
    assert job["start_ms"] == json.loads((FIX / "seq-write-64M-1job-fio3.36.json").read_text())["jobs"][0]["job_start"]
    host_start = job["start_ms"] / 1000
    # the host's clock runs 100 s ahead of this one; fio started 0.4 s before its I/O
    run = Run(WorkerTiming(0, "c1", host_start - 100 - 0.4, host_start - 100 + 0.5), clock_offset=100.0)
    window = io_window(job, run)
    assert window.placed_by == "job start"
    assert window.start == pytest.approx(host_start - 100)
    assert window.seconds == pytest.approx(job["runtime_ms"] / 1000)


def test_without_a_job_start_the_window_ends_at_fios_report_with_fios_own_length():
    _, job = fixture("3.33")
    assert job["start_ms"] is None and job["report_ms"]
    report = job["report_ms"] / 1000                 # real-time clock
    wall_offset = report - 5000.0                    # the report was at 5000 s on the host's monotonic clock
    run = Run(WorkerTiming(0, "c1", 5000.0 - 0.6, 5000.0 + 0.07), clock_offset=0.0, wall_offset=wall_offset)
    window = io_window(job, run)
    assert window.placed_by == "report time" and REPORT_SLACK < 0.02
    assert window.end == pytest.approx(5000.0) and window.seconds == pytest.approx(job["runtime_ms"] / 1000)


def test_a_window_that_does_not_fit_its_process_is_not_used():
    _, job = fixture("3.36")
    host_start = job["start_ms"] / 1000
    assert io_window(job, Run(WorkerTiming(0, "c1", host_start + 1, host_start + 2))) is None   # a clock that jumped
    _, old = fixture("3.33")
    assert io_window(old, Run(WorkerTiming(0, "c1", 0, 1))) is None        # the agent did not relate its clocks


def test_the_final_fsyncs_share_is_told_only_where_io_calls_run_one_at_a_time():
    _, job = fixture("3.33")
    fsync = Fio._fsync_seconds([job], {"end_fsync": "1", "ioengine": "psync"})
    assert 0 < fsync < job["runtime_ms"] / 1000
    assert Fio._fsync_seconds([job], {"ioengine": "psync"}) is None                  # no final fsync
    assert Fio._fsync_seconds([job], {"end_fsync": "1", "ioengine": "libaio", "iodepth": "16"}) is None


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_the_fio_headline_is_fios_own_bandwidth_for_one_job_and_the_processes_are_kept_apart(tmp_path):
    async def main():
        return await run_benchmark(registry.find("fio"), {"presets": "seq-write", "size": "64M", "numjobs": "1",
                                                          "repeats": "1"},
                                   [(parse_target(f"local:{tmp_path}"), LocalExecutor("local"))])
    run = asyncio.run(main())
    assert run.status.value == "complete", run.error
    (step,) = run.steps
    figures = {m.name: m.value for m in step.metrics}
    assert figures["throughput"] / figures["fio_group_bw"] >= 0.98        # was 0.26–0.34 at 256 MiB
    assert figures["process_throughput"] < 0.9 * figures["throughput"]     # start-up, layout, exit: in here only
    assert 0 <= figures["fsync_seconds"] < figures["elapsed"]
    assert "I/O window" in step.note and "process_throughput" in step.note
    w = step.workers[0]
    assert w.seconds == pytest.approx(figures["elapsed"])

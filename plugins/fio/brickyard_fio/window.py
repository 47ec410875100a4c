"""Each fio job's I/O window on this workstation's clock, from fio's own JSON.

Every fio gives each job's runtime per direction: from its first I/O to the end of its final
fsync (``end_fsync`` runs inside the job's I/O phase). Where that window sits on the clock:

- fio ≥ 3.36 records when the job's I/O began (``job_start``, in ms, on the clock named by
  ``job_start_clock_id``; Brickyard asks for 1, CLOCK_MONOTONIC, the agent's clock);
- an older fio does not. Its report time (``timestamp_ms``, on the host's real-time clock,
  which the agent relates to its monotonic one) comes after the job ended: fio's main process
  looks for finished jobs every 10 ms, then writes the report. The window ends there, so it
  has fio's own length and sits up to ~10 ms late.

A window that does not fit inside the fio process Brickyard ran (a clock that jumped) is not
used: the step then falls back to the processes' own times and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: the first fio that records each job's start (``job_start``, ``job_start_clock_id``)
FIRST_JOB_START = (3, 36)
#: how late a window placed by fio's report time may sit (its 10 ms poll, the report itself)
REPORT_SLACK = 0.012
#: a window may stick out of its process by this much (fio's times are whole milliseconds)
MS_SLACK = 0.002

_VERSION = re.compile(r"fio-(\d+)\.(\d+)")


def version_of(text: str) -> tuple[int, int] | None:
    """(major, minor) from ``fio --version`` ("fio-3.33"), or None."""
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def records_job_start(text: str) -> bool:
    """Does this fio (its ``--version`` output) take ``job_start_clock_id``?"""
    found = version_of(text)
    return found is not None and found >= FIRST_JOB_START


@dataclass(frozen=True)
class IoWindow:
    start: float       # this workstation's monotonic clock
    end: float
    placed_by: str     # "job start" (fio ≥ 3.36) or "report time"

    @property
    def seconds(self) -> float:
        return self.end - self.start


def io_window(job: dict[str, Any], run: Any) -> IoWindow | None:
    """The I/O window of ``job`` (from ``job_stats``) run as worker ``run`` (a ``WorkerRun``:
    its process times and how its host's clocks relate to this one), or None."""
    runtime = job.get("runtime_ms", 0) / 1000
    if runtime <= 0 or job.get("error"):
        return None
    if job.get("start_ms") is not None:
        start = run.local_time(job["start_ms"] / 1000)
        window = IoWindow(start, start + runtime, "job start")
    elif job.get("report_ms") is not None:
        end = run.local_from_wall(job["report_ms"] / 1000)
        if end is None:
            return None
        window = IoWindow(end - runtime, end, "report time")
    else:
        return None
    if window.start < run.timing.start - MS_SLACK or window.end > run.timing.end + MS_SLACK:
        return None
    return window

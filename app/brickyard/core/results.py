"""Benchmark results as plain objects: what the run engine produces, the store persists,
and charts and reports read. Never ORM rows.

Roll-up: WorkerTiming (one worker of one step) → StepResult (one measured step: a block
size × concurrency × direction, one repeat) → RunResult (one workload on one target).
Times are seconds on one monotonic clock per host (the agent's); ``start_skew`` says how
far apart the workers really started.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class RunStatus(str, enum.Enum):
    RUNNING = "running"
    COMPLETE = "complete"
    PARTIAL = "partial"        # some steps measured, then a host died or stalled
    FAILED = "failed"          # nothing usable measured
    INTERRUPTED = "interrupted"  # the app died mid-run (found at next start-up)
    CANCELLED = "cancelled"    # the user stopped it; the steps measured before are kept


@dataclass(frozen=True)
class WorkerTiming:
    worker: int
    host: str
    start: float      # seconds, the host's monotonic clock (shifted by its measured offset)
    end: float
    bytes: int = 0
    ops: int = 0      # files, calls, transactions: what the workload counts
    error: str = ""

    @property
    def seconds(self) -> float:
        return self.end - self.start

    @property
    def rate_bps(self) -> float:
        return self.bytes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Metric:
    """One number a step reports, with its unit and how it was computed."""

    name: str          # e.g. "throughput", "stonewall_throughput", "sum_of_rates", "lstat_us"
    value: float
    unit: str          # "B/s", "ops/s", "us", "s", "tps", "ratio"
    label: str = ""    # what it is, for humans: "total bytes ÷ (last end − first start)"


#: flags saying a step's figure is probably a cache figure: the step is kept, labelled, and
#: never the headline (``StepResult.suspect``); invalid steps are left out altogether
CACHE_SUSPECT_FLAGS = (
    "cache-effect-suspected",      # faster than the client's link allows for this layout
    "faster-than-cold",            # a re-read faster than the first read of the same point
    "server-caches-not-dropped",   # the bricks' page caches still held the data
)


def host_starts_text(start_skew: dict[str, Any]) -> str:
    """A multi-host step's starts per host, in words, first host first: "client1 +0.00 ms
    ±0.15 ms, client2 +8.10 ms ±0.16 ms (released 8.0 ms late)"; '' for a one-host step."""
    hosts = start_skew.get("hosts") if isinstance(start_skew, dict) else None
    if not isinstance(hosts, dict):
        return ""
    parts = []
    for host, e in hosts.items():
        if not isinstance(e, dict):
            continue
        text = f"{host} +{float(e.get('lag', 0)) * 1000:.2f} ms ±{float(e.get('uncertainty', 0)) * 1000:.2f} ms"
        late = e.get("late")
        if isinstance(late, (int, float)) and late > 0.0005:
            text += f" (released {late * 1000:.1f} ms late)"
        parts.append(text)
    return ", ".join(parts)


@dataclass(frozen=True)
class StepResult:
    """One measured step. ``params`` says which point of the sweep it is
    (e.g. {"block_size": 1048576, "concurrency": 8, "direction": "write"})."""

    index: int
    params: dict[str, Any]
    repeat: int
    workers: tuple[WorkerTiming, ...]
    metrics: tuple[Metric, ...]
    #: {"p50": s, "p99": s, "max": s}; across hosts also "uncertainty" (the worst host clock's, s) and
    #: "hosts": {host: {"lag": s, "uncertainty": s, "late": s}} (see ``bench.context.host_starts``)
    start_skew: dict[str, Any] = field(default_factory=dict)
    flags: tuple[str, ...] = ()    # "cache-effect-suspected", "caches-not-dropped", "stall", …
    valid: bool = True
    note: str = ""

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)

    @property
    def suspect(self) -> bool:
        """Probably a cache figure (see CACHE_SUSPECT_FLAGS): shown, never the headline."""
        return any(f in CACHE_SUSPECT_FLAGS for f in self.flags)

    @property
    def headline(self) -> bool:
        """May stand as the run's figure: valid and not suspect."""
        return self.valid and not self.suspect


def suspect_steps(steps: "list[StepResult] | tuple[StepResult, ...]") -> tuple[int, int]:
    """(suspect, measured): how many measured steps are probably cache figures."""
    measured = [s for s in steps if s.workers]
    return sum(1 for s in measured if s.suspect), len(measured)


def mostly_suspect(steps: "list[StepResult] | tuple[StepResult, ...]") -> bool:
    """More than half of the measured steps are probably cache figures."""
    suspect, measured = suspect_steps(steps)
    return measured > 0 and 2 * suspect > measured


GLUSTER = "gluster"   # the target kind of a gluster mount (beside "local", "nfs", "tmpfs")


def is_gluster_target(kind: str | None) -> bool:
    """Whether a run's ``target_kind`` names a gluster mount. A run over several targets
    stores their kinds comma-separated ("gluster,local"): it counts when any is gluster.
    Kinds are whole words: a kind that only contains the letters ("glusterish") is not."""
    return GLUSTER in (kind or "").split(",")


@dataclass(frozen=True)
class Provenance:
    """Everything needed to say what differed between two runs."""

    brickyard_version: str
    hosts: dict[str, dict[str, str]]          # host -> {"kernel": …, "gluster": …, "os": …}
    target: str                               # "client1:/mnt/gv0" or "local:/tmp/x"
    target_kind: str                          # "gluster", "local", "nfs", "tmpfs"
    volume_name: str = ""
    volume_info_xml: str = ""
    volume_options: dict[str, str] = field(default_factory=dict)   # options set on the volume (volume info)
    layout: dict[str, Any] = field(default_factory=dict)   # type, replica, disperse, … and brick list
    mount_options: str = ""
    workload: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # every option's value at run time as `gluster volume get VOL all` printed it, gluster's
    # defaults marked "(DEFAULT)": an option unset here is compared by this value
    volume_settings: dict[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    run_id: str                   # uuid4 hex: stable across export/import
    workload: str
    status: RunStatus
    started_at: float             # time.time()
    ended_at: float | None
    provenance: Provenance
    steps: list[StepResult] = field(default_factory=list)
    error: str = ""               # why a run is partial or failed, naming the host
    failed_host: str = ""

"""What a running workload sees: its checked parameter values, the targets (one per client
host, each with a run directory Brickyard created and an agent), and the operations it may
use: run barrier-released workers, run a command, drop caches, record a measured step."""

from __future__ import annotations

import asyncio
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..core import stats
from ..core.results import CACHE_SUSPECT_FLAGS, Metric, RunResult, StepResult, WorkerTiming
from ..core.units import format_link_speed, format_rate
from ..remote.executor import CommandResult, Executor
from ..remote.loop import Cancelled
from . import figures, finite
from .agentclient import AgentSession, AgentStep
from .clocks import ABSOLUTE_SKEW, HostClock, step_clocks, uncertainty_note
from .api import Measurement, Workload
from .physics import Physics

__all__ = ["FLAG_MEANINGS", "Physics", "ProgressEvent", "RunContext", "TargetSession", "WorkerRun"]

#: a multi-host step exchanges clocks again when the last exchange is older than this (s):
#: two hosts' clocks drift apart by up to tens of µs a second
CLOCK_REFRESH = 10.0
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$")
_PLAIN_PATH = re.compile(r"^(/[A-Za-z0-9_][A-Za-z0-9._-]*)+$")

#: what the engine's own step flags mean (workloads add their own, explained in the step note)
FLAG_MEANINGS = {
    "caches-not-dropped": "page caches could not be dropped before this read (not root)",
    "server-caches-not-dropped": "no server was given, so the bricks' page caches were not dropped (a read "
                                 "is then never the headline)",
    "cache-effect-suspected": "faster than the network allows: probably served from a cache (never the headline)",
    "faster-than-cold": "a re-read much faster than the first read of the same point: a cache (never the headline)",
    "start-skew": "the workers' start spread is more than 1 % of the step, or a host started more than 5 ms after "
                  "the first: they did not all run together",
    "clock-uncertain": "a host's clock cannot be placed against the others' closely enough (more than 1 % of the "
                       "step or 5 ms): a late start of up to that much would not show",
    "stall": "I/O stalled: no progress for a long time (hung mount?)",
    "timeout": "the step ran past its time limit and was stopped",
    "worker-error": "at least one worker failed",
    "io-pause": "I/O stood still for a third of the stall limit or more, then resumed",
    finite.FLAG: finite.MEANING,
}


@dataclass(frozen=True)
class ProgressEvent:
    """Where a run is, for a UI or CLI: step k of n, overall fraction, what it is doing and,
    while workers run, their live throughput (bytes/s, or None).

    ``live_bps`` is the rate over the agents' last sampling interval (0.5 s), summed over
    hosts: intra-step throughput for a live chart. ``live_source`` says what it counts:
    "payload" (the counter each worker names: bytes read by readers, written by writers) or
    "io" (all bytes read and written, for workloads that name none). ``bytes_done`` and
    ``step_seconds`` are the same counters since the step's release; ``workers_done`` of
    ``workers_total`` have finished."""

    step_index: int
    step_total: int
    fraction: float
    label: str
    live_bps: float | None = None
    bytes_done: int | None = None
    step_seconds: float | None = None
    workers_done: int | None = None
    workers_total: int | None = None
    live_source: str = ""


@dataclass
class TargetSession:
    """One target (host:path) during a run."""

    spec: str               # as the user wrote it: "client1:/mnt/gv0", "local:/tmp/x"
    host: str
    path: str
    executor: Executor
    agent: AgentSession
    rundir: str = ""        # <path>/brickyard-<run id>: created by this run, removed after it
    kind: str = "unknown"   # "gluster", "tmpfs", "local", "nfs"
    mount: dict[str, str] = field(default_factory=dict)   # findmnt's fstype, source, options, target

    @property
    def tmpdir(self) -> str:
        """The agent's own temporary directory on the host (helpers compiled there)."""
        return self.agent.tmpdir


@dataclass
class WorkerRun:
    """One worker's result: its timing plus what it printed."""

    target: TargetSession
    timing: WorkerTiming
    exit: int | None
    stdout: str
    stderr: str
    rchar: int
    wchar: int
    result_bytes: int | None = None
    result_ops: int | None = None
    counter: str | None = None           # "rchar"/"wchar": the counter its progress curve follows
    curve: tuple[tuple[float, int], ...] = ()   # (time on this workstation's clock, bytes) samples
    exhausted: bool | None = None        # a once-only reader ran out of files before its time
    counter_step: int = 0                # bytes its counter moves by per call (0: unknown, fine)
    clock_offset: float = 0.0            # its host's monotonic clock − this workstation's
    wall_offset: float | None = None     # its host's real-time clock − the host's monotonic clock

    def local_time(self, host_monotonic: float) -> float:
        """A time on the worker's host's monotonic clock, on this workstation's (as ``timing``)."""
        return host_monotonic - self.clock_offset

    def local_from_wall(self, host_realtime: float) -> float | None:
        """A time on the host's real-time clock (a tool's wall-clock stamp, e.g. fio's
        ``timestamp_ms``), on this workstation's monotonic clock; None when the agent did not
        say how its host's clocks relate."""
        if self.wall_offset is None:
            return None
        return self.local_time(host_realtime - self.wall_offset)


class RunContext:
    """Handed to ``Workload.run``. Everything here is safe to call from plugins."""

    def __init__(
        self,
        workload: Workload,
        values: dict[str, Any],
        targets: list[TargetSession],
        run: RunResult,
        *,
        record_sink: Callable[[StepResult], None],
        progress: Callable[[float, str], None],
        is_cancelled: Callable[[], bool],
        physics: Physics,
        servers: Sequence[AgentSession] = (),
        step_total: int = 1,
        on_event: Callable[[ProgressEvent], None] | None = None,
    ):
        self.workload = workload
        self.values = values
        self.targets = targets
        self.run_result = run
        self.physics = physics
        self.servers = list(servers)
        self._record_sink = record_sink
        self._progress = progress
        self._is_cancelled = is_cancelled
        self._step_total = max(1, step_total)
        self._on_event = on_event
        self._index = 0
        self._pending_flags: list[str] = []
        self._pending_notes: list[str] = []
        self._last_runs: list[WorkerRun] = []
        self._clocks: dict[str, HostClock] = {}      # the last multi-host step's clocks, by host
        self._late: dict[str, float] = {}           # how late each host's release ran, by its own clock
        self._cold = figures.ColdReads()
        self.label = ""

    # ---- parameters the engine adds to every workload ----------------------------------
    @property
    def repeats(self) -> int:
        return int(self.values.get("repeats", 1))

    @property
    def stall_seconds(self) -> float:
        return float(self.values.get("stall_seconds", 30.0))

    # ---- worker specs -------------------------------------------------------------------
    @staticmethod
    def exec_worker(argv: Sequence[str], cwd: str | None = None, *, progress: str | None = None,
                    progress_step: int = 0) -> dict[str, Any]:
        """A program run as one worker. ``progress``: "rchar" when its payload is what it reads,
        "wchar" when it is what it writes; then its progress is sampled for the stonewall
        figure and the live throughput (counted over the program and what it starts).
        ``progress_step``: the bytes one read()/write() call moves (a counter moves only when a
        call returns, so a 64 MiB call leaves a running worker's progress unknown by that much)."""
        spec: dict[str, Any] = {"kind": "exec", "argv": [str(a) for a in argv], "cwd": cwd}
        if progress:
            spec["progress"] = _counter(progress)
            if progress_step:
                spec["progress_step"] = int(progress_step)
        return spec

    @staticmethod
    def randread_worker(files: Sequence[str], seconds: float, block: int = 1 << 20, seed: int = 0, *,
                        once: bool = False, method: str = "read") -> dict[str, Any]:
        """A reader of whole files for ``seconds``: random picks, or with ``once`` the files in
        the given order, each at most once (it stops early when they run out). ``method``:
        "read" in the worker's own process, or "dd": one dd process forked per file."""
        if method not in ("read", "dd"):
            raise ValueError(f"randread method {method!r}: read or dd")
        spec = {"kind": "randread", "files": list(files), "seconds": float(seconds), "block": int(block),
                "seed": seed, "once": bool(once), "progress": "rchar", "progress_step": int(block)}
        if method == "dd":
            spec["method"] = "dd"
        return spec

    # ---- operations ---------------------------------------------------------------------
    def check_cancelled(self) -> None:
        if self._is_cancelled():
            raise Cancelled("cancelled by the user")

    def progress(self, text: str, within_step: float = 0.0, live_bps: float | None = None, **live: Any) -> None:
        """Report what the workload is doing; ``live_bps`` and the other ProgressEvent fields
        (engine use) add live throughput to the current label without replacing it."""
        if live_bps is None and not live:
            self.label = text
        shown = f"{self.label} · {format_rate(live_bps)} live" if live_bps is not None else self.label
        fraction = min(1.0, (self._index + within_step) / self._step_total)
        self._progress(fraction, shown if live or live_bps is not None else text)
        if self._on_event is not None:
            self._on_event(ProgressEvent(self._index, self._step_total, fraction, self.label, live_bps, **live))

    async def sh(self, target: TargetSession, argv: Sequence[str], *, timeout: float | None = 300,
                 check: bool = True, sudo: bool = False, input: bytes | None = None) -> CommandResult:
        self.check_cancelled()
        return await target.executor.run(list(argv), timeout=timeout, check=check, sudo=sudo, input=input)

    async def alias(self, target: TargetSession, path: str, name: str, *, inside: str = "") -> str:
        """A second name for ``path`` that no tool can misread: a symlink ``name`` in the
        agent's own directory (or ``inside``, a directory this run made on the host), made of
        letters, digits and ``. _ -`` only. Give a tool that parses the paths it is given the
        alias, never the target's path: fio splits ``directory=`` at ':' and expands '$',
        pg_ctl runs ``-D`` through ``sh -c``; a target path may hold any of those."""
        where = inside or target.tmpdir
        if not _PLAIN_NAME.match(name) or not _PLAIN_PATH.match(where):
            raise ValueError(f"alias {where}/{name}: only letters, digits and . _ - in an alias")
        link = f"{where}/{name}"
        await target.executor.run(["ln", "-sfn", "--", path, link], check=True, timeout=60)
        return link

    async def host_tempdir(self, target: TargetSession, kind: str) -> str:
        """A private directory ``/tmp/brickyard-KIND.XXXXXXXX`` (0700, plain characters) on the
        target's host, outside the agent's own directory (which only the login user may enter):
        chown it for a service user. It is removed when the run ends or is cancelled, and —
        were this run killed — by the next run on that host (it is marked as Brickyard's).
        A PostgreSQL server left listening in it is stopped first."""
        return await target.agent.tempdir(kind)

    async def round_trips(self, target: TargetSession) -> dict[str, float]:
        """{server: RTT in ms} from ``target``'s host to each server of its gluster volume (TCP
        connects to glusterd, the lower half's median: ``bench.rtt``); {} for a target that is
        not a gluster mount or a server it cannot reach. Small-file workloads record it in their
        steps' params (``rtt_ms``): the latency model is calibrated on it."""
        from . import rtt
        from .physics import servers_of

        if target.kind != "gluster":
            return {}
        hosts = servers_of(self.physics.layout, target.mount.get("source", ""))
        if not hosts:
            return {}
        self.check_cancelled()
        res = await target.executor.run(rtt.argv(target.agent.python, hosts), timeout=120, check=False)
        return rtt.parse(res.text) if res.ok else {}

    async def remove(self, target: TargetSession, path: str) -> None:
        """Remove a file or directory this run created (inside ``target.rundir`` only)."""
        await target.agent.rmtree(path, timeout=max(60.0, self.stall_seconds))

    async def drop_caches(self) -> bool:
        """Drop page caches on every client and server; the next recorded step is flagged
        (with the host named) where that was not possible. Returns True if all dropped."""
        ok = True
        clients = [t.agent for t in self.targets]

        async def drop(agent) -> str:
            try:
                if agent.is_root:
                    await agent.drop_caches()
                else:   # a non-root login may still have passwordless sudo for sysctl
                    await agent.executor.run(["sync"], timeout=300)
                    res = await agent.executor.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], sudo=True, timeout=120)
                    if not res.ok:
                        return "not root, no sudo"
            except Exception as exc:  # noqa: BLE001 - say so in the result, keep measuring
                return str(exc)
            return ""

        # every host at once: before each read step, one host after the other cost the sandbox's
        # five 2–3 s at load (a sync each); the notes and flags keep the hosts' order
        agents = clients + self.servers
        whys = await asyncio.gather(*(drop(a) for a in agents))
        for agent, why in zip(agents, whys):
            is_client = any(agent is c for c in clients)
            if why:
                ok = False
                self._pending_notes.append(f"caches not dropped on {agent.host} ({why})")
                # a client keeps what it wrote or read in its own page cache: its reads are not
                # cold; a server's page cache only spares the bricks' disks
                self._pending_flags.append("caches-not-dropped" if is_client else "server-caches-not-dropped")
        if not self.servers and any(t.kind == "gluster" for t in self.targets):
            self._pending_flags.append("server-caches-not-dropped")
            self._pending_notes.append("bricks' page caches not dropped: no gluster server given (--server)")
            ok = False
        return ok

    async def run_workers(
        self,
        workers: Sequence[tuple[TargetSession, dict[str, Any]]],
        *,
        timeout: float = 0.0,
        stall_seconds: float | None = None,
    ) -> list[WorkerRun]:
        """Start every worker parked, release them together (one agreed instant across
        hosts), wait for all; times come back on this workstation's monotonic clock."""
        self.check_cancelled()
        by_target: dict[int, list[int]] = {}
        for i, (t, _) in enumerate(workers):
            by_target.setdefault(id(t), []).append(i)
        targets = {id(t): t for t, _ in workers}
        multi = len(targets) > 1
        release_local = None
        clocks: dict[int, HostClock] = {}
        if multi:
            agents = {tid: t.agent for tid, t in targets.items()}
            stale = [a for a in agents.values() if a.clock is None or time.monotonic() - a.clock.at > CLOCK_REFRESH]
            await asyncio.gather(*(a.sync_clock() for a in stale))
            clocks = step_clocks({tid: a.clock for tid, a in agents.items()})   # type: ignore[misc]
            worst_rtt = max(a.clock.rtt for a in agents.values())   # type: ignore[union-attr]
            release_local = time.monotonic() + 0.25 + 4 * worst_rtt + 0.02 * len(workers)
        live = _LiveRates(len(workers))

        def on_progress(tid: int) -> Callable[[dict[str, Any]], None]:
            def cb(ev: dict[str, Any]) -> None:
                if live.update(tid, ev):
                    self.progress(self.label, 0.5, live.bps(), **live.fields())
            return cb

        async def one(tid: int) -> tuple[TargetSession, AgentStep]:
            t = targets[tid]
            rel = None
            if release_local is not None:
                rel = release_local + clocks[tid].offset    # one instant on each host's own clock
            step = await t.agent.run_step([workers[i][1] for i in by_target[tid]], release_at=rel,
                                          stall_seconds=self.stall_seconds if stall_seconds is None else stall_seconds,
                                          timeout=timeout, on_progress=on_progress(tid))
            return t, step

        tasks = [asyncio.ensure_future(one(tid)) for tid in by_target]
        try:
            done = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        out: list[WorkerRun] = [None] * len(workers)   # type: ignore[list-item]
        late: dict[str, float] = {}
        for t, step in done:
            offset = clocks[id(t)].offset if id(t) in clocks else (t.agent.clock.offset if t.agent.clock else 0.0)
            if step.late is not None:
                late[t.host] = max(late.get(t.host, 0.0), step.late)
            if step.release == "pipe":
                self._pending_notes.append(f"{t.host}: workers released through a pipe (ptrace is not allowed "
                                           "there): each start is the worker's own clock after waking")
            for slot, w in zip(by_target[id(t)], step.workers):
                start = w.get("start")
                end = w.get("end")
                err = ""
                if w.get("exit") not in (0, None):
                    err = f"exit {w.get('exit')}: " + (w.get("stderr") or "").strip()[-300:]
                elif start is None or end is None:
                    err = "worker did not run" if not step.timed_out else "stopped at the step time limit"
                s = (float(start) if start is not None else step.released) - offset
                e = (float(end) if end is not None else time.monotonic() + offset) - offset
                timing = WorkerTiming(worker=slot, host=t.host, start=s, end=e, error=err)
                curve = tuple((float(ts) - offset, int(v)) for ts, v in (w.get("samples") or ()))
                out[slot] = WorkerRun(t, timing, w.get("exit"), w.get("stdout") or "", w.get("stderr") or "",
                                      int(w.get("rchar") or 0), int(w.get("wchar") or 0),
                                      w.get("bytes"), w.get("ops"), w.get("progress"), curve, w.get("exhausted"),
                                      int(workers[slot][1].get("progress_step") or 0), offset, step.wall_offset)
            if step.timed_out:
                self._pending_flags.append("timeout")
            limit = self.stall_seconds if stall_seconds is None else stall_seconds
            if limit and step.max_idle_seconds >= limit / 3:
                self._pending_flags.append("io-pause")
                self._pending_notes.append(f"no I/O progress on {t.host} for {step.max_idle_seconds:.0f} s during "
                                           "this step (a node unreachable until gluster's ping-timeout?)")
        self._last_runs = out
        self._clocks = {targets[tid].host: c for tid, c in clocks.items()}
        self._late = late
        return out

    def _hosts_started(self, skew: dict[str, Any], released: Sequence[WorkerTiming], window: float
                       ) -> tuple[list[str], list[str]]:
        """Across hosts: each host's start lag and clock uncertainty into ``skew`` ("hosts", and
        the worst "uncertainty"); flags and notes for a host that started more than
        ``ABSOLUTE_SKEW`` late, a clock that cannot place its starts closely enough, and a host
        whose real-time clock differs from the others'. Uses the last ``run_workers``' clocks."""
        clocks, late = self._clocks, self._late
        self._clocks, self._late = {}, {}
        hosts = host_starts(released, clocks, late)
        if not hosts:
            return [], []
        skew["hosts"] = hosts
        skew["uncertainty"] = max(h["uncertainty"] for h in hosts.values())
        flags, notes = [], []
        behind = [h for h, e in hosts.items() if e["lag"] > ABSOLUTE_SKEW]
        if behind:
            flags.append("start-skew")
            first = next(iter(hosts))
            said = [f"{h} {hosts[h]['lag'] * 1000:.1f} ms" + (f" (its release ran {hosts[h]['late'] * 1000:.1f} ms late "
                                                                 "by its own clock)" if hosts[h].get("late", 0) > 0.001 else "")
                    for h in behind]
            notes.append(f"started late against {first}: {', '.join(said)} — flagged above {ABSOLUTE_SKEW * 1000:g} ms "
                         "across hosts whatever the step's length")
        over, text = uncertainty_note({h: c for h, c in clocks.items() if h in hosts}, window, figures.SKEW_SHARE)
        if over:
            flags.append("clock-uncertain")
            notes.append(text)
        for host, c in clocks.items():
            if host in hosts and c.frame == "exchanges" and c.wall_gap:
                notes.append(f"{host}'s real-time clock is {c.wall_gap * 1000:+.1f} ms off the other hosts': its times "
                             f"are placed by the clock exchanges alone (±{c.uncertainty * 1000:.1f} ms)")
        return flags, notes

    def record(self, m: Measurement, *, direction: str = "") -> StepResult:
        """Aggregate one measured step, check it, hand it to the result sink, return it.

        What makes a step invalid: a worker error, a stall, a timeout, a long pause, the
        workload's own ``validate``, and a read whose caches could not be dropped on a reading
        host (the data is still in that host's page cache). What makes it suspect (kept,
        flagged, never the headline): faster than the link allows for its layout, a re-read
        faster than the first read of its point, a read whose bricks' caches were not dropped.
        Workers that started further apart than 1 % of the step are flagged "start-skew".

        Every figure is checked here, the one place steps are recorded: one that is not a
        finite number (a workload's NaN) is left out and the step is invalid, naming it
        (``finite``), so the result sink and the history never see one."""
        plugin = finite.Checked(f"workload {self.workload.name}", f"the {self.workload.name} workload")
        workers = tuple(plugin.workers(m.workers))
        params = plugin.values("params", dict(m.params))
        own_metrics = plugin.metrics(m.metrics)
        repeat = plugin.repeat(params)
        direction = direction or str(params.get("direction") or "")
        flags = list(dict.fromkeys(self._pending_flags + m.flags))
        notes = self._pending_notes + ([m.note] if m.note else [])
        self._pending_flags, self._pending_notes = [], []
        problems = list(m.problems) + plugin.problems
        moved = m.throughput_metrics and any(w.bytes for w in workers)
        metrics: list[Metric] = []
        if moved:
            if m.progress is not None:
                found = figures.StepProgress(dict(m.progress), "the workload gave no progress for a worker still running")
            else:
                # matched by the runs' own timing (``released`` when the tool timed a window inside it)
                found = figures.curves_for(list(m.released) if m.released is not None else workers, self._last_runs)
            metrics = list(stats.throughput_metrics(workers, found.curves))
            wall = next((x for x in metrics if x.name == "stonewall_seconds"), None)
            if len(workers) > 1 and wall is None:
                notes.append(f"stonewall not measured: {found.why_not or 'a running worker has no progress samples'}")
            elif wall is not None and found.in_flight and wall.value > 0:
                metrics.append(Metric("stonewall_margin", found.in_flight / wall.value, "B/s",
                                      "the stonewall may be up to this much higher: running workers' calls in flight "
                                      "at the first finish (a counter moves only when a call returns)"))
        else:
            metrics.append(Metric("elapsed", stats.window_seconds(workers), "s", "last end − first start"))
        ops = stats.total_ops(workers)
        if ops and m.throughput_metrics and not any(x.name == "ops_per_s" for x in m.metrics):
            metrics.append(Metric("ops_per_s", stats.headline_ops(workers), "ops/s", "total ops ÷ (last end − first start)"))
        names = {x.name for x in m.metrics}
        mine = finite.Checked("Brickyard", "Brickyard (please report it)")
        metrics = mine.metrics(x for x in metrics if x.name not in names) + own_metrics
        if any(w.error for w in workers):
            flags.append("worker-error")
            problems += [f"worker {w.worker} on {w.host}: {w.error}" for w in workers if w.error][:4]
        released = tuple(plugin.workers(m.released)) if m.released is not None else workers
        skew = mine.numbers("start_skew", stats.start_skew(released)) if len(released) > 1 else \
            {"p50": 0.0, "p99": 0.0, "max": 0.0}
        if m.released is not None:     # the barrier's figure, not the spread of the tool's own windows
            metrics = [Metric("start_skew_p99", skew["p99"], "s", "99th percentile of start lag after the first "
                              "worker (from the release)") if x.name == "start_skew_p99" else x for x in metrics]
        problems += mine.problems
        if plugin.problems or mine.problems:
            flags.append(finite.FLAG)
        skew_text = figures.skew_note(skew, stats.window_seconds(workers), len(workers))
        if skew_text:
            flags.append("start-skew")
            notes.append(skew_text)
        host_flags, host_notes = self._hosts_started(skew, released, stats.window_seconds(workers))
        flags += [f for f in host_flags if f not in flags]
        notes += host_notes
        if "uncertainty" in skew:
            metrics.append(Metric("clock_uncertainty", skew["uncertainty"], "s",
                                  "the worst host's clock uncertainty (±): how closely the clock exchanges place the "
                                  "hosts' starts against each other (start_skew_p99 is no surer than this)"))
        headline = next((x.value for x in metrics if x.name == "throughput"), math.nan)
        hosts = sorted({w.host for w in workers})
        ceiling, _ = self.physics.ceiling_for(direction if direction in ("read", "write") else "read", hosts)
        if ceiling and headline > ceiling * 1.05:
            flags.append("cache-effect-suspected")
            nominal = " (a virtual device's nominal speed)" if self.physics.nominal(hosts) else ""
            notes.append(f"{format_rate(headline)} is above the {format_rate(ceiling)} the link allows "
                         f"for {direction or 'this'} on this layout{nominal}: probably a cache effect")
        if direction == "read" and "caches-not-dropped" in flags:
            problems.append("not a cold read: page caches could not be dropped on a reading host, so what this "
                            "run wrote or read there is still cached")
        in_ram = {t.kind for t in self.targets if t.host in hosts} == {"tmpfs"}   # no cold read exists there
        if direction == "read" and not in_ram:
            usable = not problems and not any(f in CACHE_SUSPECT_FLAGS for f in flags)
            flag, text = self._cold.judge(m.cold_key, m.first_read, headline, usable)
            if flag:
                flags.append(flag)
            if text:
                notes.append(text)
        step = StepResult(
            index=self._index,
            params=params,
            repeat=repeat,
            workers=workers,
            metrics=tuple(metrics),
            start_skew=skew,
            flags=tuple(dict.fromkeys(flags)),
            valid=False,
            note="; ".join(notes + problems),
        )
        problems += self.workload.validate(step)
        step = StepResult(step.index, step.params, step.repeat, step.workers, step.metrics, step.start_skew,
                          step.flags, valid=not problems and not {"stall", "timeout", "io-pause"} & set(flags),
                          note="; ".join(dict.fromkeys(notes + problems)))
        self._index += 1
        self._record_sink(step)
        self.progress(self.label, 0.0)
        return step


def host_starts(released: Sequence[WorkerTiming], clocks: dict[str, HostClock], late: dict[str, float]
                ) -> dict[str, dict[str, float]]:
    """Each host of a multi-host step: how long after the step's first start its own first
    worker started (``lag``), how far its clock may be off the others' (``uncertainty``) and,
    when its agent said, how late its release ran against the agreed instant by its own clock
    (``late``). Seconds. Empty for a one-host step."""
    firsts: dict[str, float] = {}
    for w in released:
        firsts[w.host] = min(firsts.get(w.host, w.start), w.start)
    if len(firsts) < 2:
        return {}
    first = min(firsts.values())
    out = {}
    for host, start in sorted(firsts.items(), key=lambda kv: kv[1]):
        entry = {"lag": start - first, "uncertainty": clocks[host].uncertainty if host in clocks else 0.0}
        if host in late and math.isfinite(late[host]):
            entry["late"] = late[host]
        out[host] = entry
    return out


def _counter(name: str) -> str:
    if name not in ("rchar", "wchar"):
        raise ValueError(f"progress counter {name!r}: rchar (bytes read) or wchar (bytes written)")
    return name


class _LiveRates:
    """Live throughput from the agents' progress events: per host, the counters' growth over
    the last sampling interval; summed over hosts."""

    def __init__(self, workers_total: int):
        self.total = workers_total
        self.hosts: dict[int, dict[str, Any]] = {}

    def update(self, tid: int, ev: dict[str, Any]) -> bool:
        """Take one agent event; True when there is a new figure to show."""
        t = float(ev.get("t", 0.0))
        if ev.get("event") == "released":
            self.hosts[tid] = {"t0": t, "t": t, "bytes": 0, "rate": None, "done": 0, "source": ""}
            return False
        payload = ev.get("payload")
        value = int(payload if payload is not None else ev.get("io_bytes", 0))
        h = self.hosts.setdefault(tid, {"t0": t, "t": t, "bytes": 0, "rate": None, "done": 0, "source": ""})
        if t > h["t"]:
            h["rate"] = max(0.0, (value - h["bytes"]) / (t - h["t"]))
        h.update(t=t, bytes=value, done=int(ev.get("done", 0)), source="payload" if payload is not None else "io")
        return True

    def bps(self) -> float | None:
        rates = [h["rate"] for h in self.hosts.values() if h["rate"] is not None]
        return sum(rates) if rates else None

    def fields(self) -> dict[str, Any]:
        hosts = self.hosts.values()
        return {"bytes_done": sum(h["bytes"] for h in hosts),
                "step_seconds": max((h["t"] - h["t0"] for h in hosts), default=0.0),
                "workers_done": sum(h["done"] for h in hosts), "workers_total": self.total,
                "live_source": "payload" if hosts and all(h["source"] == "payload" for h in hosts) else "io"}

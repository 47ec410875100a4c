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
from ..core.results import Metric, RunResult, StepResult, WorkerTiming
from ..core.units import format_bytes
from ..remote.executor import CommandResult, Executor
from ..remote.loop import Cancelled
from .agentclient import AgentSession, AgentStep
from .api import Measurement, Workload

_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$")
_PLAIN_PATH = re.compile(r"^(/[A-Za-z0-9_][A-Za-z0-9._-]*)+$")

#: what the engine's own step flags mean (workloads add their own, explained in the step note)
FLAG_MEANINGS = {
    "caches-not-dropped": "page caches could not be dropped before this read (not root)",
    "server-caches-not-dropped": "no server was given, so the bricks' page caches were not dropped",
    "cache-effect-suspected": "faster than the network allows: probably served from a cache",
    "stall": "I/O stalled: no progress for a long time (hung mount?)",
    "timeout": "the step ran past its time limit and was stopped",
    "worker-error": "at least one worker failed",
    "io-pause": "I/O stood still for a third of the stall limit or more, then resumed",
}


@dataclass(frozen=True)
class ProgressEvent:
    """Where a run is, for a UI or CLI: step k of n, overall fraction, what it is doing and,
    while workers run, the live throughput from their I/O counters (bytes/s, or None)."""

    step_index: int
    step_total: int
    fraction: float
    label: str
    live_bps: float | None = None


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


@dataclass
class Physics:
    """What the network allows; None = unknown, no check."""

    link_bps: float | None = None
    layout: dict[str, Any] = field(default_factory=dict)   # {"type": "Replicate", "replica": 3, …}

    def ceiling(self, direction: str) -> float | None:
        if not self.link_bps:
            return None
        replica = int(self.layout.get("replica") or 1)
        disperse = int(self.layout.get("disperse") or 0)
        redundancy = int(self.layout.get("redundancy") or 0)
        if direction == "write":
            if disperse > 1:
                return self.link_bps * (disperse - redundancy) / disperse
            if replica > 1:
                return self.link_bps / replica
        return self.link_bps


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
    def exec_worker(argv: Sequence[str], cwd: str | None = None) -> dict[str, Any]:
        return {"kind": "exec", "argv": [str(a) for a in argv], "cwd": cwd}

    @staticmethod
    def randread_worker(files: Sequence[str], seconds: float, block: int = 1 << 20, seed: int = 0) -> dict[str, Any]:
        return {"kind": "randread", "files": list(files), "seconds": float(seconds), "block": int(block), "seed": seed}

    # ---- operations ---------------------------------------------------------------------
    def check_cancelled(self) -> None:
        if self._is_cancelled():
            raise Cancelled("cancelled by the user")

    def progress(self, text: str, within_step: float = 0.0, live_bps: float | None = None) -> None:
        """Report what the workload is doing; ``live_bps`` (engine use) adds live throughput
        to the current label without replacing it."""
        if live_bps is None:
            self.label = text
        shown = f"{self.label} · {format_bytes(live_bps)}/s live" if live_bps is not None else text
        fraction = min(1.0, (self._index + within_step) / self._step_total)
        self._progress(fraction, shown)
        if self._on_event is not None:
            self._on_event(ProgressEvent(self._index, self._step_total, fraction, self.label, live_bps))

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

    async def remove(self, target: TargetSession, path: str) -> None:
        """Remove a file or directory this run created (inside ``target.rundir`` only)."""
        await target.agent.rmtree(path, timeout=max(60.0, self.stall_seconds))

    async def drop_caches(self) -> bool:
        """Drop page caches on every client and server; the next recorded step is flagged
        (with the host named) where that was not possible. Returns True if all dropped."""
        ok = True
        for agent in [t.agent for t in self.targets] + self.servers:
            try:
                if agent.is_root:
                    await agent.drop_caches()
                else:   # a non-root login may still have passwordless sudo for sysctl
                    await agent.executor.run(["sync"], timeout=300)
                    res = await agent.executor.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], sudo=True, timeout=120)
                    if not res.ok:
                        ok = False
                        self._pending_notes.append(f"caches not dropped on {agent.host} (not root, no sudo)")
            except Exception as exc:  # noqa: BLE001 - say so in the result, keep measuring
                ok = False
                self._pending_notes.append(f"caches not dropped on {agent.host}: {exc}")
        if not ok:
            self._pending_flags.append("caches-not-dropped")
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
        if multi:
            for t in targets.values():
                if t.agent.clock is None:
                    await t.agent.sync_clock()
            worst_rtt = max(t.agent.clock.rtt for t in targets.values())   # type: ignore[union-attr]
            release_local = time.monotonic() + 0.25 + 4 * worst_rtt + 0.02 * len(workers)
        live: dict[int, int] = {}
        started = time.monotonic()

        def on_progress(tid: int) -> Callable[[dict[str, Any]], None]:
            def cb(ev: dict[str, Any]) -> None:
                live[tid] = int(ev.get("io_bytes", 0))
                elapsed = max(1e-6, time.monotonic() - started)
                self.progress(self.label, 0.5, live_bps=sum(live.values()) / elapsed)
            return cb

        async def one(tid: int) -> tuple[TargetSession, AgentStep]:
            t = targets[tid]
            rel = None
            if release_local is not None:
                rel = release_local + t.agent.clock.offset    # type: ignore[union-attr]
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
        for t, step in done:
            offset = t.agent.clock.offset if t.agent.clock else 0.0
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
                out[slot] = WorkerRun(t, timing, w.get("exit"), w.get("stdout") or "", w.get("stderr") or "",
                                      int(w.get("rchar") or 0), int(w.get("wchar") or 0),
                                      w.get("bytes"), w.get("ops"))
            if step.timed_out:
                self._pending_flags.append("timeout")
            limit = self.stall_seconds if stall_seconds is None else stall_seconds
            if limit and step.max_idle_seconds >= limit / 3:
                self._pending_flags.append("io-pause")
                self._pending_notes.append(f"no I/O progress on {t.host} for {step.max_idle_seconds:.0f} s during "
                                           "this step (a node unreachable until gluster's ping-timeout?)")
        return out

    def record(self, m: Measurement, *, direction: str = "") -> StepResult:
        """Aggregate one measured step, check it, hand it to the result sink, return it."""
        workers = tuple(m.workers)
        metrics = list(stats.throughput_metrics(workers)) if m.throughput_metrics and any(w.bytes for w in workers) else []
        if not m.throughput_metrics or not any(w.bytes for w in workers):
            metrics.append(Metric("elapsed", stats.window_seconds(workers), "s", "last end − first start"))
        ops = stats.total_ops(workers)
        if ops and m.throughput_metrics and not any(x.name == "ops_per_s" for x in m.metrics):
            metrics.append(Metric("ops_per_s", stats.headline_ops(workers), "ops/s", "total ops ÷ (last end − first start)"))
        names = {x.name for x in m.metrics}
        metrics = [x for x in metrics if x.name not in names] + list(m.metrics)
        flags = list(dict.fromkeys(self._pending_flags + m.flags))
        notes = self._pending_notes + ([m.note] if m.note else [])
        self._pending_flags, self._pending_notes = [], []
        problems = list(m.problems)
        if any(w.error for w in workers):
            flags.append("worker-error")
            problems += [f"worker {w.worker} on {w.host}: {w.error}" for w in workers if w.error][:4]
        ceiling = self.physics.ceiling(direction or str(m.params.get("direction", "")))
        if ceiling:   # the link is per client host: several clients may each fill their own
            ceiling *= max(1, len({w.host for w in workers}))
        headline = next((x.value for x in metrics if x.name == "throughput"), math.nan)
        if ceiling and headline > ceiling * 1.05:
            flags.append("cache-effect-suspected")
            notes.append(f"{format_bytes(headline)}/s is above the {format_bytes(ceiling)}/s the link allows "
                         f"for {direction or 'this'} on this layout: probably a cache effect")
        step = StepResult(
            index=self._index,
            params=dict(m.params),
            repeat=int(m.params.get("repeat", 0)),
            workers=workers,
            metrics=tuple(metrics),
            start_skew=stats.start_skew(workers) if len(workers) > 1 else {"p50": 0.0, "p99": 0.0, "max": 0.0},
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

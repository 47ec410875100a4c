"""The workstation side of the benchmark agent: start it on a host, talk JSON lines to it,
measure its clock offset, run barrier-released steps, tell a dead host from a stalled mount.

The agent file (``bench/agent/agent.py``) is uploaded into a temporary directory made with
``mktemp -d`` on the host; ``close()`` removes that directory and nothing else.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable

from ..remote.executor import Executor, ExecutorError, RemoteProcess


#: where agents make their directories (and sweep what dead agents left); tests point it at a
#: directory of their own, so no other process's agent ever sweeps their planted leftovers
AGENT_TMP_ENV = "BRICKYARD_AGENT_TMP"
_PLAIN_DIR = re.compile(r"^(/[A-Za-z0-9_.-]+)+$|^/$")


def agent_tmp_root() -> str:
    """``$BRICKYARD_AGENT_TMP`` (an absolute path of plain characters) or ``/tmp``."""
    root = os.environ.get(AGENT_TMP_ENV, "") or "/tmp"
    root = root.rstrip("/") or "/"
    if not _PLAIN_DIR.match(root) or "/../" in root + "/" or "/./" in root + "/":
        raise ValueError(f"{AGENT_TMP_ENV}={root!r}: an absolute path of letters, digits, '.', '_' and '-'")
    return root


def agent_source() -> bytes:
    return resources.files("brickyard.bench").joinpath("agent", "agent.py").read_bytes()


class HostLost(Exception):
    """The agent on ``host`` went away mid-run (connection dropped, host died, killed)."""

    def __init__(self, host: str, message: str):
        self.host = host
        super().__init__(f"{host}: {message}")


class StepStalled(Exception):
    """No worker on ``host`` made any I/O progress for ``seconds`` (a hung mount)."""

    def __init__(self, host: str, seconds: float, partial: "AgentStep | None" = None, reason: str = "no-progress"):
        self.host = host
        self.seconds = seconds
        self.partial = partial
        self.reason = reason
        if reason == "timeout":
            text = f"I/O stalled: the step did not finish within its {seconds:.0f} s limit (mount hung?)"
        else:
            text = f"I/O stalled: no worker made progress for {seconds:.0f} s (mount hung?)"
        super().__init__(f"{host}: {text}")


class AgentError(Exception):
    def __init__(self, host: str, message: str):
        self.host = host
        super().__init__(f"{host}: {message}")


@dataclass
class AgentStep:
    """What the agent reported for one step, times on the agent's monotonic clock."""

    host: str
    released: float
    workers: list[dict[str, Any]]
    stalled: bool = False
    timed_out: bool = False
    idle_seconds: float = 0.0
    max_idle_seconds: float = 0.0    # longest stretch without I/O progress during the step
    release: str = "ptrace"          # how the workers left the barrier: "ptrace" or "pipe"
    wall_offset: float | None = None  # the host's real-time clock − its monotonic clock
    late: float | None = None         # how late the release ran against ``release_at`` (its own clock)


@dataclass
class ClockSync:
    """What clock exchanges with an agent can tell: its monotonic clock's offset from this
    workstation's, and how far off that may be. Each exchange bounds the offset (the agent
    read its clock after the request left and before the reply came back); the bounds of the
    lowest-round-trip exchanges, intersected, leave an interval the true offset lies in
    whatever the path's asymmetry. ``offset`` is its middle — the usual assumption of equal
    delay both ways — and ``uncertainty`` half its width: no exchange can tell more."""

    offset: float               # agent clock − workstation clock (seconds): the interval's middle
    rtt: float                  # round trip of the best exchange
    uncertainty: float = 0.0    # ± seconds the true offset may be from ``offset``
    wall: float | None = None   # the agent's host: real-time clock − monotonic clock
    local_wall: float = 0.0     # this workstation's real-time clock − monotonic clock
    exchanges: int = 0
    at: float = 0.0             # when (this workstation's monotonic clock)

    @property
    def wall_offset(self) -> float | None:
        """The host's real-time clock − this workstation's, as the exchanges place it (the same
        ± ``uncertainty``); None when the agent did not send its real time."""
        return None if self.wall is None else self.offset + self.wall - self.local_wall


def clock_from_exchanges(exchanges: list[tuple[float, float, float, float | None]], best: int = 4,
                         local_wall: float | None = None) -> ClockSync:
    """``exchanges``: (sent, agent's monotonic, received, agent's real time or None), the
    first and third on this workstation's monotonic clock, whose real-time clock is
    ``local_wall`` ahead of it (default: read now). The ``best`` lowest-round-trip exchanges
    bound the offset; where their bounds do not overlap (a clock that moved between them),
    the single best exchange's do."""
    if not exchanges:
        raise ValueError("no clock exchanges")
    ranked = sorted(exchanges, key=lambda x: x[2] - x[0])
    kept = ranked[:max(1, best)]
    low = max(t - t1 for t0, t, t1, _ in kept)
    high = min(t - t0 for t0, t, t1, _ in kept)
    if low > high:
        t0, t, t1, _ = ranked[0]
        low, high = t - t1, t - t0
    t0, t, t1, w = ranked[0]
    return ClockSync(offset=(low + high) / 2, rtt=t1 - t0, uncertainty=(high - low) / 2,
                     wall=(w - t) if w is not None else None,
                     local_wall=time.time() - time.monotonic() if local_wall is None else local_wall,
                     exchanges=len(exchanges), at=time.monotonic())


@dataclass
class AgentSession:
    """One running agent on one host."""

    executor: Executor
    python: str = "python3"
    heartbeat_timeout: float = 20.0
    tmpdir: str = ""
    #: the directory the agent's own directory is made in; the agent sweeps that directory
    tmp_root: str = field(default_factory=agent_tmp_root)
    euid: int = -1
    remote_pid: int = 0     # the agent's pid on its host (tests kill it to play a dying host)
    clock: ClockSync | None = None
    _proc: RemoteProcess | None = None
    _events: asyncio.Queue = field(default_factory=asyncio.Queue)
    _reader: asyncio.Task | None = None
    _step_seq: int = 0
    _closed: bool = False
    cancelled: bool = False
    #: what the agent removed at start that dead agents had left in /tmp (``tmp_root``; in words)
    swept: list[str] = field(default_factory=list)
    #: what the agent killed at start that agents killed with their watchdog had left running:
    #: [{"agent_pid", "killed" (processes), "runs" (12-digit run ids), "dirs"}]
    orphans: list[dict[str, Any]] = field(default_factory=list)
    #: after a cancel: the agent's own report (``left``: what it could not remove); None
    #: when it never made one (killed before it had removed its run directories)
    cancel_report: dict[str, Any] | None = None

    @property
    def host(self) -> str:
        return self.executor.host

    @property
    def is_root(self) -> bool:
        return self.euid == 0

    async def open(self) -> None:
        prefix = f"{self.tmp_root.rstrip('/')}/brickyard-agent."
        res = await self.executor.run(["mktemp", "-d", f"{prefix}XXXXXXXX"], timeout=30)
        if not res.ok or not res.text.strip().startswith(prefix):
            raise ExecutorError(self.host, f"cannot create a temporary directory: {res.stderr.decode(errors='replace').strip()}")
        self.tmpdir = res.text.strip()
        path = f"{self.tmpdir}/agent.py"
        await self.executor.upload(agent_source(), path, 0o600)
        self._proc = await self.executor.start([self.python, "-u", path])
        self._reader = asyncio.ensure_future(self._read_events())
        hello = await self._next_event(timeout=30)
        if hello.get("event") != "hello":
            raise AgentError(self.host, f"agent did not start: {hello}")
        self.euid = int(hello.get("euid", -1))
        self.remote_pid = int(hello.get("pid", 0))
        self.swept = [str(x) for x in hello.get("swept") or []]
        self.orphans = [o for o in hello.get("orphans") or [] if isinstance(o, dict)]

    async def _read_events(self) -> None:
        assert self._proc is not None
        try:
            async for line in self._proc.stdout_lines():
                try:
                    ev = json.loads(line)
                except ValueError:
                    ev = {"event": "garbage", "line": line.decode(errors="replace")}
                if isinstance(ev, dict) and ev.get("event") == "cancelled":
                    self.cancel_report = ev
                await self._events.put(ev)
        except Exception as exc:  # the channel broke: the same as EOF for us
            await self._events.put({"event": "eof", "why": str(exc)})
            return
        await self._events.put({"event": "eof", "why": "agent output ended"})

    async def _next_event(self, timeout: float | None = None) -> dict[str, Any]:
        try:
            ev = await asyncio.wait_for(self._events.get(), timeout or self.heartbeat_timeout)
        except asyncio.TimeoutError:
            raise HostLost(self.host, f"no word from the benchmark agent for {timeout or self.heartbeat_timeout:.0f} s") from None
        if ev.get("event") == "eof":
            detail = ""
            if self._proc is not None:
                try:
                    detail = (await asyncio.wait_for(self._proc.stderr_text(), 2)).strip().splitlines()[-1:]
                    detail = f" ({detail[0]})" if detail else ""
                except (asyncio.TimeoutError, Exception):
                    detail = ""
            raise HostLost(self.host, f"connection to the benchmark agent lost{detail}")
        return ev

    async def send(self, obj: dict[str, Any]) -> None:
        if self._proc is None:
            raise AgentError(self.host, "agent not started")
        try:
            await self._proc.write((json.dumps(obj) + "\n").encode())
        except (BrokenPipeError, ConnectionError, OSError) as exc:
            raise HostLost(self.host, f"cannot talk to the benchmark agent: {exc}") from exc

    async def request(self, obj: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        await self.send(obj)
        while True:
            ev = await self._next_event(timeout)
            if ev.get("event") in ("ok", "error", "clock", "hello"):
                if ev["event"] == "error":
                    raise AgentError(self.host, ev.get("message", "agent error"))
                return ev

    async def sync_clock(self, samples: int = 8) -> ClockSync:
        """Offset of the agent's monotonic clock from ours, with its uncertainty (see ``ClockSync``)."""
        exchanges = []
        for i in range(samples):
            t0 = time.monotonic()
            ev = await self.request({"op": "clock", "id": i}, timeout=15)
            t1 = time.monotonic()
            w = ev.get("w")
            exchanges.append((t0, float(ev["t"]), t1, float(w) if isinstance(w, (int, float)) else None))
        self.clock = clock_from_exchanges(exchanges)
        return self.clock

    async def mkdir(self, path: str) -> str:
        return (await self.request({"op": "mkdir", "path": path}))["path"]

    async def rmtree(self, path: str, timeout: float = 60) -> None:
        await self.request({"op": "rmtree", "path": path}, timeout=timeout)

    async def sweep(self, path: str) -> list[str]:
        """Remove the run directories killed runs of this host left in ``path`` (marked ones
        whose agent is gone); they are added to ``swept``."""
        found = [str(x) for x in (await self.request({"op": "sweep", "path": path}, timeout=120)).get("swept") or []]
        self.swept += found
        return found

    async def tempdir(self, kind: str) -> str:
        """A private directory /tmp/brickyard-KIND.XXXXXXXX (in ``tmp_root``) the agent makes, marks and owns."""
        return (await self.request({"op": "tempdir", "kind": kind}))["path"]

    def left_behind(self, path: str) -> bool | None:
        """After a cancel: is ``path`` (a directory this agent made) still there? True/False as
        the agent reported, None when it did not report (it was killed first)."""
        if self.cancel_report is None:
            return None
        return path in (self.cancel_report.get("left") or [])

    async def drop_caches(self) -> None:
        await self.request({"op": "dropcaches"}, timeout=120)

    async def run_step(
        self,
        workers: list[dict[str, Any]],
        *,
        release_at: float | None = None,
        stall_seconds: float = 45.0,
        timeout: float = 0.0,
        on_progress: Callable[[dict[str, Any]], None] | None = None,
    ) -> AgentStep:
        """Fork, park, release and time ``workers``. ``release_at`` is on the agent's clock.
        ``on_progress`` gets the agent's "released" event, then a "progress" event every
        interval (counters since the release; ``payload`` sums the counters workers name)."""
        self._step_seq += 1
        sid = self._step_seq
        await self.send({"op": "step", "id": sid, "workers": workers, "release_at": release_at,
                         "stall_seconds": stall_seconds, "timeout": timeout, "interval": 0.5})
        while True:
            ev = await self._next_event(self.heartbeat_timeout + (max(0.0, release_at - time.monotonic()) if release_at else 0))
            kind = ev.get("event")
            if kind in ("progress", "released") and on_progress is not None:
                on_progress(ev)
            elif kind == "error":
                raise AgentError(self.host, ev.get("message", "agent error"))
            elif kind == "cancelled":
                raise HostLost(self.host, f"agent stopped: {ev.get('reason')}")
            elif kind == "step_done" and ev.get("id") == sid:
                step = AgentStep(self.host, float(ev["released"]), ev["workers"], bool(ev.get("stalled")),
                                 bool(ev.get("timed_out")), float(ev.get("idle_seconds", 0)),
                                 float(ev.get("max_idle_seconds", 0)), str(ev.get("release", "ptrace")),
                                 float(ev["wall"]) if isinstance(ev.get("wall"), (int, float)) else None,
                                 float(ev["late"]) if isinstance(ev.get("late"), (int, float)) else None)
                if step.stalled:
                    raise StepStalled(self.host, step.idle_seconds, step)
                if step.timed_out:
                    raise StepStalled(self.host, timeout, step, reason="timeout")
                return step

    async def cancel(self) -> None:
        """Stop workers now: the agent kills them and removes what it created."""
        if self._proc is None or self._closed or self.cancelled:
            return
        self.cancelled = True
        try:
            await self._proc.close_stdin()
        except Exception:
            pass

    async def _kill(self) -> None:
        try:
            await asyncio.wait_for(self._proc.kill(), 10)
        except Exception:  # noqa: BLE001 - a process stuck on a hung mount: leave it
            pass

    async def close(self, *, remove_owned: bool = True, timeout: float = 30) -> list[str]:
        """End the agent and remove its temporary directory. Returns problems (not raised:
        cleanup must not hide the run's own outcome)."""
        problems: list[str] = []
        if self._closed:
            return problems
        self._closed = True
        if self._proc is not None and self.cancelled:
            try:
                await self._proc.wait(timeout)
            except Exception as exc:  # noqa: BLE001
                problems.append(f"{self.host}: agent did not stop after cancel ({exc}); killed")
                await self._kill()
        elif self._proc is not None:
            try:
                await asyncio.wait_for(self.send({"op": "exit", "remove_owned": remove_owned}), 5)
                await self._proc.close_stdin()
                await self._proc.wait(timeout)
            except Exception as exc:  # noqa: BLE001 - report, then kill
                problems.append(f"{self.host}: agent did not exit cleanly ({exc}); killed")
                await self._kill()
        if self._reader is not None:
            if self.cancelled and not self._reader.done():
                try:    # the agent's last words (its cancel report) may still be on the way
                    await asyncio.wait_for(asyncio.shield(self._reader), 2)
                except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                    pass
            self._reader.cancel()
        if self.tmpdir.startswith(f"{self.tmp_root.rstrip('/')}/brickyard-agent."):
            try:
                await self.executor.run(["rm", "-rf", "--one-file-system", "--", self.tmpdir], timeout=30)
            except Exception as exc:  # noqa: BLE001
                problems.append(f"{self.host}: could not remove {shlex.quote(self.tmpdir)}: {exc}")
        return problems

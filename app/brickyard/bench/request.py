"""A benchmark asked for in terms of a topology: which mounts, which servers, which link.

The Run view (and anything else that starts runs from a topology) builds a ``BenchRequest``
from the topology's names, then ``run_request`` turns those names into executors and calls
``engine.run_benchmark``. Nothing here imports Qt.

- ``volume_targets``: one target per client mount of a volume (the clients run together, their
  workers released at one instant, as ``--target`` given several times);
- ``volume_servers``: the nodes holding the volume's bricks, in brick order (caches dropped
  there before reads, volume info read from the first);
- ``topology_link``: the physics bound the topology implies, and where it comes from;
- ``FanOutSink``: one result sink that hands every event to several (store + screen).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ..core.results import RunResult, RunStatus, StepResult
from ..core.topology import Topology
from ..core.units import format_link_speed, format_rate
from ..remote.executor import Executor, ExecutorError
from ..remote.local import LocalExecutor
from ..remote.loop import Progress
from ..remote.steps import reach_hosts
from .api import Workload
from .engine import ResultSink, TargetSpec, run_benchmark
from .hostlock import HostBusy, HostLocks, machine_keys

ExecutorFor = Callable[[str], Executor]


@dataclass(frozen=True)
class BenchRequest:
    """One run to make: a workload with its raw parameter texts on one group of targets.

    ``targets`` run together (one run, workers released at one instant); a baseline is a
    request of its own. ``servers`` are topology node names; ``link_bps`` the physics bound
    for every client (None: each client's link is detected on the host, ``link_hints`` —
    host → bytes/s, e.g. the topology's NIC speeds — standing in where the OS says nothing or
    only a virtual device's nominal speed);
    ``volume`` the topology volume the targets mount ('' for a baseline)."""

    workload: str
    params: dict[str, Any]
    targets: tuple[TargetSpec, ...]
    servers: tuple[str, ...] = ()
    link_bps: float | None = None
    volume: str = ""
    label: str = ""
    link_hints: dict[str, float] = field(default_factory=dict)

    @property
    def hosts(self) -> list[str]:
        """Every host the run touches (targets first), once each; 'local' is this workstation."""
        return list(dict.fromkeys([t.host for t in self.targets] + list(self.servers)))

    def describe(self) -> str:
        where = ", ".join(t.text for t in self.targets)
        return self.label or (f"{self.workload} on {self.volume} ({where})" if self.volume else f"{self.workload} on {where}")


def volume_targets(topo: Topology, volume: str) -> list[TargetSpec]:
    """Each client mount of ``volume`` as a target (client name : mount path)."""
    vol = topo.require_volume(volume)
    return [TargetSpec(m.client, m.path.rstrip("/") or "/") for m in vol.mounts]


def volume_servers(topo: Topology, volume: str) -> list[str]:
    """The nodes holding ``volume``'s bricks, in brick order, once each."""
    vol = topo.require_volume(volume)
    return list(dict.fromkeys(ref.node for ref in vol.bricks))


@dataclass(frozen=True)
class LinkBound:
    """The physics bound a topology implies for a set of hosts: bytes/s (None: unknown) and why."""

    bps: float | None
    source: str

    def describe(self) -> str:
        if self.bps is None:
            return self.source
        return f"{format_link_speed(self.bps)} ({format_rate(self.bps)}) from {self.source}"


def topology_link(topo: Topology, hosts: Iterable[str], servers: Iterable[str] = ()) -> LinkBound:
    """The slowest NIC the topology gives for the target ``hosts``; when none of them has a
    NIC speed, the slowest of ``servers`` (the nodes behind a gluster mount)."""
    def nics(names: Iterable[str]) -> list[tuple[float, str]]:
        out = []
        for name in names:
            machine = topo.client(name) or topo.node(name)
            if machine is not None and machine.nic_gbps:
                out.append((float(machine.nic_gbps), name))
        return out

    hosts = [h for h in hosts if h != "local"]
    for found, what in ((nics(hosts), "NIC of"), (nics(servers), "NIC of server")):
        if found:
            gbps, name = min(found)
            return LinkBound(gbps * 1e9 / 8, f"the {what} {name} in the topology")
    if not hosts:
        return LinkBound(None, "no link: the target is on this workstation")
    return LinkBound(None, "the topology gives no NIC speed for " + ", ".join(hosts))


def topology_nics(topo: Topology, hosts: Iterable[str]) -> dict[str, float]:
    """host → bytes/s for each of ``hosts`` the topology gives a NIC speed (the engine's
    ``link_hints``: used where detection on the host finds no speed, or a nominal one)."""
    out = {}
    for name in hosts:
        machine = topo.client(name) or topo.node(name)
        if machine is not None and machine.nic_gbps:
            out[name] = float(machine.nic_gbps) * 1e9 / 8
    return out


def executor_lookup(topo_hosts: Callable[[str], Executor], topo: Topology,
                    other: Callable[[str], Executor]) -> ExecutorFor:
    """``local`` → this workstation; a topology node or client → ``topo_hosts(name)`` (its
    address, user and port); any other name → ``other(name)`` (an SSH config alias)."""
    local = LocalExecutor("local")
    known = {n.name for n in topo.nodes} | {c.name for c in topo.clients}

    def lookup(host: str) -> Executor:
        if host == "local":
            return local
        return topo_hosts(host) if host in known else other(host)

    return lookup


class HostsUnreachable(ExecutorError):
    """Some hosts of a request cannot be logged in to: nothing was started anywhere."""

    def __init__(self, lines: Sequence[str]):
        self.lines = list(lines)
        first = lines[0].partition(": ")[0] if lines else "?"
        super().__init__(first, "cannot start the run: " + "; ".join(lines))

    def __str__(self) -> str:
        return "cannot start the run: " + "; ".join(self.lines)


async def run_request(request: BenchRequest, workload: Workload, executor_for: ExecutorFor, *,
                      progress: Progress | None = None, sink: ResultSink | None = None,
                      locks: HostLocks | None = None, wait: bool = True,
                      on_wait: Callable[[HostBusy], None] | None = None, **engine_options: Any) -> RunResult:
    """Log in to every host of the request first (``steps.reach_hosts``: an unknown host key is
    raised with the others it met, an unreachable host raises ``HostsUnreachable``; nothing
    has started then), then run it through the engine (``engine.run_benchmark``'s end states).

    With ``locks`` the run holds the host lease of every host it loads (``bench.hostlock``):
    it waits its turn (``on_wait`` hears who holds a host; cancelling ``progress`` while
    waiting raises ``HostBusy``) or, with ``wait=False``, raises ``HostBusy`` at once. A caller
    that already holds the lease (a campaign) passes no ``locks``."""
    remote = [h for h in request.hosts if h != "local"]
    if remote:
        failures = await reach_hosts(remote, executor_for)
        if failures:
            raise HostsUnreachable(failures)
    lease = None
    if locks is not None:
        owner = f"Brickyard window: {request.workload} on {', '.join(t.text for t in request.targets)}"
        keys = await machine_keys(request.hosts, executor_for)    # the machines, not their names
        lease = (await locks.acquire(request.hosts, owner, keys=keys, on_wait=on_wait,
                                     is_cancelled=progress.is_cancelled if progress else lambda: False)
                 if wait else locks.try_acquire(request.hosts, owner, keys))
    try:
        targets = [(t, executor_for(t.host)) for t in request.targets]
        servers = [executor_for(s) for s in request.servers]
        # a volume's run measures that volume's mounts; a baseline is never on a gluster mount
        expect = {"expect_volume": request.volume} if request.volume else {"expect_baseline": True}
        return await run_benchmark(workload, dict(request.params), targets, servers=servers, progress=progress,
                                   sink=sink, link_bps=request.link_bps, link_hints=dict(request.link_hints),
                                   **{**expect, **engine_options})
    finally:
        if lease is not None:
            lease.release()


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended, in the words a UI shows: ``kind`` is one of complete, partial,
    stalled, cancelled, failed; ``text`` one sentence naming the host where one failed."""

    kind: str
    text: str


def run_outcome(run: RunResult) -> RunOutcome:
    measured = sum(1 for s in run.steps if "stall" not in s.flags)
    invalid = sum(1 for s in run.steps if not s.valid and "stall" not in s.flags)
    kept = f"{measured} step{'s' if measured != 1 else ''} measured"
    if invalid:
        kept += f", {invalid} invalid"
    why = run.error.split("; ")[0] if run.error else ""
    if run.failed_host and why.startswith(f"{run.failed_host}: "):     # the sentence names the host already
        why = why[len(run.failed_host) + 2:]
    if run.status is RunStatus.RUNNING:
        return RunOutcome("running", f"running: {kept}")
    if run.status is RunStatus.COMPLETE:
        return RunOutcome("complete", f"complete: {kept}")
    if run.status is RunStatus.CANCELLED or run.error.startswith("cancelled by the user"):
        return RunOutcome("cancelled", f"cancelled: {kept} and kept; the run's files were removed")
    if any("stall" in s.flags for s in run.steps):
        host = run.failed_host or "a host"
        return RunOutcome("stalled", f"stalled on {host}: {why or 'no I/O progress'} ({kept})")
    if run.status is RunStatus.PARTIAL:
        where = f" — {run.failed_host} failed" if run.failed_host else ""
        return RunOutcome("partial", f"partial{where}: {why} ({kept})")
    if run.status is RunStatus.INTERRUPTED:
        return RunOutcome("failed", f"interrupted: the app stopped during the run ({kept})")
    where = f" on {run.failed_host}" if run.failed_host else ""
    return RunOutcome("failed", f"failed{where}: {why or 'nothing measured'}")


@dataclass
class FanOutSink:
    """Hands every engine event to each sink in turn (e.g. the history store, then a screen).
    One sink failing does not keep the event from the others; the first failure is raised
    afterwards (the engine reports it and goes on measuring)."""

    sinks: Sequence[Any] = field(default_factory=list)

    def _each(self, method: str, *args: Any) -> None:
        first: Exception | None = None
        for sink in self.sinks:
            fn = getattr(sink, method, None)
            if fn is None:
                continue
            try:
                fn(*args)
            except Exception as exc:  # noqa: BLE001 - raised below, after the other sinks
                first = first or exc
        if first is not None:
            raise first

    def run_started(self, run: RunResult) -> None:
        self._each("run_started", run)

    def step_finished(self, run: RunResult, step: StepResult) -> None:
        self._each("step_finished", run, step)

    def run_finished(self, run: RunResult) -> None:
        self._each("run_finished", run)

    def progress(self, run: RunResult, event: Any) -> None:
        self._each("progress", run, event)

    def orphans_killed(self, run: RunResult, host: str, found: list[dict]) -> None:
        self._each("orphans_killed", run, host, found)

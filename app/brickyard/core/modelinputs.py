"""What the throughput model is calibrated on, gathered from what Brickyard has: calibration
files, stored runs of a layout (dd, fio: any workload whose steps name direction, concurrency
and block size) and probe runs (the ``probe`` workload: brick filesystems and client→server
TCP measured before anything is provisioned).

Each source becomes ``calibration.Inputs``; ``calibration.fit`` turns them into a model for a
topology. A layout is planned on the topology to know its sets (``plan_volume``), so a run is
read in the light of the topology it ran on (the snapshot stored with it, or one given).
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Any, Callable, Iterable, Sequence

from . import throughput as tm
from .calibration import Inputs, Observation, observations_from_steps
from .calibration_file import CalibrationFile
from .results import RunResult, RunStatus
from .throughput import (BRICK, CLIENT_LINK, DIRECTIONS, MEASURED, NODE_LINK, STORAGE, WRITE, LayoutShape, Value,
                         spread)
from .topology import BrickRef, Layout, Topology, Volume, VolumeType
from .units import format_duration, format_rate

PROBE_WORKLOAD = "probe"
#: bricks together slower than this share of their sum alone share a disk or controller
SHARED_BELOW = 0.8


class ModelInputError(ValueError):
    """A calibration source that cannot be used (says why, naming it)."""


def shape_on(topo: Topology, volume: Volume) -> LayoutShape:
    """The model's view of ``volume`` planned on ``topo`` as its only volume (a measured
    layout and the one planned share bricks: they were up one at a time); refuses a layout
    gluster refuses."""
    from .events import Emitter
    from .plan import plan_volume

    vol = replace(volume, force=True)
    plan = plan_volume(replace(topo, volumes=[vol], events=Emitter()), vol)
    if plan.refused or not plan.sets:
        why = plan.errors[0].message if plan.errors else "no sets"
        raise ModelInputError(f"layout {volume.name}: gluster would refuse it ({why})")
    from .estimate import client_nodes

    return tm.shape_of(plan.sets, volume.name, volume.options, client_nodes(topo))


def volume_from_layout(layout: dict[str, Any], bricks: Sequence[BrickRef], name: str = "") -> Volume:
    """A calibration file's ``layout`` on bricks: its own list, its first N of ``bricks`` for
    a count, else all of ``bricks``. ``name`` is only the planned volume's (not gluster's)."""
    given = layout.get("bricks")
    if isinstance(given, list):
        refs = [BrickRef.parse(b) for b in given]
    elif isinstance(given, int):
        if given > len(bricks):
            raise ModelInputError(f"the calibration layout names {given} bricks; the volume has {len(bricks)}")
        refs = list(bricks[:given])
    else:
        refs = list(bricks)
    kind = VolumeType(layout.get("type") or "distribute")
    lay = Layout(kind, replica=layout.get("replica"), arbiter=layout.get("arbiter") or 0,
                 disperse=layout.get("disperse"), redundancy=layout.get("redundancy"))
    return Volume(name or "calibration", lay, refs)


def inputs_from_file(cf: CalibrationFile, topo: Topology, bricks: Sequence[BrickRef]) -> Inputs:
    """A calibration file's measurements, its layout realised on ``bricks`` of ``topo``."""
    vol = volume_from_layout(dict(cf.layout), bricks)
    missing = [str(b) for b in vol.bricks if topo.brick(b) is None]
    if missing:
        raise ModelInputError(f"{cf.source}: the topology has no brick {missing[0]}")
    shape = shape_on(topo, vol)
    label = cf.name or cf.source
    obs = tuple(Observation(shape, d, n, b, bps, cf.source, label) for d, n, b, bps in cf.measurements)
    return Inputs(obs, {}, (label,))


def _short(run_id: str) -> str:
    return run_id[:12]


def split_probe_runs(runs: Sequence[RunResult], topology_for: Callable[[RunResult], Topology | None]
                     ) -> tuple[list[RunResult], list[RunResult], Inputs, list[str]]:
    """Runs shown together (History's Model check, a report): (the other runs, the probe runs,
    what the probe runs calibrate every layout's prediction on, why a probe run could not)."""
    probes = [r for r in runs if r.workload == PROBE_WORKLOAD]
    extra, problems = Inputs(), []
    for run in probes:
        try:
            extra = extra + probe_inputs(run, topology_for(run))
        except ModelInputError as exc:
            problems.append(str(exc))
    return [r for r in runs if r.workload != PROBE_WORKLOAD], probes, extra, problems


def inputs_from_run(run: RunResult, topo: Topology | None) -> Inputs:
    """One stored run: a probe run gives measured parameters, a run on a gluster volume gives
    observations of its layout. Anything else (a baseline, a run that measured nothing) is
    refused with the reason."""
    if run.workload == PROBE_WORKLOAD:
        return probe_inputs(run, topo)
    from .decision_runs import volume_of_run

    vol = volume_of_run(run)
    if vol is None:
        raise ModelInputError(f"run {_short(run.run_id)} measured {run.provenance.target or 'no volume'} "
                              "(a baseline, not a gluster layout): nothing to calibrate a layout model on")
    if run.status in (RunStatus.FAILED, RunStatus.RUNNING) or (run.status is RunStatus.CANCELLED and not run.steps):
        raise ModelInputError(f"run {_short(run.run_id)} is {run.status.value}: no figures to calibrate on")
    if topo is None or any(topo.brick(b) is None for b in vol.bricks):
        topo = _bricks_only(vol)
    shape = shape_on(topo, vol)
    label = f"{vol.name} run {_short(run.run_id)}"
    obs = observations_from_steps(shape, run.steps, f"run {_short(run.run_id)}", vol.name)
    if not obs:
        raise ModelInputError(f"run {_short(run.run_id)} ({run.workload}) has no valid step with a direction, "
                              "a file count and a block size: nothing to calibrate on")
    return Inputs(tuple(obs), {}, (label,))


def _bricks_only(vol: Volume) -> Topology:
    from .decision_runs import _sized_topology

    topo, _ = _sized_topology(vol, None)
    return topo


def inputs_from_runs(runs: Iterable[RunResult], topology: Callable[[RunResult], Topology | None]) -> Inputs:
    out = Inputs()
    for run in runs:
        out = out + inputs_from_run(run, topology(run))
    return out


# ------------------------------------------------------------------ probe runs


def probe_inputs(run: RunResult, topo: Topology | None) -> Inputs:
    """Measured parameters from a probe run (see ``plugins/probe``):
    - ``disk``/``alone``: a brick filesystem's own rate → every brick of the topology on it;
    - ``disk``/``together``: every probed filesystem at once → shared storage, when together
      they move less than 80 % of what each moves alone, summed;
    - ``tcp``/``alone``: client → one server → that server's link (as seen from the client);
    - ``tcp``/``together``: client → every server at once → the client's link."""
    alone: dict[tuple[str, str, str], list[float]] = {}
    together: dict[str, list[float]] = {}
    tcp_alone: dict[str, list[float]] = {}
    tcp_together: list[float] = []
    shared: set[str] = set()          # servers on the client's own kernel (its CPUs)
    for s in run.steps:
        if not s.valid:
            continue
        m = s.metric("throughput")
        if m is None or not m.value > 0:
            continue
        p = s.params
        kind, scope, d = p.get("probe"), p.get("scope"), p.get("direction")
        if kind == "disk" and d in DIRECTIONS:
            if scope == "alone":
                alone.setdefault((str(p.get("host")), str(p.get("path")), d), []).append(m.value)
            elif scope == "together":
                together.setdefault(d, []).append(m.value)
        elif kind == "tcp":
            shared.update(str(h) for h in p.get("same_kernel") or ())
            if scope == "alone":
                tcp_alone.setdefault(str(p.get("to")), []).append(m.value)
            elif scope == "together":
                tcp_together.append(m.value)
    rid = _short(run.run_id)
    measured: dict[str, Value] = {}
    notes: list[str] = []
    sums: dict[str, float] = {}
    for (host, path, d), values in alone.items():
        rate = statistics.median(values)
        bricks = _bricks_on(topo, host, path)
        if not bricks:
            notes.append(f"probe {rid}: {host}:{path} holds no brick of the topology")
        for ref in bricks:
            measured[f"{BRICK}.{d}@{ref}"] = spread(rate, MEASURED, f"probe {rid}: {host}:{path} alone, {d} "
                                                                 f"{format_rate(rate)} (the filesystem's own rate)")
        sums[d] = sums.get(d, 0.0) + rate
    for d, values in together.items():
        rate = statistics.median(values)
        total = sums.get(d, 0.0)
        if total and rate < SHARED_BELOW * total:
            measured[f"{STORAGE}.{d}"] = spread(rate, MEASURED, f"probe {rid}: every brick filesystem at once moved "
                                                               f"{format_rate(rate)}, {rate / total:.0%} of their sum "
                                                               f"alone: they share a disk or controller")
        elif total:
            notes.append(f"probe {rid}: the brick filesystems at once moved {format_rate(rate)} ({d}), "
                         f"{rate / total:.0%} of their sum alone: no shared storage limit")
    for node, values in tcp_alone.items():
        rate = statistics.median(values)
        measured[f"{NODE_LINK}@{node}"] = spread(rate, MEASURED, f"probe {rid}: TCP from the client to {node}, "
                                                                f"one stream {format_rate(rate)}")
    if tcp_together:
        rate = statistics.median(tcp_together)
        measured[CLIENT_LINK] = spread(rate, MEASURED, f"probe {rid}: TCP from the client to every server at once "
                                                      f"{format_rate(rate)}")
    if not measured:
        raise ModelInputError(f"probe run {rid} holds no valid measurement")
    servers = set(tcp_alone) | {host for host, _path, _d in alone}
    if shared and shared >= servers:
        together_tcp = bool(tcp_together)
        tcp = statistics.median(tcp_together) if tcp_together else (
            max(statistics.median(v) for v in tcp_alone.values()) if tcp_alone else None)
        disk = statistics.median(together[WRITE]) if together.get(WRITE) else None
        measured.update(shared_cpu_costs(rid, sorted(shared), tcp, disk, together_tcp))
        notes.append(f"probe {rid}: {', '.join(sorted(shared))} run on the client's own kernel, so on its CPUs: "
                     "each stored copy and each brick RPC costs the client too. What a stored byte costs is "
                     "measured (TCP and the brick filesystems); what an extra brick RPC costs is derived from a "
                     "request of the calibration layout (an assumed split: a second layout of another fan-out fits "
                     "it instead)")
    elif shared:
        # a client on one of the servers (hyperconverged): the other servers' TCP and disks are a
        # network and devices, not CPU work on the client's kernel, so nothing is charged for it
        measured.update(shared_cpu_costs(rid, sorted(shared), every_server=False))
        notes.append(f"probe {rid}: {', '.join(sorted(shared))} of {len(servers)} servers run on the client's own "
                     "kernel; the model charges the client nothing for their work (as for servers of their own), "
                     "and the range allows for it")
    return Inputs((), measured, (f"probe {rid}",), tuple(notes))


#: what an extra brick RPC of a 128 KiB request may cost where the servers share the client's
#: CPUs, seconds (the pessimistic end while nothing has fitted it; ``calibration.fit`` derives
#: it from the calibration layout's own request cost). Seen on the 2-core sandbox: ≈ 0.1 ms.
SHARED_FANOUT_WORST = 3e-3
SHARED_FANOUT_CPU_WORST = 1e-3


def shared_cpu_costs(rid: str, hosts: Sequence[str], tcp_bps: float | None = None,
                     disk_write_bps: float | None = None, tcp_together: bool = True,
                     every_server: bool = True) -> dict[str, Value]:
    """Where servers share the client's CPUs: what a stored byte costs those CPUs, measured —
    sent over TCP (``tcp_bps``: the client to every server at once, or ``tcp_together`` False:
    the fastest one at a time) and written into the brick filesystems (``disk_write_bps``: every
    one at once; None: not measured), both CPU work on one kernel — and the fan-out costs,
    assumed 0 with a wide range until the fit derives them, and what a client without io-threads
    moves (its threads compete with the bricks' for the CPUs: ``every_server`` on the client's
    kernel). Only writes store extra copies
    (replica, parity), so only writes are charged."""
    note = (f"assumed 0 … {{worst}} per extra brick RPC: probe {rid} found {', '.join(hosts)} on the client's "
            "kernel (shared CPUs); derived from the calibration layout's request cost when it is fitted")
    out = {}
    for d in DIRECTIONS:
        out[f"{tm.FANOUT}.{d}"] = tm.assumed_cost(0.0, SHARED_FANOUT_WORST, note.format(worst=format_duration(SHARED_FANOUT_WORST)))
        out[f"{tm.FANOUT_CPU}.{d}"] = tm.assumed_cost(0.0, SHARED_FANOUT_CPU_WORST, note.format(worst=format_duration(SHARED_FANOUT_CPU_WORST)))
    from .client_options import NO_IO_THREADS_SHARED, NO_IO_THREADS_SHARED_NOTE

    for d, (value, low, high) in NO_IO_THREADS_SHARED.items() if every_server else ():
        out[f"{tm.NO_IO_THREADS}.{d}"] = Value(value, tm.ASSUMED, NO_IO_THREADS_SHARED_NOTE, low, high)
    if tcp_bps:
        cost = 1.0 / tcp_bps + (1.0 / disk_write_bps if disk_write_bps else 0.0)
        parts = f"TCP {format_rate(tcp_bps)} " + ("to every server at once" if tcp_together else "to one server")
        parts += (f", the brick filesystems {format_rate(disk_write_bps)} all at once" if disk_write_bps else
                  "; the brick filesystems were not written all at once, so their cost is left out")
        out[f"{tm.SHARED_BYTE}.{WRITE}"] = spread(cost, MEASURED, f"probe {rid}: the shared CPUs store "
                                                                 f"{format_rate(1.0 / cost)} of extra copies ({parts})",
                                                  cost=True)
    return out


def _bricks_on(topo: Topology | None, host: str, path: str) -> list[BrickRef]:
    """The topology's bricks on the filesystem ``path`` of ``host`` (its mount point, or a
    directory holding the brick directory)."""
    if topo is None:
        return []
    out = []
    for node in topo.nodes:
        if host not in (node.name, node.address, node.ssh_host):
            continue
        for b in node.bricks:
            prefix = path if path.endswith("/") else path + "/"
            if b.mount == path or b.path == path or b.path.startswith(prefix):
                out.append(BrickRef(node.name, b.path))
    return out

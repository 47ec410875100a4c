"""A decision table for any set of stored runs: group them by the layout they measured and
plan each layout, so capacity and failures sit beside the measurements.

A run knows its layout from its provenance (``volume info --xml`` and the layout facts the
bench engine parsed from it). With a topology that holds the layout's bricks, the plan has
real brick sizes and sites; without one, the bricks' nodes are known but their sizes are
not, so capacity shows as unknown while node failures are still worked out.
Runs on a local directory, tmpfs or NFS become baseline rows (one per target).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

from .compare import describe_layout
from .decisiontable import BASELINE, LAYOUT, LayoutEntry
from .events import Emitter
from .gluster_xml import GlusterXMLError, TYPE_NUMBERS, parse_volume_info
from .results import RunResult
from .topology import Brick, BrickRef, Layout, Node, Topology, Volume, VolumeType

_TYPE_WORDS = {
    "distribute": VolumeType.DISTRIBUTE, "replicate": VolumeType.REPLICATE,
    "disperse": VolumeType.DISPERSE, "distributed-replicate": VolumeType.DISTRIBUTED_REPLICATE,
    "distributed-disperse": VolumeType.DISTRIBUTED_DISPERSE,
}


def volume_of_run(run: RunResult) -> Volume | None:
    """The gluster volume a run measured, as a plan, or None (a baseline, or nothing known)."""
    p = run.provenance
    if p.volume_info_xml:
        try:
            infos = parse_volume_info(p.volume_info_xml)
        except (GlusterXMLError, ValueError):
            infos = []
        if infos:
            return infos[0].to_volume()
    lay = p.layout or {}
    bricks = [BrickRef.parse(b) for b in lay.get("bricks", []) if isinstance(b, str) and ":" in b]
    if not bricks:
        return None
    word = str(lay.get("type", "")).strip().lower().replace(" ", "-")
    vtype = _TYPE_WORDS.get(word)
    if vtype is None and isinstance(lay.get("type"), int):
        vtype = TYPE_NUMBERS.get(lay["type"])
    if vtype is None:
        vtype = (VolumeType.DISPERSE if lay.get("disperse") else
                 VolumeType.REPLICATE if (lay.get("replica") or 0) > 1 else VolumeType.DISTRIBUTE)
    if vtype.is_replicated:
        layout = Layout(vtype, replica=int(lay.get("replica") or 0) or None, arbiter=int(lay.get("arbiter") or 0))
    elif vtype.is_dispersed:
        layout = Layout(vtype, disperse=int(lay.get("disperse") or 0) or None,
                        redundancy=int(lay.get("redundancy") or 0) or None)
    else:
        layout = Layout(vtype)
    return Volume(str(lay.get("name") or p.volume_name or "volume"), layout, bricks,
                  dict(p.volume_options))


def layout_key(run: RunResult) -> tuple[str, str]:
    """(kind, key) a run is grouped by: the volume name and its exact bricks for a gluster
    run (a re-created volume with other bricks is another row); the target for a baseline."""
    vol = volume_of_run(run)
    if vol is None:
        return BASELINE, run.provenance.target or run.run_id
    lay = vol.layout      # replica 3 and replica 3 arbiter 1 on the same bricks are two layouts
    counts = f"r{lay.replica or 0}a{lay.arbiter or 0}d{lay.disperse or 0}x{lay.redundancy or 0}"
    return LAYOUT, f"{vol.name}|{lay.type.value}|{counts}|{','.join(map(str, vol.bricks))}"


def _sized_topology(volume: Volume, topology: Topology | None) -> tuple[Topology, list[str]]:
    """A topology to plan ``volume`` in: the given one when it has every brick, else one made
    of the volume's own nodes and bricks with unknown (0) sizes."""
    if topology is not None and all(topology.brick(b) is not None for b in volume.bricks):
        # the layouts compared were up one at a time on these bricks: plan each as the only
        # volume (another one on the same bricks would be refused as bricks used twice)
        return replace(topology, volumes=[v for v in topology.volumes if v.name == volume.name],
                       events=Emitter()), []
    topo = Topology(name="from run provenance")
    nodes: dict[str, Node] = {}
    for ref in volume.bricks:
        node = nodes.get(ref.node)
        if node is None:
            node = nodes[ref.node] = Node(ref.node)
            topo.nodes.append(node)
        if node.brick(ref.path) is None:
            node.bricks.append(Brick(ref.path, 0))
    why = ("brick sizes unknown: the topology given does not hold these bricks"
           if topology is not None else "brick sizes unknown: give the topology the runs were made on")
    return topo, [why]


def entries_from_runs(runs: Sequence[RunResult],
                      topology: Topology | Callable[[RunResult], Topology | None] | None = None
                      ) -> list[LayoutEntry]:
    """One ``LayoutEntry`` per layout measured (first-seen order), baselines after layouts.
    Row keys are the volume name, made unique with the layout when one name was re-created
    with other bricks. ``topology``: the topology to plan on, or a function giving one per
    run (e.g. the snapshot stored with it); a layout is planned on the first that has its
    bricks."""
    from .plan import plan_volume

    groups: dict[tuple[str, str], list[RunResult]] = {}
    for run in runs:
        groups.setdefault(layout_key(run), []).append(run)
    names: dict[str, int] = {}
    for (kind, _), members in groups.items():
        if kind == LAYOUT:
            vol = volume_of_run(members[0])
            names[vol.name] = names.get(vol.name, 0) + 1  # type: ignore[union-attr]
    layouts, baselines = [], []
    used: set[str] = set()
    for (kind, key), members in groups.items():
        if kind == BASELINE:
            p = members[0].provenance
            label = f"{p.target_kind} baseline {p.target}" if p.target_kind not in ("", "unknown") else f"baseline {p.target}"
            baselines.append(LayoutEntry(key=p.target or key, runs=tuple(members), label=label, kind=BASELINE))
            continue
        vol = volume_of_run(members[0])
        assert vol is not None
        if callable(topology):
            found = [t for t in map(topology, members) if t is not None]
            given = next((t for t in found if all(t.brick(b) is not None for b in vol.bricks)),
                         found[0] if found else None)
        else:
            given = topology
        topo, notes = _sized_topology(vol, given)
        plan = plan_volume(topo, vol)
        row_key = vol.name if names.get(vol.name, 0) == 1 else f"{vol.name} ({describe_layout(_layout_dict(vol))})"
        while row_key in used:   # same name and layout, other bricks
            row_key += "'"
        used.add(row_key)
        layouts.append(LayoutEntry(key=row_key, plan=plan, runs=tuple(members), notes=tuple(notes), topology=topo))
    return layouts + baselines


def _layout_dict(vol: Volume) -> dict[str, Any]:
    lay = vol.layout
    return {"type": lay.type.value, "replica": lay.replica or 0, "arbiter": lay.arbiter,
            "disperse": lay.disperse or 0, "redundancy": lay.redundancy or 0,
            "bricks": [str(b) for b in vol.bricks]}

"""Pre-flight for a change to a live volume: the provisioning checklist for the hosts (reached,
root or sudo, gluster, clock; each new brick path: creatable, empty, not in use, trusted xattrs,
free space), plus the volume's own row, read from the live state the plan was made from:

- the volume is started; every brick online (but a brick the plan replaces: it may be dead);
- every peer connected, and server quorum met where the volume enforces it;
- every replica or disperse set has client quorum with the bricks that are up;
- no heal pending (entries the other bricks of a set hold for a dead brick being replaced
  are what its replacement will heal, and pass);
- no rebalance or remove-brick running, unless this change started it (a resume);
- room on every brick that receives data for what the plan moves there, with 10 % left free.

Read-only, like provisioning's pre-flight (one trusted-xattr probe on new brick paths).
"""

from __future__ import annotations

import asyncio
from typing import Callable

from ..core import changemodel as cm
from ..core.changemodel import ChangePlan
from ..core.failures import set_works, _quorum
from ..core.livestate import LiveState
from ..core.planmodel import BrickSet
from ..core.topology import Topology
from ..core.units import format_bytes
from .executor import Executor, ExecutorError
from .preflight import FAIL, OK, WARN, HostChecks, PlannedBrick, PreflightReport, ServerContext, check_server

ROOM_MARGIN = 0.10


def volume_checks(plan: ChangePlan, live: LiveState, own_tasks: set[str] = frozenset(),
                  new_free: dict | None = None, resuming: bool = False) -> HostChecks:
    """The volume's row: what the live state says about running this plan now. ``new_free``:
    brick -> free bytes measured on the new bricks' filesystems by the host checks.
    ``resuming``: the change ran before, so a heal it caused may still run (its heal wait
    watches it, and no brick is touched before it ends) and part of the data has moved (room
    is checked against the whole plan: a warning only)."""
    hc = HostChecks(plan.volume, "volume")
    name = plan.volume
    if not live.started:
        hc.add("started", FAIL, f"{name} is {live.info.status}; start it first")
        return hc
    hc.add("started", OK, f"{name} is started ({live.info.type_str}, {len(live.info.bricks)} bricks)")
    replaced = set(plan.role(cm.REPLACED))
    offline = [b for b in live.offline if b not in replaced]
    dead_replaced = [b for b in live.offline if b in replaced]
    if offline:
        hc.add("bricks online", FAIL, f"offline: {', '.join(map(str, offline))}; bring them back (gluster volume start "
                                      f"{name} force) or draw them replaced")
    else:
        extra = f" (besides {', '.join(map(str, dead_replaced))}, which the plan replaces)" if dead_replaced else ""
        hc.add("bricks online", OK, f"every brick online{extra}")
    down = live.disconnected
    if down:
        hc.add("peers", FAIL, f"not connected: {', '.join(down)}")
    else:
        hc.add("peers", OK, f"{len(live.peers) + 1} members, all connected")
    options = live.info.options
    if options.get("cluster.server-quorum-type", "").lower() == "server":
        members = len(live.peers) + 1
        up = members - len(down)
        ratio = options.get("cluster.server-quorum-ratio", "51").rstrip("%") or "51"
        try:
            needed = float(ratio) / 100 * members
        except ValueError:
            needed = members / 2 + 0.5
        hc.add("server quorum", OK if up >= needed else FAIL, f"{up} of {members} members up, {ratio} % needed")
    quorum_problems = _client_quorum(plan, live, options)
    hc.add("client quorum", FAIL if quorum_problems else OK,
           "; ".join(quorum_problems) if quorum_problems else "every set has quorum with the bricks that are up")
    name, status, message = _heal_check(plan, live)
    if resuming and status == FAIL:
        status, message = WARN, (message + "; resuming a change that may have caused it: its heal wait watches it "
                                           "and no brick is touched before heal is done")
    hc.add(name, status, message)
    running = live.running_tasks()
    theirs = [t for t in running if t.id not in own_tasks]
    if theirs:
        hc.add("tasks", FAIL, "running: " + "; ".join(f"{t.type} {t.status_str} (task {t.id})" for t in theirs)
               + "; let it finish or stop it first")
    elif running:
        hc.add("tasks", OK, "running: " + "; ".join(f"{t.type} (started by this change)" for t in running))
    else:
        hc.add("tasks", OK, "no rebalance or remove-brick running")
    name, status, message = _room(plan, live, new_free or {})
    if resuming and status == FAIL:
        status, message = WARN, message + "; part of it may have moved already (resuming)"
    hc.add(name, status, message)
    return hc


def _client_quorum(plan: ChangePlan, live: LiveState, options: dict[str, str]) -> list[str]:
    if plan.before is None:
        return []
    out = []
    quorum = _quorum(options)
    arbiter = bool(live.info.arbiter_count)
    online = {b for b, lb in live.bricks.items() if lb.online}
    for i, members in enumerate(plan.before.sets):
        if len(members) < 2:
            continue
        data = 1 if live.info.type.is_replicated else len(members) - live.info.redundancy_count
        s = BrickSet(i, members, members[-1] if arbiter else None, data, 0,
                     live.info.redundancy_count if live.info.type.is_dispersed else 0)
        readable, writable = set_works(s, lambda b: b in online, quorum)
        if not (readable and writable):
            out.append(f"set {i + 1} ({', '.join(map(str, members))}) has lost quorum")
    return out


def _heal_check(plan: ChangePlan, live: LiveState) -> tuple[str, str, str]:
    if live.heal is None:
        if live.info.type.is_replicated or live.info.type.is_dispersed:
            return "heal", WARN, "heal info was not read"
        return "heal", OK, "plain distribute: nothing to heal"
    dead = {b for b in plan.role(cm.REPLACED) if not live.brick(b).online}
    exempt = {m for s in (plan.before.sets if plan.before else ()) if dead.intersection(s) for m in s}
    pending = [h for h in live.heal if h.ref not in exempt and h.ref not in dead and not h.clean]
    if pending:
        return "heal", FAIL, ("heal is not finished, so no brick may be touched (glusterfs #895): " + "; ".join(
            f"{h.ref}: {h.total if h.total is not None else '?'} pending" for h in pending))
    held = sum(h.total or 0 for h in live.heal if h.ref in exempt)
    if held:
        return "heal", OK, (f"{held} entries wait for the dead brick(s) {', '.join(map(str, sorted(dead)))}: "
                            "its replacement heals them")
    return "heal", OK, "nothing pending"


def _room(plan: ChangePlan, live: LiveState, new_free: dict) -> tuple[str, str, str]:
    short = []
    receiving = [b for b in plan.bricks if b.bytes_in > 0]
    for b in receiving:
        lb = live.bricks.get(b.ref)
        if lb is not None and lb.size_free is not None:
            free, total = lb.size_free, lb.size_total or 0
        elif b.ref in new_free:
            total, free = new_free[b.ref]
        else:
            continue
        if b.bytes_in > free - ROOM_MARGIN * total:
            short.append(f"{b.ref} would receive about {format_bytes(b.bytes_in)} with {format_bytes(free)} free")
    if short:
        return "room", FAIL, "; ".join(short) + f" (each must keep {ROOM_MARGIN:.0%} free)"
    if not receiving:
        return "room", OK, "no brick receives data"
    return "room", OK, f"{len(receiving)} receiving brick(s) have room for what arrives, {ROOM_MARGIN:.0%} left free"


async def change_preflight(plan: ChangePlan, live: LiveState, topo: Topology, executor_for: Callable[[str], Executor],
                           own_tasks: set[str] = frozenset(), resuming: bool = False,
                           on_host: Callable[[HostChecks], None] | None = None) -> PreflightReport:
    """Check every server of the volume before and after the change, then the volume itself."""
    current = set(live.bricks)
    servers = list(dict.fromkeys([plan.origin, *(b.node for b in live.bricks), *(b.node for b in plan.result.bricks)]))
    new = [b for b in plan.result.bricks if b not in current]
    every = {n.name for n in topo.nodes} | {n.address for n in topo.nodes if n.address} | set(servers)

    def planned(node: str) -> list[PlannedBrick]:
        out = []
        for b in new:
            if b.node != node:
                continue
            brick = topo.brick(b)
            out.append(PlannedBrick(b.path, brick.size_bytes if brick else 0, brick.filesystem if brick else ""))
        return out

    async def one(node: str) -> HostChecks:
        ctx = ServerContext(plan.volume, False, {b.path: plan.volume for b in plan.result.bricks if b.node == node})
        try:
            hc = await check_server(executor_for(node), node, planned(node), every, ctx, {node})
        except ExecutorError as exc:
            hc = HostChecks(node, "server")
            hc.add("reachable", FAIL, str(exc))
        if on_host is not None:
            on_host(hc)
        return hc

    hosts = list(await asyncio.gather(*(one(n) for n in servers)))
    new_free = {b: h.measured[b.path] for h in hosts for b in new if b.node == h.host and b.path in h.measured}
    volume = volume_checks(plan, live, own_tasks, new_free, resuming)
    if on_host is not None:
        on_host(volume)
    return PreflightReport([*hosts, volume])

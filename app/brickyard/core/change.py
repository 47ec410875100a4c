"""Planning a change to a live volume: from what glusterd reports to what the drawing shows.

``plan_change(topo, name, live)`` compares the live volume (``core.livestate.LiveState``, read
from gluster's XML) with the volume of that name in the drawing and returns a
``core.changemodel.ChangePlan``: what changes, in which order, with which exact commands,
what it costs and what it leaves. It never raises for a change it cannot do: a ``Refusal``
says why, with the route that does work.

What the drawing may ask, and how it is read (sets are runs of the set size, as gluster
groups them):

- **expand**: whole new sets (no brick in common with a current set) -> peer probe of new
  servers, brick directories made as provisioning makes them, one ``add-brick`` of every new
  set (one command, so a cancel never leaves half a set), then ``rebalance start`` (or only
  ``fix-layout``, when asked) watched on every node. New bricks are grouped so each set spans
  distinct servers and, where sites are drawn, several sites (``core.placement``); when that
  is impossible the plan is refused, naming why.
- **shrink**: current sets the drawing no longer has -> ``remove-brick … start``, watched until
  every node says completed with no failure and nothing skipped, then ``commit`` (never
  before: glusterfs #2350). Refused when the sets that stay cannot hold the data measured on
  the volume now plus a margin.
- **replace**: a set that keeps all but some of its bricks -> ``replace-brick … commit force``
  one brick at a time, each only while heal reports nothing pending, each followed by a
  watched heal (glusterfs #895). On plain distribute there is no copy to heal from: a swapped
  brick is moved off with a remove-brick migration instead (add the new brick, rebalance,
  remove the old), and refused when the old brick is offline.
- **raise redundancy**: replica N -> N+1, or replica 2 -> replica 3 arbiter 1, every set gaining
  one brick -> ``add-brick replica …`` and a watched heal. Alone in its plan.
- refused in plain words, with the route (a new volume beside it and a copy): a disperse
  geometry change, distribute <-> disperse, replicate <-> disperse, fewer replicas, an arbiter
  turned into a data brick, a brick moved between sets, thin-arbiter volumes.

While a change heals or migrates, it raises the threads gluster gives that work, as a step of
its own shown with the others (``options-raise``), and sets them back to the volume's own values
before the read-back (``options-restore``; also when the change is cancelled or fails, and a
``--resume`` after a killed run restores them at its end). Why: every brick serves the self-heal
daemon's and the rebalance's requests (gluster's internal clients) in io-threads' least-priority
queue, ``performance.least-prio-threads`` at a time — 1 by default — so however many threads the
daemon heals with, a brick takes one of their requests at a time; and while more wait, the
brick's other io-threads spin on that queue's lock (``iot_worker`` finds the queue not empty but
may take nothing from it; glusterfs #3397). On the sandbox that spin was most of a healing
brick's CPU, and a disperse heal of 2,000 small files grew its index for minutes; with 8 the
rest of it healed in under a minute. The self-heal daemon heals ``cluster.shd-max-threads`` (or
``disperse.shd-max-threads``) entries of each brick's index at once, 1 by default: raised to 4
for a replace or a raise of redundancy. Options already at least that high are left alone.

A remove-brick already running on the cluster (a change interrupted) is continued when the
drawing retires the same bricks, and stopped first when the drawing keeps them (that is how a
change is rolled back). The plan ends with a read-back of the volume's bricks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping

from . import changecost as cost
from . import gluster_cli as cli
from . import gluster_progress as gp
from .changemodel import (
    ADD_BRICK, EXPAND, FIX_LAYOUT, HEAL_WAIT, KEPT, MIGRATE, MKDIR, NEW, OPTIONS_RAISE, OPTIONS_RESTORE, PEERS_WAIT,
    PROBE, RAISE, READ_BACK,
    REBALANCE, REBALANCE_START, REBALANCE_WAIT, REMOVE_COMMIT, REMOVE_START, REMOVE_STOP, REMOVE_WAIT, REPLACE,
    REPLACE_BRICK, REPLACED, REPLACEMENT, RETIRING, SHRINK, BrickChange, ChangePlan, ChangeStep, Figures,
    Movement, Range, Refusal,
)
from .layout import Resolved, resolve, split_sets
from .livestate import LiveState
from .placement import place
from . import capacity as _capacity, failures as _failures
from .layout import check_volume
from .planmodel import ERROR, NEEDS_FORCE, BrickSet, Capacity, Finding, Tolerance, TopologyIndex
from .topology import Brick, BrickRef, Layout, Node, Topology, Volume, VolumeType
from .units import format_bytes

DEFAULT_MARGIN = 0.10    # a shrink keeps this share of the remaining sets free
QUICK = Range(1.0, 3.0, 15.0)   # a gluster command that changes the volume's definition
# the threads a change raises while it heals or migrates (the module's docstring says why), and
# gluster 10's defaults for a volume that never set them
LEAST_PRIO = "performance.least-prio-threads"
SHD_THREADS = {"replicate": "cluster.shd-max-threads", "disperse": "disperse.shd-max-threads"}
RAISED = {LEAST_PRIO: 8, "cluster.shd-max-threads": 4, "disperse.shd-max-threads": 4}
GLUSTER_DEFAULTS = {LEAST_PRIO: 1, "cluster.shd-max-threads": 1, "disperse.shd-max-threads": 1}
NEW_VOLUME_ROUTE = (
    "draw a new volume beside this one with the layout you want, on free bricks, and provision it",
    "mount both on a client and copy: rsync -aHAX --numeric-ids /mnt/OLD/ /mnt/NEW/ (run it again "
    "after stopping the writers, so the last changes are copied too)",
    "check the copy (rsync -aHAXc --dry-run --itemize-changes /mnt/OLD/ /mnt/NEW/ lists nothing)",
    "point the clients at the new volume, then stop and delete the old one (brickyard teardown)",
)


def _family(kind: VolumeType) -> str:
    return "replicate" if kind.is_replicated else "disperse" if kind.is_dispersed else "distribute"


class _Refused(Exception):
    def __init__(self, code: str, message: str, route: tuple[str, ...] = ()):
        super().__init__(message)
        self.refusal = Refusal(code, message, route)


def planning_topology(topo: Topology, live: LiveState) -> Topology:
    """The drawing with each live brick's measured size (what gluster reports beats what was
    drawn), and a node for any live brick the drawing lacks."""
    measured = {ref: b for ref, b in live.bricks.items() if b.size_total}
    by_node: dict[str, list[BrickRef]] = {}
    for ref in measured:
        by_node.setdefault(ref.node, []).append(ref)
    nodes: list[Node] = []
    for node in topo.nodes:
        mine = by_node.get(node.name)
        if not mine:
            nodes.append(node)
            continue
        bricks = list(node.bricks)
        where = {b.path: i for i, b in enumerate(bricks)}
        for ref in mine:
            lb = measured[ref]
            at = where.get(ref.path)
            b = bricks[at] if at is not None else Brick(ref.path, 0)
            if (at is not None and b.size_bytes == lb.size_total and b.filesystem and b.free_bytes is None
                    and not b.free_measured):
                continue    # the drawing already says what gluster measured: the same Brick
            # Brick(...) rather than dataclasses.replace: 4,800 bricks in a few milliseconds. Its
            # free space stays with the live state (the plan reads it there): capacity's "free
            # now" is not a figure of a change plan and costs a pass over every brick
            brick = Brick(b.path, lb.size_total, b.filesystem or lb.device, b.mount, b.fs_type, b.disk_kind,
                          b.speed_bps)
            if at is None:
                bricks.append(brick)
            else:
                bricks[at] = brick
        nodes.append(replace(node, bricks=bricks))
    drawn = {n.name for n in nodes}
    for ref, lb in live.bricks.items():
        if ref.node not in drawn:
            nodes.append(Node(ref.node, bricks=[Brick(ref.path, lb.size_total or 0, filesystem=lb.device)]))
            drawn.add(ref.node)
        elif not lb.size_total:     # not measured (above): a brick the drawing may lack
            node = next(n for n in nodes if n.name == ref.node)
            if node.brick(ref.path) is None:
                node.bricks = [*node.bricks, Brick(ref.path, lb.size_total or 0, filesystem=lb.device)]
    return Topology(topo.name, topo.description, list(topo.sites), nodes, list(topo.clients),
                    list(topo.latencies), [])


@dataclass(frozen=True)
class _Analysis:
    """What the planner needs of ``plan_volume`` (gluster's verdict, sets, capacity and
    failures survived), without the throughput estimate and command lists it also makes."""

    volume: Volume
    findings: tuple[Finding, ...]
    sets: tuple[BrickSet, ...]
    capacity: Capacity | None
    tolerance: Tolerance | None


def _analyse(topo: Topology, volume: Volume, index: TopologyIndex, failures: bool = True,
             live: bool = False) -> _Analysis:
    """``live``: the volume exists (gluster accepted it), so its findings are not asked again."""
    if live:
        resolved, _ = resolve(volume.layout, len(volume.bricks))
        found: tuple[Finding, ...] = ()
        set_refs = split_sets(volume.bricks, resolved.set_size)
    else:
        check = check_volume(topo, volume, index)
        if not check.accepted:
            return _Analysis(volume, check.findings, (), None, None)
        resolved, found, set_refs = check.resolved, check.findings, check.sets
    sets, cap = _capacity.analyse(topo, volume, set_refs, resolved, index)
    findings = (*found, *_capacity.shared_filesystem_findings(cap))
    tolerance = _failures.tolerance(topo, sets, volume.options) if failures else None
    return _Analysis(volume, findings, tuple(sets), cap, tolerance)


def _figures(result: _Analysis) -> Figures | None:
    if result.capacity is None or result.tolerance is None:
        return None
    cap, tol = result.capacity, result.tolerance
    res, _ = resolve(result.volume.layout, len(result.volume.bricks))
    words = res.describe() if res.set_size > 1 else f"{res.brick_count} bricks"
    return Figures(words, res.gluster_type.value, tuple(s.bricks for s in result.sets),
                   cap.usable_bytes, cap.raw_bytes, cap.df_bytes or cap.usable_bytes, tol.nodes_worst,
                   tol.nodes_best, tol.sites_worst, tol.sites_best)


def plan_change(topo: Topology, volume_name: str, live: LiveState, *, fix_layout: bool = False,
                replacements: Mapping[BrickRef, BrickRef] | None = None,
                rates: cost.MoveRates | None = None, margin: float = DEFAULT_MARGIN,
                baseline_options: Mapping[str, str] | None = None) -> ChangePlan:
    """The plan from ``live`` to the drawing's volume ``volume_name``. ``fix_layout``: after an
    expand, only fix the layout (existing files stay where they are). ``replacements``: bricks
    the admin marked as replaced by another (old -> new), checked against the drawing.
    ``rates``: measured migration and heal rates (``changecost.measured_rate``); without them
    the prediction is the uncalibrated default. ``baseline_options``: the volume's own options
    (``volume info``'s) that the threads a change raises go back to, when they are not those of
    ``live`` (a rollback after a killed change, which left them raised)."""
    current = live.info.to_volume()
    current = replace(current, mounts=[])
    target = topo.require_volume(volume_name)
    try:
        return _Planner(topo, target, live, current, fix_layout, dict(replacements or {}), rates, margin,
                        baseline_options).plan()
    except _Refused as exc:
        return ChangePlan(volume_name, (), current, current, refusals=(exc.refusal,),
                          origin=live.asked or topo.pool_origin(target))


@dataclass(frozen=True)
class Replanned:
    """A stored change planned again: its drawing, the live state it was planned from, the plan."""

    topo: Topology
    live: LiveState
    plan: ChangePlan


def planned_again(record: Any, *, rates: bool = True) -> Replanned:
    """A stored change (``store.changes.ChangeRecord``, or anything with its ``volume``,
    ``topology``, ``live`` and ``options``) planned again from what it stored: the drawing,
    gluster's own XML of the live volume, its options and (``rates``) the rates its prediction
    used, so the steps and predictions are those it was planned with. Pure: nothing is read
    from the cluster. TopologyError or GlusterXMLError when the stored record cannot be read."""
    from . import livestate as ls
    from . import topofile

    topo = topofile.from_dict(record.topology, "<stored change topology>")
    live = ls.from_outputs(record.live["outputs"], record.volume, record.live.get("measured", ""))
    opts = record.options or {}
    replacements = {BrickRef.parse(k): BrickRef.parse(v) for k, v in (opts.get("replacements") or {}).items()}
    plan = plan_change(topo, record.volume, live, fix_layout=bool(opts.get("fix_layout")),
                       replacements=replacements, rates=cost.rates_from_json(opts.get("rates")) if rates else None,
                       baseline_options=opts.get("baseline_options"))
    return Replanned(topo, live, plan)


class _Planner:
    def __init__(self, topo: Topology, target: Volume, live: LiveState, current: Volume, fix_layout: bool,
                 replacements: dict[BrickRef, BrickRef], rates: cost.MoveRates | None, margin: float,
                 baseline_options: Mapping[str, str] | None = None):
        self.topo, self.target, self.live, self.current = topo, target, live, current
        self.baseline_options = dict(baseline_options) if baseline_options is not None else None
        self.fix_layout, self.replacements, self.margin = fix_layout, replacements, margin
        self.name = current.name
        self.ptopo = planning_topology(topo, live)
        self.origin = live.asked or topo.pool_origin(target)
        self.notes: list[str] = []
        self.rates = rates
        self._after_index: dict[int, int] = {}
        self._retiring: list[int] = []
        self._site_of: dict[str, str] | None = None
        self.current_set = frozenset(current.bricks)
        self._current_span = 0
        # the drawing's bricks as the live volume's own BrickRef objects where they are the same
        # brick: every later lookup and comparison of them then hits on identity (a 4,800-brick
        # plan compares brick references several hundred thousand times)
        canon = {b: b for b in current.bricks}
        self.target_bricks = [canon.get(b, b) for b in target.bricks]

    # ---- the whole plan --------------------------------------------------------------------
    def plan(self) -> ChangePlan:
        live, target = self.live, self.target
        if not live.started:
            raise _Refused("not-started", f"volume {self.name} is {live.info.status or 'not started'}: a change "
                                          "migrates and heals through the running volume",
                           (f"start it: gluster volume start {self.name}",))
        if target.layout.thin_arbiter or target.thin_arbiter_brick is not None:
            raise _Refused("thin-arbiter", "Brickyard does not change thin-arbiter volumes (gluster 10 cannot add "
                                           "or replace their bricks the way it does for others)", NEW_VOLUME_ROUTE)
        tres, tfind = resolve(target.layout, len(target.bricks))
        errors = [f.message for f in tfind if f.severity == ERROR]
        if errors:
            raise _Refused("target-layout", f"gluster would refuse the drawn volume: {'; '.join(errors)}")
        cres, _ = resolve(self.current.layout, len(self.current.bricks))
        self.cres, self.tres = cres, tres
        self._refuse_geometry(cres, tres)
        self.index = TopologyIndex(self.ptopo)
        before = _analyse(self.ptopo, self.current, self.index, live=True)
        self.before_sets = list(before.sets)
        if tres.set_size != cres.set_size:
            result, bricks, steps, kinds = self._raise(cres, tres)
        else:
            result, bricks, steps, kinds = self._same_geometry(cres)
        after = _analyse(self.ptopo, result, self.index)
        self.plan_result = result
        self._refuse_findings(after, bricks)
        steps = self._finish_steps(steps, result, kinds)
        bricks, movement, steps = self._costs(bricks, after, steps, kinds)
        live_options = self.live.info.options
        differ = sorted((k, v) for k, v in target.options.items() if live_options.get(k) != str(v))
        if differ:
            self.notes.append("the drawing sets options the live volume does not have ("
                              + ", ".join(f"{k}={v}" for k, v in differ)
                              + "); a change plan leaves options alone: set them with gluster volume set")
        return ChangePlan(self.name, tuple(kinds), self.current, result, tuple(bricks), tuple(steps),
                          _figures(before), _figures(after), movement, (), tuple(self.notes),
                          tuple(f for f in after.findings if f.severity != ERROR), self.origin)

    # ---- what cannot change in place -------------------------------------------------------
    def _refuse_geometry(self, cres: Resolved, tres: Resolved) -> None:
        cf, tf = _family(cres.gluster_type), _family(tres.gluster_type)
        if cf != tf and not (cf == "distribute" and tf == "replicate"):
            raise _Refused("type-change", f"gluster cannot turn a {cf} volume into a {tf} one in place "
                                          f"({self.name} is {cres.describe()}; the drawing asks {tres.describe()})",
                           NEW_VOLUME_ROUTE)
        if cf == "disperse" and (cres.disperse, cres.redundancy) != (tres.disperse, tres.redundancy):
            raise _Refused("disperse-geometry", (
                f"gluster cannot change a disperse set's geometry in place: {self.name} has sets of "
                f"{cres.data_bricks} + {cres.redundancy}, the drawing asks {tres.data_bricks} + {tres.redundancy}; "
                "add-brick only adds whole sets of the same geometry"), NEW_VOLUME_ROUTE)
        if cf == tf == "replicate" and tres.replica < cres.replica:
            raise _Refused("fewer-replicas", (
                f"the drawing has replica {tres.replica} where {self.name} has replica {cres.replica}: removing a "
                "brick from each set without replacing it leaves fewer copies of every file; Brickyard does not "
                "plan that"), (f"keep replica {cres.replica} and replace the bricks you want gone "
                               "(draw each set with its new brick in the old one's place)", *NEW_VOLUME_ROUTE))
        if cres.arbiter and not tres.arbiter and tres.replica == cres.replica:
            raise _Refused("arbiter-to-data", (
                f"the drawing turns {self.name}'s arbiter bricks into data bricks: an arbiter holds no file data, "
                "and gluster cannot change a brick's role in place"), NEW_VOLUME_ROUTE)
        if tres.set_size != cres.set_size:
            raise_ok = (not cres.arbiter and tres.replica == cres.set_size + 1 and not tres.arbiter) or \
                       (cres.replica == 2 and not cres.arbiter and tres.replica == 3 and tres.arbiter == 1)
            if not raise_ok:
                raise _Refused("redundancy-step", (
                    f"{self.name} is {cres.describe()}; the drawing asks {tres.describe()}: Brickyard raises redundancy "
                    "one brick per set at a time (replica N to N+1, or replica 2 to replica 3 arbiter 1)"),
                    ("raise it one step, let the heal finish, then plan the next step",))

    def _refuse_findings(self, after: _Analysis, bricks: list[BrickChange]) -> None:
        changed = {b.ref for b in bricks if b.role in (NEW, REPLACEMENT)}
        for f in after.findings:
            if f.severity not in (ERROR, NEEDS_FORCE):
                continue
            if f.bricks and not changed.intersection(f.bricks):
                continue   # a property of the volume as it is now, not of the change
            if f.code == "same-server-set":
                raise _Refused("set-on-one-server", f"a set would have two bricks on one server: {f.message}",
                               ("draw the new bricks on other servers, or add servers, so each set spans "
                                "distinct servers",))
            raise _Refused(f.code or "gluster-refuses", f"gluster would refuse the result: {f.message}")

    # ---- replica count raised ----------------------------------------------------------------
    def _raise(self, cres: Resolved, tres: Resolved):
        cur_sets = split_sets(self.current.bricks, cres.set_size)
        tgt_sets = split_sets(self.target_bricks, tres.set_size)
        if len(cur_sets) != len(tgt_sets):
            raise _Refused("raise-and-resize", (
                f"the drawing raises redundancy and changes the number of sets ({len(cur_sets)} -> {len(tgt_sets)}) "
                "at once"), ("first raise the redundancy of the sets there are, let the heal finish",
                             "then plan the expand or shrink as a second change"))
        result_bricks: list[BrickRef] = []
        added: list[BrickRef] = []
        bricks: list[BrickChange] = []
        for i, (c, t) in enumerate(zip(cur_sets, tgt_sets)):
            extra = [b for b in t if b not in c]
            missing = [b for b in c if b not in t]
            if missing or len(extra) != 1:
                raise _Refused("raise-mismatch", (
                    f"set {i + 1} of the drawing ({', '.join(map(str, t))}) is not set {i + 1} of {self.name} "
                    f"({', '.join(map(str, c))}) plus one new brick"),
                    ("draw each set as it is with one new brick added", "replace bricks in a change of their own"))
            new = extra[0]
            if tres.arbiter and t[-1] != new:
                raise _Refused("arbiter-position", (
                    f"in set {i + 1} the drawing makes {t[-1]} the arbiter, but it holds file data; the new brick "
                    f"{new} becomes the arbiter (gluster puts it last)"), ("draw the new brick last in each set",))
            result_bricks += [*c, new]
            added.append(new)
            bricks += [BrickChange(b, KEPT, i, i, online=self.live.brick(b).online,
                                   used_bytes=self.live.brick(b).used_bytes) for b in c]
            bricks.append(BrickChange(new, NEW, None, i, arbiter=bool(tres.arbiter)))
        result = replace(self.current, layout=replace(self.target.layout), bricks=result_bricks)
        self._check_new_bricks(added)
        word = f"replica {tres.replica}" + (" arbiter 1" if tres.arbiter else "")
        steps = [ChangeStep(
            "add-brick-replica", ADD_BRICK, f"add one brick to each of the {len(cur_sets)} set(s): {word}",
            f"raises every set from {cres.replica or 1} to {tres.replica} bricks"
            + (" (the new brick is an arbiter: metadata only)" if tres.arbiter else ""), self.origin,
            (tuple(cli.add_brick_argv(self.name, added, replica=tres.replica, arbiter=tres.arbiter)),),
            tuple(added), predicted=QUICK,
            undo=f"gluster volume remove-brick {self.name} replica {cres.replica or 1} "
                 f"{' '.join(map(str, added))} force (the other copies stay)")]
        steps.append(self._heal_wait("heal:raise", tuple(added), "the new bricks start empty: every file is "
                                     "copied to them by self-heal; the change is done when heal reports nothing pending"))
        return result, bricks, steps, [RAISE]

    # ---- same set size: expand, shrink, replace ----------------------------------------------
    def _same_geometry(self, cres: Resolved):
        k = cres.set_size
        cur_sets = split_sets(self.current.bricks, k)
        tgt_sets = split_sets(self.target_bricks, k)
        owner = {b: i for i, s in enumerate(cur_sets) for b in s}
        matched: dict[int, tuple[BrickRef, ...]] = {}
        new_sets: list[tuple[BrickRef, ...]] = []
        for t in tgt_sets:
            homes = {h for h in map(owner.get, t) if h is not None}
            if len(homes) > 1:
                raise _Refused("brick-between-sets", (
                    f"the drawn set {', '.join(map(str, t))} takes bricks from {len(homes)} of {self.name}'s sets: "
                    "gluster cannot move a brick from one set to another"),
                    ("draw each current set with its bricks together (replace a brick in its own set)",))
            if not homes:
                new_sets.append(t)
                continue
            i = homes.pop()
            if i in matched:
                raise _Refused("set-split", f"two drawn sets share bricks of {self.name}'s set {i + 1}",
                               ("draw each current set once",))
            matched[i] = t
        if k == 1:
            return self._distribute(cur_sets, matched, new_sets)
        replaced: list[tuple[int, BrickRef, BrickRef]] = []
        for i, t in matched.items():
            c = cur_sets[i]
            if c == t:      # the set as it is (most of them)
                continue
            gone = [b for b in c if b not in t]
            come = [b for b in t if b not in c]
            for old, new in self._pair(c, t, gone, come):
                replaced.append((i, old, new))
        self._check_marked(replaced)
        retiring = [i for i in range(len(cur_sets)) if i not in matched]
        placed = self._place_new(new_sets)
        return self._build(cur_sets, replaced, retiring, placed, migrate=False)

    def _pair(self, c, t, gone, come):
        """Old and new brick of a set, by position where the drawing keeps it, else in order."""
        pairs = []
        come = list(come)
        for old in gone:
            pos = c.index(old)
            new = t[pos] if pos < len(t) and t[pos] in come else come[0]
            come.remove(new)
            pairs.append((old, new))
        return pairs

    def _check_marked(self, replaced) -> None:
        for old, new in self.replacements.items():
            if not any(o == old and n == new for _, o, n in replaced):
                raise _Refused("replacement-not-drawn", f"{old} is marked as replaced by {new}, but the drawing "
                                                        "does not put it in that brick's set",
                               ("draw the new brick in the old one's place in its set",))

    def _distribute(self, cur_sets, matched, new_sets):
        """Plain distribute: a brick swapped for another is migrated, never replaced."""
        retiring = [i for i in range(len(cur_sets)) if i not in matched]
        gone = [cur_sets[i][0] for i in retiring]
        if self.replacements:
            old, new = next(iter(self.replacements.items()))
            raise _Refused("replace-on-distribute", (
                f"{self.name} is plain distribute: each file lives on one brick only, so there is no copy to heal "
                f"{new} from; replace-brick would leave the files of {old} out of the volume"),
                (f"add {new} and move the files off {old} with a remove-brick migration: gluster volume add-brick "
                 f"{self.name} {new}; gluster volume rebalance {self.name} start (wait until completed on every node); "
                 f"gluster volume remove-brick {self.name} {old} start; status until completed with 0 failures on "
                 f"every node; then commit",
                 "Brickyard plans exactly that when the drawing retires the old brick and adds the new one"))
        offline = [b for b in gone if not self.live.brick(b).online]
        if offline:
            raise _Refused("offline-on-distribute", (
                f"{', '.join(map(str, offline))} {'is' if len(offline) == 1 else 'are'} offline, and {self.name} is "
                "plain distribute: the files there have no other copy to heal or migrate from"),
                (f"bring {', '.join(map(str, offline))} back online (start its node's glusterd, or "
                 f"gluster volume start {self.name} force), then plan the change again: Brickyard moves its files "
                 "off with a remove-brick migration",
                 "if the disk is lost, its files are lost with it: restore them from backup after removing the brick "
                 f"(gluster volume remove-brick {self.name} BRICK force)"))
        placed = self._place_new(new_sets)
        if gone and placed:
            self.notes.append(f"{self.name} is plain distribute: there is no copy to heal from, so the swapped "
                              "brick(s) are not replaced but migrated: the new brick(s) are added, then the old "
                              "one(s) removed with a remove-brick migration, which moves their files onto the "
                              "bricks that stay")
        return self._build(cur_sets, [], retiring, placed, migrate=bool(gone and placed))

    def _place_new(self, new_sets: list[tuple[BrickRef, ...]]) -> list[tuple[BrickRef, ...]]:
        """The new bricks grouped so each set spans distinct servers (and sites, where drawn)."""
        if not new_sets:
            return []
        k = self.cres.set_size
        flat = [b for s in new_sets for b in s]
        self._check_new_bricks(flat)
        if k == 1:
            return [(b,) for b in flat]
        if all(len({b.node for b in s}) == k and self._spans_sites(s, flat) for s in new_sets):
            return new_sets
        placed = place(self.ptopo, flat, Layout(self.target.layout.type, replica=self.target.layout.replica,
                                                  arbiter=self.target.layout.arbiter,
                                                  disperse=self.target.layout.disperse,
                                                  redundancy=self.target.layout.redundancy))
        if placed.bricks is None:
            raise _Refused("set-on-one-server", f"the new bricks cannot make sets on distinct servers: "
                                                f"{placed.note.removeprefix('Impossible: ')}",
                           ("draw the new bricks on more servers (each new set needs "
                            f"{k} different servers)",))
        sets = [tuple(placed.bricks[i:i + k]) for i in range(0, len(placed.bricks), k)]
        bad = [s for s in sets if not self._spans_sites(s, flat)]
        if bad:
            raise _Refused("set-in-one-site", (
                f"the new set {', '.join(map(str, bad[0]))} would lie in one site while {self.name}'s sets span "
                "sites: losing that site would take its files with it"),
                ("draw new bricks in other sites too, as the current sets are",))
        self.notes.append("the new bricks were grouped into sets on distinct servers"
                          + (" and sites" if self._site_count(flat) > 1 else "") + ": "
                          + "; ".join("(" + ", ".join(map(str, s)) + ")" for s in sets))
        return sets

    def _site_count(self, refs) -> int:
        site = self._sites()
        return len({site.get(b.node, "") for b in refs} - {""})

    def _sites(self) -> dict[str, str]:
        if self._site_of is None:
            self._site_of = {n.name: n.site for n in self.ptopo.nodes}
            site = self._site_of
            self._current_span = max((len({site.get(b.node, "") for b in c} - {""}) for c in
                                      split_sets(self.current.bricks, self.cres.set_size)), default=0)
        return self._site_of

    def _spans_sites(self, s, pool) -> bool:
        """A set spans as many sites as it can, when the volume's sets span sites now."""
        site = self._sites()
        if self._current_span < 2:
            return True
        return len({site.get(b.node, "") for b in s} - {""}) >= min(self._current_span, len(s))

    def _check_new_bricks(self, refs) -> None:
        in_use = self.current_set
        for ref in refs:
            if ref in in_use:
                continue
            if self.index.brick(ref) is None:
                raise _Refused("brick-not-drawn", f"{ref} is not drawn: add brick {ref.path} to node {ref.node} "
                                                  "in the topology (with its size)")
        dup = [b for b, n in Counter(refs).items() if n > 1]
        if dup:
            raise _Refused("duplicate-brick", f"{dup[0]} appears twice in the drawn volume")

    def _build(self, cur_sets, replaced, retiring, new_sets, migrate: bool):
        live = self.live
        swap = {old: new for _, old, new in replaced}
        result_bricks: list[BrickRef] = []
        after_index: dict[int, int] = {}
        retiring = set(retiring)
        for i, c in enumerate(cur_sets):
            if i in retiring:
                continue
            after_index[i] = len(result_bricks) // len(c)
            result_bricks += [swap.get(b, b) for b in c]
        first_new = len(result_bricks) // max(self.cres.set_size, 1)
        for s in new_sets:
            result_bricks += list(s)
        result = replace(self.current, bricks=result_bricks)
        bricks: list[BrickChange] = []
        arbiter = bool(self.cres.arbiter)
        known = live.bricks
        for i, c in enumerate(cur_sets):
            for pos, b in enumerate(c):
                lb = known.get(b) or live.brick(b)
                is_arb = arbiter and pos == len(c) - 1
                if i in retiring:
                    bricks.append(BrickChange(b, RETIRING, i, None, is_arb, lb.online, lb.used_bytes))
                elif swap and b in swap:
                    bricks.append(BrickChange(b, REPLACED, i, None, is_arb, lb.online, lb.used_bytes, partner=swap[b]))
                    bricks.append(BrickChange(swap[b], REPLACEMENT, None, after_index[i], is_arb, partner=b))
                else:
                    bricks.append(BrickChange(b, KEPT, i, after_index[i], is_arb, lb.online, lb.used_bytes))
        for j, s in enumerate(new_sets):
            for pos, b in enumerate(s):
                bricks.append(BrickChange(b, NEW, None, first_new + j, arbiter and pos == len(s) - 1))
        kinds: list[str] = []
        steps: list[ChangeStep] = []
        if replaced:
            kinds.append(REPLACE)
            steps += self._replace_steps(replaced, cur_sets)
        if new_sets:
            kinds += [MIGRATE] if migrate else [EXPAND, FIX_LAYOUT if self.fix_layout else REBALANCE]
            steps += self._expand_steps(new_sets, migrate)
        if retiring:
            if not migrate:
                kinds.append(SHRINK)
            steps += self._shrink_steps([b for i in retiring for b in cur_sets[i]], cur_sets, retiring)
        else:
            steps = self._in_flight(steps, result_bricks) + steps if live.task(gp.REMOVE_BRICK) else steps
        if self.cres.set_size > 1 and any(s.kind == REBALANCE_WAIT for s in steps):
            steps.append(self._heal_wait("heal:after", (), "files moved through the replica or disperse sets; "
                                         "the change is done when heal has nothing pending on any brick"))
        self._after_index = after_index
        self._retiring = sorted(retiring)
        return result, bricks, steps, kinds

    # ---- steps ---------------------------------------------------------------------------------
    def _replace_steps(self, replaced, cur_sets) -> list[ChangeStep]:
        steps = []
        for i, old, new in replaced:
            online = self.live.brick(old).online
            why = (f"{old} is offline: its set serves from the others and the new brick is filled by self-heal"
                   if not online else f"the drawing puts {new} in place of {old} in set {i + 1}")
            steps.append(ChangeStep(
                f"replace-brick:{old}", REPLACE_BRICK, f"replace {old} with {new}",
                why + "; gluster replaces a brick only while heal reports nothing pending on the volume "
                      "(glusterfs #895), and Brickyard checks that right before", self.origin,
                (tuple(cli.heal_summary_argv(self.name)), tuple(cli.replace_brick_argv(self.name, old, new))),
                (old, new), predicted=QUICK,
                undo=f"not undone by Brickyard: {old} has left the volume; replace {new} again with a fresh brick"))
            steps.append(self._heal_wait(f"heal:{new}", (new,), f"{new} starts empty and is filled from the other "
                                         "bricks of its set; the next brick is touched only when heal reports nothing "
                                         "pending"))
        return steps

    def _heal_wait(self, key: str, bricks: tuple[BrickRef, ...], reason: str) -> ChangeStep:
        return ChangeStep(key, HEAL_WAIT, "wait until heal reports nothing pending on every brick",
                          reason + "; while entries wait and their count does not fall, an index heal is launched",
                          self.origin, (tuple(cli.heal_launch_argv(self.name)),), bricks,
                          watch=tuple(cli.heal_summary_argv(self.name)))

    def _expand_steps(self, new_sets, migrate: bool) -> list[ChangeStep]:
        flat = [b for s in new_sets for b in s]
        k = self.cres.set_size
        what = (f"{len(new_sets)} {'brick' if k == 1 else 'set'}{'s' if len(new_sets) > 1 else ''}"
                + (f" ({len(flat)} bricks)" if k > 1 else ""))
        steps = [ChangeStep(
            "add-brick", ADD_BRICK, f"add {what}: {', '.join(map(str, flat))}",
            "whole sets in one command, so the volume never has half a set; each set on distinct servers",
            self.origin, (tuple(cli.add_brick_argv(self.name, flat)),), tuple(flat), predicted=QUICK,
            undo=f"a remove-brick migration of {' '.join(map(str, flat))} (brickyard change with the old drawing)")]
        if migrate:   # the remove-brick that follows lays the hash ranges out over the new bricks itself
            return steps
        fix = self.fix_layout
        steps.append(ChangeStep(
            "rebalance-start", REBALANCE_START, "start a fix-layout" if fix else "start a rebalance",
            ("fix-layout only, as asked: new files hash onto every set, files already there stay where they are "
             "(the old sets stay as full as they are now)") if fix else
            "spreads the hash ranges over every set and moves each file whose range changed hands",
            self.origin, (tuple(cli.rebalance_argv(self.name, "start", fix_layout=fix)),), predicted=QUICK,
            undo=f"gluster volume rebalance {self.name} stop (files moved so far stay moved, and readable)"))
        steps.append(ChangeStep(
            "rebalance-wait", REBALANCE_WAIT, "wait until the rebalance has completed on every node",
            "done when every node reports completed; files that failed to move are named and stay where they "
            "were, readable", self.origin, (), watch=tuple(cli.rebalance_argv(self.name, "status"))))
        return steps

    def _shrink_steps(self, gone: list[BrickRef], cur_sets, retiring) -> list[ChangeStep]:
        steps = []
        task = self.live.task(gp.REMOVE_BRICK)
        if task is not None and set(task.bricks) != set(gone):
            raise _Refused("other-remove-brick", (
                f"a remove-brick of {', '.join(map(str, task.bricks))} is {task.status_str} on {self.name}; the "
                f"drawing retires {', '.join(map(str, gone))}"),
                (f"let it finish, or stop it: gluster volume remove-brick {self.name} "
                 f"{' '.join(map(str, task.bricks))} stop; then plan again",))
        if task is not None:
            self.notes.append(f"a remove-brick of these bricks is {task.status_str} already (task {task.id}): "
                              "the plan continues it")
        rebalance = self.live.task(gp.REBALANCE)
        if rebalance is not None and rebalance.running:
            steps.append(ChangeStep(
                "rebalance-stop", REMOVE_STOP, "stop the running rebalance",
                "gluster starts no remove-brick while a rebalance runs; stopping it leaves every file readable "
                "where it is", self.origin, (tuple(cli.rebalance_argv(self.name, "stop")),), predicted=QUICK))
        listed = " ".join(map(str, gone))
        steps.append(ChangeStep(
            "remove-brick-start", REMOVE_START, f"start moving the files off {listed}",
            "remove-brick start migrates every file of the retiring sets onto the sets that stay",
            self.origin, (tuple(cli.remove_brick_argv(self.name, gone, "start")),), tuple(gone), predicted=QUICK,
            undo=f"gluster volume remove-brick {self.name} {listed} stop (the bricks stay; moved files stay moved)"))
        steps.append(ChangeStep(
            "remove-brick-wait", REMOVE_WAIT, "wait until every node reports the migration completed",
            "completed with 0 failures and 0 skipped on every node, and no data file left on the retiring bricks; "
            "with failures Brickyard stops here, names the files and does not commit (glusterfs #2350)",
            self.origin, (), tuple(gone), watch=tuple(cli.remove_brick_argv(self.name, gone, "status"))))
        steps.append(ChangeStep(
            "remove-brick-commit", REMOVE_COMMIT, f"commit the removal of {listed}",
            "only after Brickyard read back, right before it, that every node says completed with nothing failed "
            "or skipped", self.origin,
            (tuple(cli.remove_brick_argv(self.name, gone, "status")),
             tuple(cli.remove_brick_argv(self.name, gone, "commit"))), tuple(gone), predicted=QUICK,
            undo="not undone: the bricks have left the volume (their directories stay on their servers, with "
                 "gluster's metadata; remove them by hand once checked)"))
        # After the commit the sets that stay have new hash ranges, and a file already on one of
        # them that now hashes to another has no link file there: with cluster.lookup-optimize
        # (on by default in gluster 10) clients get ENOENT for it until a rebalance moves it
        # (seen on the sandbox after a 3 x 2 -> 2 x 2 shrink). So a shrink ends with one.
        why = ("after remove-brick the sets that stay have new hash ranges; files already on them that now hash "
               "to another set have no link file there, and with cluster.lookup-optimize (gluster 10's default) "
               "clients cannot see them until a rebalance moves them")
        steps.append(ChangeStep(
            "rebalance-start:after-remove", REBALANCE_START, "start a rebalance of the sets that stay", why,
            self.origin, (tuple(cli.rebalance_argv(self.name, "start")),), predicted=QUICK,
            undo=f"gluster volume rebalance {self.name} stop (files moved so far stay moved, and readable)"))
        steps.append(ChangeStep(
            "rebalance-wait:after-remove", REBALANCE_WAIT, "wait until that rebalance has completed on every node",
            "it scans every file; done when every node reports completed", self.origin, (),
            watch=tuple(cli.rebalance_argv(self.name, "status"))))
        return steps

    def _in_flight(self, steps, result_bricks) -> list[ChangeStep]:
        """A remove-brick the drawing does not want (an interrupted change rolled back): stop it."""
        task = self.live.task(gp.REMOVE_BRICK)
        keep = set(result_bricks)
        if not set(task.bricks) <= keep:
            raise _Refused("other-remove-brick", f"a remove-brick of {', '.join(map(str, task.bricks))} is "
                                                 f"{task.status_str} on {self.name}, and the drawing neither keeps "
                                                 "nor retires all of those bricks",
                           ("draw the volume with those bricks (to stop it) or without them (to finish it)",))
        self.notes.append(f"a remove-brick of {', '.join(map(str, task.bricks))} is {task.status_str} "
                          f"(task {task.id}) and the drawing keeps those bricks: it is stopped first")
        return [ChangeStep(
            "remove-brick-stop", REMOVE_STOP, f"stop the remove-brick of {', '.join(map(str, task.bricks))}",
            "the drawing keeps these bricks; stopping leaves them in the volume, and the files already moved "
            "stay readable where they went", self.origin,
            (tuple(cli.remove_brick_argv(self.name, task.bricks, "stop")),), task.bricks, predicted=QUICK)]

    def _finish_steps(self, steps, result: Volume, kinds) -> list[ChangeStep]:
        if not steps:
            return []
        current = self.current_set
        fresh = [b for b in result.bricks if b not in current]
        new_nodes = list(dict.fromkeys(b.node for b in fresh))
        pool = self.live.pool_hosts
        probes = [n for n in new_nodes if n not in pool]
        head: list[ChangeStep] = []
        for host in probes:
            head.append(ChangeStep(f"peer-probe:{host}", PROBE, f"probe {host} into the trusted pool",
                                   f"{host} holds new bricks and is not in {self.name}'s pool yet", self.origin,
                                   (tuple(cli.peer_probe_argv(host, mode_script=True, xml=True)),), predicted=QUICK,
                                   undo=f"gluster peer detach {host} (only if no volume uses it)"))
        if probes:
            head.append(ChangeStep("peers-connected", PEERS_WAIT, "wait until every peer sees the new peers connected",
                                   "add-brick is staged on every peer, and each refuses a host it does not see",
                                   self.origin, (), watch=("gluster", "--mode=script", "--xml", "peer", "status"),
                                   predicted=Range(1.0, 3.0, 60.0)))
        for b in fresh:
            head.append(ChangeStep(f"mkdir:{b}", MKDIR, f"create brick directory {b.path} on {b.node}",
                                   "made as provisioning makes bricks, with a marker so teardown removes only what "
                                   "Brickyard made", b.node, (tuple(cli.brick_mkdir_argv(b.path, self.name)),), (b,),
                                   predicted=Range(0.1, 0.5, 5.0)))
        raised, restore = self._threads_steps(steps)
        if raised is not None:
            at = next(i for i, s in enumerate(steps) if _moves_data(s))
            steps = [*steps[:at], raised, *steps[at:]]
        tail = [] if restore is None else [restore]
        tail += [ChangeStep("read-back", READ_BACK, f"read {self.name} back",
                           "done means read back: gluster's volume info must list exactly the planned bricks in "
                           "the planned order, every brick online", self.origin,
                           (tuple(cli.volume_info_argv(self.name)), tuple(cli.volume_status_argv(self.name, "detail"))),
                           tuple(result.bricks), predicted=Range(0.5, 1.0, 10.0))]
        return head + steps + tail

    def _threads_steps(self, steps) -> tuple[ChangeStep | None, ChangeStep | None]:
        """The step that raises the heal and migration threads before the first step that moves
        data, and the one that sets them back to the volume's own values (None: nothing to do)."""
        if not any(_moves_data(s) for s in steps):
            return None, None
        wanted = {LEAST_PRIO: RAISED[LEAST_PRIO]}
        family = _family(self.cres.gluster_type)
        heals = [s for s in steps if s.kind == HEAL_WAIT and s.bricks]   # a replace's or a raise's heal
        if heals and family in SHD_THREADS:
            wanted[SHD_THREADS[family]] = RAISED[SHD_THREADS[family]]
        now = dict(self.live.info.options)
        own = self.baseline_options if self.baseline_options is not None else now
        higher = {k: str(v) for k, v in wanted.items() if _threads(now.get(k), k) < v}
        back = [k for k in wanted if k in higher or now.get(k) != own.get(k)]
        if not back:
            return None, None

        def was(k: str) -> str:
            return f"{k} {own[k]}" if k in own else f"{k} unset (gluster's default, {GLUSTER_DEFAULTS[k]})"

        restore_cmds = [tuple(cli.change_set_argv(self.name, {k: own[k] for k in back if k in own}))] \
            if any(k in own for k in back) else []
        restore_cmds += [tuple(cli.volume_reset_argv(self.name, k)) for k in back if k not in own]
        restore = ChangeStep(
            "options-restore", OPTIONS_RESTORE, "set the heal and migration threads back: "
            + ", ".join(was(k) for k in back),
            "they were raised for this change only; the volume's own values, as volume info showed them before it",
            self.origin, tuple(restore_cmds), predicted=QUICK)
        if not higher:     # already raised (a rollback after a killed change): only set back
            return None, restore
        why = (f"each brick serves the self-heal daemon's and the rebalance's requests in one least-priority "
               f"queue, {LEAST_PRIO} at a time ({_threads(now.get(LEAST_PRIO), LEAST_PRIO)} on {self.name}), and "
               "while more wait its other io-threads spin on that queue's lock (glusterfs #3397): with "
               f"{RAISED[LEAST_PRIO]}, files heal and migrate several at a time instead of one by one")
        shd = next((k for k in higher if k != LEAST_PRIO), None)
        if shd:
            why += f"; {shd} {higher[shd]}: the self-heal daemon heals that many entries of each index at once"
        raised = ChangeStep(
            "options-raise", OPTIONS_RAISE, "raise the heal and migration threads for this change: "
            + ", ".join(f"{k} {v}" for k, v in higher.items()),
            why + "; set back to the volume's own values before the read-back, and when the change is cancelled "
                  "or fails", self.origin, (tuple(cli.change_set_argv(self.name, higher)),), predicted=QUICK,
            undo="; ".join(cli.render(c) for c in restore_cmds))
        return raised, restore

    # ---- what moves -----------------------------------------------------------------------------
    def _costs(self, bricks: list[BrickChange], after: _Analysis, steps, kinds):
        live = self.live
        known = live.bricks
        loads = cost.set_loads(self.before_sets, [known.get(b.ref) or live.brick(b.ref) for b in live.info.bricks])
        rates = self.rates or cost.default_rates(self.ptopo, [b.node for b in self.current.bricks] +
                                                 [b.ref.node for b in bricks])
        flows: dict[str, cost.Flow] = {}
        if RAISE in kinds:
            total = cost.Flow.empty()
            for s, load in zip(self.before_sets, loads):
                after_set = next(a for a in after.sets if set(s.bricks) <= set(a.bricks))
                new = next(b for b in after_set.bricks if b not in s.bricks)
                f = cost.heal_flow(new, after_set, load, arbiter=new == after_set.arbiter)
                _merge(total, f)
            flows["heal:raise"] = total
        for step in steps:
            if step.kind == REPLACE_BRICK:
                old, new = step.bricks
                i = next(b.set_before for b in bricks if b.ref == old)
                s = self.before_sets[i]
                flows[f"heal:{new}"] = cost.heal_flow(new, s, loads[i], arbiter=old == s.arbiter)
        fix_only = self.fix_layout and EXPAND in kinds
        expanding = any(s.key == "rebalance-wait" for s in steps)
        source_sets, source_loads = self.before_sets, loads
        index_after = dict(self._after_index)
        if expanding:
            n_new = len(after.sets) - len(index_after)
            # the volume between add-brick and the shrink: today's sets, then the new ones
            middle_sets = [*self.before_sets, *after.sets[len(after.sets) - n_new:]]
            if not fix_only:
                flows["rebalance-wait"] = cost.layout_flow(self.before_sets, middle_sets,
                                                           {i: i for i in range(len(self.before_sets))}, loads)
                total = sum(l.bytes for l in loads)
                total_entries = sum(l.entries for l in loads)
                shares = cost.shares(middle_sets)
                source_loads = [cost.SetLoad(int(total * sh), int(total_entries * sh),
                                             int(total * sh / (s.data_bricks if s.redundancy else 1)))
                                for s, sh in zip(middle_sets, shares)]
            else:
                source_loads = [*loads, *[cost.SetLoad(0, 0, 0)] * n_new]
            first_new = len(after.sets) - n_new
            index_after.update({len(self.before_sets) + j: first_new + j for j in range(n_new)})
            source_sets = middle_sets
        if self._retiring:
            flow = cost.layout_flow(source_sets, after.sets, index_after, source_loads, scan_kept=False)
            flows["remove-brick-wait"] = flow
            self._refuse_if_cannot_hold(after, flow, source_loads)
        out: dict[BrickRef, int] = Counter()
        into: dict[BrickRef, int] = Counter()
        total_bytes = total_entries = 0
        seconds = Range(0.0, 0.0, 0.0)
        timed = []
        for step in steps:
            flow = flows.get(step.key)
            if flow is not None:
                rate = rates.heal if step.kind == HEAL_WAIT else rates.migrate
                predicted = flow.seconds(rate)
                step = replace(step, predicted=predicted)
                out.update(flow.out)
                into.update(flow.into)
                total_bytes += flow.bytes
                total_entries += flow.entries
            elif step.key == "rebalance-wait:after-remove":   # scans every file, moves few
                nodes = max(len({b.node for b in self.plan_result.bricks}), 1)
                step = replace(step, predicted=rates.migrate.seconds(0, sum(l.entries for l in loads) / nodes))
            elif step.kind == REBALANCE_WAIT:
                step = replace(step, predicted=Range(1.0, 5.0, 60.0))   # fix-layout: directories only
            elif step.kind == HEAL_WAIT:
                step = replace(step, predicted=Range(3.0, 6.0, 120.0))  # after a migration: a few entries
            if step.predicted is not None:
                seconds = seconds + step.predicted
            timed.append(step)
        for b in bricks:
            o, i = out.get(b.ref), into.get(b.ref)
            if o is not None or i is not None:
                # made by this plan a moment ago and not handed out yet: filled in place (a
                # 4,800-brick plan would otherwise build every brick twice)
                b.__dict__.update(bytes_out=o or 0, bytes_in=i or 0)
        sources = {rates.migrate.source, rates.heal.source}
        movement = cost_movement(total_bytes, total_entries, seconds, " / ".join(sorted(sources)))
        return bricks, movement, timed

    def _refuse_if_cannot_hold(self, after: _Analysis, flow: cost.Flow, loads) -> None:
        """Every receiving brick must have room for what arrives, with the margin left free; and
        the sets that stay must hold all the data there is."""
        if not self._retiring:
            return
        data = sum(l.bytes for l in loads)
        room = after.capacity.usable_bytes if after.capacity else 0
        if data > room * (1 - self.margin):
            raise _Refused("cannot-hold-data", (
                f"the volume holds {format_bytes(data)} now (measured on its bricks), and the {len(after.sets)} "
                f"set(s) that stay can take {format_bytes(room)}: less than that plus the {self.margin:.0%} "
                "margin a shrink keeps free"), ("retire fewer sets, or add sets first (expand), then shrink",
                                                 "or delete data before shrinking"))
        for ref, arriving in flow.into.items():
            lb = self.live.bricks.get(ref)
            if lb is None or lb.size_free is None or not arriving:
                continue
            if arriving > lb.size_free - self.margin * (lb.size_total or 0):
                raise _Refused("cannot-hold-data", (
                    f"{ref} would receive about {format_bytes(arriving)} but has {format_bytes(lb.size_free)} free "
                    f"(it must keep {self.margin:.0%} of its filesystem free)"),
                    ("retire fewer sets, or add sets first (expand), then shrink",))


def _moves_data(step: ChangeStep) -> bool:
    """A step that starts a heal or a migration (an add-brick of whole sets moves nothing by itself)."""
    return step.kind in (REPLACE_BRICK, REBALANCE_START, REMOVE_START) or (
        step.kind == ADD_BRICK and step.key == "add-brick-replica")


def _threads(value: str | None, key: str) -> int:
    """An option's thread count as volume info shows it, or gluster's default when unset."""
    try:
        return int(value) if value is not None else GLUSTER_DEFAULTS[key]
    except ValueError:
        return GLUSTER_DEFAULTS[key]


def _merge(total: cost.Flow, f: cost.Flow) -> None:
    for k, v in f.out.items():
        total.out[k] += v
    for k, v in f.into.items():
        total.into[k] += v
    for k, v in f.node_bytes.items():
        total.node_bytes[k] += v
    for k, v in f.node_entries.items():
        total.node_entries[k] += v
    total.bytes += f.bytes
    total.entries += f.entries


def cost_movement(nbytes: int, entries: int, seconds: Range, rates: str) -> Movement:
    return Movement(nbytes, entries, seconds, rates)

"""gluster 10's XML of work that takes time: rebalance, remove-brick migration, self-heal.

Shapes, as gluster 10.3 prints them (recorded in tests/fixtures/gluster/lab-change-*):

- ``volume rebalance VOL status --xml`` and ``volume remove-brick VOL BRICK… status --xml``:
  ``volRebalance`` / ``volRemoveBrick`` with ``task-id`` and one ``node`` per node taking part
  (nodeName, id = the peer's UUID, files, size, lookups, failures, skipped, status,
  statusStr, runtime) and an ``aggregate``. The node the command ran on is named
  ``localhost``: its UUID tells which peer it is. A remove-brick lists only the nodes that
  hold a brick being removed. When nothing runs (never started, or stopped: ``stop`` forgets
  the task) gluster refuses with "Rebalance not started for volume VOL." /
  "remove-brick not started for volume VOL.": that reads as ``None`` here.
- status numbers (glusterd ``gf_defrag_status_t``): 0 not started, 1 in progress, 2 stopped,
  3 completed, 4 failed, 5 fix-layout in progress, 6 fix-layout stopped, 7 fix-layout
  completed, 8 fix-layout failed.
- ``volume rebalance VOL start|fix-layout start --xml``, ``remove-brick … start --xml``: the
  new task's ``task-id``.
- ``volume status VOL tasks --xml``: ``volStatus/volumes/volume/tasks/task`` (type
  "Rebalance" or "Remove brick", id, status, statusStr, and for a remove-brick
  ``params/brick``). A finished rebalance stays listed as completed until the next one.
- ``volume heal VOL info summary --xml``: ``healInfo/bricks/brick`` (name, status
  "Connected", totalNumberOfEntries, numberOfEntriesInHealPending,
  numberOfEntriesInSplitBrain, numberOfEntriesPossiblyHealing); on a volume that is neither
  replicated nor dispersed gluster refuses (opRet -1).
- ``volume heal VOL statistics heal-count``: no XML in 10.3; "Brick HOST:/PATH" then
  "Number of entries: N" per brick; replicated volumes only (cheap: it counts index entries,
  while ``info summary`` crawls them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .gluster_xml import GlusterCommandError, GlusterXMLError, _brick_ref, _int, parse
from .topology import BrickRef

NOT_STARTED, IN_PROGRESS, STOPPED, COMPLETED, FAILED = 0, 1, 2, 3, 4
LAYOUT_IN_PROGRESS, LAYOUT_STOPPED, LAYOUT_COMPLETED, LAYOUT_FAILED = 5, 6, 7, 8
STATUS_WORDS = {
    NOT_STARTED: "not started", IN_PROGRESS: "in progress", STOPPED: "stopped", COMPLETED: "completed",
    FAILED: "failed", LAYOUT_IN_PROGRESS: "fix-layout in progress", LAYOUT_STOPPED: "fix-layout stopped",
    LAYOUT_COMPLETED: "fix-layout completed", LAYOUT_FAILED: "fix-layout failed",
}
REBALANCE, REMOVE_BRICK = "rebalance", "remove-brick"
_ROOTS = {REBALANCE: "volRebalance", REMOVE_BRICK: "volRemoveBrick"}


@dataclass(frozen=True)
class MigrationNode:
    """One node's part of a rebalance or remove-brick migration (or the aggregate)."""

    name: str           # as gluster printed it ("localhost" for the node asked)
    uuid: str
    files: int          # migrated
    size: int           # bytes migrated
    lookups: int        # files scanned
    failures: int
    skipped: int
    status: int
    status_str: str
    runtime: float      # seconds

    @property
    def running(self) -> bool:
        return self.status in (IN_PROGRESS, LAYOUT_IN_PROGRESS)

    @property
    def completed(self) -> bool:
        return self.status in (COMPLETED, LAYOUT_COMPLETED)

    @property
    def failed(self) -> bool:
        return self.status in (FAILED, LAYOUT_FAILED)

    @property
    def stopped(self) -> bool:
        return self.status in (STOPPED, LAYOUT_STOPPED)


@dataclass(frozen=True)
class MigrationStatus:
    """``rebalance status`` or ``remove-brick status``: every node's part and the total."""

    kind: str                      # REBALANCE | REMOVE_BRICK
    task_id: str
    nodes: tuple[MigrationNode, ...]
    aggregate: MigrationNode | None = None

    @property
    def running(self) -> bool:
        return any(n.running for n in self.nodes)

    @property
    def completed(self) -> bool:
        """Every node reports completed (not merely: nothing runs any more)."""
        return bool(self.nodes) and all(n.completed for n in self.nodes)

    @property
    def fix_layout(self) -> bool:
        return any(n.status >= LAYOUT_IN_PROGRESS for n in self.nodes)

    @property
    def failures(self) -> int:
        return sum(n.failures for n in self.nodes)

    @property
    def skipped(self) -> int:
        return sum(n.skipped for n in self.nodes)

    @property
    def files(self) -> int:
        return sum(n.files for n in self.nodes)

    @property
    def size(self) -> int:
        return sum(n.size for n in self.nodes)

    @property
    def lookups(self) -> int:
        return sum(n.lookups for n in self.nodes)

    @property
    def runtime(self) -> float:
        return max((n.runtime for n in self.nodes), default=0.0)

    @property
    def clean(self) -> bool:
        """Completed on every node with no failure and nothing skipped: the only state in which
        a remove-brick may be committed (glusterfs #2350: commit after failures leaves the
        files that did not move as 0-byte T entries)."""
        return self.completed and self.failures == 0 and self.skipped == 0

    def named(self, names: dict[str, str]) -> "MigrationStatus":
        """The same status with each node named from ``names`` (peer UUID -> host name), so
        "localhost" reads as the node it is."""
        return replace(self, nodes=tuple(replace(n, name=names.get(n.uuid, n.name)) for n in self.nodes))

    def node_lines(self) -> list[str]:
        return [f"{n.name}: {n.status_str}, {n.lookups} scanned, {n.files} moved ({n.size} bytes), "
                f"{n.skipped} skipped, {n.failures} failed, {n.runtime:g} s" for n in self.nodes]


def _float(el, tag: str) -> float:
    text = (el.findtext(tag) or "0").strip()
    try:
        return float(text)
    except ValueError:
        raise GlusterXMLError(f"<{tag}> is not a number: {text!r}") from None


def _migration_node(el, where: str) -> MigrationNode:
    status = _int(el, "status", where, default=0)
    return MigrationNode(
        name=(el.findtext("nodeName") or "").strip(), uuid=(el.findtext("id") or "").strip(),
        files=_int(el, "files", where, default=0), size=_int(el, "size", where, default=0),
        lookups=_int(el, "lookups", where, default=0), failures=_int(el, "failures", where, default=0),
        skipped=_int(el, "skipped", where, default=0), status=status,
        status_str=(el.findtext("statusStr") or STATUS_WORDS.get(status, str(status))).strip(),
        runtime=_float(el, "runtime"))


def not_started(exc: GlusterCommandError) -> bool:
    """gluster's answer when no rebalance / remove-brick task exists (never started, or stopped)."""
    return "not started" in exc.op_errstr


def parse_migration_status(xml: bytes | str, kind: str) -> MigrationStatus | None:
    """``rebalance status`` (kind REBALANCE) or ``remove-brick … status`` (REMOVE_BRICK);
    None when gluster says none is started."""
    try:
        root = parse(xml)
    except GlusterCommandError as exc:
        if not_started(exc):
            return None
        raise
    el = root.find(_ROOTS[kind])
    if el is None:
        raise GlusterXMLError(f"no <{_ROOTS[kind]}> in the {kind} status")
    nodes = tuple(_migration_node(n, f"{kind} node") for n in el.findall("node"))
    agg = el.find("aggregate")
    return MigrationStatus(kind, (el.findtext("task-id") or "").strip(), nodes,
                           _migration_node(agg, f"{kind} aggregate") if agg is not None else None)


def parse_task_id(xml: bytes | str) -> str:
    """The task id a ``rebalance … start`` or ``remove-brick … start`` answered with ('' if none);
    raises GlusterCommandError when gluster refused."""
    root = parse(xml)
    for tag in _ROOTS.values():
        el = root.find(tag)
        if el is not None:
            return (el.findtext("task-id") or "").strip()
    return ""


@dataclass(frozen=True)
class VolumeTask:
    type: str                      # "Rebalance" | "Remove brick"
    id: str
    status: int
    status_str: str
    bricks: tuple[BrickRef, ...] = ()

    @property
    def running(self) -> bool:
        return self.status in (IN_PROGRESS, LAYOUT_IN_PROGRESS)

    @property
    def is_rebalance(self) -> bool:
        return self.type.lower() == "rebalance"

    @property
    def is_remove_brick(self) -> bool:
        return self.type.lower() == "remove brick"


def parse_volume_tasks(xml: bytes | str) -> dict[str, list[VolumeTask]]:
    """``volume status VOL|all tasks``: volume name -> its tasks."""
    out: dict[str, list[VolumeTask]] = {}
    for vol in parse(xml).findall("volStatus/volumes/volume"):
        name = (vol.findtext("volName") or "").strip()
        tasks = out.setdefault(name, [])
        for t in vol.findall("tasks/task"):
            where = f"volume {name} task"
            status = _int(t, "status", where, default=0)
            bricks = tuple(_brick_ref(b.text or "", where) for b in t.findall("params/brick"))
            tasks.append(VolumeTask((t.findtext("type") or "").strip(), (t.findtext("id") or "").strip(), status,
                                    (t.findtext("statusStr") or STATUS_WORDS.get(status, "")).strip(), bricks))
    return out


@dataclass(frozen=True)
class HealBrick:
    """One brick of ``heal info summary``."""

    ref: BrickRef
    status: str                    # "Connected", "Transport endpoint is not connected", …
    total: int | None              # None: the brick could not be asked
    pending: int | None = None
    split_brain: int | None = None
    possibly_healing: int | None = None

    @property
    def connected(self) -> bool:
        return self.status == "Connected"

    @property
    def clean(self) -> bool:
        return self.connected and self.total == 0


def _maybe_int(el, tag: str, where: str) -> int | None:
    text = el.findtext(tag)
    if text is None or not text.strip() or not text.strip().lstrip("-").isdigit():
        return None   # "-" for a brick that is down
    return _int(el, tag, where)


def parse_heal_summary(xml: bytes | str) -> list[HealBrick]:
    """``volume heal VOL info summary --xml``, brick by brick in the volume's order."""
    out = []
    for b in parse(xml).findall("healInfo/bricks/brick"):
        name = (b.findtext("name") or "").strip()
        where = f"heal info brick {name}"
        out.append(HealBrick(_brick_ref(name, where), (b.findtext("status") or "").strip(),
                             _maybe_int(b, "totalNumberOfEntries", where),
                             _maybe_int(b, "numberOfEntriesInHealPending", where),
                             _maybe_int(b, "numberOfEntriesInSplitBrain", where),
                             _maybe_int(b, "numberOfEntriesPossiblyHealing", where)))
    return out


_HEAL_COUNT_BRICK = re.compile(r"^Brick\s+(\S+:/\S*)\s*$")
_HEAL_COUNT_ENTRIES = re.compile(r"^Number of entries:\s*(\d+)\s*$")


def parse_heal_count(text: bytes | str) -> dict[BrickRef, int | None]:
    """``volume heal VOL statistics heal-count`` (plain text): brick -> entries to heal (None when
    gluster printed no number for it, e.g. a brick that is down)."""
    data = text.decode(errors="replace") if isinstance(text, bytes) else text
    if "has been unsuccessful" in data:
        tail = [ln for ln in data.splitlines() if ln.strip()]
        raise GlusterXMLError(f"heal-count refused: {tail[-1] if tail else 'no reason given'}")
    out: dict[BrickRef, int | None] = {}
    current: BrickRef | None = None
    for line in data.splitlines():
        m = _HEAL_COUNT_BRICK.match(line.strip())
        if m:
            current = _brick_ref(m.group(1), "heal-count")
            out[current] = None
            continue
        m = _HEAL_COUNT_ENTRIES.match(line.strip())
        if m and current is not None:
            out[current] = int(m.group(1))
    return out

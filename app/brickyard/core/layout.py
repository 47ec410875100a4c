"""gluster 10's rules for ``gluster volume create``, as its CLI parser and glusterd apply them.

Sources (glusterfs release-10):
- ``cli/src/cli-cmd-parser.c``: ``cli_validate_volname`` (volume names),
  ``cli_cmd_volume_create_parse`` (replica/arbiter words, "replica 2 arbiter 1" read as
  replica 3 arbiter 1, the replica 2 split-brain question), ``cli_cmd_create_disperse_check`` (disperse/redundancy,
  gluster's own redundancy choice and its three questions), ``cli_cmd_bricks_parse``
  (``host:/abs-path``, no localhost, no duplicate bricks).
- ``xlators/mgmt/glusterd/src/glusterd-volume-ops.c`` ``glusterd_op_stage_create_volume`` and
  ``glusterd-utils.c`` ``glusterd_check_brick_order`` (bricks of one set on one server),
  ``glusterd_validate_and_create_brickpath`` (root partition, mount point, a brick already in
  a volume), ``glusterd_is_brickpath_available`` (a brick inside another); a brick count
  that is not a multiple of the set size passes gluster 10.3's CLI and fails in glusterd's
  commit ("Failed to create volume files").
- ``xlators/cluster/ec/src/ec.c`` ``ec_parse_options``: at most 16 data bricks per disperse
  set, checked only when the volume starts serving (a warning here, not a refusal).
Where gluster 10.3 was seen answering (tests/fixtures/gluster/lab-error-*), its words are used.

Severities: ``error`` gluster refuses; ``needs-force`` refused unless ``force``; ``warning``
gluster asks "Do you want to continue?" (``--mode=script`` says yes without showing it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from posixpath import normpath

from .brickrules import brick_findings, thin_arbiter_findings
from .names import RESERVED_VOLNAMES, name_findings, volname_problem  # noqa: F401 (re-exported)
from .planmodel import ERROR, WARNING, Finding, TopologyIndex
from .topology import BrickRef, Layout, Topology, Volume, VolumeType

TRANSPORTS = ("tcp", "rdma", "tcp,rdma")
EC_MAX_FRAGMENTS = 16  # xlators/cluster/ec/src/ec-method.h EC_METHOD_MAX_FRAGMENTS

# The question cli_cmd_volume_create_parse asks for replica 2 without an arbiter.
SPLIT_BRAIN_QUESTION = (
    "Replica 2 volumes are prone to split-brain. Use Arbiter or Replica 3 to avoid this. "
    "See: http://docs.gluster.org/en/latest/Administrator%20Guide/Split%20brain%20and%20ways"
    "%20to%20deal%20with%20it/. Do you still want to continue?"
)
# cli_cmd_create_disperse_check's questions.
NO_OPTIMAL_REDUNDANCY = ("There isn't an optimal redundancy value for this configuration. "
                         "Do you want to create the volume with redundancy 1 ?")
OPTIMAL_REDUNDANCY = ("The optimal redundancy for this configuration is {r}. Do you want to "
                      "create the volume with this value ?")
NOT_OPTIMAL = "This configuration is not optimal on most workloads. Do you want to use it ?"

TYPE_NAMES = {
    VolumeType.DISTRIBUTE: "Distribute", VolumeType.REPLICATE: "Replicate",
    VolumeType.DISPERSE: "Disperse", VolumeType.DISTRIBUTED_REPLICATE: "Distributed-Replicate",
    VolumeType.DISTRIBUTED_DISPERSE: "Distributed-Disperse",
}


@dataclass(frozen=True)
class Resolved:
    """What ``gluster volume create`` will really do with a layout and a brick count."""

    gluster_type: VolumeType
    set_size: int                 # bricks per set; 1 for plain distribute
    replica: int | None = None    # the effective count: 3 for "replica 2 arbiter 1"
    arbiter: int = 0
    disperse: int | None = None
    redundancy: int | None = None  # after gluster's own choice when it was omitted
    brick_count: int = 0
    thin_arbiter: int = 0          # "replica 2 thin-arbiter 1" (the TA brick is not counted)
    disperse_data: int | None = None  # given as "disperse-data D": the words say so

    @property
    def set_count(self) -> int:
        return self.brick_count // self.set_size if self.set_size else 0

    @property
    def data_bricks(self) -> int:
        if self.disperse:
            return self.disperse - (self.redundancy or 0)
        return 1

    def create_words(self) -> list[str]:
        """The layout words of ``gluster volume create`` (always explicit counts)."""
        if self.replica:
            words = ["replica", str(self.replica)]
            if self.thin_arbiter:
                return words + ["thin-arbiter", str(self.thin_arbiter)]
            return words + (["arbiter", str(self.arbiter)] if self.arbiter else [])
        if self.disperse and self.disperse_data:
            return ["disperse-data", str(self.disperse_data), "redundancy", str(self.redundancy)]
        if self.disperse:
            return ["disperse", str(self.disperse), "redundancy", str(self.redundancy)]
        return []

    def describe(self) -> str:
        """gluster's "Number of Bricks" line: ``2 x (4 + 2) = 12``, ``1 x (2 + 1) = 3``."""
        if self.disperse:
            inner = f"({self.data_bricks} + {self.redundancy})"
        elif self.replica and self.arbiter:
            inner = f"({self.replica - self.arbiter} + {self.arbiter})"
        elif self.replica:
            inner = str(self.replica)
        else:
            return str(self.brick_count)
        return f"{self.set_count} x {inner} = {self.brick_count}"


@dataclass(frozen=True)
class LayoutCheck:
    resolved: Resolved
    sets: tuple[tuple[BrickRef, ...], ...]
    findings: tuple[Finding, ...]

    @property
    def accepted(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def auto_redundancy(disperse: int) -> tuple[int, str | None]:
    """gluster's own redundancy when only ``disperse N`` is given, and the question it asks.

    cli_cmd_create_disperse_check: walk down from disperse-1 data bricks to the largest power
    of two whose redundancy (disperse - data) is at most (disperse-1)/2; none: redundancy 1.
    """
    # The C loop steps ``tmp`` down from disperse-1 at most (disperse-1)//2 times; the same
    # answer in closed form, so a huge count costs nothing (the loop took minutes for 10**9).
    tmp = disperse - 1
    steps = tmp // 2
    if steps < 0:   # disperse < 1 (refused before this is asked): the C loop's answer
        return 1, None
    if steps == 0:
        return 1, NO_OPTIMAL_REDUNDANCY
    power = 1 << (tmp.bit_length() - 1)      # the largest power of two <= disperse-1
    if tmp - power >= steps:
        return 1, NO_OPTIMAL_REDUNDANCY
    redundancy = disperse - power
    return redundancy, (OPTIMAL_REDUNDANCY.format(r=redundancy) if redundancy > 1 else None)


# gluster 10.3's words (cli-cmd-parser.c cli_cmd_volume_create_parse), seen on the lab.
REPLICATED_DISPERSED = "replicated-dispersed volume is not supported"
ARBITER_WITHOUT_REPLICA = "arbiter option must be preceded by replica option."
THIN_ARBITER_WITHOUT_REPLICA = "thin-arbiter option must be preceded by replica option."
ARBITER_COUNTS = ("For arbiter configuration, replica count must be 2 and arbiter count must be 1. "
                  "The 3rd brick of the replica will be the arbiter")
THIN_ARBITER_COUNTS = ("For thin-arbiter configuration, replica count must be 2 and thin-arbiter count must "
                       "be 1. The 3rd brick of the replica will be the thin-arbiter brick")
# cli_cmd_create_disperse_check's words and question for disperse-data
REDUNDANCY_FOR_DATA = ("Redundancy for this configuration is {r}. Do you want to create the volume with this "
                       "value ?")


def unused_count_findings(layout: Layout) -> list[Finding]:
    """Counts the layout's type does not use (a topology file can hold any): gluster refuses
    the words they would add to ``volume create``, so the planner refuses them too instead of
    dropping them from the command."""
    kind = layout.type
    out: list[Finding] = []
    disperse_words = [f"{w} {v}" for w, v in (("disperse", layout.disperse), ("disperse-data", layout.disperse_data),
                                              ("redundancy", layout.redundancy)) if v is not None]
    if kind.is_replicated and disperse_words:
        out.append(Finding(ERROR, "replicated-dispersed", f"{REPLICATED_DISPERSED} (this {kind.value} "
                                                          f"volume also sets {' and '.join(disperse_words)})"))
    if kind.is_dispersed and layout.replica is not None:
        out.append(Finding(ERROR, "replicated-dispersed", f"{REPLICATED_DISPERSED} (this {kind.value} "
                                                          f"volume also sets replica {layout.replica})"))
    if not kind.is_replicated and layout.arbiter:
        out.append(Finding(ERROR, "arbiter-without-replica", f"{ARBITER_WITHOUT_REPLICA} (this {kind.value} "
                                                             f"volume sets arbiter {layout.arbiter})"))
    if not kind.is_replicated and layout.thin_arbiter:
        out.append(Finding(ERROR, "thin-arbiter-without-replica", f"{THIN_ARBITER_WITHOUT_REPLICA} (this "
                                                                  f"{kind.value} volume sets thin-arbiter "
                                                                  f"{layout.thin_arbiter})"))
    if kind is VolumeType.DISTRIBUTE:
        words = ([f"replica {layout.replica}"] if layout.replica is not None else []) + disperse_words
        if words:
            out.append(Finding(ERROR, "distribute-with-counts", (
                f"A distribute volume has no {' or '.join(w.split()[0] for w in words)} count: with "
                f"{' and '.join(words)} gluster would create another type of volume. Choose that type, "
                "or remove the count.")))
    return out


def resolve(layout: Layout, brick_count: int) -> tuple[Resolved, list[Finding]]:
    """Apply the CLI parser's counting rules. Findings carry no bricks (they concern counts).
    With an error among them the counts of the ``Resolved`` are placeholders, not a layout
    gluster would create."""
    findings: list[Finding] = unused_count_findings(layout)
    kind = layout.type

    def err(code: str, message: str) -> None:
        findings.append(Finding(ERROR, code, message))

    if brick_count == 0:
        err("no-bricks", "No bricks specified")
    if kind.is_replicated:
        replica = layout.replica
        if replica is None:
            if kind is VolumeType.REPLICATE:
                replica = brick_count  # "replica N" with every brick in one set
            else:
                err("replica-missing", "distributed-replicate needs a replica count")
                replica = 2
        arbiter = layout.arbiter
        thin = layout.thin_arbiter
        if replica < 2:
            err("replica-too-small", "replica count should be greater than 1")
            replica, arbiter, thin = 2, 0, 0
        if thin:
            # "replica 2 thin-arbiter 1" only; with arbiter too the CLI reads the second
            # word on its own and refuses it
            if arbiter:
                err("thin-arbiter-with-arbiter", f"{THIN_ARBITER_WITHOUT_REPLICA} (the volume sets arbiter "
                                                 f"{arbiter} and thin-arbiter {thin}: use one of them)")
            elif thin != 1 or replica != 2:
                err("thin-arbiter-count", THIN_ARBITER_COUNTS)
            arbiter, thin = 0, (1 if thin == 1 and replica == 2 and not arbiter else 0)
            if brick_count == 1 and thin:
                # seen on the lab: glusterd 10.3 dies (SIGSEGV) on this create
                err("thin-arbiter-one-brick", "a thin-arbiter volume needs two data bricks per set: with one, "
                                              "glusterd 10.3 crashes on volume create (seen on the lab)")
        if arbiter:
            # "replica 2 arbiter 1" is accepted and means replica 3 arbiter 1.
            if arbiter != 1 or replica not in (2, 3):
                err("arbiter-count", ARBITER_COUNTS)
                arbiter = 0
            else:
                replica = 3
        if brick_count % replica and not (thin and brick_count == 1):
            err("not-multiple", _not_divisible(brick_count, replica))
        if replica == 2 and not arbiter and not thin:
            findings.append(Finding(WARNING, "replica-2-split-brain", SPLIT_BRAIN_QUESTION))
        sets = max(brick_count // replica, 1)
        gtype = VolumeType.REPLICATE if sets == 1 else VolumeType.DISTRIBUTED_REPLICATE
        res = Resolved(gtype, replica, replica=replica, arbiter=arbiter, brick_count=brick_count,
                       thin_arbiter=thin)
    elif kind.is_dispersed:
        res = _resolve_disperse(layout, brick_count, findings)
    else:
        res = Resolved(VolumeType.DISTRIBUTE, 1, brick_count=brick_count)
    if any(f.severity == ERROR for f in findings):
        # gluster stops at the first refusal: no question is asked of placeholder counts
        return res, [f for f in findings if f.severity == ERROR]
    if brick_count and res.gluster_type is not kind:
        findings.append(Finding(
            WARNING, "type-differs",
            f"You chose {kind.value}, but with {brick_count} bricks gluster creates "
            f"{TYPE_NAMES[res.gluster_type]} ({res.describe()})."))
    return res, findings


def _resolve_disperse(layout: Layout, count: int, findings: list[Finding]) -> Resolved:
    def err(code: str, message: str) -> None:
        findings.append(Finding(ERROR, code, message))

    disperse = layout.disperse
    redundancy = layout.redundancy
    data = layout.disperse_data
    if disperse is not None and disperse < 3:
        err("disperse-too-small", "disperse count must be greater than 2")
        disperse = 3
    if data is not None:
        return _resolve_disperse_data(layout, count, findings)
    if disperse is None:
        if layout.type is VolumeType.DISTRIBUTED_DISPERSE:
            err("disperse-missing", "distributed-disperse needs a disperse count")
        elif count < 3:
            err("too-few-bricks", "number of bricks must be greater than 2")
        disperse = max(count, 3) if layout.type is VolumeType.DISPERSE else 3
    if redundancy is not None and redundancy < 1:
        err("redundancy-too-small", "redundancy must be greater than 0")  # cli_validate_disperse_volume
        redundancy = 1  # a placeholder: gluster stops here, asking nothing more
    if redundancy is None:
        redundancy, question = auto_redundancy(disperse)
        if question:
            findings.append(Finding(WARNING, "disperse-redundancy-chosen", question))
    elif layout.redundancy is not None and layout.redundancy >= 1:
        if not _power_of_two(disperse - redundancy) and redundancy <= (disperse - 1) // 2:
            findings.append(Finding(WARNING, "disperse-not-optimal", NOT_OPTIMAL))
    if redundancy > (disperse - 1) // 2:
        err("redundancy-too-large", _redundancy_range(disperse))
    if disperse - redundancy > EC_MAX_FRAGMENTS and redundancy <= (disperse - 1) // 2:
        # Not a create-time check: glusterd creates the volume, but the disperse translator
        # (xlators/cluster/ec/src/ec.c ec_parse_options) refuses to start with more than
        # EC_MAX_FRAGMENTS data bricks, so no client can mount it.
        findings.append(Finding(WARNING, "disperse-too-many-data-bricks", (
            f"gluster creates this volume, but its disperse translator allows at most "
            f"{EC_MAX_FRAGMENTS} data bricks per set ({disperse - redundancy} here): mounts and "
            f"self-heal fail with \"Invalid redundancy (must be between 1 and {(disperse - 1) // 2})\".")))
    if count % disperse:
        # the CLI's own check (cli_cmd_volume_create_parse, sub_count = disperse count)
        err("not-multiple", "number of bricks is not a multiple of disperse count "
                            f"({count} bricks, disperse {disperse})")
    sets = max(count // disperse, 1)
    gtype = VolumeType.DISPERSE if sets == 1 else VolumeType.DISTRIBUTED_DISPERSE
    return Resolved(gtype, disperse, disperse=disperse, redundancy=redundancy, brick_count=count)


def _resolve_disperse_data(layout: Layout, count: int, findings: list[Finding]) -> Resolved:
    """``disperse-data D`` (cli_validate_disperse_volume, cli_cmd_create_disperse_check): the
    disperse or redundancy count not given is derived; with neither, every brick is one set."""
    def err(code: str, message: str) -> None:
        findings.append(Finding(ERROR, code, message))

    data, disperse, redundancy = layout.disperse_data, layout.disperse, layout.redundancy
    if data < 2:
        err("disperse-data-too-small", "disperse-data must be greater than 1")
        data = 2
    if redundancy is not None and redundancy < 1:
        err("redundancy-too-small", "redundancy must be greater than 0")
        redundancy = 1
    if any(f.severity == ERROR for f in findings):
        disperse = disperse if disperse and disperse >= 3 else data + (redundancy or 1)
        return Resolved(VolumeType.DISPERSE, disperse, disperse=disperse, redundancy=redundancy or 1,
                        brick_count=count, disperse_data=data)
    if disperse is not None and redundancy is not None:
        if disperse != data + redundancy:
            err("disperse-data-sum", f"Disperse count({disperse}) should be equal to sum of disperse-data "
                                     f"count({data}) and redundancy count({redundancy})")
    elif redundancy is not None:
        disperse = data + redundancy
    elif disperse is not None:
        redundancy = disperse - data
    elif count - data >= data:
        err("disperse-data-redundancy-missing", "Please provide redundancy count along with disperse-data count")
        redundancy, disperse = 1, data + 1
    else:
        redundancy, disperse = count - data, count
        findings.append(Finding(WARNING, "disperse-redundancy-chosen", REDUNDANCY_FOR_DATA.format(r=redundancy)))
    if not any(f.severity == ERROR for f in findings):
        if redundancy < 1 or redundancy > (disperse - 1) // 2:
            err("redundancy-too-large" if redundancy >= 1 else "redundancy-too-small", _redundancy_range(disperse))
        elif not _power_of_two(data):
            findings.append(Finding(WARNING, "disperse-not-optimal", NOT_OPTIMAL))
        if data > EC_MAX_FRAGMENTS:
            findings.append(Finding(WARNING, "disperse-too-many-data-bricks", (
                f"gluster creates this volume, but its disperse translator allows at most "
                f"{EC_MAX_FRAGMENTS} data bricks per set ({data} here): mounts and self-heal fail.")))
        if count % disperse:
            err("not-multiple", "number of bricks is not a multiple of disperse count "
                                f"({count} bricks, disperse {disperse})")
    sets = max(count // max(disperse, 1), 1)
    gtype = VolumeType.DISPERSE if sets == 1 else VolumeType.DISTRIBUTED_DISPERSE
    return Resolved(gtype, disperse, disperse=disperse, redundancy=redundancy, brick_count=count,
                    disperse_data=data)


def _not_divisible(count: int, set_size: int) -> str:
    # A replica count that does not divide the bricks: the CLI checks a sub-count of 1 for
    # replicated volumes, so gluster 10.3 lets this through its CLI and glusterd fails in its
    # commit phase (leaving the brick directories behind). Recorded:
    # tests/fixtures/gluster/lab-error-create-brick-count.xml
    return (f"Failed to create volume files (glusterd: total number of bricks ({count}) is not "
            f"divisible with number of bricks per cluster ({set_size}))")


def _redundancy_range(disperse: int) -> str:
    # gluster 10.3's words (lab-error-create-disperse-redundancy.stderr.txt).
    return (f"redundancy must be greater than or equal to 1 and less than {(disperse + 1) // 2} "
            f"for a disperse {disperse} volume")


def split_sets(bricks: list[BrickRef], set_size: int) -> tuple[tuple[BrickRef, ...], ...]:
    """Each run of ``set_size`` consecutive bricks is one set (a short tail is its own).
    A set size beyond the brick count (``replica 1000000000``) is one short set: the work
    and memory follow the bricks, never the count asked for."""
    size = min(max(set_size, 1), max(len(bricks), 1))
    whole = len(bricks) - len(bricks) % size
    sets = tuple(zip(*[iter(bricks[:whole])] * size))  # the whole sets, grouped in C
    return sets + (tuple(bricks[whole:]),) if whole < len(bricks) else sets


def check_volume(topo: Topology, volume: Volume, index: TopologyIndex | None = None) -> LayoutCheck:
    """Every verdict gluster would give on ``gluster volume create`` for this volume."""
    index = index or TopologyIndex(topo)
    resolved, findings = resolve(volume.layout, len(volume.bricks))
    findings[:0] = name_findings(volume.name, volume.bricks, volume.transport, index)
    if volume.transport not in TRANSPORTS:
        findings.append(Finding(ERROR, "transport", "incorrect transport protocol specified "
                                f"({volume.transport!r}; use tcp)"))
    sets = split_sets(volume.bricks, resolved.set_size)
    if findings and any(f.severity == ERROR for f in findings):
        # refused counts: the set size is a placeholder, so no set is checked (brick order)
        resolved_for_bricks = replace(resolved, set_size=1, replica=None, arbiter=0, disperse=None)
    else:
        resolved_for_bricks = resolved
    findings.extend(brick_findings(topo, volume, resolved_for_bricks, sets, index))
    findings.extend(thin_arbiter_findings(topo, volume, index))
    return LayoutCheck(resolved, sets, tuple(findings))


def candidate_layouts(brick_count: int) -> list[Layout]:
    """Every layout gluster accepts (no errors; a question or ``force`` may remain) for
    ``brick_count`` bricks: distribute, each replica count (and arbiter) that divides the
    count, each disperse size that divides it with each allowed redundancy."""
    out: list[Layout] = []
    if brick_count < 1:
        return out
    out.append(Layout(VolumeType.DISTRIBUTE))
    for replica in range(2, brick_count + 1):
        if brick_count % replica:
            continue
        kind = VolumeType.REPLICATE if replica == brick_count else VolumeType.DISTRIBUTED_REPLICATE
        out.append(Layout(kind, replica=replica))
        if replica == 3:
            out.append(Layout(kind, replica=3, arbiter=1))
    for disperse in range(3, brick_count + 1):
        if brick_count % disperse:
            continue
        kind = VolumeType.DISPERSE if disperse == brick_count else VolumeType.DISTRIBUTED_DISPERSE
        for redundancy in range(1, (disperse - 1) // 2 + 1):
            out.append(Layout(kind, disperse=disperse, redundancy=redundancy))
    return out


def normalised(path: str) -> str:
    """A brick path as the CLI passes it on: trailing slashes stripped (cli_cmd_bricks_parse)."""
    return normpath(path) if path.startswith("/") else path

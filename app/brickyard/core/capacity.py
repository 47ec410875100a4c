"""What a volume holds: raw, usable, overhead, arbiter space, filesystems bricks share, and
what it can take now.

- Usable bytes = over all sets, the smallest non-arbiter brick × the set's data bricks
  (replica: 1, disperse: disperse − redundancy, distribute: 1). Arbiter and thin-arbiter
  bricks hold only metadata: arbiters count in raw, never in usable; a thin-arbiter brick,
  not a brick of the volume in gluster's eyes, in neither.
- Bricks of one node on one filesystem (same ``Brick.filesystem``) share its space. glusterd
  counts, per volume and node, the bricks on each filesystem (``shared-brick-count``, the
  arbiter included) and each brick's storage/posix divides its statfs by that count
  (xlators/storage/posix/src/posix-inode-fd-ops.c ``posix_statfs``). So each brick reports an
  equal share, DHT adds the shares up, and the client's ``df`` counts the filesystem once:
  its size is ``usable_bytes`` (measured on the lab with two and three bricks of a volume on
  one filesystem). Raw counts each filesystem once too.
- Free now: ``df``'s "Avail" on a client. Each brick reports its filesystem's free space
  (``Brick.free_bytes``, as pre-flight or import measured it) less what ``storage.reserve``
  keeps back (1 % of the filesystem unless set; a value under 100 is a percentage, else
  bytes), divided among the volume's bricks there; a replica set reports its data brick with
  the least free space (afr_statfs_cbk), a disperse set its smallest × its data bricks, and
  DHT adds the sets up. Unknown (None) while a data brick's free space was never measured.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import count, repeat
from operator import itemgetter, mul

from .brickrules import thin_arbiter_reachable
from .layout import Resolved
from .planmodel import WARNING, BrickSet, Capacity, Finding, SharedFilesystem, TopologyIndex, build_sets
from .topology import BrickRef, Topology, Volume
from .gluster_options import parse_bytesize, parse_percent
from .units import describe_size

_LAST = itemgetter(-1)


def _shares(topo: Topology, volume: Volume, index: TopologyIndex | None = None
            ) -> tuple[list[int], list[int], list[SharedFilesystem], list[bool]]:
    """Per position in ``volume.bricks``: the brick's recorded size, its share of its
    filesystem, and whether it is the first mention of that brick; plus the shared
    filesystems."""
    index = index or TopologyIndex(topo)
    refs = volume.bricks
    found, _, unique = index.resolve(refs)
    sizes = [b.size_bytes if b is not None else 0 for b in found]
    groups: dict[tuple[str, str], list[int]] = {}
    # A brick listed twice (an error of its own) counts once.
    if unique:
        first = [True] * len(refs)
    else:
        seen_ids: set[int] = set()
        first = []
        for b in found:
            first.append(b is None or id(b) not in seen_ids)
            seen_ids.add(id(b))
    shared_nodes = index.shared_nodes
    if shared_nodes and any(r.node in shared_nodes for r in refs):
        for pos, (r, b, new) in enumerate(zip(refs, found, first)):
            if b is not None and new and b.filesystem and r.node in shared_nodes:
                groups.setdefault((r.node, b.filesystem), []).append(pos)
    shares = sizes if unique else [size if new else 0 for size, new in zip(sizes, first)]
    shared: list[SharedFilesystem] = []
    for (node, fs), positions in groups.items():
        if len(positions) < 2:
            continue
        if shares is sizes:
            shares = list(sizes)  # sizes stays what each brick reports (what df adds up)
        refs = [volume.bricks[p] for p in positions]
        fs_size = max(sizes[p] for p in positions)
        for p in positions:
            shares[p] = min(sizes[p], fs_size // len(positions))
        share = fs_size // len(positions)
        message = (
            f"{len(refs)} bricks of volume {volume.name} ({', '.join(map(str, refs))}) share "
            f"filesystem {fs} on {node} ({describe_size(fs_size)}). gluster gives each brick 1/{len(refs)} "
            f"of it (shared-brick-count: {describe_size(share)} each), so the volume, and the client's df, "
            f"count it once; the bricks compete for that one disk, and losing it loses all {len(refs)}.")
        shared.append(SharedFilesystem(node, fs, tuple(refs), fs_size, share, message))
    return sizes, shares, shared, first


def analyse(topo: Topology, volume: Volume, sets: tuple[tuple[BrickRef, ...], ...],
            resolved: Resolved, index: TopologyIndex | None = None) -> tuple[list[BrickSet], Capacity]:
    """The sets (consecutive runs of ``volume.bricks``) with their arbiter and usable bytes,
    and the volume's capacity."""
    sizes, shares, shared, first = _shares(topo, volume, index)
    built = _build_sets(sets, resolved, shares)
    if resolved.thin_arbiter and volume.thin_arbiter_brick is not None:
        built = _with_thin_arbiter(built, volume.thin_arbiter_brick, thin_arbiter_reachable(topo, volume))
    raw = sum(shares)  # a shared filesystem, and a brick listed twice, count once
    usable = sum([s.usable_bytes for s in built])
    size = max(resolved.set_size, 1)
    arbiter_bytes = sum([shares[s.index * size + size - 1] for s in built
                         if s.arbiter is not None and not s.thin_arbiter]) if resolved.arbiter else 0
    free, measured = _free_now(topo, volume, built, shared, index)
    cap = Capacity(raw_bytes=raw, usable_bytes=usable, overhead_bytes=raw - usable,
                   arbiter_bytes=arbiter_bytes, shared_filesystems=tuple(shared), df_bytes=usable,
                   free_now_bytes=free, free_measured=measured)
    return built, cap


@lru_cache(maxsize=64)
def _reserve_value(option: str | None) -> float:
    """``storage.reserve`` as a number (parsed once per value: a plan asks for every brick)."""
    text = "1" if option is None else option.strip()
    value = parse_percent(text)
    if value is None:
        value = parse_bytesize(text)
        if value is None:
            value = 1.0  # a value gluster refuses: the volume option finding says so
    return value


def reserve_bytes(size: int, option: str | None) -> int:
    """What storage/posix keeps back on a brick's filesystem of ``size`` bytes
    (``storage.reserve``: default 1; under 100 a percentage, else bytes; 0 none)."""
    value = _reserve_value(option)
    if value < 100:
        return int(size * value / 100 + 0.5)
    return int(value)


def _free_now(topo: Topology, volume: Volume, built: list[BrickSet], shared: list[SharedFilesystem],
              index: TopologyIndex | None) -> tuple[int | None, str]:
    """(free space the client's df will show now, the oldest measurement it rests on)."""
    index = index or TopologyIndex(topo)
    divisor = {ref: len(s.bricks) for s in shared for ref in s.bricks}
    option = volume.options.get("storage.reserve")
    total, times = 0, []
    for s in built:
        frees = []
        for ref in s.bricks:
            if ref == s.arbiter:
                continue
            brick = index.brick(ref)
            if brick is None or brick.free_bytes is None:
                return None, ""
            fs_free = max(brick.free_bytes - reserve_bytes(brick.size_bytes, option), 0)
            frees.append(fs_free // divisor.get(ref, 1))
            if brick.free_measured:
                times.append(brick.free_measured)
        total += min(frees, default=0) * s.data_bricks
    return total, min(times, default="")


def brick_sets(topo: Topology, sets: tuple[tuple[BrickRef, ...], ...], resolved: Resolved,
               volume: Volume | None = None) -> list[BrickSet]:
    if volume is None:
        volume = Volume("", bricks=[b for s in sets for b in s])
    return analyse(topo, volume, sets, resolved)[0]


def capacity(topo: Topology, volume: Volume, sets: tuple[tuple[BrickRef, ...], ...],
             resolved: Resolved) -> Capacity:
    return analyse(topo, volume, sets, resolved)[1]


def _build_sets(sets: tuple[tuple[BrickRef, ...], ...], resolved: Resolved,
                sizes: list[int]) -> list[BrickSet]:
    """``sizes`` by position in the volume's brick list, of which ``sets`` are the runs."""
    out = []
    data_bricks = resolved.data_bricks
    redundancy = (resolved.redundancy or 0) if resolved.disperse else 0
    full = max(resolved.set_size, 1)
    has_arbiter = bool(resolved.arbiter)
    if not sets:
        return out
    if len(sets) * full == len(sizes) and set(map(len, sets)) <= {full}:
        # whole sets only (the usual case): every step in C, no Python call per set. The sizes
        # of the j-th data brick of every set are the slice sizes[j::full]; a set's smallest
        # is min() across those columns, and a volume whose data bricks are all one size (the
        # usual case) has one usable figure for every set.
        columns = [sizes[j::full] for j in range(full - 1 if has_arbiter and full > 1 else full)]
        if all(min(c) == max(c) == columns[0][0] for c in columns):
            usable = repeat(columns[0][0] * data_bricks)
        elif len(columns) == 1:
            usable = map(mul, columns[0], repeat(data_bricks))
        else:
            usable = map(mul, map(min, *columns), repeat(data_bricks))
        arbiters = map(_LAST, sets) if has_arbiter else repeat(None)
        return build_sets(count(), sets, arbiters, repeat(data_bricks), usable, repeat(redundancy), repeat(False))
    start = 0
    for index, members in enumerate(sets):
        n = len(members)
        arbiter = members[-1] if has_arbiter and n == full else None
        data = sizes[start:start + n - (arbiter is not None)]
        start += n
        smallest = min(data) if data else 0
        k = data_bricks if n == full else max(min(data_bricks, n - redundancy), 0)  # a short tail
        out.append(BrickSet(index, members, arbiter, k, smallest * k, redundancy))
    return out


def _with_thin_arbiter(built: list[BrickSet], ta: BrickRef, reachable: bool) -> list[BrickSet]:
    """Each replica pair with the volume's one thin-arbiter brick (not counted in raw or
    usable: it keeps a small file per pair); without it when no client can reach it."""
    return [BrickSet(s.index, s.bricks + ((ta,) if reachable else ()), ta if reachable else None,
                     s.data_bricks, s.usable_bytes, 0, thin_arbiter=True) for s in built]


def shared_filesystem_findings(cap: Capacity) -> list[Finding]:
    return [Finding(WARNING, "shared-filesystem", s.message, s.bricks) for s in cap.shared_filesystems]

"""What a volume holds: raw, usable, overhead, arbiter space, and filesystems bricks share.

- Usable bytes = over all sets, the smallest non-arbiter brick × the set's data bricks
  (replica: 1, disperse: disperse − redundancy, distribute: 1). Arbiter bricks hold only
  metadata: they count in raw, never in usable.
- Bricks of one node on one filesystem (same ``Brick.filesystem``) share its space. gluster
  asks each brick for its filesystem's statfs and adds them up (DHT sums its subvolumes, AFR
  and EC scale one brick's figure), so client ``df`` shows a shared filesystem once per
  brick. Brickyard counts the space once: raw counts each filesystem once and every brick on
  it gets an equal share for usable (gluster fills the bricks of a volume evenly).
  ``df_bytes`` is what ``df`` will nevertheless show.
"""

from __future__ import annotations

from .layout import Resolved
from .planmodel import WARNING, BrickSet, Capacity, Finding, SharedFilesystem, TopologyIndex
from .topology import BrickRef, Topology, Volume
from .units import describe_size


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
        counted = sum(sizes[p] for p in positions)
        message = (
            f"{len(refs)} bricks of volume {volume.name} ({', '.join(map(str, refs))}) share "
            f"filesystem {fs} on {node} ({describe_size(fs_size)}). gluster adds up each "
            f"brick's filesystem size, so client df counts it {len(refs)} times "
            f"({describe_size(counted)}) although it holds {describe_size(fs_size)}; "
            "Brickyard counts it once.")
        shared.append(SharedFilesystem(node, fs, tuple(refs), fs_size, counted, message))
    return sizes, shares, shared, first


def analyse(topo: Topology, volume: Volume, sets: tuple[tuple[BrickRef, ...], ...],
            resolved: Resolved, index: TopologyIndex | None = None) -> tuple[list[BrickSet], Capacity]:
    """The sets (consecutive runs of ``volume.bricks``) with their arbiter and usable bytes,
    and the volume's capacity."""
    sizes, shares, shared, first = _shares(topo, volume, index)
    built = _build_sets(sets, resolved, shares)
    raw = sum(shares)  # a shared filesystem, and a brick listed twice, count once
    usable = sum(s.usable_bytes for s in built)
    size = max(resolved.set_size, 1)
    arbiter_bytes = sum(shares[s.index * size + size - 1] for s in built if s.arbiter is not None)
    df = usable
    if shared:
        df = sum(s.usable_bytes for s in _build_sets(sets, resolved, sizes))
    cap = Capacity(raw_bytes=raw, usable_bytes=usable, overhead_bytes=raw - usable,
                   arbiter_bytes=arbiter_bytes, shared_filesystems=tuple(shared), df_bytes=df)
    return built, cap


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
    if len(sets) * full == len(sizes) and all(len(m) == full for m in sets):
        # whole sets only (the usual case): group the sizes in C, then build
        groups = zip(*[iter(sizes)] * full)
        lows = [min(g[:-1]) for g in groups] if has_arbiter and full > 1 else list(map(min, groups))
        return [BrickSet(i, m, m[-1] if has_arbiter else None, data_bricks, low * data_bricks, redundancy)
                for i, (m, low) in enumerate(zip(sets, lows))]
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


def shared_filesystem_findings(cap: Capacity) -> list[Finding]:
    return [Finding(WARNING, "shared-filesystem", s.message, s.bricks) for s in cap.shared_filesystems]

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
from .planmodel import WARNING, BrickSet, Capacity, Finding, SharedFilesystem, brick_index
from .topology import BrickRef, Topology, Volume
from .units import describe_size


def _shares(topo: Topology, volume: Volume) -> tuple[dict[BrickRef, int], dict[BrickRef, int], list[SharedFilesystem]]:
    """Each brick's recorded size, its share of its filesystem, and the shared filesystems."""
    index = brick_index(topo)
    sizes: dict[BrickRef, int] = {}
    groups: dict[tuple[str, str], list[BrickRef]] = {}
    for ref in dict.fromkeys(volume.bricks):
        found = index.get(ref)
        if found is None:
            sizes[ref] = 0
            continue
        node, brick = found
        sizes[ref] = brick.size_bytes
        groups.setdefault((node.name, node.filesystem_of(brick)), []).append(ref)
    shares = dict(sizes)
    shared: list[SharedFilesystem] = []
    for (node, fs), refs in groups.items():
        if len(refs) < 2:
            continue
        fs_size = max(sizes[r] for r in refs)
        for ref in refs:
            shares[ref] = min(sizes[ref], fs_size // len(refs))
        counted = sum(sizes[r] for r in refs)
        message = (
            f"{len(refs)} bricks of volume {volume.name} ({', '.join(map(str, refs))}) share "
            f"filesystem {fs} on {node} ({describe_size(fs_size)}). gluster adds up each "
            f"brick's filesystem size, so client df counts it {len(refs)} times "
            f"({describe_size(counted)}) although it holds {describe_size(fs_size)}; "
            "Brickyard counts it once.")
        shared.append(SharedFilesystem(node, fs, tuple(refs), fs_size, counted, message))
    return sizes, shares, shared


def brick_sets(topo: Topology, sets: tuple[tuple[BrickRef, ...], ...], resolved: Resolved,
               volume: Volume | None = None) -> list[BrickSet]:
    """The sets with their arbiter and usable bytes (shared filesystems counted once)."""
    if volume is None:
        volume = Volume("", bricks=[b for s in sets for b in s])
    _, shares, _ = _shares(topo, volume)
    return _build_sets(sets, resolved, shares)


def _build_sets(sets: tuple[tuple[BrickRef, ...], ...], resolved: Resolved,
                sizes: dict[BrickRef, int]) -> list[BrickSet]:
    out = []
    for index, members in enumerate(sets):
        arbiter = members[-1] if resolved.arbiter and len(members) == resolved.set_size else None
        data = [sizes.get(b, 0) for b in members if b != arbiter] if arbiter else [sizes.get(b, 0) for b in members]
        smallest = min(data) if data else 0
        out.append(BrickSet(index=index, bricks=members, arbiter=arbiter,
                            data_bricks=resolved.data_bricks, usable_bytes=smallest * resolved.data_bricks,
                            redundancy=resolved.redundancy or 0 if resolved.disperse else 0))
    return out


def capacity(topo: Topology, volume: Volume, sets: list[BrickSet], resolved: Resolved | None = None) -> Capacity:
    """Raw, usable, overhead and arbiter bytes of ``volume`` laid out in ``sets``."""
    sizes, shares, shared = _shares(topo, volume)
    raw = sum(shares.values())
    # raw counts a shared filesystem once: its bricks' shares add up to (at most) its size.
    usable = sum(s.usable_bytes for s in sets)
    arbiter_bytes = sum(shares.get(s.arbiter, 0) for s in sets if s.arbiter)
    df = usable
    if shared:
        df = sum(
            min((sizes.get(b, 0) for b in s.bricks if b != s.arbiter), default=0) * s.data_bricks
            for s in sets)
    return Capacity(raw_bytes=raw, usable_bytes=usable, overhead_bytes=raw - usable,
                    arbiter_bytes=arbiter_bytes, shared_filesystems=tuple(shared), df_bytes=df)


def shared_filesystem_findings(cap: Capacity) -> list[Finding]:
    return [Finding(WARNING, "shared-filesystem", s.message, s.bricks) for s in cap.shared_filesystems]

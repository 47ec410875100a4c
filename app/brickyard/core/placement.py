"""Auto-place: order bricks so that no set has two bricks on one node, and sets span sites.

gluster makes each run of ``set_size`` consecutive bricks one set. Think of the S sets as
columns of a table with ``set_size`` rows: lay the bricks out site by site, node by node,
filling the rows one after the other, then read the table column by column. A node's bricks
are then consecutive in the row-filling order, so they land in different columns as long as
it has at most S bricks, which is also necessary (pigeonhole): placement is possible exactly
when no node holds more bricks than there are sets. A site's bricks are consecutive too, so
each set gets an even share of every site: sets span sites whenever there are enough.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter
from typing import Sequence

from .layout import resolve
from .planmodel import ERROR
from .topology import BrickRef, Layout, Topology

_NODE = attrgetter("node")


@dataclass(frozen=True)
class Placement:
    bricks: tuple[BrickRef, ...] | None   # None: impossible (``note`` says why)
    note: str

    @property
    def possible(self) -> bool:
        return self.bricks is not None


def place(topo: Topology, bricks: Sequence[BrickRef], layout: Layout) -> Placement:
    bricks = list(bricks)
    resolved, findings = resolve(layout, len(bricks))
    count_errors = [f for f in findings if f.severity == ERROR]
    if len(bricks) % resolved.set_size:
        return Placement(None, f"Impossible: {len(bricks)} bricks do not make whole sets of "
                               f"{resolved.set_size}.")
    if count_errors:
        return Placement(None, f"Impossible: {count_errors[0].message}.")
    size = resolved.set_size
    if size <= 1:
        return Placement(tuple(bricks), "Distribute: every brick is its own set; the order does not matter.")
    n_sets = len(bricks) // size
    names = list(map(_NODE, bricks))
    per_node = Counter(names)
    node, most = per_node.most_common(1)[0]
    if most > n_sets:
        return Placement(None, (
            f"Impossible: node {node} holds {most} of the {len(bricks)} bricks but there are only "
            f"{n_sets} set{'s' if n_sets != 1 else ''} of {size}, so two of its bricks would share a set."))
    site_of = {n.name: n.site for n in topo.nodes}
    by_node: dict[str, list[BrickRef]] = {}
    for name, b in zip(names, bricks):
        mine = by_node.get(name)
        if mine is None:
            by_node[name] = [b]
        else:
            mine.append(b)
    site_count = Counter()
    for name, mine in by_node.items():
        site_count[site_of.get(name, "")] += len(mine)
    # Biggest sites first, then each site's nodes in the order the user listed them.
    order = sorted(enumerate(by_node), key=lambda item: (-site_count[site_of.get(item[1], "")],
                                                         site_of.get(item[1], ""), item[0]))
    ordered = [b for _, name in order for b in by_node[name]]
    rows = [ordered[r * n_sets:(r + 1) * n_sets] for r in range(size)]
    placed = tuple(chain.from_iterable(zip(*rows)))  # set by set
    return Placement(placed, _site_note(placed, size, site_of, len(site_count)))


def _site_note(placed: tuple[BrickRef, ...], size: int, site_of: dict[str, str], n_sites: int) -> str:
    base = "Placed: no set has two bricks on one node."
    if n_sites < 2:
        return base + " All bricks are in one site, so sets cannot span sites."
    sites = map(site_of.get, map(_NODE, placed), repeat(""))
    # whole sets only (place checked it); the distinct site tuples are few
    spans = [len(set(t)) for t in set(zip(*[sites] * size))]
    if min(spans) >= min(n_sites, size):
        return base + f" Every set spans {min(n_sites, size)} sites."
    return base + f" Sets span {min(spans)} to {max(spans)} sites (the bricks per site allow no better spread)."

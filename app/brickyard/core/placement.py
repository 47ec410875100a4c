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
from bisect import bisect_right
from itertools import accumulate, chain, groupby
from operator import attrgetter
from typing import Sequence

from .layout import resolve
from .planmodel import ERROR
from .topology import BrickRef, Layout, Topology

_NODE = attrgetter("node")


def _COUNT(item: tuple[str, list]) -> int:
    return len(item[1])


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
    # A node's bricks, grouped run by run: a list given node by node (the usual order) is a
    # thousand runs for 24,000 bricks, so the grouping costs per node, not per brick.
    by_node: dict[str, list[BrickRef]] = {}
    for name, run in groupby(bricks, _NODE):
        mine = by_node.get(name)
        if mine is None:
            by_node[name] = list(run)
        else:
            mine.extend(run)
    node, most = max(by_node.items(), key=_COUNT)   # the first node holding the most
    most = len(most)
    if most > n_sets:
        return Placement(None, (
            f"Impossible: node {node} holds {most} of the {len(bricks)} bricks but there are only "
            f"{n_sets} set{'s' if n_sets != 1 else ''} of {size}, so two of its bricks would share a set."))
    site_of = {n.name: n.site for n in topo.nodes}
    site_count: Counter = Counter()
    for name, mine in by_node.items():
        site_count[site_of.get(name, "")] += len(mine)
    # Biggest sites first, then each site's nodes in the order the user listed them.
    order = sorted(enumerate(by_node), key=lambda item: (-site_count[site_of.get(item[1], "")],
                                                         site_of.get(item[1], ""), item[0]))
    ordered = list(chain.from_iterable([by_node[name] for _, name in order]))
    rows = [ordered[r * n_sets:(r + 1) * n_sets] for r in range(size)]
    placed = tuple(chain.from_iterable(zip(*rows)))  # set by set
    # the sites in row-filling order, as runs: each site's bricks are consecutive there
    runs: list[tuple[str, int]] = []
    for _, name in order:
        site = site_of.get(name, "")
        if runs and runs[-1][0] == site:
            runs[-1] = (site, runs[-1][1] + len(by_node[name]))
        else:
            runs.append((site, len(by_node[name])))
    return Placement(placed, _site_note(runs, size, n_sets))


def _site_note(runs: list[tuple[str, int]], size: int, n_sets: int) -> str:
    """What the placement says about sites. ``runs``: (site, bricks) in the order the table
    of ``size`` rows × ``n_sets`` columns was filled, row by row; set k is column k."""
    base = "Placed: no set has two bricks on one node."
    n_sites = len(runs)
    if n_sites < 2:
        return base + " All bricks are in one site, so sets cannot span sites."
    # Row r holds positions r·S … r·S+S-1 of the filling order; a site changes along a row
    # only where a run ends, so the columns fall into a few stretches where every row keeps
    # its site. Each stretch's first column stands for all of it.
    ends = list(accumulate(n for _, n in runs))
    cuts = {0}
    for end in ends[:-1]:
        cuts.add(end % n_sets)
    spans = set()
    for k in cuts:
        spans.add(len({runs[bisect_right(ends, r * n_sets + k)][0] for r in range(size)}))
    if min(spans) >= min(n_sites, size):
        return base + f" Every set spans {min(n_sites, size)} sites."
    return base + f" Sets span {min(spans)} to {max(spans)} sites (the bricks per site allow no better spread)."

"""The small-file model's node lists, built at once for sets of one form, are those the per-set
loop builds (kept here as the reference) — on random sets of every form: replica with and
without an arbiter (last or not, the same object or an equal one), thin-arbiter, disperse,
distribute, sets without data, mixed forms."""

from __future__ import annotations

import random

import pytest

from brickyard.core import latency
from brickyard.core.planmodel import BrickSet
from brickyard.core.topology import BrickRef


def _sets(rng: random.Random) -> list:
    n = rng.randint(0, 12)
    size = rng.randint(0, 5)
    form = rng.choice(["replica", "arbiter", "thin", "disperse", "distribute", "empty"])
    out = []
    for i in range(n):
        s = size if rng.random() > 0.1 else rng.randint(0, 5)
        bricks = tuple(BrickRef(f"n{rng.randint(0, 6)}", f"/b{i}.{j}") for j in range(s))
        arbiter, data, redundancy, thin = None, 1, 0, False
        f = form if rng.random() > 0.1 else rng.choice(["replica", "arbiter", "thin", "disperse", "empty"])
        if f in ("arbiter", "thin") and bricks:
            last = bricks[-1]
            arbiter = last if rng.random() > 0.1 else (BrickRef(last.node, last.path) if rng.random() > 0.5
                                                       else BrickRef("elsewhere", "/x"))
            thin = f == "thin"
        elif f == "disperse":
            redundancy = rng.randint(1, 2)
            data = max(0, s - redundancy)
        elif f == "empty":
            data = 0
        if rng.random() < 0.05:
            bricks = list(bricks)
        out.append(BrickSet(i, bricks, arbiter, data, 10**12, redundancy, thin))
    return out


def _node_sets_before(sets) -> list:
    return [[b.node for b in s.bricks if b != s.arbiter] if getattr(s, "thin_arbiter", False)
            else [b.node for b in s.bricks] for s in sets if s.data_bricks > 0]


@pytest.mark.parametrize("seed", range(3))
def test_node_sets_are_those_of_the_loop(seed):
    rng = random.Random(seed)
    for _ in range(400):
        sets = _sets(rng)
        assert list(map(list, latency._node_sets(sets))) == _node_sets_before(sets)

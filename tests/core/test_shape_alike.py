"""The throughput model's set shapes and the small-file model's node lists, built at once for
sets of one form, are those the per-set loops build (kept here as the reference) — on random
sets of every form: replica with and without an arbiter (last or not, the same object or an
equal one), thin-arbiter, disperse, distribute, sets without data, mixed forms, lists for
tuples, choose-local clients."""

from __future__ import annotations

import random

import pytest

from brickyard.core import latency, throughput as tm
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


def _loads(shape, d, one):
    try:
        return shape.node_loads(d, one)
    except ZeroDivisionError as exc:    # a set of an arbiter alone: the loop's shapes fail too
        return type(exc)


def _loop(monkeypatch, *args):
    with monkeypatch.context() as m:
        m.setattr(tm, "_alike_shapes", lambda *a: None)
        return tm.shape_of(*args)


@pytest.mark.parametrize("seed", range(4))
def test_shapes_of_sets_of_one_form_are_those_of_the_loop(seed, monkeypatch):
    rng = random.Random(seed)
    alike = 0
    for _ in range(400):
        sets = _sets(rng)
        options = rng.choice([{}, {"cluster.read-hash-mode": "0"}, {"disperse.read-policy": "round-robin"},
                              {"performance.client-io-threads": "on"}, {"cluster.choose-local": "off"}])
        clients = rng.choice([[], ["n1"], ["nowhere"]])
        want = _loop(monkeypatch, sets, "v", options, clients)
        got = tm.shape_of(sets, "v", options, clients)
        alike += tm._alike_shapes(sets, "a", "b") is not None
        assert got == want
        assert [vars(s) for s in got.sets] == [vars(s) for s in want.sets]
        assert [type(s.bricks) for s in got.sets] == [type(s.bricks) for s in want.sets]
        assert got.structures == want.structures and got.nodes() == want.nodes()
        for d in (tm.WRITE, tm.READ):
            for one in (True, False):
                assert _loads(got, d, one) == _loads(want, d, one)
    assert alike > 100        # the fast path was taken, often


def _node_sets_before(sets) -> list:
    return [[b.node for b in s.bricks if b != s.arbiter] if getattr(s, "thin_arbiter", False)
            else [b.node for b in s.bricks] for s in sets if s.data_bricks > 0]


@pytest.mark.parametrize("seed", range(3))
def test_node_sets_are_those_of_the_loop(seed):
    rng = random.Random(seed)
    for _ in range(400):
        sets = _sets(rng)
        assert list(map(list, latency._node_sets(sets))) == _node_sets_before(sets)

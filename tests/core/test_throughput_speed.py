"""The throughput model's evaluation does work in proportion to what differs, not to the
number of sets: a 24,000-brick plan is evaluated at 6 (direction, range end) pairs for every
figure, and each used to walk all 8,000 sets again (issue 22, point 2). These tests count the
work instead of timing it (timings live in benchmarks/)."""

import pytest

from brickyard.core import throughput as tm
from brickyard.core.throughput import BRICK, NODE_LINK, STREAM, CLIENT, LayoutShape, Params, SetShape, Value
from brickyard.core.topology import BrickRef

MB = 1e6
POINTS = [(d, n, None) for d in ("write", "read") for n in (1, 8)]


def big_replica(sets=2000, copies=3):
    out = []
    for i in range(sets):
        out.append(SetShape("replica", tuple(BrickRef(f"n{(i * copies + c) % 1000:04}", f"/b{i}") for c in range(copies))))
    return LayoutShape(tuple(out))


def params(**per_brick):
    v = {}
    for d in ("write", "read"):
        v[f"{STREAM}.{d}"] = Value(300 * MB, "assumed", pessimistic=150 * MB, optimistic=600 * MB)
        v[f"{CLIENT}.{d}"] = Value(2000 * MB, "assumed", pessimistic=1000 * MB, optimistic=4000 * MB)
        v[f"{BRICK}.{d}"] = Value(250 * MB, "declared", pessimistic=175 * MB, optimistic=250 * MB)
        for name, rate in per_brick.items():
            v[f"{BRICK}.{d}@{name}"] = Value(rate, "declared", pessimistic=rate * 0.7, optimistic=rate)
    v[NODE_LINK] = Value(3e9, "declared")
    return Params(v)


@pytest.fixture
def slowest_calls(monkeypatch):
    calls = []
    real = tm._Eval.slowest

    def counted(self, s):
        calls.append(s)
        return real(self, s)

    monkeypatch.setattr(tm._Eval, "slowest", counted)
    return calls


def test_identical_bricks_are_evaluated_without_looking_at_each_set(slowest_calls):
    shape = big_replica()
    preds = tm.predict_many(shape, params(), POINTS)
    # the sets' first one is looked at for the single-file bound at most, never all 2,000 × 6
    assert len(slowest_calls) <= 6 * 2, len(slowest_calls)
    assert preds[0].bps > 0


def test_only_sets_holding_a_brick_of_its_own_speed_are_looked_at_one_by_one(slowest_calls):
    shape = big_replica()
    slow = str(shape.sets[10].bricks[1])
    preds = tm.predict_many(shape, params(**{slow: 50 * MB}), POINTS)
    looked_at = {id(s) for s in slowest_calls}
    assert looked_at <= {id(shape.sets[10]), id(shape.sets[0])}
    # and the slow set still counts: one file on it is what one of 2,000 sets gives
    same = tm.predict_many(shape, params(), POINTS)
    assert preds[3].bps < same[3].bps     # 8 files read, the slow set among them sometimes


def test_grouped_figures_equal_the_set_by_set_figures():
    """The grouped evaluation gives what evaluating each set on its own gives (a mixed
    layout: different set structures and several bricks with speeds of their own)."""
    sets = [SetShape("replica", (BrickRef("a", f"/r{i}"), BrickRef("b", f"/r{i}"))) for i in range(5)]
    sets += [SetShape("disperse", tuple(BrickRef(n, f"/d{i}") for n in "abcd"), k=3, d=4) for i in range(3)]
    shape = LayoutShape(tuple(sets))
    p = params(**{"a:/r1": 80 * MB, "c:/d2": 40 * MB, "b:/r4": 120 * MB})
    for end in ("", "pessimistic", "optimistic"):
        for d in ("write", "read"):
            ev = tm._Eval(shape, p, d, end)
            by_set: dict[tuple, int] = {}
            for s in shape.sets:
                key = (*s.structure, ev.slowest(s))
                by_set[key] = by_set.get(key, 0) + 1
            assert ev.groups() == by_set
    loads = shape.node_loads("write", False)
    expected: dict[str, float] = {}
    for s in sets:
        for b in s.bricks:
            expected[b.node] = expected.get(b.node, 0.0) + s.brick_share("write") / len(sets)
    assert loads == pytest.approx(expected)

"""Usable = Σ sets of smallest non-arbiter brick × data bricks; shared filesystems counted once."""

from hypothesis import given, settings, strategies as st

from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, VolumeType as T

from ._topo import TB, build, refs, volume


def test_arbiter_bricks_are_raw_but_never_usable():
    topo = build({"a": 1, "b": 1, "c": 1})
    topo.nodes[2].bricks[0].size_bytes = TB // 100
    r = plan_volume(topo, volume(topo, T.REPLICATE, replica=3, arbiter=1))
    assert r.sets[0].arbiter == BrickRef("c", "/data/b1/brick")
    assert r.capacity.usable_bytes == TB
    assert r.capacity.raw_bytes == 2 * TB + TB // 100
    assert r.capacity.arbiter_bytes == TB // 100


def test_the_smallest_data_brick_limits_its_set():
    topo = build({"a": 1, "b": 1, "c": 1, "d": 1})
    topo.nodes[1].bricks[0].size_bytes = TB // 2
    r = plan_volume(topo, volume(topo, T.DISTRIBUTED_REPLICATE, replica=2))
    assert [s.usable_bytes for s in r.sets] == [TB // 2, TB]
    assert r.capacity.overhead_bytes == 4 * TB - TB // 2 - TB // 2 - TB


def test_disperse_usable_is_data_bricks_times_smallest():
    topo = build({f"n{i}": 1 for i in range(6)})
    r = plan_volume(topo, volume(topo, T.DISPERSE, disperse=6, redundancy=2))
    assert r.sets[0].data_bricks == 4
    assert r.capacity.usable_bytes == 4 * TB


def test_bricks_sharing_a_filesystem_are_counted_once_and_df_is_explained():
    topo = build({"a": 2, "b": 2}, filesystem_per_brick=False)
    r = plan_volume(topo, volume(topo, T.DISTRIBUTE))
    assert r.capacity.raw_bytes == 2 * TB          # two filesystems, not four bricks
    assert r.capacity.usable_bytes == 2 * TB
    assert r.capacity.df_bytes == 4 * TB           # what client df will claim
    shared = [f for f in r.findings if f.code == "shared-filesystem"]
    assert len(shared) == 2 and all(f.severity == "warning" for f in shared)
    assert "df counts it 2 times" in shared[0].message


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 50), min_size=6, max_size=6),
       kind=st.sampled_from(["dist", "rep2", "rep3", "arb", "disp"]), shared=st.booleans())
def test_usable_never_exceeds_raw_and_overhead_adds_up(sizes, kind, shared):
    topo = build({f"n{i}": 2 for i in range(3)}, filesystem_per_brick=not shared)
    for (node_i, brick_i), size in zip([(i, j) for i in range(3) for j in range(2)], sizes):
        topo.nodes[node_i].bricks[brick_i].size_bytes = size * TB
    layouts = {"dist": dict(kind=T.DISTRIBUTE), "rep2": dict(kind=T.DISTRIBUTED_REPLICATE, replica=2),
               "rep3": dict(kind=T.DISTRIBUTED_REPLICATE, replica=3),
               "arb": dict(kind=T.DISTRIBUTED_REPLICATE, replica=3, arbiter=1),
               "disp": dict(kind=T.DISTRIBUTED_DISPERSE, disperse=3, redundancy=1)}
    r = plan_volume(topo, volume(topo, **layouts[kind]))
    cap = r.capacity
    assert 0 < cap.usable_bytes <= cap.raw_bytes
    assert cap.raw_bytes - cap.usable_bytes == cap.overhead_bytes
    assert cap.arbiter_bytes <= cap.overhead_bytes
    assert cap.usable_bytes <= cap.df_bytes
    assert sum(s.usable_bytes for s in r.sets) == cap.usable_bytes
    for s in r.sets:
        data = [b for b in s.bricks if b != s.arbiter]
        assert s.usable_bytes <= len(data) * max(sizes) * TB

"""Usable = Σ sets of smallest non-arbiter brick × data bricks; shared filesystems counted once."""

from hypothesis import given, settings, strategies as st

from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, Layout, VolumeType as T

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


def test_bricks_sharing_a_filesystem_are_counted_once_and_so_does_df():
    # measured on gluster 10.3: each brick reports its filesystem's size ÷ shared-brick-count,
    # so the client's df equals usable (the old model said df counts it per brick: 4 TB here)
    topo = build({"a": 2, "b": 2}, filesystem_per_brick=False)
    r = plan_volume(topo, volume(topo, T.DISTRIBUTE))
    assert r.capacity.raw_bytes == 2 * TB          # two filesystems, not four bricks
    assert r.capacity.usable_bytes == r.capacity.df_bytes == 2 * TB
    shared = [f for f in r.findings if f.code == "shared-filesystem"]
    assert len(shared) == 2 and all(f.severity == "warning" for f in shared)
    assert "gives each brick 1/2 of it (shared-brick-count" in shared[0].message
    assert "df" in shared[0].message and "counts it 2 times" not in shared[0].message
    assert r.capacity.shared_filesystems[0].share_bytes == TB // 2


def test_an_arbiter_on_a_data_bricks_filesystem_halves_that_brick():
    # set 1: a, b, c(arbiter); set 2: c, a, b(arbiter): a and c each hold a data brick and an arbiter
    topo = build({"a": 2, "b": 2, "c": 2}, filesystem_per_brick=False)
    bricks = [BrickRef(n, f"/data/b{i}/brick") for n, i in (("a", 1), ("b", 1), ("c", 1), ("c", 2), ("a", 2), ("b", 2))]
    r = plan_volume(topo, volume(topo, T.DISTRIBUTED_REPLICATE, bricks, replica=3, arbiter=1))
    assert [s.usable_bytes for s in r.sets] == [TB // 2, TB // 2]
    assert r.capacity.df_bytes == TB


def _measured(topo, free: dict[tuple[str, int], int]):
    for node in topo.nodes:
        for i, brick in enumerate(node.bricks, 1):
            brick.free_bytes = free.get((node.name, i), brick.size_bytes)
            brick.free_measured = "2026-11-23T14:00:00Z"


def test_free_now_follows_the_fullest_data_brick_of_each_set_less_the_reserve():
    topo = build({"a": 2, "b": 2})
    vol = volume(topo, T.DISTRIBUTED_REPLICATE, replica=2)
    assert plan_volume(topo, vol).capacity.free_now_bytes is None   # never measured
    _measured(topo, {("b", 1): TB // 4})                            # other data already there
    cap = plan_volume(topo, vol).capacity
    reserve = TB // 100                                             # storage.reserve: 1 % by default
    assert cap.usable_bytes == 2 * TB                               # when empty, unchanged
    assert cap.free_now_bytes == (TB // 4 - reserve) + (TB - reserve)
    assert cap.free_measured == "2026-11-23T14:00:00Z"
    vol.options["storage.reserve"] = "0"
    assert plan_volume(topo, vol).capacity.free_now_bytes == TB // 4 + TB
    vol.options["storage.reserve"] = "10GB"                         # 100 and more: bytes
    assert plan_volume(topo, vol).capacity.free_now_bytes == TB // 4 + TB - 2 * 10 * 2**30


def test_free_now_of_a_shared_filesystem_is_divided_and_disperse_scales_the_least():
    topo = build({"a": 2, "b": 1, "c": 1}, filesystem_per_brick=False)
    _measured(topo, {("a", 1): TB // 2, ("a", 2): TB // 2})
    vol = volume(topo, T.DISPERSE, [BrickRef("a", "/data/b1/brick"), BrickRef("b", "/data/b1/brick"),
                                    BrickRef("c", "/data/b1/brick")], disperse=3, redundancy=1)
    vol.options["storage.reserve"] = "0"
    assert plan_volume(topo, vol).capacity.free_now_bytes == 2 * (TB // 2)
    vol.bricks.append(BrickRef("a", "/data/b2/brick"))   # a's filesystem now holds two bricks of it
    vol.layout = Layout(T.DISTRIBUTE)
    cap = plan_volume(topo, vol).capacity
    assert cap.free_now_bytes == (TB // 2 // 2) * 2 + TB + TB


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

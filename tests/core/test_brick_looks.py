"""What a plan says about each brick a view draws (core.brick_looks): the canvas and the
report's topology drawing both read it, so these are the rules for both."""

from brickyard.core.brick_looks import BrickLook, FailedParts, volume_looks
from brickyard.core.plan import plan_volume
from brickyard.core.topology import BrickRef, VolumeType as T

from ._topo import build, refs, volume
from .test_thin_arbiter_disperse_data import stretch


def test_each_brick_has_its_set_and_its_place_in_the_brick_order():
    topo = build({"n1": 2, "n2": 2, "n3": 2})
    vol = volume(topo, T.DISTRIBUTED_REPLICATE, replica=3)
    looks = volume_looks(plan_volume(topo, vol))
    order = refs(topo)                    # n1 b1, n2 b1, n3 b1, n1 b2, …
    got = [looks.look(r.node, r.path) for r in order]
    assert [(g.set_index, g.position) for g in got] == [(0, 1), (0, 2), (0, 3), (1, 4), (1, 5), (1, 6)]
    assert not any(g.arbiter or g.failed or g.thin_arbiter for g in got)
    assert {g.set_state for g in got} == {"UP"} and looks.set_count == 2


def test_the_arbiter_is_the_last_brick_of_each_set():
    topo = build({"n1": 1, "n2": 1, "n3": 1})
    vol = volume(topo, T.REPLICATE, replica=3, arbiter=1)
    looks = volume_looks(plan_volume(topo, vol))
    assert [looks.look(r.node, r.path).arbiter for r in vol.bricks] == [False, False, True]
    assert looks.has_arbiter


def test_a_failed_node_crosses_out_its_bricks_in_and_out_of_the_volume():
    topo = build({"n1": 2, "n2": 2, "n3": 2})
    vol = volume(topo, T.REPLICATE, refs(topo)[:3], replica=3)       # the b1 bricks only
    # (the planner refuses a brick spec outside the volume; a view may still hold one)
    looks = volume_looks(plan_volume(topo, vol, ["n2"]), ["n2", "brick:n3:/data/b2/brick"])
    in_vol = looks.look("n2", "/data/b1/brick")
    assert in_vol.failed and in_vol.set_index == 0 and in_vol.set_state == "DEGRADED"
    assert looks.look("n2", "/data/b2/brick") == BrickLook(failed=True)      # not in the volume, on n2
    assert looks.look("n3", "/data/b2/brick") == BrickLook(failed=True)      # named itself
    assert looks.look("n1", "/data/b2/brick") == BrickLook()
    assert looks.any_failed and looks.failed.node_failed("n2") and not looks.failed.node_failed("n1")


def test_a_failed_site_takes_its_nodes_and_unused_bricks():
    topo = build({"n1": 2, "n2": 1, "n3": 1}, sites={"n1": "A", "n2": "B", "n3": "C"})
    vol = volume(topo, T.REPLICATE, [BrickRef(n, "/data/b1/brick") for n in ("n1", "n2", "n3")], replica=3)
    looks = volume_looks(plan_volume(topo, vol, ["site:A"]), ["site:A"])
    assert looks.look("n1", "/data/b1/brick", "A").failed
    assert looks.look("n1", "/data/b2/brick", "A").failed          # unused, but its site is down
    assert looks.failed.site_failed("A") and looks.failed.node_failed("n1", "A")
    assert not looks.look("n2", "/data/b1/brick", "B").failed


def test_a_refused_volume_keeps_the_brick_order_but_has_no_sets():
    topo = build({"n1": 1, "n2": 1, "n3": 1})
    vol = volume(topo, T.DISPERSE, disperse=3, redundancy=2)    # redundancy must be < disperse/2
    plan = plan_volume(topo, vol)
    assert plan.refused
    looks = volume_looks(plan)
    assert [looks.look(r.node, r.path) for r in vol.bricks] == [BrickLook(None, i) for i in (1, 2, 3)]
    assert all(looks.look(r.node, r.path).in_volume for r in vol.bricks) and looks.set_count == 0


def test_the_thin_arbiter_is_every_pairs_without_a_place_in_the_order():
    topo, vol = stretch(pairs=2)
    looks = volume_looks(plan_volume(topo, vol))
    ta = looks.look("witness", "/ta", "C")
    assert ta.thin_arbiter and ta.arbiter and ta.position is None and ta.set_index == 0 and ta.in_volume
    assert [looks.look(r.node, r.path).position for r in vol.bricks] == [1, 2, 3, 4]
    assert not any(looks.look(r.node, r.path).arbiter for r in vol.bricks)


def test_a_failed_thin_arbiter_is_crossed_out_even_when_the_planner_left_it_out_of_the_pairs():
    topo, vol = stretch()
    looks = volume_looks(plan_volume(topo, vol, ["witness"]), ["witness"])
    assert looks.look("witness", "/ta", "C").failed
    topo, vol = stretch(ta_node="a1")                 # on a glusterd host: not reached, not in the pairs
    from brickyard.core.topology import Brick
    topo.node("a1").bricks.append(Brick("/ta", 10**9))
    plan = plan_volume(topo, vol, ["site:A"])
    assert all(len(s.bricks) == 2 for s in plan.sets)
    ta = volume_looks(plan, ["site:A"]).look("a1", "/ta", "A")
    assert ta.thin_arbiter and ta.failed and ta.position is None


def test_failure_specs_read_as_the_planner_reads_them():
    parts = FailedParts.from_specs(["node2", "node:node3", "site:Helsinki", "brick:node4:/data/b1", " ", ""])
    assert parts.nodes == {"node2", "node3"} and parts.sites == {"Helsinki"}
    assert parts.bricks == {("node4", "/data/b1")}
    assert not FailedParts.from_specs([])


def test_no_plan_means_no_brick_is_in_a_volume():
    looks = volume_looks(None, ["n1"])
    assert looks.look("n1", "/b") == BrickLook(failed=True) and looks.look("n2", "/b") == BrickLook()

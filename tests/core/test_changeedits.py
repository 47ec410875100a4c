"""Change mode's edits of the drawing: each does what the admin means, plans as that change
against the live volume recorded on the sandbox, undoes whole, and refuses in words."""

from __future__ import annotations

import pytest

from brickyard.core import changeedits as ce
from brickyard.core import changemodel as cm
from brickyard.core.change import plan_change
from brickyard.core.topology import BrickRef, TopologyError

from ._changefix import DIST, REP2, REP3, lab_topology, live, with_volume

XD = ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd", "node3:/srv/brick2/xd"]
XDR = ["node1:/srv/brick2/xdr", "node2:/srv/brick2/xdr", "node3:/srv/brick2/xdr", "node1:/srv/brick2/xdr2"]
XR = ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr", "node3:/srv/brick2/xr"]


def refs(texts):
    return [BrickRef.parse(t) for t in texts]


def applied(topo, edit):
    edit.apply(topo)
    return topo


def test_add_server_copies_the_volume_bricks_of_a_server_and_plans_an_expand():
    topo = with_volume(lab_topology(), "xd", DIST, XD)
    topo.nodes = [n for n in topo.nodes if n.name != "node5"]
    before = [n.name for n in topo.nodes]
    edit = ce.add_server(topo, "xd", like="node1")
    applied(topo, edit)
    new = topo.nodes[-1]
    assert new.name == "node5" and [b.path for b in new.bricks] == ["/srv/brick1/xd"]
    assert topo.volume("xd").bricks[-1] == BrickRef("node5", "/srv/brick1/xd")
    plan = plan_change(topo, "xd", live("xd"))
    assert plan.ok and plan.kinds == ("expand", "rebalance")
    assert [b.ref for b in plan.bricks if b.role == cm.NEW] == [BrickRef("node5", "/srv/brick1/xd")]
    edit.revert(topo)
    assert [n.name for n in topo.nodes] == before and topo.volume("xd").bricks == refs(XD)


def test_two_servers_added_to_a_replicated_volume_make_sets_across_them():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR)
    topo.nodes = [n for n in topo.nodes if n.name in ("node1", "node2", "node3")]
    applied(topo, ce.add_server(topo, "xdr", like="node1"))          # node1 holds two bricks of xdr
    one = plan_change(topo, "xdr", live("xdr"))
    assert [r.code for r in one.refusals] == ["set-on-one-server"]      # one server alone cannot
    applied(topo, ce.add_server(topo, "xdr", like="node1"))
    two = plan_change(topo, "xdr", live("xdr"))
    assert two.ok and two.after.layout == "4 x 2 = 8", two.refusals


def test_retire_a_brick_takes_its_whole_set_out_and_plans_a_shrink():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR)
    edit = ce.retire(topo, "xdr", bricks=[BrickRef.parse("node3:/srv/brick2/xdr")])
    assert "set 2" in edit.text
    applied(topo, edit)
    assert topo.volume("xdr").bricks == refs(XDR[:2])
    plan = plan_change(topo, "xdr", live("xdr"))
    assert plan.kinds == ("shrink",)
    assert {str(b) for b in plan.role(cm.RETIRING)} == {XDR[2], XDR[3]}
    edit.revert(topo)
    assert topo.volume("xdr").bricks == refs(XDR)


def test_retire_a_server_takes_every_set_it_holds_a_brick_of():
    topo = with_volume(lab_topology(), "xd", DIST, XD)
    applied(topo, ce.retire(topo, "xd", servers=["node2"]))
    assert topo.volume("xd").bricks == refs([XD[0], XD[2]])


def test_retire_refuses_to_empty_the_volume_or_a_brick_outside_it():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR)
    with pytest.raises(TopologyError, match="every set"):
        ce.retire(topo, "xdr", servers=["node1"])
    with pytest.raises(TopologyError, match="not in xdr"):
        ce.retire(topo, "xdr", bricks=[BrickRef.parse("node4:/srv/brick1/new")])


def test_replace_with_a_new_brick_on_a_server_plans_replace_then_heal():
    topo = with_volume(lab_topology(), "xr", REP3, XR)
    old = BrickRef.parse("node3:/srv/brick2/xr")
    topo.require_node("node4").bricks = [b for b in topo.require_node("node4").bricks if b.path != "/srv/brick2/xr"]
    edit = ce.replace_brick(topo, "xr", old, server="node4")
    applied(topo, edit)
    new = BrickRef("node4", "/srv/brick2/xr")
    assert topo.volume("xr").bricks == refs(XR[:2]) + [new] and topo.brick(new).size_bytes == topo.brick(old).size_bytes
    plan = plan_change(topo, "xr", live("xr"))
    assert plan.kinds == ("replace",)
    assert [s.kind for s in plan.steps if s.kind in (cm.REPLACE_BRICK, cm.HEAL_WAIT)] == ["replace-brick", "heal-wait"]
    edit.revert(topo)
    assert topo.brick(new) is None and topo.volume("xr").bricks == refs(XR)


def test_replace_with_a_drawn_brick_and_the_candidates_avoid_the_sets_other_servers():
    topo = with_volume(lab_topology(), "xr", REP3, XR)
    old = BrickRef.parse("node3:/srv/brick2/xr")
    free, servers = ce.replacement_candidates(topo, "xr", old)
    assert not {b.node for b in free} & {"node1", "node2"} and servers == ["node3", "node4", "node5"]
    applied(topo, ce.replace_brick(topo, "xr", old, BrickRef.parse("node4:/srv/brick1/new")))
    assert topo.volume("xr").bricks[2] == BrickRef.parse("node4:/srv/brick1/new")
    with pytest.raises(TopologyError, match="in xr already"):
        ce.replace_brick(topo, "xr", BrickRef.parse(XR[0]), BrickRef.parse("node4:/srv/brick1/new"))


def test_a_brick_swapped_on_plain_distribute_is_migrated_and_the_plan_says_why():
    topo = with_volume(lab_topology(), "xd", DIST, XD)
    applied(topo, ce.replace_brick(topo, "xd", BrickRef.parse(XD[1]), server="node4"))
    plan = plan_change(topo, "xd", live("xd"))
    assert plan.ok and plan.kinds == ("migrate",)
    assert any("no copy to heal from" in n for n in plan.notes)


def test_raise_to_arbiter_puts_a_new_brick_last_in_each_set_on_a_server_outside_it():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR)
    edit = ce.raise_redundancy(topo, "xdr", arbiter=True, servers=["node4", "node5"])
    applied(topo, edit)
    volume = topo.volume("xdr")
    assert (volume.layout.replica, volume.layout.arbiter) == (3, 1)
    sets = ce.sets_of(volume)
    assert [s[:2] for s in sets] == [tuple(refs(XDR[:2])), tuple(refs(XDR[2:]))]
    assert [s[2].node for s in sets] == ["node4", "node5"]          # spread over the servers given
    plan = plan_change(topo, "xdr", live("xdr"))
    assert plan.ok and plan.kinds == ("raise-redundancy",), plan.refusals
    assert (plan.before.layout, plan.after.layout) == ("2 x 2 = 4", "2 x (2 + 1) = 6")
    edit.revert(topo)
    assert topo.volume("xdr").bricks == refs(XDR) and topo.volume("xdr").layout.replica == 2


def test_raise_without_servers_takes_free_bricks_and_says_when_there_are_none():
    topo = with_volume(lab_topology(), "xr", REP3, XR)
    applied(topo, ce.raise_redundancy(topo, "xr"))
    assert topo.volume("xr").layout.replica == 4 and topo.volume("xr").bricks[3].node in ("node4", "node5")
    bare = with_volume(lab_topology(), "xr", REP3, XR)
    for node in bare.nodes:
        node.bricks = [b for b in node.bricks if b.path.endswith("/xr")]
    bare.nodes = bare.nodes[:3]
    with pytest.raises(TopologyError, match="select the server"):
        ce.raise_redundancy(bare, "xr")
    with pytest.raises(TopologyError, match="replica 2 volumes"):
        ce.raise_redundancy(bare, "xr", arbiter=True)


def test_match_live_draws_the_volume_as_gluster_has_it():
    topo = with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"])
    state = live("xd")
    edit = ce.match_live(topo, "xd", state.info.to_volume())
    applied(topo, edit)
    assert topo.volume("xd").bricks == [b.ref for b in state.info.bricks]
    assert ce.match_live(topo, "xd", state.info.to_volume()) is None


def test_match_live_draws_servers_the_drawing_lacks_as_the_changes_drawing_had_them():
    planned = with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"])
    bare = with_volume(lab_topology(), "xd", DIST, XD)
    bare.nodes = [n for n in bare.nodes if n.name != "node4"]
    after = plan_change(planned, "xd", live("xd")).result
    applied(bare, ce.match_live(bare, "xd", after, like=planned))
    node4 = bare.require_node("node4")
    assert [b.path for b in node4.bricks] == ["/srv/brick2/xd"]
    assert node4.bricks[0].size_bytes == planned.brick(BrickRef.parse("node4:/srv/brick2/xd")).size_bytes
    assert bare.volume("xd").bricks == after.bricks


def test_a_drawn_server_outside_the_volume_joins_it_with_bricks_like_the_volumes():
    topo = with_volume(lab_topology(), "xd", DIST, XD)
    node4 = topo.require_node("node4")
    node4.bricks = [b for b in node4.bricks if b.path != "/srv/brick2/xd"]
    edit = ce.add_server(topo, "xd", onto="node4")
    applied(topo, edit)
    assert topo.volume("xd").bricks[-1] == BrickRef("node4", "/srv/brick2/xd")
    assert topo.brick(BrickRef("node4", "/srv/brick2/xd")).filesystem == "/srv/brick2"
    assert plan_change(topo, "xd", live("xd")).kinds == ("expand", "rebalance")
    with pytest.raises(TopologyError, match="holds bricks of xd already"):
        ce.add_server(topo, "xd", onto="node4")


def test_a_server_that_has_the_brick_drawn_already_gives_that_brick_not_a_second_one():
    topo = with_volume(lab_topology(), "xr", REP3, XR)       # node4 has /srv/brick2/xr drawn, in no volume
    applied(topo, ce.replace_brick(topo, "xr", BrickRef.parse(XR[2]), server="node4"))
    assert topo.volume("xr").bricks[2] == BrickRef("node4", "/srv/brick2/xr")
    assert [b.path for b in topo.require_node("node4").bricks].count("/srv/brick2/xr") == 1
    assert not any(b.path.endswith("-2") for b in topo.require_node("node4").bricks)

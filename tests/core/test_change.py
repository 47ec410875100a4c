"""The change planner on live states recorded on the sandbox: what it plans, in which order,
with which commands, what it predicts, and what it refuses before any command exists."""

from __future__ import annotations

from dataclasses import replace

import pytest

from brickyard.core import changemodel as cm
from brickyard.core import livestate as ls
from brickyard.core.change import plan_change
from brickyard.core.changecost import measured_rate, MoveRates
from brickyard.core.topology import BrickRef, Layout, VolumeType

from ._changefix import ARB, DISP, DIST, FS, REP2, REP3, fixture, lab_topology, live, with_volume

XD = ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd", "node3:/srv/brick2/xd"]
XDR = ["node1:/srv/brick2/xdr", "node2:/srv/brick2/xdr", "node3:/srv/brick2/xdr", "node1:/srv/brick2/xdr2"]


def kinds(plan):
    return [s.kind for s in plan.steps]


def argv(plan, kind):
    return [list(c) for s in plan.steps if s.kind == kind for c in s.commands]


def test_expand_distribute_adds_the_brick_then_rebalances_and_reads_back():
    topo = with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"])
    plan = plan_change(topo, "xd", live("xd"))
    assert plan.ok and plan.kinds == ("expand", "rebalance")
    assert kinds(plan) == ["mkdir", "add-brick", "options-raise", "rebalance-start", "rebalance-wait",
                           "options-restore", "read-back"]
    assert argv(plan, "add-brick") == [["gluster", "--mode=script", "--xml", "volume", "add-brick", "xd",
                                        "node4:/srv/brick2/xd"]]
    assert argv(plan, "rebalance-start") == [["gluster", "--mode=script", "--xml", "volume", "rebalance", "xd", "start"]]
    wait = next(s for s in plan.steps if s.kind == "rebalance-wait")
    assert wait.watch[-2:] == ("xd", "status") and wait.predicted.low < wait.predicted.expected < wait.predicted.high
    # before -> after: the planner's capacity (each lab filesystem once)
    assert (plan.before.usable_bytes, plan.after.usable_bytes) == (3 * FS, 4 * FS)
    new = next(b for b in plan.bricks if b.role == cm.NEW)
    kept = [b for b in plan.bricks if b.role == cm.KEPT]
    # a quarter of each old brick's data moves, and lands on the new brick
    assert all(abs(b.bytes_out - b.used_bytes / 4) <= 1 for b in kept)
    assert abs(new.bytes_in - sum(b.bytes_out for b in kept)) <= 3
    assert plan.movement.bytes == pytest.approx(sum(b.used_bytes for b in kept) / 4, abs=3)
    assert "uncalibrated" in plan.movement.rates and plan.movement.seconds.high > plan.movement.seconds.low


def test_fix_layout_only_moves_nothing_and_says_what_stays():
    topo = with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"])
    plan = plan_change(topo, "xd", live("xd"), fix_layout=True)
    assert plan.kinds == ("expand", "fix-layout")
    assert argv(plan, "rebalance-start")[0][-2:] == ["fix-layout", "start"]
    assert plan.movement.bytes == 0 and all(b.bytes_in == 0 for b in plan.bricks)
    assert "stay where they are" in next(s for s in plan.steps if s.kind == "rebalance-start").reason


def test_expand_replicated_with_a_new_server_probes_it_first_and_orders_sets_on_distinct_servers():
    # the drawing lists the two new bricks of node4 together: as drawn that set would sit on
    # one server, so the planner groups them with a brick of another node instead
    drawn = XDR + ["node4:/srv/brick1/new", "node4:/srv/brick2/new", "node5:/srv/brick1/new", "node5:/srv/brick2/new"]
    topo = with_volume(lab_topology(), "xdr", REP2, drawn)
    plan = plan_change(topo, "xdr", live("xdr", without_peer="node4"))
    assert plan.ok, plan.refusals
    assert kinds(plan)[:4] == ["peer-probe", "peer-probe", "peers-wait", "mkdir"]
    assert [s.key for s in plan.steps if s.kind == "peer-probe"] == ["peer-probe:node4", "peer-probe:node5"]
    added = argv(plan, "add-brick")[0][6:]
    sets = [added[i:i + 2] for i in range(0, len(added), 2)]
    assert all(len({b.split(":")[0] for b in s}) == 2 for s in sets), sets
    assert plan.before.layout == "2 x 2 = 4" and plan.after.layout == "4 x 2 = 8"
    assert any("grouped into sets on distinct servers" in n for n in plan.notes)


def test_a_node_already_in_the_pool_is_not_probed():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR + ["node4:/srv/brick1/new", "node2:/srv/brick1/new"])
    plan = plan_change(topo, "xdr", live("xdr"))
    assert "peer-probe" not in kinds(plan)


def test_new_sets_that_can_only_land_on_one_server_are_refused_before_any_command():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR + ["node4:/srv/brick1/new", "node4:/srv/brick2/new"])
    plan = plan_change(topo, "xdr", live("xdr"))
    assert not plan.ok and plan.steps == ()
    assert plan.refusals[0].code == "set-on-one-server" and "node4" in plan.refusals[0].message
    assert plan.refusals[0].route


def test_new_sets_in_one_site_are_refused_when_the_volume_spans_sites():
    topo = lab_topology(sites=True)   # node1, 3, 5 east; node2, 4 west: every xdr set spans both
    with_volume(topo, "xdr", REP2, XDR[:2] + ["node3:/srv/brick2/xdr", "node2:/srv/brick2/xdr2"]
                + ["node3:/srv/brick1/new", "node5:/srv/brick1/new"])
    state = live("xdr")
    state = replace(state, info=replace(state.info, bricks=tuple(
        replace(b, ref=BrickRef("node2", "/srv/brick2/xdr2")) if b.ref == BrickRef("node1", "/srv/brick2/xdr2")
        else b for b in state.info.bricks)))
    plan = plan_change(topo, "xdr", state)
    assert [r.code for r in plan.refusals] == ["set-in-one-site"]


def test_shrink_starts_waits_and_commits_the_retiring_set_and_nothing_else():
    topo = with_volume(lab_topology(), "xdr", REP2, XDR[:2])
    plan = plan_change(topo, "xdr", live("xdr"))
    assert plan.ok and plan.kinds == ("shrink",)
    # a replicated volume ends with heal read clean: the migration wrote through its sets
    # then a rebalance (files on the sets that stay may no longer be where they hash: clients
    # would get ENOENT for them with lookup-optimize), and heal read clean
    assert kinds(plan) == ["options-raise", "remove-brick-start", "remove-brick-wait", "remove-brick-commit",
                           "rebalance-start", "rebalance-wait", "heal-wait", "options-restore", "read-back"]
    gone = ["node3:/srv/brick2/xdr", "node1:/srv/brick2/xdr2"]
    assert argv(plan, "remove-brick-start") == [["gluster", "--mode=script", "--xml", "volume", "remove-brick",
                                                 "xdr", *gone, "start"]]
    # the commit step reads the status right before it commits (done means read back)
    assert [c[-1] for c in argv(plan, "remove-brick-commit")] == ["status", "commit"]
    assert {str(b.ref) for b in plan.bricks if b.role == cm.RETIRING} == set(gone)
    # node1 held two bricks of xdr on one filesystem (shared-brick-count 2): after the shrink
    # its remaining brick reports the whole filesystem
    assert plan.before.usable_bytes == FS and plan.after.usable_bytes == FS


def test_shrink_refused_when_the_sets_that_stay_cannot_hold_the_data():
    state = live("xd")
    full = {ref: replace(b, size_free=b.size_total // 10) for ref, b in state.bricks.items()}
    topo = with_volume(lab_topology(), "xd", DIST, XD[:1])
    plan = plan_change(topo, "xd", replace(state, bricks=full))
    assert [r.code for r in plan.refusals] == ["cannot-hold-data"] and plan.steps == ()
    assert "margin" in plan.refusals[0].message


def test_replace_in_replica_3_checks_heal_before_and_waits_for_heal_after():
    topo = with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr",
                                                    "node4:/srv/brick2/xr"])
    plan = plan_change(topo, "xr", live("xr"))
    assert plan.ok and plan.kinds == ("replace",)
    assert kinds(plan) == ["mkdir", "options-raise", "replace-brick", "heal-wait", "options-restore", "read-back"]
    heal, repl = argv(plan, "replace-brick")
    assert heal[-2:] == ["info", "summary"]
    assert repl == ["gluster", "--mode=script", "--xml", "volume", "replace-brick", "xr", "node3:/srv/brick2/xr",
                    "node4:/srv/brick2/xr", "commit", "force"]
    new = next(b for b in plan.bricks if b.role == cm.REPLACEMENT)
    old = next(b for b in plan.bricks if b.role == cm.REPLACED)
    assert (new.partner, old.partner) == (old.ref, new.ref) and new.bytes_in > 0
    assert plan.before.nodes_worst == plan.after.nodes_worst == 1


def _with_options(state, **options):
    """``state`` with these options (a__b_c: a.b-c) set, or unset where None."""
    named = {k.replace("__", ".").replace("_", "-"): v for k, v in options.items()}
    merged = {k: v for k, v in {**state.info.options, **named}.items() if v is not None}
    return replace(state, info=replace(state.info, options=merged))


def xr_as_created():
    """xr as gluster creates it (the recorded one has the heal threads set)."""
    return _with_options(live("xr"), cluster__shd_max_threads=None)


XR_NEW = ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr", "node4:/srv/brick2/xr"]


def test_a_heal_runs_with_raised_threads_shown_as_steps_and_set_back_to_the_volumes_own_values():
    # gluster's bricks serve self-heal requests performance.least-prio-threads (1) at a time and
    # the self-heal daemon heals cluster.shd-max-threads (1) entries at once: raised for the heal
    # in a step of its own, with its reason, and set back (unset: reset) before the read-back
    plan = plan_change(with_volume(lab_topology(), "xr", REP3, XR_NEW), "xr", xr_as_created())
    raised = next(s for s in plan.steps if s.kind == cm.OPTIONS_RAISE)
    assert argv(plan, cm.OPTIONS_RAISE) == [["gluster", "--mode=script", "--xml", "volume", "set", "xr",
                                             "performance.least-prio-threads", "8", "cluster.shd-max-threads", "4"]]
    assert "least-priority" in raised.reason and "glusterfs #3397" in raised.reason and "(1 on xr)" in raised.reason
    assert "cancelled" in raised.reason and "volume reset xr performance.least-prio-threads" in raised.undo
    assert argv(plan, cm.OPTIONS_RESTORE) == [
        ["gluster", "--mode=script", "--xml", "volume", "reset", "xr", "performance.least-prio-threads"],
        ["gluster", "--mode=script", "--xml", "volume", "reset", "xr", "cluster.shd-max-threads"]]
    restore = next(s for s in plan.steps if s.kind == cm.OPTIONS_RESTORE)
    assert "unset (gluster's default, 1)" in restore.title
    # in the dry run's JSON, in order: raised right before the replace, set back before the read-back
    steps = plan.to_json()["steps"]
    assert [s["kind"] for s in steps] == ["mkdir", "options-raise", "replace-brick", "heal-wait", "options-restore",
                                          "read-back"]
    assert steps[1]["commands"] == argv(plan, cm.OPTIONS_RAISE) and steps[1]["reason"] == raised.reason


def test_the_threads_a_disperse_heal_raises_are_the_disperse_ones_and_a_migration_raises_only_the_bricks():
    topo = with_volume(lab_topology(), "xe", DISP, ["node1:/srv/brick1/xe", "node3:/srv/brick1/xe",
                                                    "node4:/srv/brick2/xe"])
    assert argv(plan_change(topo, "xe", live("xe")), cm.OPTIONS_RAISE)[0][6:] == [
        "performance.least-prio-threads", "8", "disperse.shd-max-threads", "4"]
    expand = plan_change(with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"]), "xd", live("xd"))
    assert argv(expand, cm.OPTIONS_RAISE)[0][6:] == ["performance.least-prio-threads", "8"]


def test_threads_the_volume_already_has_as_high_are_left_alone_and_its_own_values_come_back():
    topo = with_volume(lab_topology(), "xr", REP3, XR_NEW)
    state = _with_options(xr_as_created(), performance__least_prio_threads="16", cluster__shd_max_threads="2")
    plan = plan_change(topo, "xr", state)
    assert argv(plan, cm.OPTIONS_RAISE)[0][6:] == ["cluster.shd-max-threads", "4"]
    assert argv(plan, cm.OPTIONS_RESTORE) == [["gluster", "--mode=script", "--xml", "volume", "set", "xr",
                                               "cluster.shd-max-threads", "2"]]
    high = _with_options(live("xr"), performance__least_prio_threads="8")     # its shd-max-threads: 8
    assert not {cm.OPTIONS_RAISE, cm.OPTIONS_RESTORE} & set(kinds(plan_change(topo, "xr", high)))
    # nothing moves: nothing raised
    assert cm.OPTIONS_RAISE not in kinds(plan_change(with_volume(lab_topology(), "xd", DIST, XD), "xd", live("xd")))


def test_a_rollback_after_a_killed_change_sets_the_raised_threads_back_to_the_values_before_it():
    # the killed change left them raised: live shows 8 and 4, the volume's own (baseline) had none
    state = _with_options(live("xr"), performance__least_prio_threads="8", cluster__shd_max_threads="4")
    plan = plan_change(with_volume(lab_topology(), "xr", REP3, XR_NEW), "xr", state,
                       baseline_options={"nfs.disable": "on"})
    assert cm.OPTIONS_RAISE not in kinds(plan)
    assert [c[-2:] for c in argv(plan, cm.OPTIONS_RESTORE)] == [["xr", "performance.least-prio-threads"],
                                                                ["xr", "cluster.shd-max-threads"]]


def test_two_replacements_in_one_set_are_done_one_at_a_time_with_heal_between():
    topo = with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node4:/srv/brick2/xr",
                                                    "node5:/srv/brick2/xr"])
    plan = plan_change(topo, "xr", live("xr"))
    assert [k for k in kinds(plan) if k in ("replace-brick", "heal-wait")] == [
        "replace-brick", "heal-wait", "replace-brick", "heal-wait"]


def test_replace_in_disperse_keeps_the_geometry():
    topo = with_volume(lab_topology(), "xe", DISP, ["node1:/srv/brick1/xe", "node3:/srv/brick1/xe",
                                                    "node4:/srv/brick2/xe"])
    plan = plan_change(topo, "xe", live("xe"))
    assert plan.ok and plan.kinds == ("replace",)
    assert argv(plan, "replace-brick")[1][5:8] == ["xe", "node2:/srv/brick1/xe", "node3:/srv/brick1/xe"]
    assert plan.after.layout == "1 x (2 + 1) = 3"


def test_raise_replica_2_to_replica_3_arbiter_1_adds_one_arbiter_per_set_and_heals():
    topo = with_volume(lab_topology(), "xa2", ARB, ["node1:/srv/brick2/xa2", "node2:/srv/brick2/xa2",
                                                    "node3:/srv/brick1/new"])
    plan = plan_change(topo, "xa2", live("xa2"))
    assert plan.ok and plan.kinds == ("raise-redundancy",)
    assert argv(plan, "add-brick") == [["gluster", "--mode=script", "--xml", "volume", "add-brick", "xa2", "replica",
                                        "3", "arbiter", "1", "node3:/srv/brick1/new"]]
    assert kinds(plan)[-3:] == ["heal-wait", "options-restore", "read-back"]
    arb = next(b for b in plan.bricks if b.role == cm.NEW)
    assert arb.arbiter and arb.bytes_in == 0       # metadata only
    assert (plan.before.nodes_worst, plan.after.nodes_worst) == (1, 1)   # replica 2 has no quorum by default
    assert plan.before.usable_bytes == plan.after.usable_bytes == FS


def test_an_existing_brick_cannot_become_the_arbiter():
    topo = with_volume(lab_topology(), "xa2", ARB, ["node3:/srv/brick1/new", "node1:/srv/brick2/xa2",
                                                    "node2:/srv/brick2/xa2"])
    plan = plan_change(topo, "xa2", live("xa2"))
    assert [r.code for r in plan.refusals] == ["arbiter-position"]


@pytest.mark.parametrize("layout, bricks, code", [
    (Layout(VolumeType.DISPERSE, disperse=4, redundancy=1),
     ["node1:/srv/brick1/xe", "node2:/srv/brick1/xe", "node4:/srv/brick2/xe", "node3:/srv/brick1/new"],
     "disperse-geometry"),
    (Layout(VolumeType.DISPERSE, disperse=3, redundancy=1), XD, "type-change"),
    (Layout(VolumeType.REPLICATE, replica=2), ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr"], "fewer-replicas"),
])
def test_changes_gluster_cannot_make_in_place_are_refused_with_the_route_that_works(layout, bricks, code):
    volume = {"disperse-geometry": "xe", "type-change": "xd", "fewer-replicas": "xr"}[code]
    topo = with_volume(lab_topology(), volume, layout, bricks)
    plan = plan_change(topo, volume, live(volume))
    assert [r.code for r in plan.refusals] == [code] and plan.steps == ()
    assert any("new volume" in step for step in plan.refusals[0].route)


def test_replace_marked_on_plain_distribute_is_refused_with_the_migration_route():
    topo = with_volume(lab_topology(), "xd", DIST, XD[:2] + ["node4:/srv/brick1/new"])
    plan = plan_change(topo, "xd", live("xd"),
                       replacements={BrickRef.parse(XD[2]): BrickRef.parse("node4:/srv/brick1/new")})
    assert [r.code for r in plan.refusals] == ["replace-on-distribute"]
    assert "no copy to heal" in plan.refusals[0].message
    assert "remove-brick" in plan.refusals[0].route[0]


def test_a_brick_swapped_on_distribute_is_migrated_not_replaced():
    topo = with_volume(lab_topology(), "xd", DIST, XD[:2] + ["node4:/srv/brick1/new"])
    plan = plan_change(topo, "xd", live("xd"))
    assert plan.ok and plan.kinds == ("migrate",)
    assert "replace-brick" not in kinds(plan)
    assert kinds(plan) == ["mkdir", "add-brick", "options-raise", "remove-brick-start", "remove-brick-wait",
                           "remove-brick-commit", "rebalance-start", "rebalance-wait", "options-restore", "read-back"]
    assert any("no copy to heal from" in n for n in plan.notes)
    new = next(b for b in plan.bricks if b.role == cm.NEW)
    old = next(b for b in plan.bricks if b.role == cm.RETIRING)
    assert new.bytes_in > 0 and old.bytes_out == old.used_bytes


def test_swapping_an_offline_brick_on_distribute_is_refused():
    state = live("xd")
    down = BrickRef.parse(XD[2])
    state = replace(state, bricks={r: (replace(b, online=False) if r == down else b) for r, b in state.bricks.items()})
    topo = with_volume(lab_topology(), "xd", DIST, XD[:2] + ["node4:/srv/brick1/new"])
    plan = plan_change(topo, "xd", state)
    assert [r.code for r in plan.refusals] == ["offline-on-distribute"]


def test_a_volume_that_matches_the_drawing_needs_nothing():
    topo = with_volume(lab_topology(), "xd", DIST, XD)
    plan = plan_change(topo, "xd", live("xd"))
    assert plan.ok and plan.nothing_to_do and "nothing to change" in plan.summary()[0]


def test_a_running_remove_brick_of_the_retiring_bricks_is_continued():
    # xd with 4 bricks and a remove-brick of two of them completed (not committed yet)
    state = ls.from_outputs({ls.INFO: fixture("lab-change-xd-info-remove-brick-completed.xml"),
                             ls.DETAIL: fixture("lab-change-xd-detail-remove-brick-completed.xml"),
                             ls.TASKS: fixture("lab-change-tasks-remove-brick-completed.xml")}, "xd")
    remaining = ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd"]
    plan = plan_change(with_volume(lab_topology(), "xd", DIST, remaining), "xd", state)
    assert plan.ok and kinds(plan)[:4] == ["options-raise", "remove-brick-start", "remove-brick-wait",
                                           "remove-brick-commit"]
    assert kinds(plan)[4:] == ["rebalance-start", "rebalance-wait", "options-restore", "read-back"]
    assert any("continues it" in n for n in plan.notes)
    # the drawing that keeps the bricks stops it instead (a rollback)
    everything = remaining + ["node3:/srv/brick1/xd", "node4:/srv/brick1/xd"]
    back = plan_change(with_volume(lab_topology(), "xd", DIST, everything), "xd", state)
    assert back.ok and kinds(back) == ["remove-brick-stop", "read-back"]
    assert argv(back, "remove-brick-stop")[0][-1] == "stop"


def test_a_measured_rate_replaces_the_uncalibrated_default():
    rate = measured_rate(60_000_000, 800, 30.0, 2, "rebalance of xd on 2026-11-27")
    topo = with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"])
    plan = plan_change(topo, "xd", live("xd"), rates=MoveRates(rate, rate))
    assert "measured: rebalance of xd" in plan.movement.rates and "uncalibrated" not in plan.movement.rates


def test_plan_json_carries_what_a_view_draws():
    topo = with_volume(lab_topology(), "xd", DIST, XD + ["node4:/srv/brick2/xd"])
    doc = plan_change(topo, "xd", live("xd")).to_json()
    assert {"before", "after", "bricks", "steps", "movement", "refusals"} <= set(doc)
    assert doc["after"]["usable_bytes"] == 4 * FS
    assert all({"key", "title", "reason", "commands", "predicted_seconds"} <= set(s) for s in doc["steps"])


@pytest.mark.parametrize("seconds, text", [
    (None, "–"), (0.0, "0 s"), (0.01, "0 s"), (4.24, "4.2 s"), (45.4, "45 s"), (89.0, "89 s"), (240.0, "4 min"),
    (3580.0, "1 h"), (7800.0, "2 h 10 min"), (14_400.0, "4 h"), (86_380.0, "1 day"), (3 * 86_400 + 4 * 3600, "3 days 4 h"),
])
def test_a_duration_reads_in_the_units_an_admin_uses(seconds, text):
    assert cm.span(seconds) == text


def test_a_predicted_range_reads_in_hours_not_thousands_of_seconds():
    # the CLI printed '~14,400 s (7,800 s–32,400 s)' for a four-hour rebalance
    assert cm.Range(7800.0, 14_400.0, 32_400.0).text() == "~4 h (2 h 10 min–9 h)"
    assert cm.Range(120.0, 240.0, 540.0).text() == "~4 min (2 min–9 min)"

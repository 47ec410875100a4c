"""The volume's pre-flight row for a change, from live states recorded on the sandbox."""

from __future__ import annotations

from dataclasses import replace

from brickyard.core import livestate as ls
from brickyard.core.change import plan_change
from brickyard.core.topology import BrickRef
from brickyard.remote.changeflight import volume_checks

from tests.core._changefix import DIST, REP3, fixture, lab_topology, live, with_volume

XR_NEW = ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr", "node4:/srv/brick2/xr"]


def _checks(hc) -> dict[str, tuple[str, str]]:
    return {c.name: (c.status, c.message) for c in hc.checks}


def test_a_clean_volume_passes_every_check():
    state = live("xr", heal_info_summary="lab-change-heal-summary-clean.xml")
    plan = plan_change(with_volume(lab_topology(), "xr", REP3, XR_NEW), "xr", state)
    checks = _checks(volume_checks(plan, state))
    assert {s for s, _ in checks.values()} == {"ok"}, checks
    assert set(checks) >= {"started", "bricks online", "peers", "client quorum", "heal", "tasks", "room"}


def test_pending_heal_fails_a_change_but_only_warns_on_resume():
    state = live("xr", heal_info_summary="lab-change-heal-summary-healing.xml")
    plan = plan_change(with_volume(lab_topology(), "xr", REP3, XR_NEW), "xr", state)
    status, message = _checks(volume_checks(plan, state))["heal"]
    assert status == "fail" and "glusterfs #895" in message
    assert _checks(volume_checks(plan, state, resuming=True))["heal"][0] == "warn"


def test_a_dead_brick_being_replaced_passes_with_what_its_peers_hold_for_it():
    state = live("xr", heal_info_summary="lab-change-heal-summary-brick-down.xml",
                 volume_status_detail="lab-change-xr-detail-node3-brick-down.xml")
    held = state.heal[0]
    state = replace(state, heal=(replace(held, total=7, pending=7), *state.heal[1:]))
    plan = plan_change(with_volume(lab_topology(), "xr", REP3, XR_NEW), "xr", state)
    checks = _checks(volume_checks(plan, state))
    assert checks["bricks online"][0] == "ok" and "which the plan replaces" in checks["bricks online"][1]
    assert checks["heal"][0] == "ok" and "7 entries wait for the dead brick" in checks["heal"][1]
    # the same brick down, but the drawing keeps it: nothing may run
    keep = plan_change(with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr",
                                                                "node3:/srv/brick2/xr"]), "xr", state)
    assert _checks(volume_checks(keep, state))["bricks online"][0] == "fail"


def test_a_running_task_fails_unless_this_change_started_it():
    state = ls.from_outputs({ls.INFO: fixture("lab-change-xd-info-remove-brick-completed.xml"),
                             ls.DETAIL: fixture("lab-change-xd-detail-remove-brick-completed.xml"),
                             ls.TASKS: fixture("lab-change-tasks-remove-brick-in-progress.xml")}, "xd")
    plan = plan_change(with_volume(lab_topology(), "xd", DIST, ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd"]),
                       "xd", state)
    assert _checks(volume_checks(plan, state))["tasks"][0] == "fail"
    own = {state.tasks[0].id}
    assert _checks(volume_checks(plan, state, own_tasks=own))["tasks"][0] == "ok"


def test_a_set_without_quorum_fails():
    state = live("xr", heal_info_summary="lab-change-heal-summary-clean.xml")
    down = {BrickRef("node1", "/srv/brick2/xr"), BrickRef("node2", "/srv/brick2/xr")}
    state = replace(state, bricks={r: replace(b, online=r not in down) for r, b in state.bricks.items()})
    plan = plan_change(with_volume(lab_topology(), "xr", REP3, XR_NEW), "xr", state)
    assert _checks(volume_checks(plan, state))["client quorum"][0] == "fail"

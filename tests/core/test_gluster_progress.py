"""gluster 10.3's XML of rebalance, remove-brick and heal, as recorded on the sandbox."""

from __future__ import annotations

import pytest

from brickyard.core import gluster_progress as gp
from brickyard.core import livestate as ls
from brickyard.core.gluster_xml import GlusterCommandError, GlusterXMLError, parse_volume_status
from brickyard.core.topology import BrickRef

from ._changefix import fixture, live

NAMES = {"6a28bf6d-a869-4bf7-9261-039e54846580": "node1"}


def test_rebalance_in_progress_names_the_asked_node_and_is_not_completed():
    st = gp.parse_migration_status(fixture("lab-change-rebalance-status-in-progress.xml"), gp.REBALANCE)
    assert st.task_id == "20a75cf8-026c-4e1a-b11b-0481af37cdbf"
    assert [n.name for n in st.nodes] == ["node2", "node3", "node4", "localhost"]
    assert st.running and not st.completed
    assert (st.files, st.size, st.skipped, st.failures) == (762, 47449796, 6, 0)
    assert [n.name for n in st.named(NAMES).nodes][-1] == "node1"


def test_rebalance_completed_on_every_node():
    st = gp.parse_migration_status(fixture("lab-change-rebalance-status-completed.xml"), gp.REBALANCE)
    assert st.completed and not st.running and not st.fix_layout


def test_fix_layout_reads_as_its_own_status():
    running = gp.parse_migration_status(fixture("lab-change-fix-layout-status-in-progress.xml"), gp.REBALANCE)
    done = gp.parse_migration_status(fixture("lab-change-fix-layout-status-completed.xml"), gp.REBALANCE)
    assert running.running and running.fix_layout
    assert done.completed and done.fix_layout


@pytest.mark.parametrize("name, kind", [("lab-change-rebalance-status-not-started.xml", gp.REBALANCE),
                                        ("lab-change-remove-brick-status-not-started.xml", gp.REMOVE_BRICK)])
def test_nothing_started_or_stopped_reads_as_none(name, kind):
    assert gp.parse_migration_status(fixture(name), kind) is None


def test_remove_brick_clean_only_when_completed_everywhere_without_failures_or_skips():
    running = gp.parse_migration_status(fixture("lab-change-remove-brick-status-in-progress.xml"), gp.REMOVE_BRICK)
    done = gp.parse_migration_status(fixture("lab-change-remove-brick-status-completed.xml"), gp.REMOVE_BRICK)
    assert not running.clean and done.clean
    assert [n.name for n in done.nodes] == ["node3", "node4"]      # only nodes with a retiring brick
    failing = gp.MigrationStatus(gp.REMOVE_BRICK, done.task_id,
                                 (done.nodes[0], gp.MigrationNode("node4", "", 1, 1, 1, 2, 0, gp.COMPLETED,
                                                                  "completed", 3.0)))
    assert failing.completed and not failing.clean                   # glusterfs #2350: never commit this


def test_commit_while_migrating_is_refused_by_gluster_and_raises():
    with pytest.raises(GlusterCommandError, match="migration is in progress"):
        gp.parse_task_id(fixture("lab-change-remove-brick-commit-refused-in-progress.xml"))


def test_task_ids_of_start_commands():
    assert gp.parse_task_id(fixture("lab-change-rebalance-start.xml")) == "20a75cf8-026c-4e1a-b11b-0481af37cdbf"
    assert gp.parse_task_id(fixture("lab-change-remove-brick-start.xml")) == "550d8b9c-11ba-445a-9a3d-5faf0f235276"


def test_volume_tasks_list_the_remove_brick_bricks():
    tasks = gp.parse_volume_tasks(fixture("lab-change-tasks-remove-brick-in-progress.xml"))["xd"]
    assert tasks[0].is_remove_brick and tasks[0].running
    assert tasks[0].bricks == (BrickRef("node3", "/srv/brick1/xd"), BrickRef("node4", "/srv/brick1/xd"))
    done = gp.parse_volume_tasks(fixture("lab-change-tasks-rebalance-completed.xml"))["xd"][0]
    assert done.is_rebalance and not done.running and done.status == gp.COMPLETED


def test_heal_summary_counts_and_a_brick_that_is_down():
    healing = gp.parse_heal_summary(fixture("lab-change-heal-summary-healing.xml"))
    assert [h.total for h in healing] == [54, 54, 0] and all(h.connected for h in healing)
    down = gp.parse_heal_summary(fixture("lab-change-heal-summary-brick-down.xml"))
    assert down[-1].ref == BrickRef("node3", "/srv/brick2/xr") and not down[-1].connected and down[-1].total is None
    assert not down[-1].clean


def test_heal_summary_on_distribute_is_refused():
    with pytest.raises(GlusterCommandError, match="replicate/disperse"):
        gp.parse_heal_summary(fixture("lab-change-heal-summary-distribute-refused.xml"))


def test_heal_count_text_and_its_refusal_on_disperse():
    clean = gp.parse_heal_count(fixture("lab-change-heal-count-clean.txt"))
    assert list(clean.values()) == [0, 0, 0] and BrickRef("node3", "/srv/brick2/xr") in clean
    text = fixture("lab-change-heal-count-clean.txt").replace("Number of entries: 0", "Number of entries: 12", 1)
    assert list(gp.parse_heal_count(text).values()) == [12, 0, 0]
    with pytest.raises(GlusterXMLError, match="only volume of replicated type"):
        gp.parse_heal_count(fixture("lab-change-heal-count-disperse-refused.stderr.txt"))


def test_status_detail_carries_inodes():
    bricks = parse_volume_status(fixture("lab-change-xd-detail.xml"))["xd"]
    assert all(b.inodes_total and b.inodes_free is not None for b in bricks)


def test_live_state_from_recorded_outputs():
    state = live("xr", heal_info_summary="lab-change-heal-summary-brick-down.xml")
    assert state.asked == "node1" and state.started
    assert state.uuid_names["6a28bf6d-a869-4bf7-9261-039e54846580"] == "node1"
    assert state.heal_pending is None                       # a brick could not be asked
    assert live("xr", heal_info_summary="lab-change-heal-summary-clean.xml").heal_pending == 0
    down = live("xr", volume_status_detail="lab-change-xr-detail-node3-brick-down.xml")
    assert down.offline == [BrickRef("node3", "/srv/brick2/xr")]


def test_live_state_of_a_missing_volume_raises():
    with pytest.raises(GlusterXMLError, match="no volume nosuch"):
        ls.from_outputs({ls.INFO: fixture("lab-change-xd-info.xml")}, "nosuch")

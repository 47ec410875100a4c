"""Changes in the history database: stored before they run, state saved at every step, outputs
kept in order, unfinished ones found per volume (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from brickyard.store import HistoryStore, StoreError


def _create(store: HistoryStore, cid: str, volume: str = "gv0", status: str = "new"):
    return store.changes.create(cid, volume, ["expand", "rebalance"], "/x/t.brickyard.json", {"nodes": []},
                                {"measured": "2026-11-27T11:00:00Z", "outputs": {"volume-info": "<cliOutput/>"}},
                                {"fix_layout": False}, {"steps": []}, {"steps": {}}, status, 42.5)


def test_a_change_is_stored_with_what_it_was_planned_from(db_url):
    store = HistoryStore(db_url)
    record = _create(store, "c0ffee0001")
    assert record.kinds == "expand, rebalance" and record.predicted_seconds == 42.5
    assert record.live["outputs"]["volume-info"] == "<cliOutput/>" and not record.finished
    store.changes.save_state("c0ffee0001", {"steps": {"add-brick": {"status": "done"}}}, "complete", 61.0)
    again = store.changes.get("c0ff")                 # by a unique prefix
    assert again.status == "complete" and again.finished and again.measured_seconds == 61.0
    assert again.state["steps"]["add-brick"]["status"] == "done"
    store.close()


def test_outputs_are_kept_in_the_order_they_ran(db_url):
    store = HistoryStore(db_url)
    _create(store, "c0ffee0002")
    for i, word in enumerate(("status", "status", "commit")):
        store.changes.add_output("c0ffee0002", "remove-brick-commit", "node1",
                                 ["gluster", "volume", "remove-brick", "gv0", "node1:/b", word], 0, f"<out {i}/>", "",
                                 1000.0 + i)
    kept = store.changes.outputs("c0ffee0002")
    assert [k.argv[-1] for k in kept] == ["status", "status", "commit"] and [k.seq for k in kept] == [0, 1, 2]
    assert kept[2].stdout == "<out 2/>" and kept[0].at == 1000.0
    store.close()


def test_unfinished_changes_per_volume_newest_first(db_url):
    store = HistoryStore(db_url)
    _create(store, "a1", "gv0", "complete")
    _create(store, "a2", "gv0", "interrupted")
    _create(store, "a3", "gv1", "running")
    assert [r.change_id for r in store.changes.list(volume="gv0", unfinished=True)] == ["a2"]
    assert not store.changes.owner_alive(store.changes.get("a3"))   # this very process owns it
    with pytest.raises(StoreError, match="no change"):
        store.changes.get("nosuchchange")
    store.close()

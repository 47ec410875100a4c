"""The PDF change record: a change stored by the real change runner (against the fake live volume
of tests/remote/changefake.py) written through the app's report writer, and read back with
poppler as a manager's PDF viewer would: the verdict, before → after, each step predicted
against measured, what moved, the drawings, and every gluster command with its answer."""

from __future__ import annotations

import asyncio
import json

import pytest

from brickyard.core import changeedits as ce
from brickyard.remote import changesteps
from brickyard.remote.change import ChangeRunner
from brickyard.remote.changeread import read_live_state
from brickyard.report import export_report
from brickyard.report.changerecord import content_from_change

from ..remote.changefake import ChangeCluster
from ..remote.fakes import executors
from ..ui.test_change_view import XDR, imported_topology
from . import pdfcheck
from .test_worker import converse


def _expand(store, cancel: bool = False) -> tuple[str, ChangeCluster]:
    """Run an expand of xdr 2 x 2 -> 3 x 2 to the end (or cancel it once the rebalance reports)."""
    cluster = ChangeCluster("xdr", XDR, replica=2)
    if cancel:
        cluster.hold()
    ex = executors(cluster)
    topo = imported_topology()
    for _ in range(2):
        ce.add_server(topo, "xdr", like="node3").apply(topo)

    async def run():
        live = await read_live_state(ex("node1"), "xdr")
        runner = ChangeRunner.start(topo, "xdr", live, store, ex, source="/srv/plans/lab.brickyard.json")
        if cancel:
            runner.on_event = lambda ev: ev.kind == "progress" and runner.cancel()
        report = await runner.run()
        assert report.ok != cancel, report.summary()
        return runner.change_id

    return asyncio.run(run()), cluster


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    monkeypatch.setattr(changesteps, "POLL_FIRST", 0.02)
    monkeypatch.setattr(changesteps, "POLL_MAX", 0.05)


@pytest.fixture
def expanded(store):
    """(store, change id, cluster) of an expand of xdr 2 x 2 -> 3 x 2 run to the end."""
    return (store, *_expand(store))


def test_the_record_says_what_changed_each_step_and_every_command(expanded, tmp_path):
    store, change_id, cluster = expanded
    content = content_from_change(store, change_id[:8], author="Ana")
    assert content.change_id == change_id and content.status == "complete"
    assert content.before is not None and content.after is not None
    result = export_report(content, tmp_path / "change.pdf")
    pdf = tmp_path / "change.pdf"
    assert result.pages == pdfcheck.pages(pdf) >= 2
    words = pdfcheck.text(pdf, raw=True)
    flat = " ".join(words.split())
    assert "Change record: xdr, expand, rebalance" in flat
    assert "completed: every step done and read back" in flat
    assert "2 x 2 = 4 (distributed-replicate)" in flat and "3 x 2 = 6 (distributed-replicate)" in flat
    assert "Bricks added: node6:/srv/brick2/xdr, node7:/srv/brick2/xdr" in flat
    for title in ("1 What changed", "2 Steps", "3 Data moved", "4 The volume before and after"):
        assert title in flat, title
    assert "wait until the rebalance has completed on every node" in flat
    assert "/srv/plans/lab.brickyard.json" in flat and "Ana" in flat
    # predicted and measured side by side, and gluster's own count of what moved
    assert "The steps that ran took" in flat and "the plan predicted" in flat
    assert "900" in flat                           # files moved, as the fake's rebalance counted them
    # the appendix: the add-brick as run, and gluster's answer to it
    assert "volume add-brick xdr node6:/srv/brick2/xdr node7:/srv/brick2/xdr" in flat
    assert "Add Brick successful" in flat


def test_the_app_writer_prepares_a_change_source_and_an_unknown_change_is_one_sentence(expanded, tmp_path):
    store, change_id, _ = expanded
    url = store.engine.url.render_as_string(hide_password=False)
    code, events = converse([{"source": {"kind": "change", "db": url, "change": change_id}},
                             {"command": "write", "path": str(tmp_path / "r.pdf"), "paper": "a4", "title": "",
                              "author": ""},
                             {"command": "quit"}])
    kinds = [e["event"] for e in events if e["event"] != "progress"]
    assert code == 0 and kinds == ["prepared", "written"], events
    prepared = events[[e["event"] for e in events].index("prepared")]
    assert prepared["kind"] == "change" and prepared["title"].startswith("Change record: xdr")
    code, events = converse([{"source": {"kind": "change", "db": url, "change": "ffffffffffff"}}, {"command": "quit"}])
    assert [e["event"] for e in events] == ["failed"] and "no change 'ffffffffffff'" in events[0]["error"]
    assert json.dumps(events)           # one sentence, nothing else


def test_an_interrupted_change_is_recorded_as_such_with_the_steps_not_run(store, tmp_path):
    change_id, _ = _expand(store, cancel=True)
    content = content_from_change(store, change_id)
    export_report(content, tmp_path / "c.pdf")
    flat = " ".join(pdfcheck.text(tmp_path / "c.pdf", raw=True).split())
    assert "interrupted: cancelled part-way; the volume was left consistent" in flat
    assert "not run" in flat and "rebalance xdr stop" in flat

"""The change runner against gluster output recorded on the sandbox, replayed by a scripted
fake: the rules it keeps where the commands run (no commit after a status with failures, no
replace while heal is pending), Cancel stopping a migration, resume skipping what is done, and
the kept outputs that prove the order."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pytest

from brickyard.core import livestate as ls
from brickyard.remote import changesteps
from brickyard.remote.change import ChangeRunner
from brickyard.remote.executor import CommandResult, Executor
from brickyard.store import HistoryStore

from tests.core._changefix import DIST, REP3, fixture, lab_topology, live, with_volume

XD4 = ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd", "node3:/srv/brick1/xd", "node4:/srv/brick1/xd"]


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    monkeypatch.setattr(changesteps, "POLL_FIRST", 0.001)
    monkeypatch.setattr(changesteps, "POLL_MAX", 0.001)
    monkeypatch.setattr(changesteps, "HEAL_RECHECK", 0.001)


@dataclass
class Script:
    """Answers by the words a command contains, next to each other; each key's answers are used
    in turn, the last one repeating. Every command is in ``calls``."""

    answers: list[tuple[tuple[str, ...], list]] = field(default_factory=list)
    calls: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)     # volume set / reset / get, as gluster answers them

    def on(self, *words: str, answers: Sequence) -> "Script":
        self.answers.insert(0, (words, list(answers)))
        return self

    def answer(self, argv: Sequence[str]) -> tuple[int, bytes, bytes]:
        if list(argv) == ["true"]:
            return 0, b"", b""
        for words, queue in self.answers:
            if _contains(argv, words):
                out = queue.pop(0) if len(queue) > 1 else queue[0]
                if isinstance(out, tuple):
                    return out
                return 0, out.encode() if isinstance(out, str) else out, b""
        options = _options_answer(self.options, list(argv))
        if options is not None:
            return 0, options.encode(), b""
        raise AssertionError(f"the script has no answer for {list(argv)}")

    def executor(self, host: str) -> "ScriptedExecutor":
        return ScriptedExecutor(host, self)

    def ran(self, *words: str) -> list[int]:
        """Indexes in ``calls`` of the commands containing these words in order."""
        return [i for i, (_, argv) in enumerate(self.calls) if _contains(argv, words)]


def _options_answer(options: dict[str, str], argv: list[str]) -> str | None:
    """gluster's answer to volume set / reset / get (recorded on the sandbox), kept in ``options``."""
    if _contains(argv, ("volume", "set")):
        pairs = argv[argv.index("set") + 2:]
        options.update(zip(pairs[::2], pairs[1::2]))
        return fixture("lab-change-volume-set-threads.xml")
    if _contains(argv, ("volume", "reset")):
        options.pop(argv[-1], None)
        return fixture("lab-change-volume-reset.xml")
    if _contains(argv, ("volume", "get")):
        return (fixture("lab-change-volume-get-least-prio-8.xml").replace("performance.least-prio-threads", argv[-1])
                .replace("<Value>8</Value>", f"<Value>{options.get(argv[-1], '1 (DEFAULT)')}</Value>"))
    return None


def _contains(argv: Sequence[str], words: Sequence[str]) -> bool:
    n = len(words)
    return any(tuple(argv[i:i + n]) == tuple(words) for i in range(len(argv) - n + 1))


class ScriptedExecutor(Executor):
    def __init__(self, host: str, script: Script):
        self.host, self.script = host, script

    async def run(self, argv, *, timeout=60.0, input=None, sudo=False, check=False, on_output=None):
        self.script.calls.append((self.host, tuple(argv)))
        code, out, err = self.script.answer(argv)
        return CommandResult(self.host, tuple(argv), code, out, err, 0.0, 0.0)

    async def start(self, argv, *, sudo=False):
        raise NotImplementedError

    async def upload(self, data, remote_path, mode=0o644):
        raise NotImplementedError

    async def close(self):
        pass


def xml_without_bricks(text: str, gone: list[str]) -> str:
    """A volume info with some bricks removed (and brickCount fixed)."""
    for brick in gone:
        text = re.sub(rf"\s*<brick uuid=\"[^\"]*\">{re.escape(brick)}<name>.*?</brick>", "", text, flags=re.S)
    count = text.count("<brick uuid=")
    return re.sub(r"<brickCount>\d+</brickCount>", f"<brickCount>{count}</brickCount>", text)


def removing_state() -> ls.LiveState:
    return ls.from_outputs({ls.INFO: fixture("lab-change-xd-info-remove-brick-completed.xml"),
                            ls.DETAIL: fixture("lab-change-xd-detail-remove-brick-completed.xml"),
                            ls.PEERS: fixture("lab-change-peer-status.xml"),
                            ls.POOL: fixture("lab-change-pool-list.xml"),
                            ls.TASKS: fixture("lab-change-xd-tasks.xml")}, "xd")


def shrink_script(status_answers: list[str], leftovers: str = "") -> Script:
    info4 = fixture("lab-change-xd-info-remove-brick-completed.xml")
    info2 = xml_without_bricks(info4, XD4[2:])
    return (Script()
            .on("volume", "info", answers=[info4, info2])
            .on("node4:/srv/brick1/xd", "status", answers=status_answers)
            .on("node4:/srv/brick1/xd", "start", answers=[fixture("lab-change-remove-brick-start.xml")])
            .on("node4:/srv/brick1/xd", "stop", answers=[fixture("lab-change-remove-brick-stop.xml")])
            .on("node4:/srv/brick1/xd", "commit", answers=[fixture("lab-change-remove-brick-commit.xml")])
            .on("sh", "-c", answers=[leftovers])
            .on("xd", "start", answers=[fixture("lab-change-rebalance-start.xml")])
            .on("rebalance", "xd", "status", answers=[fixture("lab-change-rebalance-status-not-started.xml"),
                                                fixture("lab-change-rebalance-status-completed.xml")])
            .on("xd", "detail", answers=[fixture("lab-change-xd-detail-remove-brick-completed.xml")]))


def run(runner) -> object:
    return asyncio.run(runner.run())


def test_commit_never_follows_a_migration_that_finished_with_failures():
    completed = fixture("lab-change-remove-brick-status-completed.xml")
    failing = completed.replace("<failures>0</failures>", "<failures>2</failures>", 1)
    script = shrink_script([fixture("lab-change-remove-brick-status-not-started.xml"), failing],
                           leftovers="/srv/brick1/xd/d00/s1/t0/f00042.bin\n")
    topo = with_volume(lab_topology(), "xd", DIST, XD4[:2])
    runner = ChangeRunner.start(topo, "xd", removing_state(), None, script.executor)
    report = run(runner)
    assert not report.ok and report.failed.step.key == "remove-brick-wait"
    assert "glusterfs #2350" in report.failed.message and "f00042.bin" in report.failed.message
    assert script.ran("node4:/srv/brick1/xd", "commit") == []
    # named in the change's state too, for a view or a script
    left = runner.state.measured["remove-brick-wait"]["left_on_bricks"]
    assert "node3:/srv/brick1/xd/d00/s1/t0/f00042.bin" in left


def test_commit_runs_only_right_after_a_clean_status_and_a_rebalance_follows():
    script = shrink_script([fixture("lab-change-remove-brick-status-not-started.xml"),
                            fixture("lab-change-remove-brick-status-in-progress.xml"),
                            fixture("lab-change-remove-brick-status-completed.xml")])
    topo = with_volume(lab_topology(), "xd", DIST, XD4[:2])
    report = run(ChangeRunner.start(topo, "xd", removing_state(), None, script.executor))
    assert report.ok, report.summary()
    [commit] = script.ran("node4:/srv/brick1/xd", "commit")
    statuses = script.ran("node4:/srv/brick1/xd", "status")
    last = max(i for i in statuses if i < commit)
    assert b"<statusStr>completed</statusStr>" in script.answer(script.calls[last][1])[1]
    assert script.ran("find") or script.ran("sh", "-c")      # the bricks were searched for files left
    assert min(script.ran("rebalance", "xd", "start")) > commit


def test_no_brick_is_replaced_while_heal_is_pending():
    xr = live("xr", heal_info_summary="lab-change-heal-summary-clean.xml")
    script = (Script()
              .on("info", "summary", answers=[fixture("lab-change-heal-summary-healing.xml")])
              .on("test", "-d", answers=[(1, b"", b"")])
              .on("sh", "-c", answers=[""])
              .on("volume", "info", answers=[fixture("lab-change-xr-info.xml")]))
    topo = with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr",
                                                    "node4:/srv/brick2/xr"])
    report = run(ChangeRunner.start(topo, "xr", xr, None, script.executor))
    assert not report.ok and report.failed.step.key.startswith("replace-brick:")
    assert "glusterfs #895" in report.failed.message and "54 pending" in report.failed.message
    assert script.ran("replace-brick") == []
    # the threads raised for the heal went back to the volume's own values when it failed
    # (xr has cluster.shd-max-threads 8 already: only the bricks' least-priority threads are raised)
    assert script.ran("volume", "set", "xr", "performance.least-prio-threads", "8")
    assert script.ran("volume", "reset", "xr", "performance.least-prio-threads")[0] > script.ran("info", "summary")[-1]
    assert script.options == {}
    assert any("set back" in n for n in report.notes)


def test_a_volume_set_gluster_refuses_fails_the_step_with_its_words_before_anything_moves():
    script = (Script()
              .on("volume", "set", answers=[fixture("lab-change-volume-set-refused-non-replicate.xml")])
              .on("info", "summary", answers=[fixture("lab-change-heal-summary-clean.xml")])
              .on("test", "-d", answers=[(1, b"", b"")])
              .on("sh", "-c", answers=[""])
              .on("volume", "info", answers=[fixture("lab-change-xr-info.xml")]))
    topo = with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr",
                                                    "node4:/srv/brick2/xr"])
    report = run(ChangeRunner.start(topo, "xr", live("xr"), None, script.executor))
    assert not report.ok and report.failed.step.key == "options-raise"
    assert "gluster refused" in report.failed.message and "non-replicate" in report.failed.message
    assert script.ran("replace-brick") == []


def test_a_change_that_finds_the_threads_raised_by_a_killed_run_does_not_raise_them_again_but_sets_them_back():
    xr = live("xr", heal_info_summary="lab-change-heal-summary-clean.xml")
    info_after = fixture("lab-change-xr-info.xml").replace("node3:/srv/brick2/xr", "node4:/srv/brick2/xr")
    detail_after = fixture("lab-change-xr-detail.xml").replace("<hostname>node3</hostname>",
                                                                "<hostname>node4</hostname>")
    script = (Script(options={"performance.least-prio-threads": "8"})      # left raised by the killed run
              .on("volume", "heal", "xr", answers=[fixture("lab-change-heal-launch.txt")])
              .on("info", "summary", answers=[fixture("lab-change-heal-summary-clean.xml")])
              .on("test", "-d", answers=[(1, b"", b"")])
              .on("sh", "-c", answers=["0\n"])
              .on("replace-brick", answers=[fixture("lab-change-replace-brick.xml")])
              .on("volume", "info", answers=[fixture("lab-change-xr-info.xml"), info_after])
              .on("xr", "detail", answers=[detail_after]))
    topo = with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr",
                                                    "node4:/srv/brick2/xr"])
    report = run(ChangeRunner.start(topo, "xr", xr, None, script.executor))
    assert report.ok, report.summary()
    states = {o.step.key: o.status for o in report.outcomes}
    assert states["options-raise"] == "skipped" and states["options-restore"] == "done"
    assert script.options == {} and script.ran("volume", "set", "xr") == []
    assert script.ran("volume", "reset", "xr", "performance.least-prio-threads")


NODE4_BRICK = ('<brick uuid="e8b59f43-a678-468a-ae96-2faa4e163775">node4:/srv/brick2/xd<name>node4:/srv/brick2/xd'
               '</name><hostUuid>e8b59f43-a678-468a-ae96-2faa4e163775</hostUuid><isArbiter>0</isArbiter></brick>')
NODE4_STATUS = ("<node><hostname>node4</hostname><path>/srv/brick2/xd</path><peerid>e8b59f43-a678-468a-ae96-2faa4e163775"
                "</peerid><status>1</status><port>49152</port><pid>1</pid><sizeTotal>1006632960</sizeTotal>"
                "<sizeFree>900000000</sizeFree><device>/dev/loop15</device></node>")
INFO3 = fixture("lab-change-xd-info.xml")
INFO4 = INFO3.replace("<brickCount>3</brickCount>", "<brickCount>4</brickCount>").replace(
    "</bricks>", NODE4_BRICK + "</bricks>")
DETAIL4 = fixture("lab-change-xd-detail.xml").replace("</volume>", NODE4_STATUS + "</volume>", 1)


def expand_script(status: list[str], infos: Sequence[str] = (INFO3, INFO4)) -> Script:
    return (Script()
            .on("test", "-d", answers=[(1, b"", b"")])
            .on("sh", "-c", answers=[""])
            .on("volume", "info", answers=list(infos))
            .on("xd", "detail", answers=[DETAIL4])
            .on("add-brick", answers=[fixture("lab-change-add-brick.xml")])
            .on("xd", "start", answers=[fixture("lab-change-rebalance-start.xml")])
            .on("rebalance", "xd", "stop", answers=[fixture("lab-change-rebalance-stop.xml")])
            .on("rebalance", "xd", "status", answers=status))


def test_cancel_while_the_rebalance_runs_stops_it_and_leaves_the_change_resumable(tmp_path):
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    running = fixture("lab-change-rebalance-status-in-progress.xml")
    script = expand_script([fixture("lab-change-rebalance-status-not-started.xml"), running])
    topo = with_volume(lab_topology(), "xd", DIST, ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd",
                                                    "node3:/srv/brick2/xd", "node4:/srv/brick2/xd"])
    runner = ChangeRunner.start(topo, "xd", live("xd"), store, script.executor)
    runner.on_event = lambda ev: runner.cancel() if ev.kind == "progress" else None
    report = run(runner)
    assert report.interrupted and not report.ok
    assert script.ran("rebalance", "xd", "stop")
    record = store.changes.get(runner.change_id)
    assert record.status == "interrupted" and "--resume" in record.state["message"]
    assert record.state["steps"]["add-brick"]["status"] == "done"
    assert record.state["task_ids"]["rebalance-start"] == ["20a75cf8-026c-4e1a-b11b-0481af37cdbf"]
    # the threads raised for the migration went back when it was cancelled (xd never set them: reset)
    assert script.ran("volume", "set", "xd", "performance.least-prio-threads", "8")[0] < script.ran("xd", "start")[0]
    assert script.ran("volume", "reset", "xd", "performance.least-prio-threads")[0] > script.ran("xd", "stop")[0]
    assert script.options == {} and any("set back" in n for n in report.notes)

    # resumed (the rebalance meanwhile started again by someone and completed): what is done is
    # read back and skipped, the wait finds it completed
    again = expand_script([fixture("lab-change-rebalance-status-completed.xml")], infos=[INFO4])
    resumed = ChangeRunner.resume(store.changes.get(runner.change_id), store, again.executor)
    report = run(resumed)
    assert report.ok, report.summary()
    states = {o.step.key: o.status for o in report.outcomes}
    assert states["add-brick"] == "skipped" and states["rebalance-start"] == "skipped"
    assert again.ran("add-brick") == [] and again.ran("rebalance", "xd", "start") == []
    assert states["options-raise"] == states["options-restore"] == "done" and again.options == {}
    final = store.changes.get(runner.change_id)
    assert final.status == "complete" and final.measured_seconds is not None
    kept = store.changes.outputs(runner.change_id)
    assert [o.step_key for o in kept if o.argv[-1] == "stop"] == ["cancel"]
    assert any(o.step_key == "rebalance-wait" and "completed" in o.stdout for o in kept)
    store.close()


def test_a_change_owned_by_a_live_process_is_not_resumed(tmp_path):
    import os
    import subprocess
    import sys

    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    script = expand_script([fixture("lab-change-rebalance-status-completed.xml")])
    topo = with_volume(lab_topology(), "xd", DIST, ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd",
                                                    "node3:/srv/brick2/xd", "node4:/srv/brick2/xd"])
    runner = ChangeRunner.start(topo, "xd", live("xd"), store, script.executor)
    code = ("import sys; from brickyard.store import HistoryStore; s = HistoryStore(sys.argv[1]); "
            "r = s.changes.get(sys.argv[2]); s.changes.save_state(r.change_id, r.state, 'running'); "
            "print('saved', flush=True); sys.stdin.read()")
    other = subprocess.Popen([sys.executable, "-c", code, store.url, runner.change_id], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "saved"
        from brickyard.remote.change import ChangeError

        with pytest.raises(ChangeError, match="running now in process"):
            ChangeRunner.resume(store.changes.get(runner.change_id), store, script.executor)
    finally:
        other.stdin.close()
        other.wait(timeout=60)
    assert os.getpid() != other.pid
    store.close()


def test_rollback_plans_from_the_cluster_now_back_to_the_volume_before_the_change(tmp_path):
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    script = expand_script([fixture("lab-change-rebalance-status-not-started.xml"),
                            fixture("lab-change-rebalance-status-in-progress.xml")])
    topo = with_volume(lab_topology(), "xd", DIST, ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd",
                                                    "node3:/srv/brick2/xd", "node4:/srv/brick2/xd"])
    runner = ChangeRunner.start(topo, "xd", live("xd"), store, script.executor)
    runner.on_event = lambda ev: runner.cancel() if ev.kind == "progress" else None
    assert run(runner).interrupted
    # the cluster now: four bricks, the rebalance stopped
    now = ls.from_outputs({ls.INFO: INFO4, ls.DETAIL: DETAIL4, ls.PEERS: fixture("lab-change-peer-status.xml"),
                           ls.POOL: fixture("lab-change-pool-list.xml"), ls.TASKS: fixture("lab-change-xd-tasks.xml")},
                          "xd")
    back = ChangeRunner.rollback(store.changes.get(runner.change_id), now, store, script.executor)
    assert back.plan.kinds == ("shrink",)
    assert [str(b) for b in back.plan.role("retiring")] == ["node4:/srv/brick2/xd"]
    assert [str(b) for b in back.plan.result.bricks] == ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd",
                                                          "node3:/srv/brick2/xd"]
    assert store.changes.get(back.change_id).options["rollback_of"] == runner.change_id
    store.close()


def test_a_replace_waits_until_the_heal_indices_are_empty_and_heal_info_agrees():
    from brickyard.remote import changeread

    xr = live("xr", heal_info_summary="lab-change-heal-summary-clean.xml")
    info_after = fixture("lab-change-xr-info.xml").replace("node3:/srv/brick2/xr", "node4:/srv/brick2/xr")
    detail_after = fixture("lab-change-xr-detail.xml").replace("<hostname>node3</hostname>",
                                                                "<hostname>node4</hostname>")
    script = (Script()     # keys given later are tried first: this one only after "info summary"
              .on("volume", "heal", "xr", answers=[fixture("lab-change-heal-launch.txt")])
              .on("info", "summary", answers=[fixture("lab-change-heal-summary-clean.xml")])
              .on("test", "-d", answers=[(1, b"", b"")])
              .on("sh", "-c", answers=[""])
              .on(changeread.INDEX_COUNT_SCRIPT, answers=["120\n", "40\n", "0\n", "30\n", "10\n", "0\n", "0\n"])
              .on("replace-brick", answers=[fixture("lab-change-replace-brick.xml")])
              .on("volume", "info", answers=[fixture("lab-change-xr-info.xml"), info_after])
              .on("xr", "detail", answers=[detail_after]))
    topo = with_volume(lab_topology(), "xr", REP3, ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr",
                                                    "node4:/srv/brick2/xr"])
    events = []
    runner = ChangeRunner.start(topo, "xr", xr, None, script.executor, on_event=events.append)
    report = run(runner)
    assert report.ok, report.summary()
    heal = next(o for o in report.outcomes if o.step.key.startswith("heal:"))
    assert "nothing in any heal index" in heal.message and "heal info: nothing pending" in heal.message
    counted = script.ran(changeread.INDEX_COUNT_SCRIPT)
    last_summary = max(script.ran("info", "summary"))
    assert len(counted) >= 4 and last_summary > max(counted)      # gluster's own word comes last
    counts = [e for e in events if e.kind == "progress" and isinstance(e.detail, dict)]
    pending = [e.detail["pending"] for e in counts]
    assert pending[0] > 0 and pending[-1] == 0
    # the window's bar moves with the heal (it stood at 0 until the step ended): 160 -> 40 -> 0 waiting
    assert [(e.detail["pending"], e.fraction) for e in counts][:3] == [(160, 0.0), (40, 0.75), (0, 0.99)]
    assert counts[0].detail["bricks"] == {"node1:/srv/brick2/xr": 120, "node2:/srv/brick2/xr": 40,
                                          "node4:/srv/brick2/xr": 0}


@pytest.mark.parametrize("pending, most, unknown, fraction", [
    (100, 100, False, 0.0), (25, 100, False, 0.75), (0, 100, False, 0.99), (0, 0, False, 0.99),
    (10, 100, True, 0.0), (1, 10_000, False, 0.99),
])
def test_the_heal_fraction_is_the_share_of_the_most_entries_seen_that_no_longer_wait(pending, most, unknown, fraction):
    assert changesteps.heal_fraction(pending, most, unknown) == pytest.approx(fraction)


@pytest.mark.parametrize("waited, delay", [(0, 2.0), (10, 2.0), (30, 3.0), (60, 6.0), (150, 15.0), (36_000, 15.0)])
def test_a_wait_polls_every_tenth_of_the_time_it_has_waited(monkeypatch, waited, delay):
    """A migration or heal that ends after a minute is seen ending ~6 s late at most, not 15 s
    (the delay grew by half each poll to POLL_MAX: a minute's wait polled 15 s apart); a
    long one still polls only every POLL_MAX."""
    monkeypatch.setattr(changesteps, "POLL_FIRST", 2.0)
    monkeypatch.setattr(changesteps, "POLL_MAX", 15.0)
    assert changesteps.poll_delay(waited) == pytest.approx(delay)


def test_a_stored_change_plans_again_to_the_plan_it_was_stored_with(tmp_path):
    from brickyard.core.change import planned_again
    from brickyard.core.changecost import MoveRates, measured_rate, rates_from_json

    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    rate = measured_rate(60_000_000, 800, 30.0, 2, "rebalance of xd on 2026-11-27")
    rates = MoveRates(rate, rate)
    assert rates_from_json(rates.to_json()).to_json() == rates.to_json() and rates_from_json(None) is None
    topo = with_volume(lab_topology(), "xd", DIST, XD4)
    runner = ChangeRunner.start(topo, "xd", live("xd"), store, expand_script([]).executor, rates=rates)
    record = store.changes.get(runner.change_id)
    again = planned_again(record)
    assert again.plan.to_json() == runner.plan.to_json() == record.plan
    assert "measured: rebalance of xd" in again.plan.movement.rates
    assert "uncalibrated" in planned_again(record, rates=False).plan.movement.rates
    assert again.live.info.name == "xd" and again.topo.require_volume("xd").bricks == topo.require_volume("xd").bricks
    store.close()


def test_reading_the_live_state_waits_while_another_transaction_holds_the_lock(monkeypatch):
    # seen on the sandbox with five volumes changing at once: `brickyard change` gave up reading
    # the volume because another volume's add-brick held glusterd's lock for a moment
    from brickyard.remote import changeread, steps

    monkeypatch.setattr(steps, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    busy = (1, b"", b"Another transaction is in progress for xd. Please try again after some time.\n")
    script = (Script()
              .on("volume", "info", answers=[busy, busy, fixture("lab-change-xd-info.xml")])
              .on("peer", "status", answers=[fixture("lab-change-peer-status.xml")])
              .on("pool", "list", answers=[fixture("lab-change-pool-list.xml")])
              .on("xd", "detail", answers=[busy, fixture("lab-change-xd-detail.xml")])
              .on("xd", "tasks", answers=[fixture("lab-change-xd-tasks.xml")]))
    state = asyncio.run(changeread.read_live_state(script.executor("node1"), "xd"))
    assert state.info.name == "xd" and len(state.info.bricks) == 3
    assert len(script.ran("volume", "info")) == 3 and len(script.ran("xd", "detail")) == 2


def test_resume_migrates_again_when_a_clean_migration_left_a_file_on_a_retiring_brick(tmp_path):
    # seen on the sandbox: remove-brick said completed, 0 failures, 0 skipped, and a hard-linked
    # file was still on the retiring bricks; --resume took the completed task as done and failed
    # on the same file again instead of stopping and starting the migration as its error said
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    completed = fixture("lab-change-remove-brick-status-completed.xml")
    left = "/srv/brick1/xd/d00/s1/t0/f00043.bin\n"
    script = shrink_script([fixture("lab-change-remove-brick-status-not-started.xml"), completed], leftovers=left)
    topo = with_volume(lab_topology(), "xd", DIST, XD4[:2])
    runner = ChangeRunner.start(topo, "xd", removing_state(), store, script.executor)
    report = run(runner)
    assert not report.ok and "f00043.bin" in report.failed.message
    assert script.ran("node4:/srv/brick1/xd", "commit") == []

    again = shrink_script([completed], leftovers=left)
    again.answers[[w for w, _ in again.answers].index(("sh", "-c"))] = (("sh", "-c"), [left, ""])
    report = run(ChangeRunner.resume(store.changes.get(runner.change_id), store, again.executor))
    assert report.ok, report.summary()
    [stop] = again.ran("node4:/srv/brick1/xd", "stop")
    [start] = again.ran("node4:/srv/brick1/xd", "start")
    [commit] = again.ran("node4:/srv/brick1/xd", "commit")
    assert stop < start < commit
    store.close()


def test_the_heal_index_count_leaves_out_each_index_base_file(tmp_path):
    # gluster 10.3 on the sandbox: entry-changes held only its base file entry-changes-UUID and
    # the heal wait counted it as an entry waiting, for ever, while heal info said 0
    import subprocess

    from brickyard.remote import changeread

    base = "534d3309-0640-4402-9c65-879be0421474"
    idx = tmp_path / "brick" / ".glusterfs" / "indices"
    for d in ("xattrop", "dirty", "entry-changes"):
        (idx / d).mkdir(parents=True)
        (idx / d / f"{d}-{base}").touch()

    def count() -> str:
        return subprocess.run(["sh", "-c", changeread.INDEX_COUNT_SCRIPT, "sh", str(tmp_path / "brick")],
                              capture_output=True, text=True, check=True).stdout.strip()

    assert count() == "0"
    (idx / "xattrop" / "0b5c8c3e-1f7d-4f6c-9d55-0b4c0a1b2c3d").touch()
    (idx / "entry-changes" / "00000000-0000-0000-0000-000000000001").mkdir()
    assert count() == "2"


# ---- a rebalance that fails on a node (CI, five volumes changing at once: "not complete on node3 (failed)")
def _failed_on(status_xml: str, node: str) -> str:
    """A rebalance status with ``node``'s part failed, as gluster reports a node whose rebalance
    process stopped (lab-change-rbfail-rebalance-status-failed.xml: status 4, one failure)."""
    def fail(m):
        block = m.group(0)
        return (block.replace("<status>3</status>", "<status>4</status>")
                .replace("<statusStr>completed</statusStr>", "<statusStr>failed</statusStr>")
                .replace("<failures>0</failures>", "<failures>1</failures>"))
    return re.sub(rf"<node>\s*<nodeName>{node}</nodeName>.*?</node>", fail, status_xml, count=1, flags=re.S)


REBALANCE_LOG = "/var/log/glusterfs/xd-rebalance.log"
# what node3's rebalance log showed when a brick was down as the rebalance started (recorded)
CHILD_DOWN_LOG = "\n".join(ln for ln in fixture("lab-change-rbfail-rebalance-log.txt").splitlines()[:108]
                           if re.match(r"^\[[^]]*\] [ECW] ", ln)).replace("rbfail", "xd")
DETAIL4_NODE4_DOWN = fixture("lab-change-xd-detail.xml").replace(
    "</volume>", NODE4_STATUS.replace("<status>1</status>", "<status>0</status>").replace(
        "<port>49152</port>", "<port>N/A</port>") + "</volume>", 1)


def failing_expand(status: list[str], log: str = CHILD_DOWN_LOG, details: Sequence[str] = (DETAIL4,)) -> Script:
    from brickyard.remote import changeread

    return (expand_script(status)
            .on("xd", "detail", answers=list(details))
            .on(changeread.REBALANCE_LOG_SCRIPT, answers=[log]))


def _expand_runner(script: Script, store=None):
    topo = with_volume(lab_topology(), "xd", DIST, ["node1:/srv/brick1/xd", "node2:/srv/brick1/xd",
                                                    "node3:/srv/brick2/xd", "node4:/srv/brick2/xd"])
    return ChangeRunner.start(topo, "xd", live("xd"), store, script.executor)


@pytest.fixture
def quick_online(monkeypatch):
    monkeypatch.setattr(changesteps, "ONLINE_POLL", 0.001, raising=False)


def test_a_rebalance_that_failed_for_a_brick_not_yet_online_is_started_again_and_says_so(tmp_path, quick_online):
    from brickyard.remote import changeread

    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    completed = fixture("lab-change-rebalance-status-completed.xml")
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), _failed_on(completed, "node3"),
                             completed], details=[DETAIL4_NODE4_DOWN, DETAIL4])
    runner = _expand_runner(script, store)
    report = run(runner)
    assert report.ok, report.summary()
    starts = script.ran("rebalance", "xd", "start")
    assert len(starts) == 2
    # the first start waited until volume status showed every brick online
    details = script.ran("xd", "detail")
    assert [i < starts[0] for i in details[:2]] == [True, True]
    first = next(o for o in report.outcomes if o.step.key == "rebalance-start")
    assert "after every brick was online" in first.message and "node4:/srv/brick2/xd" in first.message
    # node3's own log was read, with a quoted argv, on node3
    [(host, argv)] = [script.calls[i] for i in script.ran(changeread.REBALANCE_LOG_SCRIPT)]
    assert host == "node3" and argv == ("sh", "-c", changeread.REBALANCE_LOG_SCRIPT, "sh", REBALANCE_LOG)
    # the second start ran after the log was read; the wait says it started again and why
    assert script.ran(changeread.REBALANCE_LOG_SCRIPT)[0] < starts[1]
    wait = next(o for o in report.outcomes if o.step.key == "rebalance-wait")
    assert "started again 1 time(s) after it failed on node3 (failed)" in wait.message
    assert "Received CHILD_DOWN. Exiting" in wait.message and "fix layout on / failed" in wait.message
    [restart] = runner.state.measured["rebalance-wait"]["restarts"]
    assert restart["failed"] == "node3 (failed)" and "failed to get the port number" in restart["cause"]
    assert restart["task"] in runner.state.task_ids["rebalance-start"]
    # and in the kept outputs: the log read and both starts, in that order
    kept = store.changes.outputs(runner.change_id)
    order = [o.argv[-1] for o in kept if o.argv[-1] in ("start", REBALANCE_LOG)]
    assert order == ["start", REBALANCE_LOG, "start"]
    assert any("Received CHILD_DOWN" in o.stdout for o in kept if o.argv[-1] == REBALANCE_LOG)
    store.close()


def test_a_rebalance_that_keeps_failing_is_started_again_a_bounded_number_of_times_then_fails_with_its_cause(
        quick_online):
    failed = _failed_on(fixture("lab-change-rebalance-status-completed.xml"), "node3")
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), failed])
    report = run(_expand_runner(script))
    assert not report.ok and report.failed.step.key == "rebalance-wait"
    assert len(script.ran("rebalance", "xd", "start")) == 1 + changesteps.REBALANCE_RESTARTS
    message = report.failed.message
    assert "did not complete on node3 (failed)" in message
    assert f"{REBALANCE_LOG} ends: " in message and "Received CHILD_DOWN. Exiting" in message
    assert f"started again {changesteps.REBALANCE_RESTARTS} time(s)" in message and "--resume" in message


def test_a_rebalance_that_failed_for_a_cause_that_is_not_transient_is_not_started_again(quick_online):
    log = ("[2026-11-27 18:41:13.212265 +0000] E [MSGID: 109023] [dht-rebalance.c:4285:gf_defrag_start_crawl] "
           "0-xd-dht: Failed to set commit hash on /. Rebalance cannot proceed.")
    failed = _failed_on(fixture("lab-change-rebalance-status-completed.xml"), "node3")
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), failed], log=log)
    report = run(_expand_runner(script))
    assert not report.ok and len(script.ran("rebalance", "xd", "start")) == 1
    assert ("node3's /var/log/glusterfs/xd-rebalance.log ends: 18:41:13 E dht-rebalance.c:4285:gf_defrag_start_crawl: "
            "0-xd-dht: Failed to set commit hash on /. Rebalance cannot proceed.") in report.failed.message


def test_a_node_marked_failed_whose_log_names_no_error_only_a_skipped_hard_link_is_started_again(quick_online):
    # seen on the sandbox: glusterd marked a node's rebalance failed as the process ended (it lost
    # the process before it heard the final status); the log: completed, failures 0, only warnings
    log = ("[2026-11-27 22:04:40.591790 +0000] W [MSGID: 109023] [dht-rebalance.c:490:__check_file_has_hardlink] "
           "0-xd-dht: Migration skipped for:/d02/s1/t1/f00403.bin: file has hardlinks \n"
           "[2026-11-27 22:05:11.656956 +0000] W [glusterfsd.c:1458:cleanup_and_exit] (-->/lib/x86_64-linux-gnu/"
           "libc.so.6(+0x891f5) [0x7fd38141d1f5] ) 0-: received signum (15), shutting down")
    completed = fixture("lab-change-rebalance-status-completed.xml")
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), _failed_on(completed, "node3"),
                             completed], log=log)
    report = run(_expand_runner(script))
    assert report.ok, report.summary()
    assert len(script.ran("rebalance", "xd", "start")) == 2


BRICK_OPS_FAILED = ("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<cliOutput><opRet>-1</opRet>"
                    "<opErrno>0</opErrno><opErrstr>Brick ops failed on node2. Glusterd Syncop Mgmt brick op "
                    "'Rebalance' failed. Please check brick log file for details.</opErrstr></cliOutput>")


def test_a_status_read_glusterd_answers_with_an_error_is_read_again(monkeypatch, quick_online):
    # seen on the sandbox as a rebalance's processes ended: one status read refused, the next fine
    monkeypatch.setattr(changesteps, "STATUS_RETRY_PAUSE", 0.001)
    completed = fixture("lab-change-rebalance-status-completed.xml")
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), BRICK_OPS_FAILED,
                             BRICK_OPS_FAILED, completed])
    report = run(_expand_runner(script))
    assert report.ok, report.summary()
    assert len(script.ran("rebalance", "xd", "start")) == 1
    # one that stays refused still stops the change, with gluster's words
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), BRICK_OPS_FAILED])
    report = run(_expand_runner(script))
    assert not report.ok and "Brick ops failed on node2" in report.failed.message


def test_a_rebalance_that_completed_with_failures_is_started_again_and_says_so(quick_online):
    # seen on the sandbox: a fix-layout lookup of a directory another node's rebalance was
    # creating on a new brick failed ("No data available"), counted as 1 failure
    completed = fixture("lab-change-rebalance-status-completed.xml")
    failures = completed.replace("<failures>0</failures>", "<failures>1</failures>", 1)
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), failures, completed])
    runner = _expand_runner(script)
    report = run(runner)
    assert report.ok, report.summary()
    assert len(script.ran("rebalance", "xd", "start")) == 2
    wait = next(o for o in report.outcomes if o.step.key == "rebalance-wait")
    assert "started again 1 time(s)" in wait.message and "1 file(s) failed to move" in wait.message
    assert runner.state.measured["rebalance-wait"]["restarts"][0]["cause"] == "1 file(s) failed to move"
    # failures that stay: after REBALANCE_RESTARTS new starts the change stops, naming them
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml"), failures])
    report = run(_expand_runner(script))
    assert not report.ok and "failed to move" in report.failed.message
    assert len(script.ran("rebalance", "xd", "start")) == 1 + changesteps.REBALANCE_RESTARTS


def test_no_rebalance_starts_while_a_brick_stays_offline(monkeypatch, quick_online):
    monkeypatch.setattr(changesteps, "ONLINE_LIMIT", 0.0, raising=False)
    script = failing_expand([fixture("lab-change-rebalance-status-not-started.xml")], details=[DETAIL4_NODE4_DOWN])
    report = run(_expand_runner(script))
    assert not report.ok and report.failed.step.key == "rebalance-start"
    assert "node4:/srv/brick2/xd not online" in report.failed.message
    assert script.ran("rebalance", "xd", "start") == []


def test_the_rebalance_log_script_prints_the_error_lines_of_the_last_run_only(tmp_path):
    import subprocess

    from brickyard.core import rebalancelog
    from brickyard.remote import changeread

    recorded = fixture("lab-change-rbfail-rebalance-log.txt")     # a failed run, then a completed one
    first_run = "".join(recorded.splitlines(keepends=True)[:108])

    def cause(text: str) -> list[str]:
        (tmp_path / "r.log").write_text(text)
        out = subprocess.run(["sh", "-c", changeread.REBALANCE_LOG_SCRIPT, "sh", str(tmp_path / "r.log")],
                             capture_output=True, text=True, check=True).stdout
        return rebalancelog.cause(out)

    assert cause(recorded) == []          # the last run completed: nothing to name
    lines = cause(recorded + first_run)   # ... and failed again
    assert lines == [
        "18:41:13 E client-handshake.c:1193:client_query_portmap_cbk: 0-rbfail-client-2: failed to get the port number "
        "for remote subvolume. Please run gluster volume status on server to see if brick process is running []",
        "18:41:13 W dht-common.c:11033:dht_notify: 0-rbfail-dht: Received CHILD_DOWN. Exiting",
        "18:41:13 W dht-diskusage.c:36:dht_du_info_cbk: 0-rbfail-dht: failed to get disk info from rbfail-client-2 "
        "[Transport endpoint is not connected]",
        "18:41:13 E dht-rebalance.c:4345:gf_defrag_start_crawl: 0-rbfail-dht: fix layout on / failed "
        "[Transport endpoint is not connected]"]
    assert rebalancelog.transient(lines)
    assert not rebalancelog.transient(["12:00:00 E dht-rebalance.c:1:f: Failed to set commit hash on /"])
    assert not rebalancelog.transient([])


def _launches(reads: list[tuple[float, int]]) -> list[float]:
    stall = changesteps.HealStall()
    return [t for t, pending in reads if stall.launch(pending, t)]


def test_a_heal_wait_launches_an_index_heal_only_when_the_count_stops_falling(monkeypatch):
    """Entries added while the heal runs (the count rose above the lowest seen) and falling
    again are progress: the wait kept the lowest count ever and launched an index heal every
    HEAL_STALL seconds while they fell (seen on the sandbox: every ~32 s of a 2,000-file heal)."""
    monkeypatch.setattr(changesteps, "HEAL_STALL", 30.0)
    rising_then_falling = [(0, 100), (10, 400), (20, 350), (30, 300), (40, 250), (50, 200), (60, 150), (70, 120),
                           (80, 110), (90, 105)]
    assert _launches(rising_then_falling) == [0, 40]      # the first read; once after the rise, never while it falls
    stuck = [(0, 100), (10, 100), (20, 100), (31, 100), (50, 100), (62, 100), (70, 0)]
    assert _launches(stuck) == [0, 31, 62]                 # no fall for 30 s: launched again, as an admin would
    assert _launches([(0, 0), (40, 0)]) == []              # nothing waiting: nothing launched

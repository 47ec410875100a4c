"""The campaign runner's state machine, with the remote work faked: which steps run, in which
order, what a failure does under each policy, and that resume / pause / cancel never redo a
finished cell nor forget a volume."""

from __future__ import annotations

import asyncio
import json

import pytest

from brickyard.campaign.runner import CampaignRunner
from brickyard.campaign.spec import from_data
from brickyard.campaign.state import (
    C_CANCELLED, C_COMPLETE, C_FAILED, C_INTERRUPTED, C_PAUSED, DONE, FAILED, PENDING, SKIPPED,
)
from brickyard.bench.hostlock import HostLocks
from brickyard.store import HistoryStore

from .test_spec import lab_topology


def make_spec(policy="stop", layouts=("dt8", "dt4rp2", "dt2dp4rd1"), baselines=True):
    kinds = {"dt8": {"type": "distribute"}, "dt4rp2": {"type": "distributed-replicate", "replica": 2},
             "dt2dp4rd1": {"type": "distributed-disperse", "disperse": 4, "redundancy": 1}}
    doc = {"format_version": 1, "name": "t", "layouts": [{"name": n, **kinds[n]} for n in layouts],
           "workloads": [{"workload": "dd", "params": {"block_sizes": "1M"}}], "on_failure": policy}
    if baselines:
        doc["baselines"] = [{"target": "client1:/var/tmp"}]
    return from_data(doc, source="/tmp/t.campaign.json", topology=lab_topology())


class FakeRunner(CampaignRunner):
    """Remote work replaced by a script: ``fail`` maps step keys to how many times they fail;
    ``hook`` runs before each step (to pause, cancel or 'kill' at a chosen point)."""

    def __init__(self, *a, fail=None, hook=None, log=None, **kw):
        super().__init__(*a, **kw)
        self.fail = dict(fail or {})
        self.hook = hook
        self.log = log if log is not None else []
        self.cluster: set[str] = set()     # volumes that "exist"

    async def _act(self, step):
        self.log.append(step.key)
        if self.hook:
            self.hook(self, step)
        await asyncio.sleep(0)
        if self.fail.get(step.key, 0) > 0:
            self.fail[step.key] -= 1
            return False, f"{step.key} broke"
        return True, ""

    async def _preflight(self, step):
        return await self._act(step)

    async def _provision(self, step):
        if step.layout not in self.state.provisioned:
            self._claim(step.layout)
        ok, msg = await self._act(step)
        if ok:
            self.cluster.add(step.layout)
        return ok, msg

    async def _cell(self, step):
        rid = f"run-{len(self.log)}-{step.key}"
        self.state.step(step.key).run_ids.append(rid)
        self._save()
        ok, msg = await self._act(step)
        if ok:
            self.state.step(step.key).run_id = rid
        return ok, msg

    async def _remove(self, layout, progress):
        self.log.append(f"remove:{layout}")
        self.cluster.discard(layout)
        self._release(layout)
        return True, "torn down"


@pytest.fixture
def store(tmp_path):
    s = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    yield s
    s.close()


def start(spec, store, tmp_path, **kw):
    return FakeRunner.start(spec, store, lambda h: None, locks=HostLocks(tmp_path / "locks"), **kw)


def resume(store, cid, tmp_path, **kw):
    return FakeRunner.resume(store.campaigns.get(cid), store, lambda h: None, locks=HostLocks(tmp_path / "locks"), **kw)


def test_steps_run_in_order_baselines_first_each_layout_up_measured_and_down(store, tmp_path):
    r = start(make_spec(), store, tmp_path)
    state = asyncio.run(r.run())
    assert state.status == C_COMPLETE
    assert r.log == ["baseline:baseline-1:dd",
                     "preflight:dt8", "provision:dt8", "cell:dt8:dd", "remove:dt8",
                     "preflight:dt4rp2", "provision:dt4rp2", "cell:dt4rp2:dd", "remove:dt4rp2",
                     "preflight:dt2dp4rd1", "provision:dt2dp4rd1", "cell:dt2dp4rd1:dd", "remove:dt2dp4rd1"]
    assert r.cluster == set() and state.provisioned == []
    saved = store.campaigns.get(state.campaign_id)
    assert saved.status == C_COMPLETE and saved.state["steps"]["cell:dt8:dd"]["status"] == DONE


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs (no except/finally bookkeeping matters,
    the state on disk is what was saved before)."""


def test_resume_after_a_kill_mid_cell_runs_only_what_was_not_done(store, tmp_path):
    def kill(runner, step):
        if step.key == "cell:dt4rp2:dd":
            raise Killed()

    r = start(make_spec(), store, tmp_path, hook=kill)
    with pytest.raises(Killed):
        asyncio.run(r.run())
    cid = r.state.campaign_id
    saved = store.campaigns.get(cid)
    assert saved.state["provisioned"] == ["dt4rp2"]            # it knows the volume it left
    log: list[str] = []
    r2 = resume(store, cid, tmp_path, log=log)
    state = asyncio.run(r2.run())
    assert state.status == C_COMPLETE
    # the killed cell runs again, nothing done before it does
    assert log[0] == "cell:dt4rp2:dd"
    assert not {"baseline:baseline-1:dd", "cell:dt8:dd", "provision:dt8"} & set(log)
    assert "remove:dt4rp2" in log and state.provisioned == []
    st = state.step("cell:dt4rp2:dd")
    assert len(st.run_ids) == 2 and st.run_id == st.run_ids[1]     # the killed attempt is remembered


def test_stop_policy_tears_down_and_resume_brings_the_layout_back_first(store, tmp_path):
    r = start(make_spec("stop"), store, tmp_path, fail={"cell:dt4rp2:dd": 1})
    state = asyncio.run(r.run())
    assert state.status == C_FAILED and state.provisioned == []
    assert "remove:dt4rp2" in r.log and "preflight:dt2dp4rd1" not in r.log
    assert state.step("provision:dt4rp2").status == PENDING     # to be brought up again
    log: list[str] = []
    state = asyncio.run(resume(store, state.campaign_id, tmp_path, log=log).run())
    assert state.status == C_COMPLETE
    assert log[:4] == ["preflight:dt4rp2", "provision:dt4rp2", "cell:dt4rp2:dd", "remove:dt4rp2"]
    assert "cell:dt8:dd" not in log


def test_skip_policy_skips_the_cells_of_a_layout_that_cannot_be_provisioned(store, tmp_path):
    r = start(make_spec("skip"), store, tmp_path, fail={"provision:dt4rp2": 1})
    state = asyncio.run(r.run())
    assert state.status == C_COMPLETE and "1 failed" in state.message
    assert state.step("cell:dt4rp2:dd").status == SKIPPED
    assert "dt4rp2 was not provisioned" in state.step("cell:dt4rp2:dd").message
    assert "remove:dt4rp2" in r.log               # whatever half-provisioning left is torn down
    assert state.step("cell:dt2dp4rd1:dd").status == DONE


def test_retry_policy_runs_a_failed_cell_once_more_then_gives_up_on_it(store, tmp_path):
    r = start(make_spec("retry"), store, tmp_path, fail={"cell:dt8:dd": 1, "cell:dt4rp2:dd": 2})
    state = asyncio.run(r.run())
    assert r.log.count("cell:dt8:dd") == 2 and state.step("cell:dt8:dd").status == DONE
    assert r.log.count("cell:dt4rp2:dd") == 2 and state.step("cell:dt4rp2:dd").status == FAILED
    assert state.step("cell:dt2dp4rd1:dd").status == DONE and state.status == C_COMPLETE


def test_a_failed_teardown_always_stops_so_the_next_layout_never_meets_busy_bricks(store, tmp_path):
    class BadTeardown(FakeRunner):
        async def _remove(self, layout, progress):
            self.log.append(f"remove:{layout}")
            return False, "umount: target is busy"

    r = BadTeardown.start(make_spec("skip"), store, lambda h: None, locks=HostLocks(tmp_path / "locks"))
    state = asyncio.run(r.run())
    assert state.status == C_FAILED and "teardown of dt8 failed" in state.message
    assert state.provisioned == ["dt8"] and "preflight:dt4rp2" not in r.log


def test_pause_stops_after_the_current_step_and_keeps_the_volume_for_resume(store, tmp_path):
    def pause(runner, step):
        if step.key == "cell:dt8:dd":
            runner.pause()

    r = start(make_spec(), store, tmp_path, hook=pause)
    state = asyncio.run(r.run())
    assert state.status == C_PAUSED and state.provisioned == ["dt8"] and "dt8 stays provisioned" in state.message
    assert state.step("cell:dt8:dd").status == DONE and r.log[-1] == "cell:dt8:dd"
    log: list[str] = []
    state = asyncio.run(resume(store, state.campaign_id, tmp_path, log=log).run())
    assert log[0] == "remove:dt8" and state.status == C_COMPLETE


def test_cancel_tears_down_what_it_provisioned_and_the_cancelled_cell_is_not_a_failure(store, tmp_path):
    def cancel(runner, step):
        if step.key == "cell:dt4rp2:dd":
            runner.cancel(teardown=True)
            runner.fail[step.key] = 1          # the run ends cancelled, i.e. not complete

    r = start(make_spec(), store, tmp_path, hook=cancel)
    state = asyncio.run(r.run())
    assert state.status == C_CANCELLED and state.provisioned == [] and r.cluster == set()
    st = state.step("cell:dt4rp2:dd")
    assert st.status == PENDING and st.failures == 0 and st.message.startswith("cancelled")


def test_interrupt_keeps_the_volume_known_and_resume_finishes(store, tmp_path):
    def interrupt(runner, step):
        if step.key == "cell:dt8:dd":
            runner.cancel(teardown=False)
            runner.fail[step.key] = 1

    r = start(make_spec(), store, tmp_path, hook=interrupt)
    state = asyncio.run(r.run())
    assert state.status == C_INTERRUPTED and state.provisioned == ["dt8"] and "--resume" in state.message
    log: list[str] = []
    state = asyncio.run(resume(store, state.campaign_id, tmp_path, log=log).run())
    assert log[:2] == ["cell:dt8:dd", "remove:dt8"] and state.status == C_COMPLETE


def test_a_campaign_holds_its_hosts_so_a_run_view_run_is_refused_or_queued(store, tmp_path):
    locks = HostLocks(tmp_path / "locks")
    seen = []

    def probe(runner, step):
        if step.key == "cell:dt8:dd":
            seen.append(locks.holder("client1"))
            seen.append(locks.holder("node3"))

    r = start(make_spec(), store, tmp_path, hook=probe)
    asyncio.run(r.run())
    assert all(h.startswith("campaign t (") for h in seen)
    assert locks.holder("client1") == ""       # released at the end


def test_events_carry_overall_progress_and_a_time_estimate(store, tmp_path):
    events = []
    r = start(make_spec(baselines=False, layouts=("dt8",)), store, tmp_path, on_event=events.append)
    asyncio.run(r.run())
    ends = [e for e in events if e.kind == "step" and e.status == DONE]
    assert [e.step.key for e in ends] == ["preflight:dt8", "provision:dt8", "cell:dt8:dd", "teardown:dt8"]
    assert [round(e.fraction, 2) for e in ends] == [0.25, 0.5, 0.75, 1.0]
    assert ends[-1].remaining == 0 and events[-1].kind == "finished"


def test_state_round_trips_through_the_store_as_json(store, tmp_path):
    r = start(make_spec(), store, tmp_path)
    asyncio.run(r.run())
    rec = store.campaigns.get(r.state.campaign_id[:8])      # a unique prefix finds it
    assert json.loads(json.dumps(rec.state)) == r.state.to_json()
    assert rec.source == "/tmp/t.campaign.json" and not store.campaigns.list(unfinished=True)


def test_resume_is_refused_while_another_live_process_runs_the_campaign(store, tmp_path):
    import subprocess
    import sys

    from sqlalchemy import update

    from brickyard.campaign.runner import CampaignError
    from brickyard.store.models import Campaign
    from brickyard.store.owner import process_start

    r = start(make_spec(), store, tmp_path)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with store.engine.begin() as conn:     # as if that process had started it
            conn.execute(update(Campaign).where(Campaign.campaign_id == r.state.campaign_id).values(
                owner_pid=other.pid, owner_start=process_start(other.pid)))
        with pytest.raises(CampaignError, match=f"running now in process {other.pid}"):
            resume(store, r.state.campaign_id, tmp_path)
    finally:
        other.kill()
        other.wait()
    resume(store, r.state.campaign_id, tmp_path)   # its process gone: resumable


def test_a_cells_link_is_the_typed_one_else_detected_with_the_topology_nic_as_fallback(store, tmp_path):
    from dataclasses import replace

    from brickyard.campaign.state import CELL

    spec = make_spec(baselines=False)
    for client in spec.topology.clients:
        client.nic_gbps = 1.0
    runner = start(spec, store, tmp_path)
    cell = next(s for s in runner.steps if s.kind == CELL)
    request = runner.request(cell)
    assert request.link_bps is None, "the topology's NIC must not override what the host reports"
    assert request.link_hints == {"client1": 1e9 / 8}
    typed = start(replace(spec, link="10Gbit"), store, tmp_path).request(cell)
    assert typed.link_bps == 10e9 / 8


class PreflightCounted(FakeRunner):
    """The real pre-flight step, its remote checks replaced by a count."""

    _preflight = CampaignRunner._preflight


def test_a_later_layout_on_the_same_hosts_and_bricks_reuses_the_sessions_pre_flight(store, tmp_path, monkeypatch):
    import brickyard.campaign.runner as runner_module

    checked = []

    class Passed:
        ok, hosts = True, []

        def text(self):
            return ""

        def free_space(self):
            return []

    async def fake_preflight(topo, executor_for, layout):
        checked.append(layout)
        return Passed()

    rechecked = []

    async def fake_recheck(topo, executor_for, layout, free_before):
        rechecked.append(layout)
        return Passed()

    monkeypatch.setattr(runner_module, "preflight", fake_preflight)
    monkeypatch.setattr(runner_module, "recheck", fake_recheck)
    kill = lambda r, step: step.key == "cell:dt4rp2:dd" and (_ for _ in ()).throw(KeyboardInterrupt())
    r = PreflightCounted.start(make_spec(), store, lambda h: None, locks=HostLocks(tmp_path / "locks"), hook=kill)
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(r.run())
    assert checked == ["dt8"]                                  # once, for the first layout
    assert rechecked == ["dt4rp2"]                             # what can change, for the next
    assert r.state.step("preflight:dt4rp2").status == DONE
    assert r.state.step("preflight:dt4rp2").message.startswith("not repeated in full: the same hosts and bricks "
                                                              "passed the pre-flight for dt8")
    again = PreflightCounted.resume(store.campaigns.get(r.state.campaign_id), store, lambda h: None,
                                    locks=HostLocks(tmp_path / "locks"))
    assert asyncio.run(again.run()).status == C_COMPLETE
    assert checked == ["dt8", "dt2dp4rd1"]                    # a new session checks again, once
    assert rechecked == ["dt4rp2"]


def test_a_reused_pre_flight_whose_re_check_fails_fails_the_layouts_pre_flight(store, tmp_path, monkeypatch):
    """The full pre-flight passed for dt8; by dt4rp2 something filled a brick's filesystem:
    the re-check's fail stops dt4rp2 as a failed full pre-flight would."""
    import brickyard.campaign.runner as runner_module
    from brickyard.remote import preflight as pf

    from ..remote.fakes import FakeCluster, executors

    cluster = FakeCluster()
    full = pf.PreflightReport([pf.HostChecks("node1", "server", measured={"/srv/brick1/brick": (GIB8, GIB8)})])

    async def fake_preflight(topo, executor_for, layout):
        return full

    monkeypatch.setattr(runner_module, "preflight", fake_preflight)
    spec = make_spec(layouts=("dt8", "dt4rp2"), baselines=False)

    def fill(r, step):
        if step.key == "cell:dt8:dd":
            cluster.free[("node1", "/srv/brick1/brick")] = GIB8 // 4

    r = PreflightCounted.start(spec, store, executors(cluster), locks=HostLocks(tmp_path / "locks"), hook=fill)
    state = asyncio.run(r.run())
    st = state.step("preflight:dt4rp2")
    assert st.status == FAILED and state.status == C_FAILED
    assert st.message.startswith("re-check: node1: brick /srv/brick1/brick: 2.15 GB free under /srv/brick1/brick, "
                                 "8.59 GB at the pre-flight"), st.message
    assert "provision:dt4rp2" not in r.log
    assert ("node1", ("sh", "-c", pf.FREE_SCRIPT, "sh", "/srv/brick1/brick", "/srv/brick2/brick")) in cluster.calls


GIB8 = 8 << 30


def test_a_killed_session_counts_to_its_last_recorded_activity_and_the_pause_before_the_resume_to_none():
    """benchmarks/campaign_overhead.py left a killed session out of the wall time while
    counting its steps ('−65.7 s between steps', ratio 1.21 where the real one was 2.19)."""
    from brickyard.campaign.results import session_spans
    from brickyard.campaign.state import CampaignState, campaign_steps
    from brickyard.core.results import Provenance, RunResult, RunStatus, StepResult, WorkerTiming

    spec = make_spec(baselines=False)
    state = CampaignState.fresh("c", campaign_steps(spec))
    state.sessions = [{"started_at": 1000.0, "pid": 1, "resumed": False},            # killed: no end
                      {"started_at": 5000.0, "pid": 2, "resumed": True, "ended_at": 5300.0}]
    pre = state.step("preflight:dt8")
    pre.started_at, pre.ended_at = 1000.5, 1003.0
    cell = state.step("cell:dt8:dd")
    cell.started_at, cell.ended_at = 5010.0, 5100.0             # the redone cell, after the resume
    killed_run = RunResult("r1", "dd", RunStatus.RUNNING, started_at=1020.0, ended_at=None,
                           provenance=Provenance("t", {}, "c1:/x", "gluster"), steps=[StepResult(0, {}, 0, (WorkerTiming(0, "c1", 50.0, 110.0),), ())])
    spans = session_spans(state, [killed_run])
    assert spans == [(1000.0, 1080.0, False), (5000.0, 5300.0, True)]
    assert sum(e - b for b, e, _ in spans) == 380.0              # not 300, and not the 3,920 s pause
def test_time_left_comes_from_the_plans_steps_and_sizes_not_a_count_of_steps(store, tmp_path):
    """issue 21 item 6: "00:11 left" 4 s into a 2 m 20 s campaign, every step counted alike."""
    from brickyard.campaign.runner import cell_work
    from brickyard.campaign.state import PENDING

    doc = {"format_version": 1, "name": "t", "on_failure": "stop",
           "layouts": [{"name": "dt8", "type": "distribute"},
                       {"name": "dt4rp2", "type": "distributed-replicate", "replica": 2}],
           "workloads": [{"id": "small", "workload": "dd", "params": {"block_sizes": "1M", "size": "16M"}},
                         {"id": "big", "workload": "dd", "params": {"block_sizes": "1M", "size": "64M"}}]}
    spec = from_data(doc, source="/tmp/t.campaign.json", topology=lab_topology())
    r = start(spec, store, tmp_path)
    keys = [s.key for s in r.steps]
    by = {s.key: s for s in r.steps}
    assert cell_work(spec, by["cell:dt8:big"]) == 4 * cell_work(spec, by["cell:dt8:small"])
    assert r.remaining() is None                                 # nothing timed yet
    for key, seconds in (("preflight:dt8", 2.0), ("provision:dt8", 8.0), ("cell:dt8:small", 10.0)):
        r.state.step(key).status = DONE
        r._done[key] = seconds
    left = [k for k in keys if r.state.step(k).status == PENDING]
    assert left == ["cell:dt8:big", "teardown:dt8", "preflight:dt4rp2", "provision:dt4rp2", "cell:dt4rp2:small",
                    "cell:dt4rp2:big", "teardown:dt4rp2"]
    # cells at 10 s per 'small': big = 40 s; pre-flight 2 s, provision 8 s; no teardown timed: their mean, 5 s
    assert r.remaining() == pytest.approx(40 + 5 + 2 + 8 + 10 + 40 + 5)

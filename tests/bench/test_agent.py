"""The benchmark agent on this machine through LocalExecutor: barrier release, start skew,
staggered vs together, cancel, stall and a dying agent."""

import asyncio
import os
import signal
import time

import pytest

from brickyard.bench.agentclient import AgentSession, HostLost, StepStalled
from brickyard.core import stats
from brickyard.core.results import WorkerTiming
from brickyard.remote.local import LocalExecutor

MB = 1_000_000


async def opened() -> AgentSession:
    agent = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
    await agent.open()
    return agent


def timings(step, nbytes=0):
    return [WorkerTiming(w["worker"], step.host, w["start"], w["end"], bytes=nbytes) for w in step.workers]


def test_agent_temp_dir_is_removed_on_close():
    async def main():
        agent = await opened()
        assert os.path.isfile(f"{agent.tmpdir}/agent.py")
        await agent.close()
        return agent.tmpdir
    assert not os.path.exists(asyncio.run(main()))


def test_headline_differs_from_sum_of_rates_only_when_workers_are_staggered():
    """Four workers each 'move' 100 MB in 1 s; staggered by 0.25 s the wall window is 1.75 s.
    Together they are parked right after exec and released at once (skew ~0.1 ms), so the only
    difference left is scheduling noise at the end, well under 1 % of a second."""
    async def main():
        agent = await opened()
        try:
            together = await agent.run_step([{"kind": "exec", "argv": ["sleep", "1"]}] * 4)
            staggered = await agent.run_step([{"kind": "sleep", "seconds": 1.0, "delay": 0.25 * i} for i in range(4)])
        finally:
            await agent.close()
        return timings(together, 100 * MB), timings(staggered, 100 * MB)
    together, staggered = asyncio.run(main())
    ratio_together = stats.sum_of_rates_bps(together) / stats.headline_bps(together)
    ratio_staggered = stats.sum_of_rates_bps(staggered) / stats.headline_bps(staggered)
    assert abs(ratio_together - 1) < 0.01
    assert ratio_staggered > 1.5          # 1.75 s window vs 1 s each: 1.75 in theory


def test_exec_workers_are_released_together():
    async def main():
        agent = await opened()
        try:
            step = await agent.run_step([{"kind": "exec", "argv": ["true"]}] * 4)
        finally:
            await agent.close()
        return step
    step = asyncio.run(main())
    assert all(w["exit"] == 0 for w in step.workers)
    skew = stats.start_skew(timings(step))
    assert skew["max"] < 0.05   # generous: a shared 2-core CI box; benchmarks/ prints the real p99


def test_cancel_stops_workers_within_two_seconds_and_removes_only_the_run_dir(tmp_path):
    keep = tmp_path / "users-file"
    keep.write_text("not ours")

    async def main():
        agent = await opened()
        rundir = await agent.mkdir(str(tmp_path / "brickyard-run"))
        task = asyncio.ensure_future(agent.run_step(
            [{"kind": "exec", "argv": ["dd", "if=/dev/zero", f"of={rundir}/f{i}", "bs=4k", "count=100000000"]}
             for i in range(2)], stall_seconds=0))
        await asyncio.sleep(1.0)
        t0 = time.monotonic()
        await agent.cancel()
        with pytest.raises(HostLost):
            await asyncio.wait_for(task, 5)
        await agent._proc.wait(5)
        took = time.monotonic() - t0
        await agent.close()
        return rundir, took
    rundir, took = asyncio.run(main())
    assert took < 2.0
    assert not os.path.exists(rundir)
    assert keep.read_text() == "not ours"


def test_a_worker_without_io_progress_is_reported_as_a_stall():
    async def main():
        agent = await opened()
        try:
            await agent.run_step([{"kind": "exec", "argv": ["sleep", "30"]}], stall_seconds=1.0)
        finally:
            await agent.close()
    t0 = time.monotonic()
    with pytest.raises(StepStalled) as info:
        asyncio.run(main())
    assert info.value.host == "local" and time.monotonic() - t0 < 10


def test_an_agent_that_dies_mid_step_is_a_lost_host():
    async def main():
        agent = await opened()
        task = asyncio.ensure_future(agent.run_step([{"kind": "exec", "argv": ["sleep", "4"]}], stall_seconds=0))
        await asyncio.sleep(0.5)
        os.killpg(agent._proc.pid, signal.SIGKILL)
        try:
            await asyncio.wait_for(task, 10)
        finally:
            await agent.close()
    with pytest.raises(HostLost, match="local: connection to the benchmark agent lost"):
        asyncio.run(main())


def test_agent_refuses_to_remove_what_it_did_not_create(tmp_path):
    victim = tmp_path / "precious"
    victim.write_text("x")

    async def main():
        agent = await opened()
        try:
            await agent.rmtree(str(victim))
        finally:
            await agent.close()
    with pytest.raises(Exception, match="did not create"):
        asyncio.run(main())
    assert victim.exists()


def test_a_step_past_its_time_limit_is_a_stall_too():
    async def main():
        agent = await opened()
        try:
            await agent.run_step([{"kind": "exec", "argv": ["sleep", "30"]}], stall_seconds=0, timeout=1.0)
        finally:
            await agent.close()
    with pytest.raises(StepStalled, match="did not finish within its 1 s limit") as info:
        asyncio.run(main())
    assert info.value.reason == "timeout"

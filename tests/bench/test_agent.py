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
    Together they are parked right after exec and released at once; each start is its first
    system call, so on a busy 2-core CI box a worker waiting for a CPU shows as a few ms of
    skew. That noise stays well under 3 % of a second."""
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
    assert abs(ratio_together - 1) < 0.03
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


def run_one(specs, **kw):
    async def main():
        agent = await opened()
        try:
            return await agent.run_step(specs, stall_seconds=0, **kw)
        finally:
            await agent.close()
    return asyncio.run(main())


WRITER = "import os,sys,time\nfor n in sys.argv[1:]:\n    n=float(n)\n    if n<0: time.sleep(-n)\n    else: os.write(1, b'x'*int(n))\n"


def test_every_kind_of_worker_leaves_the_same_barrier(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 4096)
    step = run_one([{"kind": "exec", "argv": ["true"]}, {"kind": "sleep", "seconds": 0.05},
                    {"kind": "randread", "files": [str(tmp_path / "f")], "seconds": 0.2, "once": True}])
    assert step.release == "ptrace" and all(w["parked"] for w in step.workers), step.workers
    assert stats.start_skew(timings(step))["max"] < 0.05


def test_progress_is_sampled_at_the_first_finish_and_counts_what_a_worker_starts(tmp_path):
    """Worker 0 writes 1 MB and ends at once; worker 1 (a shell running a writer that pauses)
    had written 4 MB then, and 8 MB in the end: its child's bytes are its own."""
    out = str(tmp_path / "w")
    step = run_one([
        {"kind": "exec", "argv": ["python3", "-c", WRITER, "-0.3", "1000000"], "progress": "wchar", "cwd": str(tmp_path)},
        {"kind": "exec", "argv": ["sh", "-c", f'python3 -c "$1" 4000000 -1.2 4000000 > {out}', "sh", WRITER],
         "progress": "wchar"},
    ])
    first, second = step.workers
    assert first["samples"][0][1] == 0 and abs(first["samples"][0][0] - step.released) < 0.01 and first["samples"][-1][1] >= 1_000_000
    at_first_end = [v for t, v in second["samples"] if abs(t - first["end"]) < 1e-3]
    assert at_first_end and 4_000_000 <= at_first_end[0] < 4_100_000, second["samples"]
    assert 8_000_000 <= second["samples"][-1][1] < 8_100_000
    assert os.path.getsize(out) == 8_000_000


def test_a_once_only_reader_reads_each_file_once_and_says_when_it_ran_out(tmp_path):
    files = []
    for i in range(3):
        (tmp_path / f"f{i}").write_bytes(b"x" * 10_000)
        files.append(str(tmp_path / f"f{i}"))
    step = run_one([{"kind": "randread", "files": files, "seconds": 5, "once": True, "progress": "rchar"}])
    (w,) = step.workers
    assert (w["ops"], w["bytes"], w["exhausted"]) == (3, 30_000, True)
    assert 30_000 <= w["samples"][-1][1] < 31_000


def test_the_dd_per_file_method_forks_one_dd_per_file_and_counts_its_bytes(tmp_path):
    files = []
    for i in range(4):
        (tmp_path / f"f{i}").write_bytes(b"y" * 70_000)
        files.append(str(tmp_path / f"f{i}"))
    step = run_one([{"kind": "randread", "files": files, "seconds": 5, "once": True, "method": "dd",
                     "progress": "rchar", "block": 65536}])
    (w,) = step.workers
    assert (w["exit"], w["ops"], w["bytes"]) == (0, 4, 280_000)
    assert 280_000 <= w["samples"][-1][1] < 300_000       # the dd's reads, counted in their reader
    gone = run_one([{"kind": "randread", "files": [str(tmp_path / "missing")], "seconds": 1, "once": True,
                     "method": "dd"}])
    assert gone.workers[0]["exit"] == 1 and "missing" in gone.workers[0]["stderr"]


def test_a_parked_program_waits_inside_its_first_system_call_so_loading_stays_before_the_release():
    """Start skew grew with the number of workers because each program, released right after
    exec, ran the dynamic loader (~25 µs of CPU) before its first system call, and 8 of them
    queued for 2 cores: the kernel saw them reach that call 0.13 ms apart. Parked inside that
    first call instead, a released worker needs one system call to show it runs."""
    import shutil

    from .test_agent_death import load_agent

    agent = load_agent()
    if not agent.parking_works():
        pytest.skip("ptrace is not allowed here")
    true = shutil.which("true")
    pid = os.fork()
    if pid == 0:
        try:
            agent.libc().ptrace(agent.PTRACE_TRACEME, 0, None, None)
            os.execv(true, [true])
        finally:
            os._exit(125)
    try:
        _, status = os.waitpid(pid, 0)
        assert os.WIFSTOPPED(status)
        with open(f"/proc/{pid}/syscall") as fh:
            at_exec = fh.read().split()[0]
        p = {"pid": pid}
        agent.first_call(p)
        with open(f"/proc/{pid}/syscall") as fh:
            parked_in = fh.read().split()[0]
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
        assert state == "t" and "gone" not in p
        assert parked_in not in (at_exec, "running")   # inside a call the loader made, not execve's return
    finally:
        agent.libc().ptrace(agent.PTRACE_DETACH, pid, None, None)
        os.waitpid(pid, 0)

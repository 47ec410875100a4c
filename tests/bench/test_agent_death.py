"""Every process a worker started dies with its agent, however the agent dies.

A worker is a session of its own; PR_SET_PDEATHSIG takes the worker itself down with the agent,
but not what the worker started: fio's job processes (fio forks one per job, and each calls
setsid, leaving the worker's session and process group), a shell's children. Those ran on
until their runtime ended. Each worker's environment now carries its agent's tag, which all it
starts inherits, and the agent's watchdog (a session of its own, so a kill of the agent's
process group spares it) kills every tagged process the moment the agent is gone. Real agents
and a real fio, on this machine (tests/e2e/test_bench_lab.py does the same on a lab client)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from brickyard.bench.agentclient import AgentSession
from brickyard.remote.local import LocalExecutor


def stat(pid: int) -> list[str]:
    """Fields of /proc/PID/stat after the command name ([0] state, [3] session, [19] start)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text[text.rfind(")") + 2:].split()


def children(pid: int) -> list[int]:
    kids = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    for task in tasks:
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def tree(pid: int) -> dict[int, str]:
    """``pid`` and its live descendants, each with its start time (so a reused pid is not it)."""
    out, todo = {}, [pid]
    while todo:
        cur = todo.pop()
        fields = stat(cur)
        if len(fields) > 19 and fields[0] not in ("Z", "X"):
            out[cur] = fields[19]
        todo += children(cur)
    return out


def alive(procs: dict[int, str]) -> dict[int, str]:
    return {pid: start for pid, start in procs.items()
            if (f := stat(pid)) and len(f) > 19 and f[19] == start and f[0] not in ("Z", "X")}


def cmd(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def kill_and_watch(spec: dict, started, kill) -> tuple[dict[int, str], dict[int, str]]:
    """Run one worker, kill its agent with ``kill(agent)`` once ``started(its process tree)``
    holds; (the worker's processes then, those still alive 5 s later — killed, so a failure
    leaves nothing behind)."""
    async def main():
        agent = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
        await agent.open()
        step = asyncio.ensure_future(agent.run_step([spec], stall_seconds=0))
        procs: dict[int, str] = {}
        end = time.monotonic() + 60
        while time.monotonic() < end and not procs:
            await asyncio.sleep(0.05)
            for kid in children(agent.remote_pid):
                if stat(kid)[3:4] == [str(kid)] and started(found := tree(kid)):    # a worker leads its session
                    procs = found
        assert procs, "the worker never got going"
        kill(agent)
        try:
            await asyncio.wait_for(step, 10)
        except Exception:  # noqa: BLE001 - the agent is gone: a lost host
            pass
        await agent.close(timeout=5)
        return procs

    procs = asyncio.run(main())
    left = procs
    end = time.monotonic() + 5
    while time.monotonic() < end and left:
        time.sleep(0.1)
        left = alive(procs)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return procs, left


def sigkill_agent_only(agent: AgentSession) -> None:
    os.kill(agent.remote_pid, signal.SIGKILL)


def sigkill_agents_group(agent: AgentSession) -> None:
    os.killpg(os.getpgid(agent.remote_pid), signal.SIGKILL)    # as an executor's cancel or timeout does


def cancel(agent: AgentSession) -> None:
    asyncio.ensure_future(agent.cancel())                       # the agent itself kills its workers


def test_a_shells_children_die_with_a_sigkilled_agent():
    spec = {"kind": "exec", "argv": ["sh", "-c", "sleep 41.5 & sleep 41.5 & wait"]}
    procs, left = kill_and_watch(spec, lambda t: sum(cmd(p).startswith(b"sleep\0") for p in t) == 2,
                                 sigkill_agent_only)
    assert len(procs) == 3 and not left, f"outlived their agent: {[cmd(p) for p in left]}"


@pytest.mark.parametrize("kill", [sigkill_agent_only, sigkill_agents_group, cancel],
                         ids=["agent SIGKILLed", "its process group SIGKILLed", "cancelled"])
def test_fios_job_processes_die_with_their_agent(tmp_path, kill):
    if not shutil.which("fio"):
        pytest.skip("fio is not installed")
    # one job, time based for a minute, idle between I/Os (it costs nothing on a shared machine)
    spec = {"kind": "exec", "cwd": str(tmp_path), "argv": [
        "fio", "--name=by0", "--directory=.", "--size=64k", "--rw=write", "--ioengine=psync", "--bs=4k",
        "--time_based", "--runtime=60", "--thinktime=200000", "--output-format=json"]}
    procs, left = kill_and_watch(spec, lambda t: sum(cmd(p).startswith(b"fio\0") for p in t) >= 2, kill)
    assert not left, f"outlived their agent: {[cmd(p) for p in left]}"


def processes_running(path: str) -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and path.encode() in cmd(int(p.name))]


@pytest.mark.parametrize("how", ["exit", "cancel"])
def test_nothing_of_an_agent_is_left_once_it_has_ended(how):
    async def main():
        agent = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
        await agent.open()
        await agent.run_step([{"kind": "exec", "argv": ["true"]}], stall_seconds=0)
        running = processes_running(agent.tmpdir)          # the agent and its watchdog
        if how == "cancel":
            await agent.cancel()
        await agent.close(timeout=10)
        return running, processes_running(agent.tmpdir)

    running, after = asyncio.run(main())
    assert len(running) == 2 and after == []


def test_a_step_leaves_nothing_it_started_running():
    async def main():
        agent = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
        await agent.open()
        try:
            await agent.run_step([{"kind": "exec", "argv": ["sh", "-c", "sleep 43.25 & echo started"]}],
                                 stall_seconds=0)
            return [p for p in Path("/proc").iterdir() if p.name.isdigit() and cmd(int(p.name)) == b"sleep\x0043.25\0"]
        finally:
            await agent.close(timeout=10)

    assert asyncio.run(main()) == []


# ---- what the agent may kill: only its own tag, only processes younger than itself ------

def load_agent():
    import importlib.util

    import brickyard.bench.agentclient as ac
    path = Path(ac.__file__).parent / "agent" / "agent.py"
    spec = importlib.util.spec_from_file_location("brickyard_agent_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start_of(pid: int) -> int:
    return int(stat(pid)[19])


def test_only_a_process_with_exactly_this_agents_tag_is_killed():
    import subprocess
    agent = load_agent()
    name, tag = agent.TAG_NAME, agent.TAG
    base = {"PATH": os.environ["PATH"]}
    lookalikes = {
        "untagged": {},
        "another agent's tag": {name: os.urandom(16).hex()},
        "the tag with more after it": {name: tag + "0"},
        "the tag cut short": {name: tag[:-1]},
        "the tag under another name": {"X" + name: tag},
        "the tag in another variable's value": {"NOTE": f"{name}={tag}"},
    }
    procs = {what: subprocess.Popen(["sleep", "47.5"], env={**base, **env}) for what, env in lookalikes.items()}
    mine = subprocess.Popen(["sleep", "47.5"], env={**base, name: tag})
    try:
        time.sleep(0.2)
        # a process older than the agent is never its worker's: left alone even with the tag
        assert agent.kill_tagged(since=start_of(mine.pid) + 1) == 0 and mine.poll() is None
        assert agent.kill_tagged() == 1
        assert mine.wait(5) == -signal.SIGKILL
        assert {what: p.poll() for what, p in procs.items()} == {what: None for what in procs}
    finally:
        for p in [*procs.values(), mine]:
            p.kill()
            p.wait()


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd_send_signal", "an older kernel"])
def test_a_signal_never_reaches_a_pid_that_changed_hands(monkeypatch, pidfd):
    """Between reading a process's environment and killing it, it may end and its pid be
    reused: the signal goes to the process whose /proc directory was opened, or nowhere."""
    import subprocess
    agent = load_agent()
    if not pidfd:
        monkeypatch.setattr(agent, "PIDFD_ARCHES", ())
    gone = subprocess.Popen(["sleep", "0.3"], env={"PATH": os.environ["PATH"], agent.TAG_NAME: agent.TAG})
    dirfd = os.open(f"/proc/{gone.pid}", os.O_RDONLY | os.O_DIRECTORY)
    try:
        start = agent.start_time(dirfd)
        assert start is not None
        gone.wait()
        sent = []
        monkeypatch.setattr(agent.os, "kill", lambda *a: sent.append(a))
        assert agent.send_kill(dirfd, gone.pid, start) is False and sent == []
    finally:
        os.close(dirfd)


# ---- orphans: what an agent killed together with its watchdog left running ------------

def test_the_next_agent_kills_what_an_agent_killed_with_its_watchdog_left_running(tmp_path):
    """kill -9 of every agent.py process (the agent and its watchdog) leaves the workers'
    processes running; the next agent on the host finds them by the dead agent's tag, kills
    them, and says so with the run they belonged to (issue 25 point 6)."""
    rundir = tmp_path / "brickyard-0123456789ab-local"
    rundir.mkdir()
    spec = {"kind": "exec", "cwd": str(rundir), "argv": ["sh", "-c", "setsid sleep 44.75 & wait"]}

    async def main():
        first = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
        await first.open()
        both = processes_running(first.tmpdir)                 # the agent and its watchdog
        step = asyncio.ensure_future(first.run_step([spec], stall_seconds=0))
        orphan = None
        end = time.monotonic() + 30
        while orphan is None and time.monotonic() < end:
            await asyncio.sleep(0.05)
            orphan = next((int(p.name) for p in Path("/proc").iterdir()
                           if p.name.isdigit() and cmd(int(p.name)) == b"sleep\x0044.75\0"), None)
        assert orphan is not None and len(both) == 2
        for pid in both:
            os.kill(pid, signal.SIGKILL)
        try:
            await asyncio.wait_for(step, 10)
        except Exception:  # noqa: BLE001 - its agent is gone
            pass
        await first.close(timeout=5)
        await asyncio.sleep(0.3)
        survived = alive({orphan: stat(orphan)[19]})
        second = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
        await second.open()
        await second.close(timeout=10)
        return orphan, survived, both, second.orphans

    orphan, survived, both, found = asyncio.run(main())
    try:
        assert survived, "the orphan died with its agent: nothing to test"
        mine = [o for o in found if o["agent_pid"] in both]
        assert mine == [{"agent_pid": mine[0]["agent_pid"], "killed": 1, "runs": ["0123456789ab"],
                         "dirs": [str(rundir)]}], found
        assert not alive(survived)
    finally:
        for pid in alive(survived):
            os.kill(pid, signal.SIGKILL)


def test_a_tag_is_judged_a_dead_agents_only_when_its_agent_is_certainly_gone():
    import subprocess
    agent = load_agent()
    base = {"PATH": os.environ["PATH"]}
    gone = subprocess.Popen(["sleep", "0.2"])
    gone_start = start_of(gone.pid)
    gone.wait()
    ns = agent.PIDNS
    me, my_start = os.getpid(), start_of(os.getpid())

    def tag(pid, start, pidns=ns):
        return f"{os.urandom(16).hex()}.{pid}.{start}.{pidns}"

    dead = tag(gone.pid, gone_start)
    cases = {
        "a dead agent's": dead,
        "a live agent's (this test process)": tag(me, my_start),
        "another PID namespace's": tag(gone.pid, gone_start, "4026531999" if ns != "4026531999" else "4026531998"),
        "malformed": f"{os.urandom(16).hex()}.{gone.pid}",
        "no owner in it (an older agent's)": os.urandom(16).hex(),
        "this agent's own": agent.TAG,
    }
    procs = {what: subprocess.Popen(["sleep", "48.25"], env={**base, agent.TAG_NAME: value})
             for what, value in cases.items()}
    try:
        time.sleep(0.3)
        judged = agent.dead_agents_tags()
        assert set(judged) & set(cases.values()) == {dead}
        assert judged[dead][:2] == (gone.pid, gone_start)
        done = agent.kill_orphans()
        assert [d for d in done if d["agent_pid"] == gone.pid] == [
            {"agent_pid": gone.pid, "killed": 1, "runs": [], "dirs": [os.getcwd()]}]
        assert procs["a dead agent's"].wait(5) == -signal.SIGKILL
        assert {w: p.poll() for w, p in procs.items() if w != "a dead agent's"} == \
            {w: None for w in procs if w != "a dead agent's"}
    finally:
        for p in procs.values():
            p.kill()
            p.wait()

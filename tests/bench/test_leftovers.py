"""Leftovers on a host: a killed run's agent directory (/tmp/brickyard-agent.*) and pgbench's
server directory (/tmp/brickyard-pg.*) are removed by the next agent on that host — only
Brickyard's own, recognised by their marker, and only once their maker is gone; a run killed
with SIGKILL cleans up after itself; a failed pgbench start leaves nothing; a run directory
that may be left behind is named in the result. All real, on this machine.

Every agent on a machine sweeps the directory its own is in. Brickyard's is /tmp, where the
agents of other test runs on this shared machine would sweep (and so take away) the
leftovers a test plants. These tests give their agents a directory of their own
(``$BRICKYARD_AGENT_TMP``, the ``agent_tmp`` fixture): the same sweep, over a directory only
this test's agents see."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brickyard.bench import registry
from brickyard.bench.agentclient import AGENT_TMP_ENV, AgentSession
from brickyard.bench.engine import TargetSpec, _left_behind, run_benchmark
from brickyard.core.results import RunStatus
from brickyard.remote.local import LocalExecutor

MARKER = ".brickyard-owner"


def agent_dirs(root: Path = Path("/tmp")) -> set[str]:
    return {str(p) for p in root.glob("brickyard-agent.*")}


@pytest.fixture
def agent_tmp(tmp_path, monkeypatch) -> Path:
    """Where this test's agents make their directories and sweep: nobody else's agent looks here."""
    root = tmp_path / "agent-tmp"
    root.mkdir()
    monkeypatch.setenv(AGENT_TMP_ENV, str(root))
    return root


async def opened() -> AgentSession:
    agent = AgentSession(LocalExecutor("local"), heartbeat_timeout=10)
    await agent.open()
    return agent


def wait_gone(pid: int) -> None:
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def test_agents_keep_their_directories_in_tmp(monkeypatch):
    monkeypatch.delenv(AGENT_TMP_ENV, raising=False)

    async def main():
        agent = await opened()
        try:
            assert agent.tmp_root == "/tmp" and agent.tmpdir.startswith("/tmp/brickyard-agent.")
            assert os.path.isfile(f"{agent.tmpdir}/{MARKER}") and os.path.isfile(f"{agent.tmpdir}/agent.py")
            made = await agent.tempdir("pg")
            assert made.startswith("/tmp/brickyard-pg.") and os.path.isfile(f"{made}/{MARKER}")
        finally:
            await agent.close()
        return agent.tmpdir, made
    for gone in asyncio.run(main()):
        assert not os.path.exists(gone)


def test_a_killed_agents_directory_is_removed_by_the_next_agent_and_named(agent_tmp):
    async def main():
        dead = await opened()
        os.killpg(dead._proc.pid, signal.SIGKILL)         # SIGKILL: no chance to clean up
        await dead._proc.wait()
        assert os.path.isfile(f"{dead.tmpdir}/{MARKER}")
        nxt = await opened()
        try:
            return dead.tmpdir, nxt.swept
        finally:
            await nxt.close()
            await dead.close()
    left, swept = asyncio.run(main())
    assert left.startswith(f"{agent_tmp}/brickyard-agent.")
    assert left in swept and not os.path.exists(left)


def test_a_live_agents_directory_is_never_swept(agent_tmp):
    async def main():
        live = await opened()
        nxt = await opened()
        try:
            assert live.tmpdir not in nxt.swept and os.path.isfile(f"{live.tmpdir}/agent.py")
            assert (await live.request({"op": "clock", "id": 1}))["event"] == "clock"   # still working
        finally:
            await nxt.close()
            await live.close()
    asyncio.run(main())


MACHINE = open("/etc/machine-id").read().strip() if os.path.exists("/etc/machine-id") else os.uname()[1]


def _fake(root: Path, tmp_name: str, marker: dict | None, uid: int | None = None) -> Path:
    path = root / tmp_name
    path.mkdir()
    (path / "data").write_text("x")
    if marker is not None:
        (path / MARKER).write_text(json.dumps({"machine": MACHINE, **marker}))
        if uid is not None:
            os.chown(path / MARKER, uid, uid)
    return path


def test_only_marked_directories_of_a_gone_maker_are_removed(agent_tmp):
    me = open("/proc/sys/kernel/random/boot_id").read().strip()
    pidns = os.readlink("/proc/self/ns/pid")
    root = agent_tmp
    other_boot = _fake(root, "brickyard-agent.bootx", {"pid": 1, "start": "1", "boot": "another-boot", "pidns": pidns})
    dead_pid = _fake(root, "brickyard-pg.deadx", {"pid": 2 ** 22 + 1, "start": "5", "boot": me, "pidns": pidns})
    unmarked = _fake(root, "brickyard-agent.nomark", None)
    other_ns = _fake(root, "brickyard-agent.nsx", {"pid": 2 ** 22 + 1, "start": "5", "boot": me, "pidns": "pid:[1]"})
    reused = _fake(root, "brickyard-agent.live", {"pid": os.getpid(), "start": "0", "boot": me, "pidns": pidns})
    alive = _fake(root, "brickyard-agent.alive",
                  {"pid": os.getpid(), "start": open(f"/proc/{os.getpid()}/stat").read().rsplit(")", 1)[1].split()[19],
                   "boot": me, "pidns": pidns})
    elsewhere = _fake(root, "brickyard-agent.host", {"pid": 1, "start": "1", "boot": "x", "pidns": pidns,
                                                     "machine": "another-host"})
    not_mine = (_fake(root, "brickyard-agent.uid", {"pid": 1, "start": "1", "boot": "b", "pidns": pidns}, uid=65534)
                if os.geteuid() == 0 else None)
    not_ours = _fake(root, "notes.brickyard-agent", {"pid": 1, "start": "1", "boot": "another-boot", "pidns": pidns})

    async def main():
        agent = await opened()
        await agent.close()
        return agent.swept
    swept = asyncio.run(main())
    # exactly these, and nothing else: only this test's agent sweeps this directory
    assert sorted(swept) == sorted(str(p) for p in (other_boot, dead_pid, reused))
    for gone in (other_boot, dead_pid, reused):       # maker rebooted away, dead, or its pid reused
        assert not gone.exists()
    for kept in (unmarked, other_ns, alive, not_mine, elsewhere, not_ours):
        if kept is not None:
            assert kept.exists() and (kept / "data").read_text() == "x"


def _made_by(agent_dir: str, parent: int) -> bool:
    """Is the agent running from ``agent_dir`` a child of process ``parent``?"""
    try:
        marker = json.loads((Path(agent_dir) / MARKER).read_text())
        return int(open(f"/proc/{marker['pid']}/stat").read().rsplit(")", 1)[1].split()[1]) == parent
    except (OSError, ValueError, KeyError, IndexError):
        return False


def test_a_bench_run_killed_with_sigkill_leaves_no_agent_directory_and_no_run_files(tmp_path, agent_tmp):
    work = tmp_path / "work"
    work.mkdir()
    before = agent_dirs(agent_tmp)
    assert before == set()
    proc = subprocess.Popen([sys.executable, "-m", "brickyard.cli", "bench", "--target", f"local:{work}",
                             "--workload", "dd", "--param", "block_sizes=4K", "--param", "concurrency=2",
                             "--param", "size=2G", "--param", "direction=write", "--param", "repeats=1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):                      # until the workers write
            if any(p.name.startswith("dd-") for d in work.iterdir() for p in d.iterdir()):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run never started writing")
        ours = agent_dirs(agent_tmp)
        assert ours and all(_made_by(d, proc.pid) for d in ours)   # the bench's own agent
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    for _ in range(600):                          # the agent sees its stdin close and cleans up (30 s: it
        # kills its workers, reads /proc for tagged processes and removes its files; a loaded CI
        # machine once took longer than 10 s)
        if not agent_dirs(agent_tmp) and not list(work.iterdir()):
            break
        time.sleep(0.05)
    assert not agent_dirs(agent_tmp), "the agent's own directory is left"
    assert list(work.iterdir()) == [], "the run's files are left"
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(work) not in ps, "a worker is still running"


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/lib/postgresql").is_dir(),
                    reason="pgbench as root with PostgreSQL installed (it runs the server as postgres)")
def test_a_failed_pgbench_start_leaves_no_server_directory(tmp_path, monkeypatch):
    real = max(Path("/usr/lib/postgresql").glob("*/bin"))
    base = Path("/var/tmp") / f"brickyard-test-pg-{os.getpid()}"     # the postgres user can reach it
    fake_bin = base / "bin"
    fake_bin.mkdir(parents=True)
    try:
        for tool in ("postgres", "initdb", "pgbench"):
            (fake_bin / tool).symlink_to(real / tool)
        (fake_bin / "pg_ctl").write_text("#!/bin/sh\necho 'pg_ctl: could not start server' >&2\nexit 1\n")
        (fake_bin / "pg_ctl").chmod(0o755)
        work = base / "work"
        work.mkdir()
        os.chmod(base, 0o755)
        os.chmod(work, 0o777)
        agent_tmp = base / "agent-tmp"      # as /tmp: the postgres user reaches the server directory
        agent_tmp.mkdir(mode=0o1777)
        os.chmod(agent_tmp, 0o1777)
        monkeypatch.setenv(AGENT_TMP_ENV, str(agent_tmp))
        run = asyncio.run(run_benchmark(registry.find("pgbench", tmp_path / "none"),
                                        {"pg_bin": str(fake_bin), "scale": "1", "clients": "1", "transactions": "5",
                                         "repeats": "1"},
                                        [(TargetSpec("local", str(work)), LocalExecutor("local"))]))
        assert run.status is RunStatus.FAILED and "could not start server" in run.error
        assert list(agent_tmp.iterdir()) == []          # no brickyard-pg.*, no agent directory
        assert list(work.iterdir()) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_run_directories_killed_runs_left_in_the_target_are_removed_by_the_next_run_there(tmp_path, capsys,
                                                                                          agent_tmp):
    target = tmp_path / "target"
    target.mkdir()
    me = {"boot": open("/proc/sys/kernel/random/boot_id").read().strip(), "pidns": os.readlink("/proc/self/ns/pid"),
          "machine": MACHINE}

    def run_dir(name: str, **marker) -> Path:
        d = target / name
        (d / "dd-r0-65536-0").mkdir(parents=True)
        if marker:
            (d / MARKER).write_text(json.dumps({**me, **marker}))
        return d

    dead = run_dir("brickyard-0123456789ab-local", pid=2 ** 22 + 3, start="7")
    live = run_dir("brickyard-1111111111ab-local", pid=os.getpid(),
                   start=open(f"/proc/{os.getpid()}/stat").read().rsplit(")", 1)[1].split()[19])
    other_host = run_dir("brickyard-2222222222ab-client2", pid=2 ** 22 + 3, start="7", machine="another-machine",
                         boot="another-boot")
    unmarked = run_dir("brickyard-3333333333ab-local")
    not_a_run_dir = target / "brickyard-notes"
    not_a_run_dir.mkdir()
    (not_a_run_dir / MARKER).write_text(json.dumps({**me, "pid": 2 ** 22 + 3, "start": "7"}))
    run = asyncio.run(run_benchmark(registry.find("dd", tmp_path / "none"),
                                    {"block_sizes": "64K", "concurrency": "1", "size": "64K", "repeats": "1"},
                                    [(TargetSpec("local", str(target)), LocalExecutor("local"))]))
    assert run.status is RunStatus.COMPLETE, run.error
    assert not dead.exists() and run.provenance.extra["leftovers_removed"]["local"] == [str(dead)]
    dead.mkdir()                                   # and the CLI says so
    (dead / MARKER).write_text(json.dumps({**me, "pid": 2 ** 22 + 3, "start": "7"}))
    from brickyard.cli import main

    assert main(["bench", "--target", f"local:{target}", "--workload", "dd", "--param", "block_sizes=64K",
                 "--param", "concurrency=1", "--param", "size=64K", "--param", "repeats=1"]) == 0
    assert f"removed what killed runs had left on local: {dead}" in capsys.readouterr().out
    assert live.exists() and other_host.exists() and unmarked.exists() and not_a_run_dir.exists()
    assert sorted(p.name for p in target.iterdir()) == sorted(p.name for p in (live, other_host, unmarked, not_a_run_dir))


def test_a_worker_dies_with_its_agent_when_the_agent_is_killed():
    async def main():
        agent = await opened()
        step = asyncio.ensure_future(agent.run_step([{"kind": "exec", "argv": ["sleep", "37.5"]}], stall_seconds=0))
        worker = None
        for _ in range(100):
            await asyncio.sleep(0.05)
            kids = [int(k) for t in Path(f"/proc/{agent.remote_pid}/task").iterdir()
                    for k in (t / "children").read_text().split()]
            if kids and Path(f"/proc/{kids[0]}/cmdline").read_bytes().startswith(b"sleep\0"):
                worker = kids[0]      # the agent's child, running sleep (not parked any more)
                break
        assert worker, "the worker never started"
        os.kill(agent.remote_pid, signal.SIGKILL)            # only the agent, not its process group
        try:
            await asyncio.wait_for(step, 10)
        except Exception:  # noqa: BLE001 - the agent is gone: a lost host
            pass
        await agent.close()
        return worker
    worker = asyncio.run(main())
    for _ in range(40):
        if not os.path.exists(f"/proc/{worker}"):
            break
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{worker}"), "the worker outlived its agent"


class _Agent:
    def __init__(self, report):
        self.cancel_report = report

    left_behind = AgentSession.left_behind


class _Session:
    host = "client1"
    rundir = "/mnt/gv0/brickyard-0123456789ab-client1"

    def __init__(self, report):
        self.agent = _Agent(report)


def test_a_run_directory_the_agent_could_not_remove_is_named_in_the_result():
    stalled = asyncio.run(_left_behind(_Session(None), stalled=True))      # killed mid-removal on a hung mount
    assert stalled == "client1:/mnt/gv0/brickyard-0123456789ab-client1 may be left behind (the mount stalled)"
    kept = asyncio.run(_left_behind(_Session({"left": [_Session.rundir]}), stalled=False))
    assert "may be left behind (the agent could not remove it)" in kept
    assert asyncio.run(_left_behind(_Session({"left": []}), stalled=True)) == ""

"""Benchmarks on the real lab over SSH: every built-in workload on a gluster volume and on a
local baseline path, two client hosts released together, and the three ways a run can end
early (cancel, a host dying, a stalled mount). Sizes and durations are tiny: CI has 90 min."""

from __future__ import annotations

import asyncio
import re
import threading
import time

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core.results import RunResult, RunStatus
from brickyard.remote.local import LocalExecutor
from brickyard.remote.loop import Progress
from brickyard.remote.ssh import SshOptions, SshPool
from .labvolume import drop_test_volume

VOLUME = "bybench"
MOUNT = f"/mnt/{VOLUME}"
BRICKS = ["node1:/srv/brick1/bybench", "node2:/srv/brick1/bybench"]

TINY = {
    "dd": {"block_sizes": "64K,1M", "concurrency": "1,2", "size": "4M"},
    "fio": {"presets": "seq-write,rand-read", "size": "4M", "runtime": "0.5"},
    "smallfile": {"scale": "0.03"},
    "metadata": {"seconds": "0.3"},
    "randread": {"files": "20", "min_size": "16K", "max_size": "64K", "readers": "1,2", "seconds": "0.5"},
    "pgbench": {"scale": "1", "clients": "2", "transactions": "20"},
}


def _mount(lab, machine: str) -> None:
    lab.ssh(machine, ["mkdir", "-p", MOUNT])
    if lab.ssh(machine, ["mountpoint", "-q", MOUNT], check=False).returncode != 0:
        lab.ssh(machine, ["mount", "-t", "glusterfs", f"node1:/{VOLUME}", MOUNT])


@pytest.fixture(scope="module")
def volume(lab):
    """A 2-brick distribute volume mounted on client1 and node3 (a second client host)."""
    lab.form_pool(["node1", "node2", "node3"])   # a fresh lab has no trusted pool yet
    if VOLUME not in lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"]).stdout.split():
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "create", VOLUME, *BRICKS])
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "start", VOLUME])
    for machine in (lab.clients[0], "node3"):
        _mount(lab, machine)
    yield VOLUME
    drop_test_volume(lab, VOLUME, BRICKS, {lab.clients[0]: MOUNT, "node3": MOUNT})


def bench(lab, workload: str, params: dict, targets: list[str], *, servers=("node1",), progress=None,
          sink=None, **kw) -> RunResult:
    async def main():
        pool = SshPool(SshOptions(config_files=[str(lab.ssh_config)]))
        try:
            execs = [(TargetSpec(h, p), LocalExecutor("local") if h == "local" else pool.executor(h))
                     for h, p in (t.split(":", 1) for t in targets)]
            return await run_benchmark(registry.find(workload), {"repeats": "1", **params}, execs,
                                       servers=[pool.executor(s) for s in servers], progress=progress,
                                       sink=sink, **kw)
        finally:
            await pool.close()
    return asyncio.run(main())


def leftovers(lab, machine: str = "client1") -> list[str]:
    return [n for n in lab.ssh(machine, ["ls", "-A", MOUNT]).stdout.split() if n.startswith("brickyard-")]


@pytest.fixture
def baseline_dir():
    """A local baseline path every user can reach (pgbench's server runs as postgres)."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="brickyard-e2e-baseline.", dir="/var/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("workload", list(TINY))
def test_builtin_runs_on_a_lab_volume_and_a_local_baseline(lab, volume, workload, baseline_dir):
    tmp_path = baseline_dir
    on_gluster = bench(lab, workload, TINY[workload], [f"{lab.clients[0]}:{MOUNT}"])
    assert on_gluster.status is RunStatus.COMPLETE, on_gluster.error
    assert on_gluster.steps and all(s.valid for s in on_gluster.steps), [s.note for s in on_gluster.steps]
    assert on_gluster.provenance.target_kind == "gluster"
    assert on_gluster.provenance.volume_name == VOLUME and "<volInfo>" in on_gluster.provenance.volume_info_xml
    assert on_gluster.provenance.hosts[lab.clients[0]]["gluster"].startswith("glusterfs")
    baseline = bench(lab, workload, TINY[workload], [f"local:{tmp_path}"], servers=())
    assert baseline.status is RunStatus.COMPLETE, baseline.error
    assert baseline.steps and all(s.valid for s in baseline.steps), [s.note for s in baseline.steps]
    assert baseline.provenance.target_kind in ("local", "tmpfs")
    assert leftovers(lab) == [] and list(tmp_path.iterdir()) == []
    if workload == "metadata":   # on gluster: attribute cache on and off, both labelled
        mounts = [s.params["mount"] for s in on_gluster.steps]
        assert any("attribute-timeout=0" in m for m in mounts) and any("as mounted" in m for m in mounts)


def test_two_client_hosts_start_together_after_clock_sync(lab, volume):
    run = bench(lab, "dd", {"block_sizes": "1M", "concurrency": "1", "size": "4M", "direction": "write"},
                [f"{lab.clients[0]}:{MOUNT}", f"node3:{MOUNT}"])
    assert run.status is RunStatus.COMPLETE, run.error
    (step,) = run.steps
    assert {w.host for w in step.workers} == {lab.clients[0], "node3"}
    assert step.start_skew["max"] < 0.05, step.start_skew


def test_cancel_stops_remote_workers_and_removes_the_run_files(lab, volume):
    progress = Progress()
    cancelled_at = []

    def on_progress(fraction, text):
        if "live" in text and not cancelled_at:
            cancelled_at.append(time.monotonic())
            threading.Thread(target=progress.cancel).start()

    progress._on_progress = on_progress
    run = bench(lab, "dd", {"block_sizes": "4K", "concurrency": "2", "size": "400M", "direction": "write"},
                [f"{lab.clients[0]}:{MOUNT}"], progress=progress)
    took = time.monotonic() - cancelled_at[0]
    assert run.status is RunStatus.CANCELLED and run.error.startswith("cancelled by the user")
    ps = lab.ssh(lab.clients[0], ["ps", "-ww", "-eo", "args"]).stdout
    assert "dd if=/dev/zero" not in ps and "agent.py" not in ps
    assert leftovers(lab) == []
    assert took < 10, took


def test_a_host_dying_mid_run_ends_partial_with_the_host_named(lab, volume):
    class KillAgentAfterFirstStep:
        def run_started(self, run):
            pass

        def step_finished(self, run, step):
            if len(run.steps) == 1:
                ps = lab.exec(lab.clients[0], ["ps", "-ww", "-eo", "pid,args"]).stdout.decode()
                pids = [line.split()[0] for line in ps.splitlines() if "brickyard-agent." in line and "agent.py" in line]
                assert pids, ps
                for pid in pids:   # the agent and its setsid wrapper: the second may be gone already
                    lab.exec(lab.clients[0], ["kill", "-9", pid], check=False)

        def run_finished(self, run):
            pass

    run = bench(lab, "dd", {"block_sizes": "64K,1M,4M", "concurrency": "1", "size": "4M", "direction": "write"},
                [f"{lab.clients[0]}:{MOUNT}"], sink=KillAgentAfterFirstStep())
    assert run.status is RunStatus.PARTIAL
    assert run.failed_host == lab.clients[0] and lab.clients[0] in run.error
    assert len(run.steps) == 1 and run.steps[0].valid
    # the killed agent could not remove the run directory: the engine did, over SSH
    assert leftovers(lab) == [] and "may be left behind" not in run.error, run.error


def test_fios_job_processes_die_with_a_sigkilled_agent(lab, volume):
    """fio's job processes leave the worker's session (setsid): the agent's watchdog kills
    them when the agent is SIGKILLed alone, as a crashing agent would be."""
    killed = []

    def kill_agent(fraction, text):
        if "live" not in text or killed:
            return
        ps = lab.exec(lab.clients[0], ["ps", "-ww", "-eo", "pid,comm,args"]).stdout.decode()
        # the agent, not its watchdog (same command line, comm by-agent-watch)
        pids = [line.split()[0] for line in ps.splitlines()
                if "brickyard-agent." in line and "agent.py" in line and line.split()[1].startswith("python")]
        assert len(pids) == 1, ps
        if sum(line.split()[1] == "fio" for line in ps.splitlines()) < 4:
            return                  # not yet both workers' job processes (fio forks each one)
        lab.exec(lab.clients[0], ["kill", "-9", pids[0]])
        killed.append(pids[0])

    run = bench(lab, "fio", {"presets": "seq-write", "size": "1M", "numjobs": "2", "runtime": "60",
                             "options": "thinktime=100000"},
                [f"{lab.clients[0]}:{MOUNT}"], progress=Progress(on_progress=kill_agent))
    assert killed and run.status in (RunStatus.PARTIAL, RunStatus.FAILED), run.status
    ps = ""
    for _ in range(50):
        ps = lab.exec(lab.clients[0], ["ps", "-ww", "-eo", "comm,args"]).stdout.decode()
        if not any(line.split()[0] == "fio" or "agent.py" in line for line in ps.splitlines()):
            break
        time.sleep(0.1)
    assert not any(line.split()[0] == "fio" for line in ps.splitlines()), ps
    assert "agent.py" not in ps, ps
    assert leftovers(lab) == []


def _brick_pids(lab, volume: str = VOLUME) -> dict[str, str]:
    """node → pid of the brick process serving ``volume`` there."""
    xml = lab.ssh("node1", ["gluster", "--xml", "volume", "status", volume]).stdout
    pids = {}
    for node in re.findall(r"<node>(.*?)</node>", xml, re.S):
        host = re.search(r"<hostname>(.*?)</hostname>", node)
        pid = re.search(r"<pid>(\d+)</pid>", node)
        path = re.search(r"<path>(.*?)</path>", node)
        if host and pid and path and path.group(1).endswith(volume) and int(pid.group(1)) > 0:
            pids[host.group(1)] = pid.group(1)
    return pids


def test_a_stalled_mount_is_reported_as_a_stall(lab, volume):
    pids = _brick_pids(lab)
    assert set(pids) == {"node1", "node2"}, pids
    stopped = []

    def freeze_bricks(fraction, text):
        if "live" in text and not stopped:
            stopped.append(True)
            for node, pid in pids.items():
                lab.exec(node, ["kill", "-STOP", pid])

    progress = Progress(on_progress=freeze_bricks)
    try:
        t0 = time.monotonic()
        run = bench(lab, "dd", {"block_sizes": "64K", "concurrency": "2", "size": "300M", "direction": "write",
                                "stall_seconds": "3"}, [f"{lab.clients[0]}:{MOUNT}"], progress=progress)
        took = time.monotonic() - t0
    finally:
        for node, pid in pids.items():
            lab.exec(node, ["kill", "-CONT", pid], check=False)
    assert stopped, "the step ended before the bricks could be frozen"
    assert run.status is RunStatus.FAILED and "I/O stalled" in run.error, run.error
    assert run.failed_host == lab.clients[0]
    assert run.steps and "stall" in run.steps[-1].flags
    assert took < 60
    time.sleep(1)
    left = leftovers(lab)           # the mount is back: whatever the stalled run left is named
    for name in left:
        assert f"{MOUNT}/{name} may be left behind (the mount stalled)" in run.error, (left, run.error)
    lab.ssh(lab.clients[0], ["sh", "-c", f"rm -rf {MOUNT}/brickyard-*"], check=False, timeout=120)


def test_fio_client_server_mode_across_two_client_hosts(lab, volume):
    run = bench(lab, "fio", {"presets": "seq-write", "size": "4M", "client_server": "yes"},
                [f"{lab.clients[0]}:{MOUNT}", f"node3:{MOUNT}"])
    assert run.status is RunStatus.COMPLETE, run.error
    (step,) = run.steps
    assert step.valid and step.params["jobs"] == 2
    assert step.metric("fio_group_bw").value > 0 and step.metric("throughput") is None
    for machine in (lab.clients[0], "node3"):
        assert "fio --server" not in lab.ssh(machine, ["ps", "-ww", "-eo", "args"]).stdout

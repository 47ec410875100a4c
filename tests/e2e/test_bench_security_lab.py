"""Security boundaries of the benchmarks on the real sandbox, over SSH (issue 11, items 1, 2
and 9): every built-in workload runs on a gluster volume mounted at a mount point holding
'$' and backquotes, in a directory whose path holds every shell canary, and no canary file
appears on the client or here; fio options that would run programs or write elsewhere, and
the other string parameters' canaries, are refused before anything reaches the client.
And what killed runs leave (item 8): nothing when Brickyard is SIGKILLed; when its agent is
killed too, the next run on that host removes the agent's and the run's directories and
says so. Lean: tiny workloads, one run each (CI has a time budget)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
import uuid

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.cli import main
from brickyard.core.results import RunStatus
from brickyard.remote.ssh import SshOptions, SshPool
from tests.bench.canaries import TINY, fio_option_canaries, hostile_path_part, shell_canaries
from .labvolume import drop_test_volume

VOLUME = "bysec"
MOUNT = "/mnt/bysec$x`y`"             # findmnt writes it as /mnt/bysec\x24x\x60y\x60
BRICK = "node1:/srv/brick2/bysec"
CANARIES = f"/var/tmp/canaries-{uuid.uuid4().hex[:8]}"


def canaries_fired(lab) -> list[str]:
    fired = lab.ssh(lab.clients[0], ["ls", "-A", CANARIES]).stdout.split()
    import os

    return fired + os.listdir(CANARIES)


@pytest.fixture(scope="module")
def hostile(lab):
    """The volume mounted on client1 at MOUNT, a directory in it whose path holds every
    shell canary, and the canary directory (world-writable) on client1 and here."""
    import os
    import shutil

    client = lab.clients[0]
    lab.form_pool(["node1", "node2"])
    if VOLUME not in lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"]).stdout.split():
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "create", VOLUME, BRICK])
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "start", VOLUME])
    lab.ssh(client, ["mkdir", "-p", MOUNT])
    if lab.ssh(client, ["mountpoint", "-q", MOUNT], check=False).returncode != 0:
        lab.ssh(client, ["mount", "-t", "glusterfs", f"node1:/{VOLUME}", MOUNT])
    lab.ssh(client, ["install", "-d", "-m", "1777", CANARIES])
    os.makedirs(CANARIES, exist_ok=True)
    os.chmod(CANARIES, 0o1777)
    path = f"{MOUNT}/{hostile_path_part(CANARIES)}"
    lab.ssh(client, ["mkdir", "-p", "-m", "0777", path])
    yield path
    lab.ssh(client, ["umount", MOUNT], check=False)
    lab.ssh(client, ["rmdir", MOUNT], check=False)
    lab.ssh(client, ["rm", "-rf", "--", CANARIES], check=False)
    shutil.rmtree(CANARIES, ignore_errors=True)
    drop_test_volume(lab, VOLUME, [BRICK])


def bench(lab, workload: str, params: dict, target: str):
    async def main_():
        pool = SshPool(SshOptions(config_files=[str(lab.ssh_config)]))
        try:
            return await run_benchmark(registry.find(workload), params,
                                       [(TargetSpec(lab.clients[0], target), pool.executor(lab.clients[0]))],
                                       servers=[pool.executor("node1")])
        finally:
            await pool.close()
    return asyncio.run(main_())


@pytest.mark.parametrize("workload", list(TINY))
def test_every_workload_runs_on_a_hostile_gluster_path_and_no_canary_fires(lab, hostile, workload):
    run = bench(lab, workload, TINY[workload], hostile)
    assert canaries_fired(lab) == []
    assert run.status is RunStatus.COMPLETE, run.error
    assert run.steps and all(s.valid for s in run.steps), [s.note for s in run.steps if not s.valid]
    assert run.provenance.target_kind == "gluster" and run.provenance.volume_name == VOLUME
    assert lab.ssh(lab.clients[0], ["ls", "-A", hostile]).stdout.split() == [], "the run's files are left"
    if workload == "metadata":       # item 9: the mount point's '$' and backquotes read back right
        assert any("attribute-timeout=0" in s.params["mount"] for s in run.steps), [s.params for s in run.steps]


def test_string_parameters_with_canaries_are_refused_before_anything_reaches_the_client(lab, hostile, capsys):
    tried = [("fio", "options", text) for text in fio_option_canaries(CANARIES)]
    tried += [(w, p, text) for w, p in (("fio", "presets"), ("fio", "server_names"), ("pgbench", "pg_bin"),
                                        ("pgbench", "pg_user")) for text in shell_canaries(CANARIES)]
    for workload, param, text in tried:
        code = main(["bench", "--ssh-config", str(lab.ssh_config), "--target", f"{lab.clients[0]}:{hostile}",
                     "--workload", workload, "--param", f"{param}={text}", "--json"])
        out = json.loads(capsys.readouterr().out)
        assert code == 2 and out["ok"] is False and param in out["error"], (param, text, out)
    assert canaries_fired(lab) == []
    ps = lab.ssh(lab.clients[0], ["ps", "-eo", "args"]).stdout
    assert "agent.py" not in ps and "fio" not in ps


def _start_killable_run(lab, target: str) -> subprocess.Popen:
    """`brickyard bench` in a process of its own, writing on the client until it is killed."""
    proc = subprocess.Popen([sys.executable, "-m", "brickyard.cli", "bench", "--ssh-config", str(lab.ssh_config),
                             "--target", f"{lab.clients[0]}:{target}", "--workload", "dd", "--param", "block_sizes=4K",
                             "--param", "concurrency=2", "--param", "size=512M", "--param", "direction=write",
                             "--param", "repeats=1", "--link", "10Gbit"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    script = 'ls -d "$1"/brickyard-*/dd-* >/dev/null 2>&1'
    for _ in range(300):
        if lab.ssh(lab.clients[0], ["sh", "-c", script, "sh", target], check=False).returncode == 0:
            return proc
        time.sleep(0.1)
    proc.kill()
    pytest.fail("the run never started writing")


def _on_client(lab) -> dict:
    client = lab.clients[0]
    # pid, comm, args: an agent's watchdog runs the same file but names itself by-agent-watch
    ps = lab.ssh(client, ["ps", "-eo", "pid=,comm=,args="]).stdout.splitlines()
    ours = [line.split() for line in ps if "brickyard-agent." in line]
    agents = [f[0] for f in ours if f[1] != "by-agent-watch" and f[2:3] == ["python3"]]
    watchdogs = [f[0] for f in ours if f[1] == "by-agent-watch"]
    return {"agents": agents, "watchdogs": watchdogs, "dd": [line for line in ps if "dd if=/dev/zero" in line],
            "tmp": lab.ssh(client, ["sh", "-c", "ls -d /tmp/brickyard-agent.* 2>/dev/null || true"]).stdout.split()}


def test_a_killed_run_leaves_nothing_and_what_a_killed_agent_left_goes_with_the_next_run(lab, hostile):
    client = lab.clients[0]
    proc = _start_killable_run(lab, hostile)          # 1: Brickyard SIGKILLed: its agent cleans up
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(100):
        seen = _on_client(lab)
        if not any(seen.values()) and lab.ssh(client, ["ls", "-A", hostile]).stdout.split() == []:
            break
        time.sleep(0.2)
    assert not any(seen.values()), seen
    assert lab.ssh(client, ["ls", "-A", hostile]).stdout.split() == []

    proc = _start_killable_run(lab, hostile)          # 2: its agent killed too (stopped first: no clean-up)
    (agent,) = _on_client(lab)["agents"]
    lab.ssh(client, ["kill", "-STOP", agent])
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    lab.ssh(client, ["kill", "-KILL", agent])
    for _ in range(50):                                # the watchdog acts within moments; a busy machine waits
        seen = _on_client(lab)
        if not (seen["agents"] or seen["dd"] or seen["watchdogs"]):
            break
        time.sleep(0.2)
    # the workers died with their agent (its watchdog killed them), and the watchdog is gone too
    assert seen["agents"] == [] and seen["dd"] == [] and seen["watchdogs"] == [], seen
    (left_tmp,) = seen["tmp"]
    (left_run,) = lab.ssh(client, ["ls", "-A", hostile]).stdout.split()
    run = bench(lab, "dd", {"block_sizes": "64K", "concurrency": "1", "size": "64K", "repeats": "1"}, hostile)
    assert run.status is RunStatus.COMPLETE, run.error
    assert sorted(run.provenance.extra["leftovers_removed"][client]) == sorted([left_tmp, f"{hostile}/{left_run}"])
    assert _on_client(lab)["tmp"] == [] and lab.ssh(client, ["ls", "-A", hostile]).stdout.split() == []

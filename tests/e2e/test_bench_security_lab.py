"""Security boundaries of the benchmarks on the real sandbox, over SSH (issue 11, items 1, 2
and 9): every built-in workload runs on a gluster volume mounted at a mount point holding
'$' and backquotes, in a directory whose path holds every shell canary, and no canary file
appears on the client or here; fio options that would run programs or write elsewhere, and
the other string parameters' canaries, are refused before anything reaches the client.
Lean: tiny workloads, one run each (CI has a time budget)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.cli import main
from brickyard.core.results import RunStatus
from brickyard.remote.ssh import SshOptions, SshPool
from tests.bench.canaries import TINY, fio_option_canaries, hostile_path_part, shell_canaries

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
    lab.ssh("node1", ["gluster", "--mode=script", "volume", "stop", VOLUME, "force"], check=False)
    lab.ssh("node1", ["gluster", "--mode=script", "volume", "delete", VOLUME], check=False)
    lab.ssh("node1", ["rm", "-rf", "--", BRICK.split(":", 1)[1]], check=False)


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

"""The non-root path: SSH in as the lab's admin account (passwordless sudo, exists only inside
the lab machines) and let Brickyard reach root through ``sudo -n`` for executing, pre-flight,
provisioning, teardown, a benchmark's cache drop and the metadata workload's second mount."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.cli import main
from brickyard.core.results import RunStatus
from brickyard.core.topology import BrickRef, Layout, Mount, Volume, VolumeType
from brickyard.lab.config import ADMIN_SUDOERS, admin_alias
from brickyard.remote.executor import CommandTimeout
from brickyard.remote.hosts import TopologyHosts
from brickyard.remote.loop import Progress
from brickyard.remote.importer import import_cluster
from brickyard.remote.provision import fstab_line, provision_plan, run_provision
from brickyard.remote.steps import DONE
from brickyard.remote.teardown import run_teardown

from .test_provision_lab import run_on_pool


@contextlib.contextmanager
def sudo_rule_parked(lab, machine: str):
    """The admin account without its sudo rule on ``machine`` for the duration."""
    rule = Path(lab.state.machine(machine).dir) / "sudoers.d" / ADMIN_SUDOERS
    parked = rule.with_name("admin-sudoers.parked")
    rule.rename(parked)
    try:
        yield
    finally:
        parked.rename(rule)


def admin_uid(lab, machine: str) -> str:
    return lab.exec(machine, ["id", "-u", lab.admin_user]).stdout.decode().strip()


def test_admin_exists_only_inside_the_lab_and_sudo_decides_who_runs_a_command(lab):
    admin = lab.admin_user
    assert admin and admin != "root"
    # the account lives in the machines' private /etc files, never in this machine's
    assert admin not in {line.split(":")[0] for line in Path("/etc/passwd").read_text().splitlines()}
    assert not any(admin in p.read_text() for p in Path("/etc/sudoers.d").iterdir() if p.is_file())
    uid = admin_uid(lab, "node1")
    marker = f"{time.time_ns()}"

    async def body(pool):
        ex = pool.executor("node1", user=admin)
        assert await ex.login_user() == admin
        # the ssh_config alias reaches the same account, host key checked like node1's
        assert await pool.executor(admin_alias("node1")).login_user() == admin
        plain = await ex.run(["id", "-u"], check=True)
        root = await ex.run(["id", "-u"], sudo=True, check=True)
        # arguments reach the command word for word through sudo too
        echoed = await ex.run(["printf", "%s|", "a b", "$HOME", "'; id"], sudo=True, check=True)
        await ex.upload(b"root-owned\n", f"/var/tmp/bysudo-{marker}", 0o600, sudo=True)
        owner = await ex.run(["stat", "-c", "%U %a", f"/var/tmp/bysudo-{marker}"], sudo=True, check=True)
        # a timeout kills the command's whole process group, also when it runs as root via sudo
        with pytest.raises(CommandTimeout):
            await ex.run(["sh", "-c", f"sleep 60; echo {marker}"], sudo=True, timeout=1.5)
        await ex.run(["rm", "-f", f"/var/tmp/bysudo-{marker}"], sudo=True, check=True)
        return plain.text.strip(), root.text.strip(), echoed.text, owner.text.strip()

    plain, root, echoed, owner = run_on_pool(lab, body)
    assert (plain, root) == (uid, "0") and uid != "0"
    assert echoed == "a b|$HOME|'; id|"
    assert owner == "root 600"
    deadline = time.monotonic() + 10
    while lab.exec("node1", ["pgrep", "-f", f"sleep 60; echo {marker}"], check=False).returncode == 0:
        assert time.monotonic() < deadline, "the timed-out command still runs on node1"
        time.sleep(0.2)


def _preflight(capsys, lab, topo_file: str) -> tuple[int, dict[str, dict[str, dict]]]:
    code = main(["preflight", topo_file, "--ssh-config", str(lab.ssh_config), "--json"])
    report = json.loads(capsys.readouterr().out)
    return code, {h["host"]: {c["check"]: c for c in h["checks"]} for h in report["hosts"]}


def test_preflight_as_admin_finds_sudo_gluster_and_the_fuse_client_and_names_a_host_without_sudo(
        lab, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "brickyard_known_hosts"))
    monkeypatch.setenv("BRICKYARD_QUIET", "1")
    topo_file = lab.state.admin_topology_file
    code, by_host = _preflight(capsys, lab, topo_file)
    assert set(by_host) == {*lab.servers, *lab.clients}
    for host, checks in by_host.items():
        sudo = checks["root or sudo"]
        assert sudo["status"] == "ok" and "passwordless sudo" in sudo["message"], (host, sudo)
        failed = {name: c["message"] for name, c in checks.items() if c["status"] == "fail"}
        assert not failed, (host, failed)
    for node in lab.servers:
        assert by_host[node]["gluster"]["message"].startswith("glusterfs 10"), by_host[node]["gluster"]
        assert by_host[node]["glusterd"]["status"] == "ok"
    assert by_host[lab.clients[0]]["FUSE client"]["status"] == "ok"
    assert code == 0

    # the same account without its sudo rule on the client: a clear failure, not a crash
    client = lab.clients[0]
    with sudo_rule_parked(lab, client):
        code, by_host = _preflight(capsys, lab, topo_file)
    sudo = by_host[client]["root or sudo"]
    assert code == 1 and sudo["status"] == "fail", sudo
    assert sudo["message"].startswith(f"logged in as uid {admin_uid(lab, client)}, not root, and "
                                      "`sudo -n true` fails: sudo: a password is required"), sudo
    assert set(by_host[client]) == {"reachable", "authenticated", "root or sudo"}
    assert by_host["node1"]["root or sudo"]["status"] == "ok"


VOLUME = "bysudo"
# node1's brick goes below a directory that was there before (with a file Brickyard must keep);
# node2's and node3's below directories that provisioning itself creates
KEPT = "/srv/brick1/bysudo-kept"
BRICKS = {"node1": f"{KEPT}/{VOLUME}", "node2": f"/srv/brick1/bysudo-new/a/{VOLUME}",
          "node3": f"/srv/brick1/bysudo-new/a/{VOLUME}"}


class AdminVolume:
    """A replica 3 volume provisioned (and torn down) by the admin account through sudo."""

    def __init__(self, lab):
        self.lab = lab
        self.client = lab.clients[0]
        self.mount = f"/mnt/{VOLUME}"
        topo = lab.topology(ssh_user=lab.admin_user)
        for node in topo.nodes:
            if node.name in BRICKS:
                node.bricks = [replace(b, path=BRICKS[node.name]) if b.mount == "/srv/brick1" else b
                               for b in node.bricks]
        topo.volumes.append(Volume(VOLUME, Layout(VolumeType.REPLICATE, replica=3),
                                   [BrickRef(n, p) for n, p in BRICKS.items()],
                                   {"performance.write-behind": "off"}, mounts=[Mount(self.client, self.mount)]))
        self.topo = topo
        self.plan = provision_plan(topo, VOLUME, fstab=True)
        self.report = None
        self.down = None

    def provision(self):
        self.report = run_on_pool(self.lab, lambda pool: run_provision(self.plan, TopologyHosts(self.topo, pool), Progress()))

    def teardown(self):
        self.down = run_on_pool(self.lab, lambda pool: run_teardown(self.topo, VOLUME, TopologyHosts(self.topo, pool),
                                                                Progress()))


@pytest.fixture(scope="module")
def admin_volume(lab):
    lab.exec("node1", ["mkdir", "-p", KEPT])
    lab.exec("node1", ["touch", f"{KEPT}/keep-me"])
    vol = AdminVolume(lab)
    try:
        vol.provision()
        yield vol
    finally:
        if vol.down is None:
            vol.teardown()
        lab.exec("node1", ["rm", "-rf", "--", KEPT])


def test_provision_through_sudo_creates_bricks_starts_mounts_and_imports_back(lab, admin_volume):
    vol = admin_volume
    assert vol.report.ok, "\n".join(vol.report.summary())
    assert {o.status for o in vol.report.outcomes if not o.step.key.startswith("peer-probe")} == {DONE}
    info = lab.ssh("node1", ["gluster", "--mode=script", "volume", "info", VOLUME]).stdout
    assert "Status: Started" in info and "Type: Replicate" in info
    for node, path in BRICKS.items():
        # made through sudo: owned by root, not by the login user
        assert lab.ssh(node, ["stat", "-c", "%U", path]).stdout.strip() == "root"
    mounted = lab.ssh(vol.client, ["findmnt", "-rn", "-o", "FSTYPE", "--mountpoint", vol.mount]).stdout
    assert mounted.strip() == "fuse.glusterfs"
    assert fstab_line(vol.plan.volume, vol.mount, "") in lab.ssh(vol.client, ["cat", "/etc/fstab"]).stdout
    written = lab.ssh(vol.client, ["sudo", "-n", "sh", "-c", f"echo hello > {vol.mount}/f && cat {vol.mount}/f"],
                      user=lab.admin_user).stdout
    assert written == "hello\n"
    imported = run_on_pool(lab, lambda pool: import_cluster(TopologyHosts(vol.topo, pool)("node1"), VOLUME))
    assert imported.topology.require_volume(VOLUME).bricks == vol.plan.volume.bricks


def _dd_as_admin(lab, target: str):
    admin = lab.admin_user
    client = lab.clients[0]

    async def body(pool):
        return await run_benchmark(
            registry.find("dd"),
            {"repeats": "1", "block_sizes": "1M", "concurrency": "1", "size": "4M", "direction": "read"},
            [(TargetSpec(client, target), pool.executor(client, user=admin))],
            servers=[pool.executor(n, user=admin) for n in BRICKS], progress=Progress())

    return run_on_pool(lab, body)


def test_benchmark_as_admin_drops_caches_and_reads_volume_facts_through_sudo(lab, admin_volume):
    vol = admin_volume
    target = f"{vol.mount}/by-admin"   # the one place on the volume the admin may write
    lab.ssh(vol.client, ["install", "-d", "-o", lab.admin_user, target])
    run = _dd_as_admin(lab, target)
    assert run.status is RunStatus.COMPLETE, run.error
    assert [s.params.get("direction") for s in run.steps] == ["read"], [s.params for s in run.steps]
    for step in run.steps:
        assert "caches-not-dropped" not in step.flags and "not dropped" not in step.note, (step.params, step.note)
        assert step.valid, (step.params, step.note)
    prov = run.provenance
    assert prov.target_kind == "gluster" and prov.volume_name == VOLUME
    assert "<volInfo>" in prov.volume_info_xml
    assert prov.hosts[vol.client]["gluster"].startswith("glusterfs")

    # the same login without its sudo rule on the client: the step says so instead of pretending
    with sudo_rule_parked(lab, vol.client):
        run = _dd_as_admin(lab, target)
    assert run.status is RunStatus.COMPLETE, run.error
    assert all("caches-not-dropped" in s.flags for s in run.steps), [(s.flags, s.note) for s in run.steps]
    assert f"caches not dropped on {vol.client} (not root, no sudo)" in run.steps[0].note
    assert lab.ssh(vol.client, ["ls", "-A", target]).stdout.split() == []


def test_metadata_attribute_cache_off_pass_mounts_through_sudo_as_admin(lab, admin_volume):
    vol = admin_volume
    target = f"{vol.mount}/by-admin-md"
    lab.ssh(vol.client, ["install", "-d", "-o", lab.admin_user, target])

    async def body(pool):
        return await run_benchmark(registry.find("metadata"), {"repeats": "1", "seconds": "0.3"},
                                   [(TargetSpec(vol.client, target), pool.executor(vol.client, user=lab.admin_user))],
                                   servers=[pool.executor("node1", user=lab.admin_user)], progress=Progress())

    run = run_on_pool(lab, body)
    assert run.status is RunStatus.COMPLETE, run.error
    mounts = [s.params["mount"] for s in run.steps]
    assert any("attribute-timeout=0" in m for m in mounts), [(s.params, s.note) for s in run.steps]
    assert all(s.valid for s in run.steps), [(s.params, s.note) for s in run.steps]
    # the second mount is gone again, and so is everything the run made
    assert "attribute-timeout=0" not in lab.ssh(vol.client, ["findmnt", "-rn", "-o", "OPTIONS,TARGET"]).stdout
    assert lab.ssh(vol.client, ["ls", "-A", target]).stdout.split() == []


def test_teardown_through_sudo_removes_only_what_brickyard_made(lab, admin_volume):
    vol = admin_volume
    vol.teardown()
    down = vol.down
    assert down.ok, "\n".join(down.summary())
    assert [o.message for o in down.outcomes if o.step.key.startswith("rmbrick:")] == ["removed"] * 3
    assert VOLUME not in lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"]).stdout.split()
    assert lab.ssh(vol.client, ["mountpoint", "-q", vol.mount], check=False).returncode != 0
    assert fstab_line(vol.plan.volume, vol.mount, "") not in lab.ssh(vol.client, ["cat", "/etc/fstab"]).stdout
    # what was there before stays; what provisioning made is gone, parents included
    assert lab.ssh("node1", ["ls", "-A", KEPT]).stdout.split() == ["keep-me"]
    for node in ("node2", "node3"):
        assert lab.ssh(node, ["test", "-e", "/srv/brick1/bysudo-new"], check=False).returncode == 1

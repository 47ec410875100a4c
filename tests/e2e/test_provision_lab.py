"""Provision, check, import and tear down each of the five layouts on the real lab over SSH."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from brickyard.core import gluster_xml
from brickyard.core.plan import plan_volume
from brickyard.core.topology import BrickRef, Layout, Mount, Topology, Volume, VolumeType
from brickyard.remote.executor import CommandResult, Executor
from brickyard.remote.hosts import TopologyHosts
from brickyard.remote.importer import import_cluster
from brickyard.remote.loop import Progress
from brickyard.remote.provision import provision_plan, run_provision
from brickyard.remote.ssh import SshOptions, SshPool
from brickyard.remote.steps import DONE, PENDING, SKIPPED
from brickyard.remote.teardown import run_teardown


def lab_volume_topology(lab, name: str, layout: Layout, bricks: list[tuple[int, int]],
                        options: dict[str, str] | None = None) -> Topology:
    """The lab's topology with, on every node, ``/srv/brickJ/NAME`` bricks on the lab's XFS
    filesystems, and one volume over ``bricks`` (node number, brick number) mounted on client1."""
    topo = lab.topology()
    for node in topo.nodes:
        node.bricks = [replace(b, path=f"{b.mount}/{name}") for b in node.bricks]
    refs = [BrickRef(f"node{n}", f"/srv/brick{b}/{name}") for n, b in bricks]
    topo.volumes.append(Volume(name, layout, refs, dict(options or {}),
                               mounts=[Mount(lab.clients[0], f"/mnt/{name}")]))
    return topo


def ssh_config_knowing_no_keys(lab, tmp_path: Path) -> Path:
    """The lab's ssh config with an empty user known_hosts: every host key is unknown."""
    config = tmp_path / "ssh_config"
    config.write_text(lab.ssh_config.read_text().replace(f'UserKnownHostsFile "{lab.directory / "known_hosts"}"',
                                                         f'UserKnownHostsFile "{tmp_path / "empty_known_hosts"}"'))
    assert str(tmp_path / "empty_known_hosts") in config.read_text()
    return config


LAYOUTS = {
    "bydist": (Layout(VolumeType.DISTRIBUTE), [(1, 1), (2, 1), (3, 1), (4, 1)]),
    "byrep": (Layout(VolumeType.REPLICATE, replica=3), [(1, 1), (2, 1), (3, 1)]),
    "bydisp": (Layout(VolumeType.DISPERSE, disperse=4, redundancy=1), [(1, 2), (2, 2), (3, 2), (4, 2)]),
    "bydistrep": (Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3, arbiter=1),
                  [(1, 1), (2, 1), (3, 1), (4, 1), (1, 2), (2, 2)]),
    "bydistdisp": (Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=3, redundancy=1),
                   [(1, 2), (2, 2), (3, 2), (4, 2), (1, 1), (2, 1)]),
}


def run_on_pool(lab, body):
    async def main():
        pool = SshPool(SshOptions(config_files=[str(lab.ssh_config)]))
        try:
            return await body(pool)
        finally:
            await pool.close()

    return asyncio.run(main())


def _df_bytes(lab, client: str, path: str) -> int:
    out = lab.ssh(client, ["df", "-B1", "--output=size", path]).stdout.split()
    return int(out[-1])


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_provision_matches_plan_imports_back_and_tears_down_reusable(lab, name):
    layout, bricks = LAYOUTS[name]
    topo = lab_volume_topology(lab, name, layout, bricks, {"performance.write-behind": "off"})
    plan = provision_plan(topo, name)
    expected = plan_volume(topo, topo.require_volume(name))
    client = lab.clients[0]

    async def provision_and_read(pool):
        hosts = TopologyHosts(topo, pool)
        report = await run_provision(plan, hosts, Progress())
        info = (await hosts("node1").run(["gluster", "--xml", "volume", "info", name], check=True)).stdout
        imported = await import_cluster(hosts("node1"), name)
        return report, info, imported

    try:
        report, info_xml, imported = run_on_pool(lab, provision_and_read)
        assert report.ok, "\n".join(report.summary())
        # peers may be in the pool already (the lab is shared); everything else is new
        assert {o.status for o in report.outcomes if not o.step.key.startswith("peer-probe")} == {DONE}
        # what gluster made is what was planned: type, counts, brick order
        info = gluster_xml.parse_volume_info(info_xml)[0]
        assert info.type == expected.gluster_type
        assert [b.ref for b in info.bricks] == list(plan.volume.bricks)
        if layout.type.is_replicated:
            assert (info.replica_count, info.arbiter_count) == (layout.replica, layout.arbiter)
        if layout.type.is_dispersed:
            assert (info.disperse_count, info.redundancy_count) == (layout.disperse, layout.redundancy)
        assert info.status == "Started" and info.options.get("performance.write-behind") == "off"
        # the client sees the capacity the planner promised (within 1 %)
        df = _df_bytes(lab, client, f"/mnt/{name}")
        promised = expected.capacity.df_bytes or expected.capacity.usable_bytes
        assert abs(df - promised) <= 0.01 * promised, (df, promised)
        # import gives back the planned layout and bricks
        got = imported.topology.require_volume(name)
        assert got.layout.type == expected.gluster_type and got.bricks == plan.volume.bricks
        if layout.type.is_replicated:
            assert (got.layout.replica, got.layout.arbiter) == (layout.replica, layout.arbiter)
        if layout.type.is_dispersed:
            assert (got.layout.disperse, got.layout.redundancy) == (layout.disperse, layout.redundancy)
        assert all(imported.topology.brick(r).size_bytes > 0 for r in got.bricks)
        # a second run finds everything in place
        again = run_on_pool(lab, lambda pool: run_provision(plan, TopologyHosts(topo, pool), Progress()))
        assert again.ok and {o.status for o in again.outcomes if not o.step.key.startswith("peers-connected")} == {SKIPPED}
    finally:
        down = run_on_pool(lab, lambda pool: run_teardown(topo, name, TopologyHosts(topo, pool), Progress()))
    assert down.ok, "\n".join(down.summary())
    # bricks are reusable: the directories Brickyard made are gone, a new volume takes the paths
    for ref in plan.volume.bricks:
        parent, _, base = ref.path.rpartition("/")
        marker = f"{parent}/.{base}.brickyard-created"
        either = lab.ssh(ref.node, ["sh", "-c", 'test -e "$1" || test -e "$2"', "sh", ref.path, marker], check=False)
        assert either.returncode == 1, f"{ref} or its marker is still there"
    reuse = lab.ssh("node1", ["gluster", "--mode=script", "volume", "create", f"{name}x",
                              *[str(r) for r in plan.volume.bricks[:1]]], check=False)
    try:
        assert reuse.returncode == 0, reuse.stdout + reuse.stderr
    finally:
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "delete", f"{name}x"], check=False)
        first = plan.volume.bricks[0]
        lab.ssh(first.node, ["rm", "-rf", "--", first.path], check=False)


class _KillsGlusterdBefore(Executor):
    """Wraps node1's executor: right before ``volume create`` it kills node4's glusterd."""

    def __init__(self, inner: Executor, lab, victim: str):
        self.inner, self.lab, self.victim, self.host = inner, lab, victim, inner.host

    async def run(self, argv, **kw) -> CommandResult:
        if "create" in argv and argv[0] == "gluster":
            self.lab.exec(self.victim, ["sh", "-c", 'kill "$(cat /run/glusterd.pid)"'])
            await asyncio.sleep(1.0)
        return await self.inner.run(argv, **kw)

    async def start(self, argv, **kw):
        return await self.inner.start(argv, **kw)

    async def upload(self, *a, **kw):
        return await self.inner.upload(*a, **kw)

    async def close(self):
        return await self.inner.close()


def _restart_glusterd(lab, node: str) -> None:
    lab.exec(node, ["sh", "-c", "/usr/sbin/glusterd -p /run/glusterd.pid"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        xml = lab.ssh("node1", ["gluster", "--xml", "peer", "status"]).stdout
        peers = {p.hostname: p.connected for p in gluster_xml.parse_peer_status(xml)}
        if peers.get(node):
            return
        time.sleep(0.5)
    raise AssertionError(f"{node}'s glusterd did not come back")


def test_glusterd_killed_during_provisioning_names_host_and_step(lab):
    name = "bykill"
    topo = lab_volume_topology(lab, name, Layout(VolumeType.DISTRIBUTE), [(1, 1), (2, 1), (3, 1), (4, 1)])
    plan = provision_plan(topo, name)
    progress = Progress()

    async def body(pool):
        hosts = TopologyHosts(topo, pool)

        def executor_for(host: str) -> Executor:
            ex = hosts(host)
            return _KillsGlusterdBefore(ex, lab, "node4") if host == "node1" else ex

        return await run_provision(plan, executor_for, progress)

    try:
        report = run_on_pool(lab, body)
        failed = report.failed
        assert failed is not None and failed.step.key == "volume-create" and failed.step.host == "node1"
        assert "node4" in failed.message or "not connected" in failed.message.lower(), failed.message
        summary = "\n".join(report.summary())
        assert "FAILED at step 'create volume bykill' on node1" in summary
        index = report.outcomes.index(failed)
        assert [o.status for o in report.outcomes[index + 1:]] == [PENDING] * (len(report.outcomes) - index - 1)
        assert any("create brick directory /srv/brick1/bykill: done" in line for line in progress.lines)
        assert "brickyard teardown" in " ".join(report.notes)
    finally:
        _restart_glusterd(lab, "node4")
        down = run_on_pool(lab, lambda pool: run_teardown(topo, name, TopologyHosts(topo, pool), Progress()))
        assert down.ok, "\n".join(down.summary())

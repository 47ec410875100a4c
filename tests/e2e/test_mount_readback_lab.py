"""On the real sandbox (issue 25 points 4 and 5, issue 21 point 10): a mount is done when
findmnt -J on the client shows it (mount.glusterfs exits 0 when glusterfs fails on
fuse-mountopts=bogus); a run on a volume that is not mounted says so in one sentence and stores
nothing; teardown goes on when gluster 10.3 cannot list the clients because none is connected."""

from __future__ import annotations

from dataclasses import replace

import pytest

from brickyard.bench import registry
from brickyard.bench.request import BenchRequest, run_request, volume_servers, volume_targets
from brickyard.bench.targetcheck import TargetNotReady
from brickyard.core.topology import Layout, Mount, VolumeType
from brickyard.remote.hosts import TopologyHosts
from brickyard.remote.loop import Progress
from brickyard.remote.provision import provision_plan, run_provision
from brickyard.remote.steps import DONE, FAILED
from brickyard.remote.teardown import run_teardown
from brickyard.store import HistoryStore
from brickyard.store.sink import HistorySink

from .labvolume import drop_test_volume
from .test_provision_lab import lab_volume_topology, run_on_pool

NAME = "byreadback"
DD = {"block_sizes": "64K", "size": "1M", "repeats": "1", "concurrency": "1", "direction": "write"}


def test_mount_read_back_unmounted_runs_and_teardown_without_clients(lab, tmp_path):
    client = lab.clients[0]
    mount_point = f"/mnt/{NAME}"
    topo = lab_volume_topology(lab, NAME, Layout(VolumeType.DISTRIBUTE), [(1, 1), (2, 1)])
    volume = topo.require_volume(NAME)
    volume.mounts = [Mount(client, mount_point, "fuse-mountopts=bogus")]
    store = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
    dd = registry.find("dd", tmp_path / "no-user-plugins")

    def bench(pool):
        request = BenchRequest("dd", dict(DD), tuple(volume_targets(topo, NAME)), tuple(volume_servers(topo, NAME)),
                               None, NAME)
        return run_request(request, dd, TopologyHosts(topo, pool), sink=HistorySink(store))

    def not_run(why: str) -> None:
        with pytest.raises(TargetNotReady) as caught:
            run_on_pool(lab, bench)
        assert str(caught.value) == f"{NAME} is not mounted on {client} — provision it first ({why})"
        assert store.list_runs() == []          # no 0-step run

    try:
        # 1. mount.glusterfs exits 0, nothing is mounted: the step fails, read back
        report = run_on_pool(lab, lambda pool: run_provision(provision_plan(topo, NAME), TopologyHosts(topo, pool),
                                                             Progress()))
        assert not report.ok and report.failed.step.key == f"mount:{client}:{mount_point}"
        assert report.failed.message.startswith(
            f"mount.glusterfs exited 0 but {mount_point} shows ") or report.failed.message.startswith(
            f"mount.glusterfs exited 0 but nothing is mounted on {mount_point} (findmnt -J)")
        assert f"glusterfs logged: mount of node1:/{NAME} to {mount_point} (" in report.failed.message
        assert "bogus" in report.failed.message
        assert lab.ssh(client, ["findmnt", "--mountpoint", mount_point], check=False).returncode == 1
        # 2. a run there measures nothing and stores nothing (it used to measure the tmpfs under it)
        under = lab.ssh(client, ["findmnt", "-n", "-o", "SOURCE,FSTYPE,TARGET", "--target", mount_point]).stdout.split()
        not_run(f"{mount_point} is on {under[0]} ({under[1]}) mounted on {under[2]}, not on a gluster mount")
        # 3. mounted for real: done when findmnt shows it
        volume.mounts = [replace(volume.mounts[0], options="")]
        report = run_on_pool(lab, lambda pool: run_provision(provision_plan(topo, NAME), TopologyHosts(topo, pool),
                                                             Progress()))
        assert report.ok, "\n".join(report.summary())
        mounted = report.outcomes[-1]
        assert mounted.status == DONE and mounted.message == \
            f"read back: node1:/{NAME} (fuse.glusterfs) on {mount_point}"
        # 4. the client goes away (an admin's umount): gluster 10.3 cannot list clients; teardown goes on
        lab.ssh(client, ["umount", mount_point])
        down = run_on_pool(lab, lambda pool: run_teardown(topo, NAME, TopologyHosts(topo, pool), Progress()))
        assert down.ok, "\n".join(down.summary())
        clients = next(o for o in down.outcomes if o.step.key == "clients-check")
        assert clients.status == DONE and clients.message.startswith(
            "no client is known to be connected: the servers could not list them (gluster volume status "
            f"{NAME} clients: Commit failed on")
        assert NAME not in lab.ssh("node1", ["gluster", "volume", "list"]).stdout.split()
        # 5. a run on the torn-down volume: one sentence, nothing stored
        not_run(f"{mount_point} does not exist")
        assert not any(o.status == FAILED for o in down.outcomes)
    finally:
        store.close()
        drop_test_volume(lab, NAME, [f"node1:/srv/brick1/{NAME}", f"node2:/srv/brick1/{NAME}"], {client: mount_point})

"""Import: recorded gluster XML from the lab becomes the topology that was provisioned."""

import asyncio

import pytest

from brickyard.cli import main
from brickyard.core.plan import plan_volume
from brickyard.core.topology import VolumeType
from brickyard.remote.executor import ExecutorError
from brickyard.remote.importer import import_cluster

from .fakes import ReplayExecutor

G = ("gluster", "--mode=script", "--xml")


def _answers(vol: str, all_volumes: str = "vrep") -> dict:
    """What node1 of the lab answered; ``volume info all`` listed (among others) ``all_volumes``."""
    return {
        (*G, "volume", "info", vol): f"lab-volume-info-{vol}.xml",
        (*G, "volume", "status", vol, "detail"): f"lab-volume-status-{vol}-detail.xml",
        (*G, "peer", "status"): "lab-peer-status.xml",
        (*G, "pool", "list"): "lab-pool-list.xml",  # node1 itself is "localhost" there
        (*G, "volume", "info", "all"): f"lab-volume-info-{all_volumes}.xml",
        # other volumes' clients: none of this one's
        (*G, "volume", "status", vol, "clients"): "lab-volume-status-all-clients.xml",
        # the plain volume info names thin-arbiters (none among these)
        ("gluster", "--mode=script", "volume", "info", vol): "lab-volume-info-vta.txt",
    }


@pytest.mark.parametrize("vol, kind, counts", [
    ("vrep", VolumeType.REPLICATE, dict(replica=3, arbiter=0)),
    ("varb", VolumeType.REPLICATE, dict(replica=3, arbiter=1)),
    ("vdisp", VolumeType.DISPERSE, dict(disperse=4, redundancy=1)),
    ("vdistrep", VolumeType.DISTRIBUTED_REPLICATE, dict(replica=2)),
    ("vdistdisp", VolumeType.DISTRIBUTED_DISPERSE, dict(disperse=3, redundancy=1)),
    ("vdist", VolumeType.DISTRIBUTE, {}),
])
def test_import_rebuilds_layout_bricks_and_sizes(vol, kind, counts):
    ex = ReplayExecutor("node1", _answers(vol))
    result = asyncio.run(import_cluster(ex, vol))
    topo = result.topology
    volume = topo.require_volume(vol)
    assert volume.layout.type == kind
    for key, value in counts.items():
        assert getattr(volume.layout, key) == value
    assert {n.name for n in topo.nodes} == {"node1", "node2", "node3", "node4"}
    assert all(topo.brick(ref).size_bytes > 900_000_000 for ref in volume.bricks)  # the lab's 960 MiB XFS
    plan = plan_volume(topo, volume)
    assert not plan.errors and plan.gluster_type == kind
    assert result.notes == ([] if vol != "varb" else ["node1 (where gluster was asked) holds no brick of the imported volume(s)"])


def test_import_of_a_missing_volume_says_so():
    ex = ReplayExecutor("node1", {(*G, "volume", "info", "nosuchvol"): "lab-error-volume-info-missing.xml"})
    with pytest.raises(ExecutorError, match="Volume does not exist"):
        asyncio.run(import_cluster(ex, "nosuchvol"))


def test_cli_import_refuses_to_overwrite_and_bad_hosts(tmp_path, capsys):
    out = tmp_path / "x.brickyard.json"
    out.write_text("{}")
    assert main(["import", "node1", "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["import", "node1;touch /tmp/x", "--out", str(tmp_path / "y.json")]) == 2
    assert "not a valid host name" in capsys.readouterr().err


def test_cli_import_refuses_a_directory_as_out_before_connecting(tmp_path, capsys, monkeypatch):
    import brickyard.clicmd.import_ as import_cmd

    def no_connection(*a, **kw):
        raise AssertionError("connected although --out cannot be written")

    monkeypatch.setattr(import_cmd, "run_with_pool", no_connection)
    folder = tmp_path / "somedir"
    folder.mkdir()
    assert main(["import", "node1", "--out", str(folder), "--overwrite"]) == 2
    assert f"--out {folder} is a directory" in capsys.readouterr().err
    assert main(["import", "node1", "--out", str(tmp_path / "no" / "x.json")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_cli_import_reports_a_write_failure_as_bad_output_not_a_traceback(tmp_path, capsys, monkeypatch):
    import brickyard.clicmd.import_ as import_cmd
    from brickyard.core.topology import Topology
    from brickyard.remote.importer import ImportResult

    def refuse(topo, path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(import_cmd, "run_with_pool", lambda args, body: ImportResult(Topology(name="t")))
    monkeypatch.setattr(import_cmd.topofile, "save", refuse)
    assert main(["import", "node1", "--out", str(tmp_path / "x.json")]) == 2
    assert "cannot write it: Permission denied" in capsys.readouterr().err


@pytest.mark.parametrize("reached", ["10.77.0.11", "node1-admin"])
def test_import_through_an_address_or_alias_adds_no_phantom_node(reached):
    result = asyncio.run(import_cluster(ReplayExecutor(reached, _answers("vrep")), "vrep"))
    topo = result.topology
    assert [n.name for n in topo.nodes] == ["node1", "node2", "node3", "node4"]
    # the node keeps the name gluster knows it by and is reached the way the user reached it
    assert topo.node("node1").address == reached and topo.node("node1").ssh_host == reached
    assert all(not topo.node(n).address for n in ("node2", "node3", "node4"))
    assert result.notes == []


def test_an_asked_node_without_bricks_here_is_named_from_its_other_volumes():
    result = asyncio.run(import_cluster(ReplayExecutor("10.77.0.11", _answers("varb", all_volumes="vrep")), "varb"))
    topo = result.topology
    assert sorted(n.name for n in topo.nodes) == ["node1", "node2", "node3", "node4"]
    assert topo.node("node1").address == "10.77.0.11" and not topo.node("node1").bricks
    assert result.notes == ["node1 (where gluster was asked) holds no brick of the imported volume(s)"]


def test_an_asked_node_whose_gluster_name_cannot_be_learned_is_not_invented():
    result = asyncio.run(import_cluster(ReplayExecutor("10.77.0.11", _answers("varb", all_volumes="varb")), "varb"))
    assert sorted(n.name for n in result.topology.nodes) == ["node2", "node3", "node4"]
    assert result.notes == ["10.77.0.11 (where gluster was asked) holds no brick of the imported volume(s) and "
                            "its name in the pool could not be learned, so it is not in the topology"]


class _LabNode1(ReplayExecutor):
    """node1 of the lab with vcl (replica 3, mounted twice on client1) and vta (replica 2
    thin-arbiter 1, the thin-arbiter on client1), answering as recorded; getent from the
    recorded hosts table (each name and address it knew)."""

    def __init__(self, host="node1"):
        super().__init__(host, {
            (*G, "volume", "info", "all"): "lab-volume-info-all-vcl-vta.xml",
            (*G, "volume", "status", "all", "detail"): "lab-volume-status-all-detail-vcl-vta.xml",
            (*G, "peer", "status"): "lab-peer-status-vcl-vta.xml",
            (*G, "pool", "list"): "lab-pool-list-vcl-vta.xml",
            ("gluster", "--mode=script", "volume", "info", "all"): "lab-volume-info-all-vcl-vta.txt",
            (*G, "volume", "status", "all", "clients"): "lab-volume-status-all-clients.xml",
            ("hostname", "-I"): "lab-node1-hostname-I.txt",
            ("findmnt", "-rn", "-t", "fuse.glusterfs", "-o", "SOURCE,TARGET"): "lab-client1-findmnt-glusterfs.txt",
        })
        from .fakes import fixture
        self.hosts = [line.split() for line in fixture("lab-node1-getent-hosts.txt").decode().splitlines()]

    async def run(self, argv, **kw):
        if argv[:2] == ["getent", "hosts"]:
            import time as _t
            from brickyard.remote.executor import CommandResult
            lines = [" ".join(h) for h in self.hosts if set(h) & set(argv[2:])]
            return CommandResult(self.host, tuple(argv), 0 if lines else 2, "\n".join(lines).encode(), b"",
                                 _t.time(), _t.time())
        return await super().run(argv, **kw)


def test_import_brings_back_the_clients_that_mount_a_volume_and_where():
    node1 = _LabNode1()
    reached = []

    def reach(host):
        reached.append(host)
        return _LabNode1(host)

    result = asyncio.run(import_cluster(node1, None, reach=reach))
    topo = result.topology
    assert [(c.name, c.address) for c in topo.clients] == [("client1", "10.77.84.101")]
    assert reached == ["client1"]   # asked once, though it mounts vcl twice
    vcl = topo.require_volume("vcl")
    assert [(m.client, m.path) for m in vcl.mounts] == [("client1", "/mnt/vcl"), ("client1", "/mnt/vcl2")]
    # the servers' own self-heal daemons are connected too, and are not clients
    assert topo.require_volume("vta").mounts == [] and not any("node" in c.name for c in topo.clients)


def test_a_client_that_cannot_be_reached_is_drawn_and_the_note_says_teardown_cannot_unmount_it():
    def unreachable(host):
        raise ExecutorError(host, "connection refused")

    result = asyncio.run(import_cluster(_LabNode1(), None, reach=unreachable))
    assert [c.name for c in result.topology.clients] == ["client1"]
    assert result.topology.require_volume("vcl").mounts == []
    assert any("client1 is connected to vcl" in n and "teardown cannot unmount it" in n for n in result.notes)


def test_import_finds_the_thin_arbiter_gluster_leaves_out_of_its_xml():
    result = asyncio.run(import_cluster(_LabNode1(), None, reach=_LabNode1))
    topo = result.topology
    vta = topo.require_volume("vta")
    assert (vta.layout.replica, vta.layout.thin_arbiter) == (2, 1)
    assert str(vta.thin_arbiter_brick) == "client1:/srv/ta" and topo.brick(vta.thin_arbiter_brick) is not None
    plan = plan_volume(topo, vta)
    assert plan.valid and plan.sets[0].thin_arbiter
    create = next(c for c in plan.commands if c.key == "volume-create")
    assert create.argv[-1] == "client1:/srv/ta" and "thin-arbiter" in create.argv
    # measured free space comes along (glusterd's sizeFree)
    assert topo.brick(vta.bricks[0]).free_bytes == 965525504 and topo.brick(vta.bricks[0]).free_measured
    assert not any("offline" in n for n in result.notes)


# ---- a pool with peers but no volume yet (issue 21 point 4) -----------------------------------
def _pool_answers(host: str) -> dict:
    """What a lab server of a pool with no volume answered (every server has node1's disks)."""
    return {
        (*G, "volume", "info", "all"): "lab-volume-info-all-none.xml",
        (*G, "pool", "list"): f"lab-pool-list-novolume-{host}.xml" if host in ("node1", "node2")
        else "lab-pool-list-novolume-node2.xml",
        ("findmnt", "-J", "-b", "-l", "-o", "TARGET,SOURCE,FSTYPE,SIZE"): "../findmnt/lab-node1.json",
        ("stat", "-f", "-c", "%b %f %S %n", "--", "/srv/brick1", "/srv/brick2"): "../findmnt/lab-node1-statfs.txt",
        ("sh", "-c", "command -v mount.glusterfs"): "lab-node1-hostname-I.txt",   # any output: exit 0
    }


def test_a_pool_with_no_volume_comes_in_as_its_servers_brick_filesystems_and_the_clients_named():
    """It used to fail: "gluster knows no volume here"."""
    reached = {}

    def reach(host):
        reached[host] = ReplayExecutor(host, _pool_answers(host))
        return reached[host]

    result = asyncio.run(import_cluster(ReplayExecutor("node1", _pool_answers("node1")), reach=reach,
                                        clients=["client1"]))
    topo = result.topology
    assert topo.volumes == []
    assert [n.name for n in topo.nodes] == ["node1", "node2", "node3", "node4"]   # node1 as node2 names it
    for node in topo.nodes:
        assert [(b.path, b.mount, b.fs_type) for b in node.bricks] == [
            ("/srv/brick1/brick", "/srv/brick1", "xfs"), ("/srv/brick2/brick", "/srv/brick2", "xfs")]
        assert all(b.size_bytes == 245760 * 4096 and b.free_bytes == 235783 * 4096 and b.free_measured
                   for b in node.bricks)
        assert node.bricks[0].filesystem != node.bricks[1].filesystem       # two disks, not one shared
    assert [c.name for c in topo.clients] == ["client1"]
    assert result.notes[0] == "the pool has no volume yet: 4 server(s), 8 brick filesystem(s) (7.73 GB free) " \
                              "to plan the first volume on"
    # nothing but reading: gluster queries, findmnt, stat, and the client's check
    for ex in [*reached.values()]:
        assert {argv[0] for argv in ex.seen} <= {"gluster", "findmnt", "stat", "sh"}
    # and the admin can plan the first volume on it at once
    from brickyard.core.topology import BrickRef, Layout, Volume

    bricks = [BrickRef(n.name, "/srv/brick1/brick") for n in topo.nodes]
    plan = plan_volume(topo, Volume("gv0", Layout(VolumeType.DISPERSE, disperse=4, redundancy=1), bricks))
    assert not plan.errors and plan.capacity.usable_bytes == 3 * 245760 * 4096


def test_a_pool_server_that_cannot_be_read_and_a_client_without_the_fuse_client_are_noted():
    from brickyard.remote.executor import CommandResult

    class NoFuse(ReplayExecutor):
        async def run(self, argv, **kw):
            if tuple(argv) == ("sh", "-c", "command -v mount.glusterfs"):
                return CommandResult(self.host, tuple(argv), 1, b"", b"", 0.0, 0.0)
            return await super().run(argv, **kw)

    class Down(ReplayExecutor):
        async def run(self, argv, **kw):
            raise ExecutorError(self.host, "cannot reach root@node3:22: Connection refused")

    def reach(host):
        return Down(host, {}) if host == "node3" else NoFuse(host, _pool_answers(host))

    result = asyncio.run(import_cluster(NoFuse("node1", _pool_answers("node1")), reach=reach, clients=["client1"]))
    assert result.topology.node("node3").bricks == []
    assert ("node3: its filesystems could not be read (cannot reach root@node3:22: Connection refused); "
            "add its bricks by hand") in result.notes
    assert ("client client1: mount.glusterfs is not installed there (Debian: glusterfs-client); it cannot "
            "mount a volume until it is") in result.notes

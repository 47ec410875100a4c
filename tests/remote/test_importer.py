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

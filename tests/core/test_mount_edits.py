"""Clients, their mounts and volume options as undoable edits, and the checks the editors use."""

import pytest

from brickyard.core import edits, topofile
from brickyard.core.mounts import mount_options_problem, mount_point_problem
from brickyard.core.plan import plan_volume
from brickyard.core.topology import (Brick, BrickRef, Client, Layout, Mount, Node, Site, Topology, TopologyError,
                                     Volume, VolumeType)

from .test_edits import _round_trip


def _topo() -> Topology:
    topo = Topology(name="t", sites=[Site("A")])
    for i in (1, 2):
        topo.nodes.append(Node(f"n{i}", site="A", bricks=[Brick("/b1", 10**12)]))
    topo.clients += [Client("web1", site="A"), Client("web2")]
    topo.volumes.append(Volume("gv0", Layout(VolumeType.REPLICATE, replica=2),
                               [BrickRef("n1", "/b1"), BrickRef("n2", "/b1")],
                               options={"performance.write-behind": "off", "network.ping-timeout": "10"},
                               mounts=[Mount("web1", "/mnt/gv0")]))
    topo.volumes.append(Volume("gv1", Layout(VolumeType.DISTRIBUTE), []))
    return topo


@pytest.mark.parametrize("make", [
    lambda: edits.AddMount("gv0", Mount("web2", "/mnt/gv0", "noatime", fstab=True)),
    lambda: edits.AddMount("gv0", Mount("web2", "/data"), index=0),
    lambda: edits.RemoveMount("gv0", "web1", "/mnt/gv0"),
    lambda: edits.UpdateMount("gv0", "web1", "/mnt/gv0", {"path": "/srv/gv0", "options": "ro", "fstab": True}),
    lambda: edits.UpdateMount("gv0", "web1", "/mnt/gv0", {"client": "web2"}),
    lambda: edits.SetVolumeOption("gv0", "performance.write-behind", "on"),
    lambda: edits.SetVolumeOption("gv0", "performance.write-behind", None),
    lambda: edits.SetVolumeOption("gv0", "cluster.quorum-type", "fixed"),
    lambda: edits.RemoveClient("web1"),
], ids=["add", "add-first", "remove", "update", "move-client", "set", "reset", "new-option", "remove-client"])
def test_mount_and_option_edits_undo_to_the_identical_file(make):
    _round_trip(_topo(), make())


def test_resetting_an_option_and_undoing_keeps_the_options_in_their_order():
    topo = _topo()
    edit = edits.SetVolumeOption("gv0", "performance.write-behind", None)
    edit.apply(topo)
    assert list(topo.volumes[0].options) == ["network.ping-timeout"]
    edit.revert(topo)
    assert list(topo.volumes[0].options) == ["performance.write-behind", "network.ping-timeout"]


def test_deleting_a_client_takes_its_mounts_and_undo_brings_them_back():
    topo = _topo()
    edits.AddMount("gv1", Mount("web1", "/mnt/gv1")).apply(topo)
    with pytest.raises(TopologyError, match="mounts volume"):
        topo.remove_client("web1")  # the model never leaves a mount without its client
    edit = edits.RemoveClient("web1")
    edit.apply(topo)
    assert topo.volumes[0].mounts == [] and topo.volumes[1].mounts == []
    topofile.loads(topofile.dumps(topo))  # still a file that loads
    edit.revert(topo)
    assert [m.client for v in topo.volumes for m in v.mounts] == ["web1", "web1"]


def test_a_client_cannot_mount_two_things_on_one_path_nor_mount_for_a_missing_client():
    topo = _topo()
    with pytest.raises(TopologyError, match="mounts gv0 at /mnt/gv0 already"):
        edits.AddMount("gv1", Mount("web1", "/mnt/gv0")).apply(topo)
    with pytest.raises(TopologyError, match="no client named 'db'"):
        edits.AddMount("gv1", Mount("db", "/mnt/gv1")).apply(topo)
    edits.AddMount("gv1", Mount("web1", "/mnt/gv1")).apply(topo)
    with pytest.raises(TopologyError, match="already"):
        edits.UpdateMount("gv1", "web1", "/mnt/gv1", {"path": "/mnt/gv0"}).apply(topo)


def test_the_fstab_flag_is_saved_and_read_back():
    topo = _topo()
    edits.UpdateMount("gv0", "web1", "/mnt/gv0", {"fstab": True}).apply(topo)
    again = topofile.loads(topofile.dumps(topo))
    assert again.volumes[0].mounts[0].fstab is True
    text = topofile.dumps(topo).replace('"fstab": true', '"fstab": "yes"')
    with pytest.raises(topofile.TopologyFileError, match=r"mounts\[0\]\.fstab"):
        topofile.loads(text)


def test_a_mount_edit_emits_a_mount_change_for_views():
    topo = _topo()
    seen = []
    topo.events.connect(seen.extend)
    edits.AddMount("gv0", Mount("web2", "/mnt/gv0")).apply(topo)
    assert [(c.kind, c.subject, c.detail["volume"]) for c in seen] == [("mount-added", "web2", "gv0")]


@pytest.mark.parametrize("path,ok", [("/mnt/gv0", True), ("mnt", False), ("/", False), ("/mnt/a b", False),
                                     ("/mnt/../x", False), ("/mnt/x/", False), ("", False)])
def test_mount_points(path, ok):
    assert (mount_point_problem(path) is None) is ok


@pytest.mark.parametrize("options,ok", [
    ("", True), ("noatime", True), ("noatime,log-level=WARNING", True), ("x-systemd.automount,ro", True),
    ("defaults,_netdev", True), ("bogus", False), ("noatime=1", False), ("log-level", False),
    ("log-level=LOUD", False), ("ro, noatime", False), ("ro,,noatime", False),
    ("backup-volfile-servers=n2", False)])
def test_mount_options_follow_mount_glusterfs_10_3(options, ok):
    """Checked on the lab client: 'bogus' -> "Invalid option bogus", 'noatime=1' -> "Invalid
    option: noatime" (exit 1); 'defaults' and x-* are accepted."""
    assert (mount_options_problem(options) is None) is ok


def test_a_volume_option_gluster_would_refuse_is_a_plan_error_in_its_words():
    topo = _topo()
    edits.SetVolumeOption("gv0", "network.ping-timeout", "2000").apply(topo)
    plan = plan_volume(topo, topo.volumes[0])
    assert not plan.valid
    assert any("'2000' in 'option ping-timeout 2000' is out of range [0 - 1013]" in f.message for f in plan.errors)

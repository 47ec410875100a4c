import pytest

from brickyard.core import editing, edits, topofile
from brickyard.core.topology import Brick, Client, BrickRef, Layout, Node, Site, Topology, TopologyError, Volume, VolumeType

from ..conftest import EXAMPLES


def _topo() -> Topology:
    topo = Topology(name="t", sites=[Site("A"), Site("B")])
    for i in range(1, 4):
        topo.nodes.append(Node(f"n{i}", site="A", bricks=[Brick("/b1", 10**12), Brick("/b2", 10**12)]))
    topo.volumes.append(Volume("gv0", Layout(VolumeType.REPLICATE, replica=3),
                               [BrickRef(f"n{i}", "/b1") for i in range(1, 4)]))
    return topo


def _round_trip(topo: Topology, edit: edits.Edit) -> None:
    """apply then revert must give back exactly the file it started from."""
    before = topofile.dumps(topo)
    edit.apply(topo)
    after = topofile.dumps(topo)
    assert after != before
    edit.revert(topo)
    assert topofile.dumps(topo) == before
    edit.apply(topo)  # redo
    assert topofile.dumps(topo) == after


@pytest.mark.parametrize("make", [
    lambda t: edits.AddSite(Site("C")),
    lambda t: edits.RemoveSite("B"),
    lambda t: edits.RenameSite("A", "Z"),
    lambda t: edits.UpdateSite("A", "rack 4"),
    lambda t: edits.AddNode(Node("n9", site="B")),
    lambda t: edits.RemoveNode("n2"),
    lambda t: edits.RenameNode("n1", "gfs1"),
    lambda t: edits.MoveNode("n1", "B"),
    lambda t: edits.UpdateNode("n1", {"nic_gbps": 10.0}),
    lambda t: edits.AddBrick("n1", Brick("/b3", 5), volume="gv0", volume_index=0),
    lambda t: edits.RemoveBrick(BrickRef("n2", "/b1")),
    lambda t: edits.UpdateBrick(BrickRef("n2", "/b1"), {"path": "/x", "size_bytes": 7}),
    lambda t: edits.SetVolumeLayout("gv0", Layout(VolumeType.REPLICATE, replica=3, arbiter=1)),
    lambda t: edits.UpdateVolume("gv0", {"name": "gv1", "force": True}),
    lambda t: edits.RemoveVolume("gv0"),
    lambda t: edits.AddClient(Client("web1", site="A")),
    lambda t: (t.clients.append(Client("web1", site="A")), edits.RenameClient("web1", "web2"))[1],
    lambda t: editing.quick_fill(t, 3, 4, 2 * 10**12, site="B", volume="gv0"),
    lambda t: editing.duplicate_node(t, "n2"),
    lambda t: editing.move_brick_in_volume(t, "gv0", BrickRef("n3", "/b1"), BrickRef("n1", "/b1")),
    lambda t: editing.delete_items(t, sites=["A"]),
])
def test_every_edit_undoes_to_the_identical_file(make):
    topo = _topo()
    _round_trip(topo, make(topo))


def test_removing_a_node_puts_its_bricks_back_in_their_volume_positions_on_undo():
    topo = _topo()
    edit = edits.RemoveNode("n2")
    edit.apply(topo)
    assert [str(r) for r in topo.volumes[0].bricks] == ["n1:/b1", "n3:/b1"]
    edit.revert(topo)
    assert [str(r) for r in topo.volumes[0].bricks] == ["n1:/b1", "n2:/b1", "n3:/b1"]


def test_a_compound_that_fails_halfway_leaves_the_model_unchanged_and_emits_one_batch():
    topo = _topo()
    seen = []
    topo.events.connect(seen.append)
    before = topofile.dumps(topo)
    bad = edits.Compound("x", [edits.AddNode(Node("n9")), edits.AddNode(Node("n1"))])
    with pytest.raises(TopologyError, match="n1"):
        bad.apply(topo)
    assert topofile.dumps(topo) == before
    assert len(seen) == 1  # one delivery: the add and its revert, batched


def test_quick_fill_adds_bricks_round_robin_over_the_new_nodes():
    topo = _topo()
    editing.quick_fill(topo, 2, 2, 10**12, site="B", volume="gv0").apply(topo)
    assert [n.name for n in topo.nodes][-2:] == ["node4", "node5"]
    assert [str(r) for r in topo.volumes[0].bricks][3:] == [
        "node4:/data/brick1", "node5:/data/brick1", "node4:/data/brick2", "node5:/data/brick2"]


def test_moving_a_brick_onto_another_takes_its_place_in_either_direction():
    topo = _topo()
    editing.move_brick_in_volume(topo, "gv0", BrickRef("n3", "/b1"), BrickRef("n1", "/b1")).apply(topo)
    assert [r.node for r in topo.volumes[0].bricks] == ["n3", "n1", "n2"]
    editing.move_brick_in_volume(topo, "gv0", BrickRef("n3", "/b1"), BrickRef("n2", "/b1")).apply(topo)
    assert [r.node for r in topo.volumes[0].bricks] == ["n1", "n2", "n3"]


def test_unique_name_counts_up_from_two():
    assert editing.unique_name({"gfs1"}, "gfs1") == "gfs2"
    assert editing.unique_name({"node", "node2"}, "node") == "node3"
    assert editing.unique_name(set(), "x") == "x"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.brickyard.json")), ids=lambda p: p.name)
def test_deleting_everything_in_an_example_undoes_cleanly(path):
    topo = topofile.load(path)
    _round_trip(topo, editing.delete_items(topo, sites=[s.name for s in topo.sites]))


def test_client_edits_undo():
    topo = _topo()
    edits.AddClient(Client("web1", site="A")).apply(topo)
    _round_trip(topo, edits.UpdateClient("web1", {"site": "B", "nic_gbps": 10.0}))
    _round_trip(topo, edits.RemoveClient("web1"))

"""replica 2 thin-arbiter 1 as gluster 10.3 answers and shows it (issue 23, part 4).

Re-run on the sandbox (a pool of node1-node4, the command on node1, data bricks on node1 and
node2): `volume create … replica 2 thin-arbiter 1 …` was accepted, with and without force, with
the thin-arbiter brick on a peer (node3, node4), on the command's own node (node1), on a data
brick's node (node2) and outside the pool (client1), on a brick filesystem and on the root
filesystem, in a directory that existed and in one that did not, named by host name or
address, with two and four data bricks: glusterd checks nothing of the thin-arbiter brick
(glusterd_op_create_volume records it with glusterd_brickinfo_new_from_brick(…, construct_realpath
false) and never resolves or stats it). What goes wrong on a server of the pool comes later: the
thin-arbiter process needs glusterd's port 24007, so no client reaches it. `volume info` lists
`Number of Bricks: 1 x 2 = 2` and the thin-arbiter apart (`Thin-arbiter-path: node3:/srv/ta`)."""

from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType as T

TB = 10**12


def pool(ta: str, ta_bricks: tuple[str, ...] = ()) -> tuple[Topology, Volume]:
    """node1-node3, each a server with two brick filesystems; the thin-arbiter brick ``ta``
    ("node:/path") on one of them or on a host of its own (``ta_bricks``: that host's bricks)."""
    topo = Topology(name="pool", sites=[Site("A")])
    for i in (1, 2, 3):
        topo.nodes.append(Node(f"node{i}", site="A", bricks=[Brick(f"/srv/brick{j}/brick", 4 * 10**9,
                                                                    filesystem=f"sd{j}", mount=f"/srv/brick{j}")
                                                              for j in (1, 2)]))
    ref = BrickRef.parse(ta)
    node = topo.node(ref.node)
    if node is None:
        node = Node(ref.node, site="A", bricks=[Brick(p, 10**9) for p in ta_bricks])
        topo.nodes.append(node)
    if node.brick(ref.path) is None:
        node.bricks.append(Brick(ref.path, 10**9, filesystem="sd1", mount="/srv/brick1"))
    vol = Volume("tav", Layout(T.REPLICATE, replica=2, thin_arbiter=1),
                 [BrickRef("node1", "/srv/brick1/brick"), BrickRef("node2", "/srv/brick1/brick")], thin_arbiter_brick=ref)
    topo.volumes.append(vol)
    return topo, vol


def test_the_sets_are_what_gluster_lists_and_the_thin_arbiter_is_its_own_field():
    topo, vol = pool("witness:/srv/ta")
    r = plan_volume(topo, vol)
    assert r.valid and not r.warnings
    doc = r.to_json()
    assert doc["number_of_bricks"] == "1 x 2 = 2"
    assert doc["sets"] == [{"index": 0, "bricks": ["node1:/srv/brick1/brick", "node2:/srv/brick1/brick"],
                            "arbiter": None, "thin_arbiter": True, "data_bricks": 1, "redundancy": 0,
                            "usable_bytes": 4 * 10**9}]
    assert doc["thin_arbiter"] == {"brick": "witness:/srv/ta", "serves": "every replica pair", "reachable": True,
                                   "note": ""}
    # what the failure analysis knows is unchanged: one brick of the pair may fail
    assert r.tolerance.nodes_worst == 1


def test_a_thin_arbiter_on_a_server_of_the_pool_is_accepted_with_a_warning_and_shown_unusable():
    """The issue's case: node3 is a server of the pool (it holds brick filesystems), not used by
    this volume; the thin-arbiter is a directory on its brick filesystem that does not exist."""
    topo, vol = pool("node3:/srv/brick1/ta")
    r = plan_volume(topo, vol)
    assert r.valid and not r.needs_force            # gluster creates it, with or without force
    (w,) = [f for f in r.warnings if f.code == "thin-arbiter-on-pool-node"]
    assert "gluster creates this volume" in w.message and "node3" in w.message
    doc = r.to_json()
    assert [len(s["bricks"]) for s in doc["sets"]] == [2] and doc["sets"][0]["arbiter"] is None
    assert doc["thin_arbiter"]["brick"] == "node3:/srv/brick1/ta" and doc["thin_arbiter"]["reachable"] is False
    assert "port 24007" in doc["thin_arbiter"]["note"]
    # without a reachable thin-arbiter a pair stops when one of its bricks fails
    assert r.tolerance.nodes_worst == 0


def test_a_host_with_only_thin_arbiter_bricks_is_outside_the_pool():
    topo, vol = pool("witness:/srv/ta", ta_bricks=("/srv/ta2",))
    other = Volume("tav2", Layout(T.REPLICATE, replica=2, thin_arbiter=1),
                   [BrickRef("node1", "/srv/brick2/brick"), BrickRef("node2", "/srv/brick2/brick")],
                   thin_arbiter_brick=BrickRef("witness", "/srv/ta2"))
    topo.volumes.append(other)
    assert not [f for f in plan_volume(topo, vol).warnings if f.code == "thin-arbiter-on-pool-node"]
    # a witness that also holds a data brick filesystem is a server of the pool
    topo.node("witness").bricks.append(Brick("/srv/data/brick", TB))
    assert [f for f in plan_volume(topo, vol).warnings if f.code == "thin-arbiter-on-pool-node"]


def test_the_text_plan_lists_the_pair_and_the_thin_arbiter_apart(capsys):
    from brickyard.clicmd.plan import format_plan

    topo, vol = pool("node3:/srv/brick1/ta")
    text = format_plan(plan_volume(topo, vol), [])
    assert "Replicate 1 x 2 = 2" in text or "1 x 2 = 2" in text
    assert "node1:/srv/brick1/brick node2:/srv/brick1/brick\n" in text
    assert "Thin-arbiter  node3:/srv/brick1/ta (serves every replica pair; NOT USABLE" in text

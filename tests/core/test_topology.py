"""The topology's mutations: each refusal names what is wrong, each rename carries every
reference along, and each mutation emits one change event the views mirror."""

import pytest

from brickyard.core.topology import (Brick, BrickRef, Client, Latency, Layout, Mount, Node, Site, Topology,
                                     TopologyError, Volume)


def _topo() -> Topology:
    topo = Topology(sites=[Site("hel"), Site("ber")],
                    nodes=[Node("n1", site="hel", bricks=[Brick("/b1", 10), Brick("/b2", 10)]),
                           Node("n2", site="ber", bricks=[Brick("/b1", 10)])],
                    clients=[Client("c1", site="hel")],
                    latencies=[Latency("site:hel", "site:ber", 12.0), Latency("n1", "client:c1", 0.2)],
                    volumes=[Volume("gv0", Layout(), [BrickRef("n1", "/b1"), BrickRef("n2", "/b1")],
                                    mounts=[Mount("c1", "/mnt/gv0")])])
    return topo


def _events(topo: Topology) -> list:
    seen = []
    topo.events.connect(seen.extend)
    return seen


@pytest.mark.parametrize("call, message", [
    (lambda t: t.add_site(Site("hel")), "a site named 'hel' exists already"),
    (lambda t: t.remove_site("nowhere"), "no site named 'nowhere'"),
    (lambda t: t.remove_site("hel"), "site 'hel' still has nodes; move or delete them first"),
    (lambda t: t.rename_site("nowhere", "x"), "no site named 'nowhere'"),
    (lambda t: t.rename_site("hel", "ber"), "a site named 'ber' exists already"),
    (lambda t: t.update_site("nowhere", "d"), "no site named 'nowhere'"),
    (lambda t: t.add_node(Node("n1")), "a node named 'n1' exists already"),
    (lambda t: t.add_node(Node("n3", site="x")), "node 'n3' names site 'x', which does not exist"),
    (lambda t: t.remove_node("n9"), "no node named 'n9'"),
    (lambda t: t.remove_node("n1"), "node 'n1' has bricks in volume(s) gv0; remove them from the volume first"),
    (lambda t: t.rename_node("n1", "n2"), "a node named 'n2' exists already"),
    (lambda t: t.update_node("n1", site="ber"), "node field 'site' cannot be set this way"),
    (lambda t: t.update_node("n1", colour="red"), "node field 'colour' cannot be set this way"),
    (lambda t: t.add_brick("n1", Brick("/b1", 1)), "node 'n1' has a brick at '/b1' already"),
    (lambda t: t.update_brick(BrickRef("n1", "/b9")), "no brick n1:/b9"),
    (lambda t: t.update_brick(BrickRef("n1", "/b1"), path="/b2"), "node 'n1' has a brick at '/b2' already"),
    (lambda t: t.update_brick(BrickRef("n1", "/b1"), colour="red"), "brick field 'colour' does not exist"),
    (lambda t: t.add_client(Client("c1")), "a client named 'c1' exists already"),
    (lambda t: t.remove_client("c9"), "no client named 'c9'"),
    (lambda t: t.remove_client("c1"), "client 'c1' mounts volume(s) gv0; remove those mounts first"),
    (lambda t: t.rename_client("c9", "x"), "no client named 'c9'"),
    (lambda t: t.update_client("c9", address="a"), "no client named 'c9'"),
    (lambda t: t.update_client("c1", site="x"), "no site named 'x'"),
    (lambda t: t.update_client("c1", name="c2"), "client field 'name' cannot be set this way"),
    (lambda t: t.add_volume(Volume("gv0")), "a volume named 'gv0' exists already"),
    (lambda t: t.remove_volume("gv9"), "no volume named 'gv9' (volumes: gv0)"),
    (lambda t: t.update_volume("gv0", layout=Layout()), "volume field 'layout' cannot be set this way"),
])
def test_a_refused_mutation_says_why_and_changes_nothing(call, message):
    topo = _topo()
    seen = _events(topo)
    with pytest.raises(TopologyError) as refused:
        call(topo)
    assert str(refused.value) == message
    assert seen == [] and topo == _topo()


def test_a_volume_rename_to_a_taken_name_is_refused():
    topo = _topo()
    topo.add_volume(Volume("gv1"))
    with pytest.raises(TopologyError, match="a volume named 'gv1' exists already"):
        topo.update_volume("gv0", name="gv1")


def test_renames_carry_every_reference_along():
    topo = _topo()
    seen = _events(topo)
    for rename, name in ((topo.rename_site, "hel"), (topo.rename_node, "n1"), (topo.rename_client, "c1")):
        rename(name, name)
    assert seen == [] and topo == _topo()          # a rename to the same name is no change
    topo.rename_site("hel", "helsinki")
    topo.rename_node("n1", "node1")
    topo.rename_client("c1", "web1")
    assert [n.site for n in topo.nodes] == ["helsinki", "ber"] and topo.clients[0].site == "helsinki"
    assert topo.volumes[0].bricks[0] == BrickRef("node1", "/b1")
    assert topo.volumes[0].mounts[0].client == "web1"
    assert [(lat.a, lat.b) for lat in topo.latencies] == [("site:helsinki", "site:ber"), ("node1", "client:web1")]
    assert [(c.kind, c.subject, c.detail) for c in seen] == [
        ("site-renamed", "helsinki", {"old": "hel"}), ("node-renamed", "node1", {"old": "n1"}),
        ("client-renamed", "web1", {"old": "c1"})]


def test_add_and_remove_give_back_the_place_for_an_undo():
    topo = _topo()
    seen = _events(topo)
    topo.add_site(Site("osl"), index=0)
    topo.add_node(Node("n3"), index=1)
    topo.add_client(Client("c2"))
    topo.add_volume(Volume("gv1"), index=0)
    topo.add_brick("n3", Brick("/b1", 5))
    assert [s.name for s in topo.sites] == ["osl", "hel", "ber"]
    assert [n.name for n in topo.nodes] == ["n1", "n3", "n2"]
    assert [v.name for v in topo.volumes] == ["gv1", "gv0"]
    assert topo.remove_site("osl") == (0, Site("osl"))
    assert topo.remove_client("c2") == (1, Client("c2"))
    assert topo.remove_volume("gv1") == (0, Volume("gv1"))
    assert topo.remove_node("n3")[0] == 1
    assert [(c.kind, c.subject) for c in seen] == [
        ("site-added", "osl"), ("node-added", "n3"), ("client-added", "c2"), ("volume-added", "gv1"),
        ("brick-added", "n3:/b1"), ("site-removed", "osl"), ("client-removed", "c2"),
        ("volume-removed", "gv1"), ("node-removed", "n3")]
    assert topo == _topo()


def test_updates_return_the_old_values():
    topo = _topo()
    assert topo.update_node("n1", address="10.0.0.1", ssh_port=2222) == {"address": "", "ssh_port": 22}
    assert topo.update_client("c1", site="ber") == {"site": "hel"}
    assert topo.update_site("ber", "Berlin") == ""
    assert topo.update_volume("gv0", name="data", transport="rdma") == {"name": "gv0", "transport": "tcp"}
    assert topo.update_brick(BrickRef("n1", "/b2"), path="/b3", size_bytes=20) == {"path": "/b2", "size_bytes": 10}
    assert topo.volume("data") is not None and topo.node("n1").brick("/b3").size_bytes == 20


def test_brick_ref_keeps_a_dataclass_s_equality_order_and_fields_with_its_hash_cached():
    import dataclasses

    a, b = BrickRef("n1", "/b/1"), BrickRef("n1", "/b/1")
    assert a == b and hash(a) == hash(b) and not a != b
    assert a != BrickRef("n1", "/b/2") and a < BrickRef("n1", "/b/2") and a != ("n1", "/b/1")
    assert dataclasses.asdict(a) == {"node": "n1", "path": "/b/1"} and repr(a) == "BrickRef(node='n1', path='/b/1')"
    assert dataclasses.replace(a, path="/b/3") == BrickRef("n1", "/b/3")


def test_a_brick_ref_pickled_in_another_process_hashes_as_this_one_s():
    """The cached hash is not pickled: a str's hash differs between processes."""
    import os
    import pickle
    import subprocess
    import sys

    code = ("import pickle, sys; from brickyard.core.topology import BrickRef; "
            "sys.stdout.buffer.write(pickle.dumps(BrickRef('node7', '/bricks/b1')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout
    ref = pickle.loads(out)
    assert {BrickRef("node7", "/bricks/b1"): 1}.get(ref) == 1

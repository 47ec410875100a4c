"""replica 2 thin-arbiter 1 and disperse-data D: rules, capacity, failures and commands, as
gluster 10.3 answered on the lab (issue 10 item 18)."""

import pytest

from brickyard.core.gluster_cli import volume_commands
from brickyard.core.layout import resolve
from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType as T

TB = 10**12


def stretch(pairs: int = 1, ta_node: str = "witness") -> tuple[Topology, Volume]:
    """Two sites with ``pairs`` replica pairs across them, a small thin-arbiter host in a third."""
    topo = Topology(name="stretch", sites=[Site("A"), Site("B"), Site("C")])
    for name, site in (("a1", "A"), ("b1", "B")):
        topo.nodes.append(Node(name, site=site, bricks=[Brick(f"/data/b{i}", TB, filesystem=f"sd{i}", mount="/data")
                                                        for i in range(1, pairs + 1)]))
    topo.nodes.append(Node("witness", site="C", bricks=[Brick("/ta", 10**9)]))
    bricks = [BrickRef(n, f"/data/b{i}") for i in range(1, pairs + 1) for n in ("a1", "b1")]
    vol = Volume("gv0", Layout(T.REPLICATE if pairs == 1 else T.DISTRIBUTED_REPLICATE, replica=2, thin_arbiter=1),
                 bricks, thin_arbiter_brick=BrickRef(ta_node, "/ta"))
    topo.volumes.append(vol)
    return topo, vol


def test_a_stretch_pair_with_a_thin_arbiter_in_a_third_site():
    topo, vol = stretch(pairs=2)
    r = plan_volume(topo, vol)
    assert r.valid and not r.findings   # no split-brain question: the thin-arbiter settles it
    assert [s.bricks[-1] for s in r.sets] == [BrickRef("witness", "/ta")] * 2
    assert all(s.thin_arbiter and s.arbiter == BrickRef("witness", "/ta") for s in r.sets)
    # the thin-arbiter holds no data and is not a brick of the volume: not in raw or usable
    assert (r.capacity.raw_bytes, r.capacity.usable_bytes, r.capacity.arbiter_bytes) == (4 * TB, 2 * TB, 0)
    # any one node may fail; both data sites at once may not; one site of the three may fail
    assert (r.tolerance.nodes_worst, r.tolerance.sites_worst, r.tolerance.sites_best) == (1, 1, 1)
    create = next(c for c in volume_commands(topo, vol) if c.key == "volume-create")
    assert create.argv[4:8] == ("replica", "2", "thin-arbiter", "1")
    assert create.argv[-1] == "witness:/ta"
    # the thin-arbiter host runs no glusterd: it is never probed
    assert [c.argv[-1] for c in volume_commands(topo, vol) if c.key.startswith("peer-probe")] == ["b1"]


@pytest.mark.parametrize("failed,state,writes", [
    (["b1"], "DEGRADED", True),               # one brick and the thin-arbiter: serving
    (["witness"], "DEGRADED", True),          # both bricks: serving
    (["b1", "witness"], "DOWN", False),       # one brick alone: stopped (seen on the lab)
    (["site:A", "site:C"], "DOWN", False),
])
def test_a_pair_serves_with_two_of_its_bricks_and_thin_arbiter(failed, state, writes):
    topo, vol = stretch()
    vol.options["cluster.quorum-type"] = "none"   # ignored by thin-arbiter volumes
    r = plan_volume(topo, vol, failed)
    assert (r.state.state, r.state.writable) == (state, writes)


def test_a_thin_arbiter_on_a_node_running_glusterd_is_never_reached():
    topo, vol = stretch(ta_node="a1")
    topo.node("a1").bricks.append(Brick("/ta", 10**9))
    r = plan_volume(topo, vol)
    (f,) = [f for f in r.findings if f.code == "thin-arbiter-on-pool-node"]
    assert f.severity == "warning" and "24007" in f.message
    assert r.tolerance.nodes_worst == 0   # without it a pair needs both bricks
    assert plan_volume(topo, vol, ["b1"]).state.state == "DOWN"


@pytest.mark.parametrize("layout,count,ta,words", [
    (Layout(T.REPLICATE, replica=3, thin_arbiter=1), 3, True,
     "For thin-arbiter configuration, replica count must be 2 and thin-arbiter count must be 1."),
    (Layout(T.REPLICATE, replica=2, arbiter=1, thin_arbiter=1), 3, True,
     "thin-arbiter option must be preceded by replica option."),
    (Layout(T.DISPERSE, disperse=3, thin_arbiter=1), 3, True, "thin-arbiter option must be preceded by replica option."),
    (Layout(T.DISTRIBUTED_REPLICATE, replica=2, thin_arbiter=1), 3, True, "Failed to create volume files"),
    (Layout(T.REPLICATE, replica=2, thin_arbiter=1), 2, False, "replica 2 thin-arbiter 1 needs a thin-arbiter brick"),
])
def test_thin_arbiter_counts_gluster_refuses(layout, count, ta, words):
    topo = Topology(name="t", nodes=[Node(f"n{i}", bricks=[Brick("/b", TB)]) for i in range(count)]
                    + [Node("w", bricks=[Brick("/ta", 1)])])
    vol = Volume("gv0", layout, [BrickRef(f"n{i}", "/b") for i in range(count)],
                 thin_arbiter_brick=BrickRef("w", "/ta") if ta else None)
    topo.volumes.append(vol)
    r = plan_volume(topo, vol)
    assert r.refused and any(f.message.startswith(words) for f in r.errors), [f.message for f in r.errors]


def test_one_data_brick_with_a_thin_arbiter_is_refused_glusterd_crashes_on_it():
    _, findings = resolve(Layout(T.REPLICATE, replica=2, thin_arbiter=1), 1)
    assert [f.code for f in findings] == ["thin-arbiter-one-brick"]


@pytest.mark.parametrize("layout,count,resolved,asks", [
    (Layout(T.DISPERSE, disperse_data=2, redundancy=1), 3, (3, 1), []),
    (Layout(T.DISTRIBUTED_DISPERSE, disperse_data=2, redundancy=1), 6, (3, 1), []),
    (Layout(T.DISPERSE, disperse_data=4, disperse=6), 6, (6, 2), []),
    # neither disperse nor redundancy: every brick in one set, and gluster asks
    (Layout(T.DISPERSE, disperse_data=3), 4, (4, 1), ["Redundancy for this configuration is 1. Do you want to "
                                                      "create the volume with this value ?",
                                                      "This configuration is not optimal on most workloads. "
                                                      "Do you want to use it ?"]),
])
def test_disperse_data_derives_what_is_not_given(layout, count, resolved, asks):
    res, findings = resolve(layout, count)
    assert (res.disperse, res.redundancy) == resolved and res.data_bricks == layout.disperse_data
    assert [f.message for f in findings if f.severity == "warning"] == asks
    assert res.create_words()[:2] == ["disperse-data", str(layout.disperse_data)]
    assert res.create_words()[2:] == ["redundancy", str(resolved[1])]


@pytest.mark.parametrize("layout,count,words", [
    (Layout(T.DISPERSE, disperse_data=1, redundancy=1), 3, "disperse-data must be greater than 1"),
    (Layout(T.DISPERSE, disperse_data=2), 4, "Please provide redundancy count along with disperse-data count"),
    (Layout(T.DISPERSE, disperse_data=2, disperse=4, redundancy=1), 4,
     "Disperse count(4) should be equal to sum of disperse-data count(2) and redundancy count(1)"),
    (Layout(T.DISPERSE, disperse_data=3, disperse=6), 6,
     "redundancy must be greater than or equal to 1 and less than 3 for a disperse 6 volume"),
    (Layout(T.REPLICATE, replica=2, disperse_data=2), 2, "replicated-dispersed volume is not supported"),
])
def test_disperse_data_refusals_in_glusters_words(layout, count, words):
    _, findings = resolve(layout, count)
    assert [f.message for f in findings if f.severity == "error"][0].startswith(words)


def test_disperse_data_capacity_and_failures_are_those_of_the_disperse_it_makes():
    topo = Topology(name="t", nodes=[Node(f"n{i}", bricks=[Brick("/b", TB)]) for i in range(6)])
    vol = Volume("gv0", Layout(T.DISPERSE, disperse_data=4, redundancy=2), [BrickRef(f"n{i}", "/b") for i in range(6)])
    topo.volumes.append(vol)
    r = plan_volume(topo, vol)
    assert r.valid and r.capacity.usable_bytes == 4 * TB and r.tolerance.nodes_worst == 2
    create = next(c for c in r.commands if c.key == "volume-create")
    assert create.argv[4:8] == ("disperse-data", "4", "redundancy", "2")

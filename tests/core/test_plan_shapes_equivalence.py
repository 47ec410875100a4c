"""The planner's per-shape fast paths give what the straightforward code gave: each is compared
with the code it replaced (kept here as the reference) on random topologies — uneven brick
sizes, sites, arbiter, thin-arbiter, disperse, distribute, short tails, bricks of one set on
one node, unknown and repeated bricks, nested and overlong paths, long names."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from itertools import repeat

import pytest

from brickyard.core import brickrules, capacity, failures, layout, names
from brickyard.core.layout import Resolved, split_sets
from brickyard.core.plan import plan_volume
from brickyard.core.planmodel import BrickSet, TopologyIndex, build_sets
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType


# ---- the references: the code before --------------------------------------------------------

def _build_sets_before(sets, resolved: Resolved, sizes: list[int]) -> list[BrickSet]:
    """capacity._build_sets before it worked by columns, one BrickSet() call per set."""
    out = []
    data_bricks = resolved.data_bricks
    redundancy = (resolved.redundancy or 0) if resolved.disperse else 0
    full = max(resolved.set_size, 1)
    has_arbiter = bool(resolved.arbiter)
    start = 0
    for index, members in enumerate(sets):
        n = len(members)
        arbiter = members[-1] if has_arbiter and n == full else None
        data = sizes[start:start + n - (arbiter is not None)]
        start += n
        smallest = min(data) if data else 0
        k = data_bricks if n == full else max(min(data_bricks, n - redundancy), 0)
        out.append(BrickSet(index, members, arbiter, k, smallest * k, redundancy))
    return out


def _worst_before(classes: failures._Classes, quorum) -> int:
    return min(map(failures._min_units_to_break, classes.sets, classes.units, repeat(quorum)), default=1) - 1


def _one_kind_before(sets) -> bool:
    return len({(s.redundancy, s.arbiter is None, s.thin_arbiter) for s in sets}) <= 1


# ---- random inputs ---------------------------------------------------------------------------

LAYOUTS = [
    Layout(VolumeType.DISTRIBUTE),
    Layout(VolumeType.REPLICATE, replica=2),
    Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2),
    Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3),
    Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3, arbiter=1),
    Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2, thin_arbiter=1),
    Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=3, redundancy=1),
    Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=6, redundancy=2),
    Layout(VolumeType.DISPERSE, disperse=4, redundancy=1),
]


def _random_topology(rng: random.Random) -> tuple[Topology, Volume]:
    sites = [f"dc{i}" for i in range(rng.choice([0, 1, 2, 3]))]
    topo = Topology(name="t", sites=[Site(s) for s in sites])
    sizes = rng.choice([[10**12], [10**12, 2 * 10**12], [7, 10**12 + 1, 3 * 10**12 - 5], [0, 10**9]])
    long_node = rng.random() < 0.1
    for i in range(rng.randint(1, 9)):
        name = f"node{i}" + ("x" * 120 if long_node and i == 0 else "")
        node = Node(name, site=rng.choice(sites) if sites else "", nic_gbps=rng.choice([None, 10.0]))
        paths = [f"/bricks/d{j}/brick" for j in range(rng.randint(1, 6))]
        if rng.random() < 0.1:
            paths.append(paths[0] + "/inner")                 # a brick inside another
        if rng.random() < 0.05:
            paths.append("/" + "p" * 250)                     # a directory name past gluster's limit
        if rng.random() < 0.05:
            paths.append("/bad path")                         # a character gluster cannot serve
        shared = rng.random() < 0.2
        node.bricks = [Brick(p, rng.choice(sizes), filesystem="/dev/sda" if shared else f"/dev/sd{j}",
                             mount=rng.choice(["", "/bricks", p]) if rng.random() < 0.1 else f"/bricks/d{j}",
                             free_bytes=rng.choice([None, 5 * 10**11]))
                       for j, p in enumerate(paths)]
        topo.nodes.append(node)
    refs = [BrickRef(n.name, b.path) for n in topo.nodes for b in n.bricks]
    if rng.random() < 0.5:
        rng.shuffle(refs)
    lay = rng.choice(LAYOUTS)
    size = layout.resolve(lay, len(refs))[0].set_size
    if rng.random() < 0.7 and size > 1:
        refs = refs[:len(refs) - len(refs) % size] or refs   # whole sets, mostly
    if refs and rng.random() < 0.1:
        refs.append(refs[0])                                  # a brick listed twice
    if rng.random() < 0.1:
        refs.append(BrickRef("nowhere", "/b0"))               # a brick of no node
    ta = None
    if lay.thin_arbiter:
        topo.nodes.append(Node("ta", bricks=[Brick("/ta", 10**9)]))
        ta = BrickRef("ta", "/ta")
    volume = Volume(rng.choice(["v", "gv0", "v" * 200]), lay, refs, thin_arbiter_brick=ta)
    topo.volumes = [volume]
    return topo, volume


SEEDS = range(400)


# ---- the comparisons -------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_sets_and_capacity_are_those_built_one_set_at_a_time(seed):
    rng = random.Random(seed)
    topo, volume = _random_topology(rng)
    index = TopologyIndex(topo)
    check = layout.check_volume(topo, volume, index)
    if not check.accepted:
        return
    sizes, shares, _, _ = capacity._shares(topo, volume, index)
    want = _build_sets_before(check.sets, check.resolved, shares)
    got = capacity._build_sets(check.sets, check.resolved, shares)
    assert got == want
    assert [tuple(dataclasses.astuple(s)) for s in got] == [tuple(dataclasses.astuple(s)) for s in want]
    assert all(type(s) is BrickSet for s in got)
    sets, cap = capacity.analyse(topo, volume, check.sets, check.resolved, index)
    assert cap.usable_bytes == sum(s.usable_bytes for s in want)


def test_sets_of_every_shape_of_sizes_are_those_built_one_set_at_a_time():
    rng = random.Random(7)
    for _ in range(2000):
        full = rng.randint(1, 7)
        n_sets = rng.randint(0, 6)
        tail = rng.randint(0, full - 1) if rng.random() < 0.3 else 0
        refs = [BrickRef(f"n{i}", f"/b{i}") for i in range(full * n_sets + tail)]
        sets = split_sets(refs, full)
        pick = rng.choice([[10**12], [1, 2, 3], [0, 2**63 - 1], [5, 5, 6]])
        sizes = [rng.choice(pick) for _ in refs]
        arbiter = 1 if full == 3 and rng.random() < 0.5 else 0
        disperse = full if full >= 3 and not arbiter and rng.random() < 0.5 else None
        resolved = Resolved(VolumeType.DISTRIBUTED_REPLICATE, full, replica=None if disperse else full, arbiter=arbiter,
                            disperse=disperse, redundancy=(full - 1) // 2 if disperse else None, brick_count=len(refs))
        assert capacity._build_sets(sets, resolved, sizes) == _build_sets_before(sets, resolved, sizes)


def test_a_brick_set_keeps_its_dataclass_behaviour():
    a, b = BrickRef("a", "/d/b"), BrickRef("b", "/d/b")
    s = build_sets([4], [(a, b)], [b], [1], [10], [0], [False])[0]
    assert s == BrickSet(4, (a, b), b, 1, 10) and hash(s) == hash(BrickSet(4, (a, b), b, 1, 10))
    assert (s.index, s.bricks, s.arbiter, s.data_bricks, s.usable_bytes, s.redundancy, s.thin_arbiter) == \
        (4, (a, b), b, 1, 10, 0, False)
    assert s.size == 2 and s.gluster_bricks == (a, b) and s.gluster_arbiter == b
    assert dataclasses.replace(s, index=5) == BrickSet(5, (a, b), b, 1, 10)
    assert pickle.loads(pickle.dumps(s)) == s and copy.deepcopy(s) == s and copy.copy(s) == s
    assert repr(s) == f"BrickSet(index=4, bricks={(a, b)!r}, arbiter={b!r}, data_bricks=1, usable_bytes=10, " \
                      "redundancy=0, thin_arbiter=False)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.index = 1  # type: ignore[misc]


@pytest.mark.parametrize("seed", SEEDS)
def test_worst_case_and_tolerance_are_those_worked_out_per_class(seed):
    rng = random.Random(seed)
    topo, volume = _random_topology(rng)
    index = TopologyIndex(topo)
    check = layout.check_volume(topo, volume, index)
    if not check.accepted:
        return
    sets, _ = capacity.analyse(topo, volume, check.sets, check.resolved, index)
    if rng.random() < 0.3 and len(sets) > 1:   # sets of several kinds in one list
        sets[0] = dataclasses.replace(sets[0], redundancy=sets[0].redundancy + 1)
    for options in ({}, {"cluster.quorum-type": "fixed", "cluster.quorum-count": "2"},
                    {"cluster.quorum-type": "none"}):
        quorum = failures._quorum(options)
        classes = failures._node_classes(sets)
        assert failures._one_kind(sets) == _one_kind_before(sets)
        assert classes.worst(quorum) == _worst_before(classes, quorum)
        node_site = {n.name: n.site or f"(no site: {n.name})" for n in topo.nodes}
        sites = classes.mapped(node_site.__getitem__)
        assert sites.worst(quorum) == _worst_before(sites, quorum)


@pytest.mark.parametrize("seed", SEEDS)
def test_layout_findings_are_those_of_the_brick_by_brick_walk(seed, monkeypatch):
    rng = random.Random(seed)
    topo, volume = _random_topology(rng)
    fast = layout.check_volume(topo, volume, TopologyIndex(topo))
    # the straightforward way: every volfile name measured, every brick walked
    assert names.name_findings(volume.name, volume.bricks, volume.transport, TopologyIndex(topo)) == \
        names.name_findings(volume.name, volume.bricks, volume.transport)
    monkeypatch.setattr(brickrules, "_clean_volume_findings", lambda *a: None)
    slow = layout.check_volume(topo, volume, TopologyIndex(topo))
    assert fast == slow


@pytest.mark.parametrize("seed", range(0, 400, 8))
def test_whole_plans_are_the_same_with_and_without_the_fast_paths(seed, monkeypatch):
    rng = random.Random(seed)
    topo, volume = _random_topology(rng)
    auto_place = rng.random() < 0.5
    fast = plan_volume(topo, volume, auto_place=auto_place)
    monkeypatch.setattr(brickrules, "_clean_volume_findings", lambda *a: None)
    monkeypatch.setattr(capacity, "_build_sets", _build_sets_before)
    monkeypatch.setattr(failures._Classes, "worst", _worst_before)
    monkeypatch.setattr(failures, "_one_kind", _one_kind_before)
    slow = plan_volume(topo, volume, auto_place=auto_place)
    assert fast == slow
    assert fast.to_json() == slow.to_json()


# ---- reading a file: the bricks of all nodes at once, the volume's references ------------------

def _random_brick(rng: random.Random, j: int) -> object:
    brick: dict = {"path": f"/b{j}", "size_bytes": rng.choice([5, 10**12, 0]), "filesystem": "/dev/sdb",
                   "mount": "/b", "fs_type": "xfs", "disk_kind": "", "speed_bps": rng.choice([None, 1e8, 3]),
                   "free_bytes": rng.choice([None, 7]), "free_measured": ""}
    roll = rng.random()
    if roll < 0.03:
        brick["size_bytes"] = -1                              # below its minimum
    elif roll < 0.06:
        brick["speed_bps"] = 1e16                             # above its maximum
    elif roll < 0.09:
        brick["size_bytes"] = "5"                             # a string for a number
    elif roll < 0.12:
        brick["colour"] = "red"                               # an unknown field
    elif roll < 0.15:
        del brick["size_bytes"]                               # a required field missing
    elif roll < 0.18:
        return rng.choice([[], "x", None, 3])                 # not an object
    elif roll < 0.21:
        brick["free_bytes"] = True                            # true is not a number
    if rng.random() < 0.3:
        for key in rng.sample(["disk_kind", "free_measured", "free_bytes", "mount"], 2):
            brick.pop(key, None)                              # defaults
    if rng.random() < 0.1:
        brick = dict(reversed(list(brick.items())))           # another key order
    return brick


@pytest.mark.parametrize("seed", range(300))
def test_bricks_read_at_once_are_those_read_one_by_one(seed):
    from brickyard.core import topofile
    from brickyard.core.strictjson import Reader

    rng = random.Random(seed)
    clean = rng.random() < 0.5
    nodes = []
    for i in range(rng.randint(0, 5)):
        node: object = {"name": f"n{i}", "bricks": [_random_brick(rng, j) if not clean else
                                                    {"path": f"/b{j}", "size_bytes": 9} for j in range(rng.randint(0, 4))]}
        if not clean and rng.random() < 0.05:
            node = {"name": "", "bricks": []}                  # a blank name
        if not clean and rng.random() < 0.05:
            node = {"name": f"n{i}", "bricks": "none"}         # bricks not an array
        nodes.append(node)
    for version in (1, 2):
        record = topofile._BRICK_RECORDS[version]
        at_once, one_by_one = Reader(), Reader()
        a, b = Topology("a"), Topology("b")
        if not topofile._nodes_at_once(at_once, nodes, record, a):
            assert at_once.problems == [] and a.nodes == []
            topofile._nodes_one_by_one(at_once, nodes, record, a)
        topofile._nodes_one_by_one(one_by_one, nodes, record, b)
        assert at_once.problems == one_by_one.problems
        assert a.nodes == b.nodes
        assert [[vars(x) for x in n.bricks] for n in a.nodes] == [[vars(x) for x in n.bricks] for n in b.nodes]
        if clean:
            assert topofile._nodes_at_once(Reader(), nodes, record, Topology("c"))


def test_volume_references_built_at_once_are_those_parsed_one_by_one():
    from brickyard.core import topofile
    from brickyard.core.topology import refs

    rng = random.Random(3)
    for _ in range(500):
        texts = [rng.choice(["n1:/b", "n2:/x/y", "a:b:c", ":x", "n:", "nocolon", "n3:/é"]) for _ in range(rng.randint(0, 6))]
        if rng.random() < 0.1:
            texts.append(5)
        got = topofile._good_refs(texts)
        good = [t for t in texts if isinstance(t, str) and t.partition(":")[1] and t.partition(":")[0]
                and t.partition(":")[2]]
        if got is None:
            assert not texts or len(good) < len(texts)
        else:
            assert got == [BrickRef.parse(t) for t in texts]
            assert [hash(r) for r in got] == [hash(BrickRef.parse(t)) for t in texts]
    assert refs([], []) == []

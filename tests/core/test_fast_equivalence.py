"""The fast paths of planning and reading give what the slow ones gave: each is compared with
the code it replaced (kept here as the reference) on random inputs, the awkward ones included
(node names and brick paths given twice, bricks listed twice or naming nothing, several
brick speeds, nesting past the limit)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Iterable

import pytest

from brickyard.core import calibration, jsonparse, topofile
from brickyard.core.calibration import prior_params
from brickyard.core.planmodel import TopologyIndex
from brickyard.core.strictjson import Reader
from brickyard.core.topology import Brick, BrickRef, Client, Node, Topology, Volume


# ---- jsonparse._depth_within ---------------------------------------------------------------

def _depth_within_before(data: Any, max_depth: int) -> bool:
    """The level walk before it took a level's value types at C speed."""
    level, depth = [data], 0
    while level:
        below: list = []
        for value in level:
            if type(value) is list:
                values: Iterable = value
            elif isinstance(value, dict):
                values = value.values()
            else:
                continue
            if depth >= max_depth:
                return False
            kinds = set(map(type, values))
            if not kinds <= jsonparse._SCALARS and any(issubclass(k, (list, dict)) for k in kinds):
                below.extend(v for v in values if type(v) is list or isinstance(v, dict))
        level, depth = below, depth + 1
    return True


def _random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth <= 0 or roll < 0.3:
        return rng.choice([1, 2.5, "x", None, True, jsonparse.INVALID, jsonparse._Bad("why")])
    if roll < 0.6:
        return [_random_value(rng, depth - rng.randint(1, 2)) for _ in range(rng.randint(0, 3))]
    obj = jsonparse._Object((f"k{i}", _random_value(rng, depth - rng.randint(1, 2))) for i in range(rng.randint(0, 3)))
    obj.duplicates = ()
    return obj


def _chain(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


def test_depth_check_answers_as_the_walk_it_replaced():
    for seed in range(300):
        rng = random.Random(seed)
        data = _random_value(rng, rng.randint(0, 12))
        for limit in (0, 1, 2, 3, 5, 8, 64):
            assert jsonparse._depth_within(data, limit) == _depth_within_before(data, limit), (seed, limit)


@pytest.mark.parametrize("depth", [0, 1, 2, 63, 64, 65, 70])
def test_depth_check_at_the_limit(depth):
    for leaf in (1, [], {}, [1, "a"], {"x": None}):
        data = {"nodes": [{"bricks": [_chain(depth, leaf)] * 3}], "name": "t"}
        assert jsonparse._depth_within(data, 64) == _depth_within_before(data, 64)


# ---- calibration.prior_params with the plan's index -----------------------------------------

def _random_topology(rng: random.Random) -> tuple[Topology, list[BrickRef]]:
    names = [f"n{i}" for i in range(rng.randint(1, 6))]
    if rng.random() < 0.2:
        names.append(rng.choice(names))                     # a node name given twice
    speeds = rng.choice([[2e8], [2e8, 3e8], [None], [None, 2e8], [0.0, 2e8], [1.5e8, 1.5e8, 4e8]])
    topo = Topology(name="t")
    for name in names:
        node = Node(name, nic_gbps=rng.choice([None, 10.0, 25.0]))
        paths = [f"/b{j}" for j in range(rng.randint(0, 5))]
        if paths and rng.random() < 0.15:
            paths.append(rng.choice(paths))                  # a path listed twice on one node
        node.bricks = [Brick(p, 10**12, speed_bps=rng.choice(speeds)) for p in paths]
        topo.nodes.append(node)
    if rng.random() < 0.3:
        topo.clients.append(Client("c1", nic_gbps=rng.choice([None, 1.0])))
    refs = [BrickRef(n.name, b.path) for n in topo.nodes for b in n.bricks]
    rng.shuffle(refs)
    refs = refs[:rng.randint(0, len(refs))]
    if refs and rng.random() < 0.2:
        refs.append(rng.choice(refs))                        # a brick listed twice
    if rng.random() < 0.2:
        refs.append(BrickRef("nowhere", "/b0"))              # a brick of no node
    if rng.random() < 0.2:
        refs.append(BrickRef(names[0], "/missing"))
    return topo, refs


def test_priors_from_the_plans_index_are_the_priors_from_the_topology():
    for seed in range(400):
        topo, refs = _random_topology(random.Random(seed))
        index = TopologyIndex(topo)
        index.resolve(refs)          # as the plan's layout check leaves it
        slow = prior_params(topo, refs)
        fast = prior_params(topo, refs, index)
        assert list(fast.values.items()) == list(slow.values.items()), seed


def test_priors_of_one_speed_take_the_fast_way(monkeypatch):
    topo = Topology(name="t", nodes=[Node(f"n{i}", nic_gbps=10.0, bricks=[Brick(f"/b{j}", 10**12, speed_bps=2e8)
                                                                        for j in range(3)]) for i in range(4)])
    refs = [BrickRef(n.name, b.path) for n in topo.nodes for b in n.bricks]
    seen = []
    monkeypatch.setattr(calibration, "Counter", lambda *a: seen.append(a) or Counter(*a))
    prior_params(topo, refs, TopologyIndex(topo))
    assert seen == []            # no walk of every node's bricks, no count of the speeds
    prior_params(topo, refs)
    assert seen


# ---- topofile: bricks and references ---------------------------------------------------------

def _check_references_before(r: Reader, topo: Topology) -> None:
    """topofile._check_references before it kept each node's paths in a set of its own
    (the part that changed: bricks and the references to them)."""
    bricks: set[tuple[str, str]] = set()
    for i, node in enumerate(topo.nodes):
        seen_paths: set[str] = set()
        for j, brick in enumerate(node.bricks):
            here = f"nodes[{i}].bricks[{j}].path"
            if not brick.path.startswith("/"):
                r.problem(here, f"must be an absolute path, not {brick.path!r}")
            if brick.path in seen_paths:
                r.problem(here, f"node {node.name!r} lists {brick.path!r} twice")
            seen_paths.add(brick.path)
            bricks.add((node.name, brick.path))
    for i, volume in enumerate(topo.volumes):
        for k, ref in enumerate(volume.bricks):
            if (ref.node, ref.path) not in bricks:
                r.problem(f"volumes[{i}].bricks[{k}]", f"{ref} is not a brick of any node")
        ta = volume.thin_arbiter_brick
        if ta is not None and (ta.node, ta.path) not in bricks:
            r.problem(f"volumes[{i}].thin_arbiter_brick", f"{ta} is not a brick of any node")


def test_reference_problems_are_those_named_before():
    for seed in range(200):
        rng = random.Random(seed)
        topo, refs = _random_topology(rng)
        for node in topo.nodes:
            for brick in node.bricks:
                if rng.random() < 0.05:
                    brick.path = brick.path.lstrip("/")          # a relative path
        ta = rng.choice([None, BrickRef("n0", "/b1"), BrickRef("nowhere", "/x")])
        topo.volumes = [Volume("v", bricks=refs, thin_arbiter_brick=ta)]
        before, now = Reader(), Reader()
        _check_references_before(before, topo)
        topofile._check_references(now, topo)
        wanted = [p for p in now.problems if "bricks[" in p.path or p.path.endswith("thin_arbiter_brick")]
        assert wanted == before.problems, seed


def test_bricks_read_from_a_file_are_the_bricks_their_constructor_makes(tmp_path):
    text = json.dumps({"format_version": 2, "name": "t",
                       "nodes": [{"name": "n1", "bricks": [
                           {"path": "/b1", "size_bytes": 5, "filesystem": "/dev/sdb", "mount": "/b", "fs_type": "ext4",
                            "disk_kind": "SSD", "speed_bps": 1e8, "free_bytes": 3, "free_measured": "2026-01-01T00:00:00Z"},
                           {"speed_bps": None, "size_bytes": 7, "path": "/b2"},           # defaults, another order
                       ]}]})
    topo = topofile.loads(text)
    made = [Brick("/b1", 5, "/dev/sdb", "/b", "ext4", "SSD", 1e8, 3, "2026-01-01T00:00:00Z"), Brick("/b2", 7)]
    assert topo.nodes[0].bricks == made
    for got, want in zip(topo.nodes[0].bricks, made):
        assert vars(got) == vars(want) and type(got) is Brick


def test_a_version_1_brick_gets_the_version_2_defaults():
    text = json.dumps({"format_version": 1, "name": "t",
                       "nodes": [{"name": "n1", "bricks": [{"path": "/b1", "size_bytes": 5}]}]})
    brick = topofile.loads(text).nodes[0].bricks[0]
    assert vars(brick) == vars(Brick("/b1", 5))


# ---- lazystats ---------------------------------------------------------------------------------

def _outcome(fn, data):
    try:
        return fn(data)
    except (OverflowError, ValueError) as exc:   # fsum's intermediate overflow, both ways
        return type(exc)


def test_lazy_statistics_give_what_statistics_gives():
    import statistics

    from brickyard.core import lazystats

    rng = random.Random(7)
    for n in range(1, 40):
        data = [rng.choice([rng.random() * 10**rng.randint(-5, 9), 1e308, -1e308, 3, 0.1]) for _ in range(n)]
        assert lazystats.median(list(data)) == statistics.median(list(data))
        for shaped in (data, tuple(data), iter(data)):
            assert _outcome(lazystats.fmean, shaped) == _outcome(statistics.fmean, list(data))
    with pytest.raises(statistics.StatisticsError):
        lazystats.fmean([])

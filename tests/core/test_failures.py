"""Set and volume states under failures, client quorum, and failures survived."""

import pytest
from hypothesis import given, settings, strategies as st

from brickyard.core.failures import FailureSpecError, resolve_failures
from brickyard.core.plan import plan_volume
from brickyard.core.topology import BrickRef, VolumeType as T

from ._topo import build, refs, volume


def plan(topo, vol, *fail):
    return plan_volume(topo, vol, fail)


def test_replica_3_losing_one_node_is_degraded_and_still_writes():
    topo = build({"a": 1, "b": 1, "c": 1})
    r = plan(topo, volume(topo, T.REPLICATE, replica=3), "b")
    assert (r.state.state, r.state.readable, r.state.writable) == ("DEGRADED", True, True)


def test_replica_2_has_no_client_quorum_by_default():
    # AFR enables quorum "auto" by itself only for sets of more than two bricks.
    topo = build({"a": 1, "b": 1})
    vol = volume(topo, T.REPLICATE, replica=2)
    for node in ("a", "b"):
        s = plan(topo, vol, node).state
        assert (s.state, s.readable, s.writable) == ("DEGRADED", True, True)


def test_quorum_auto_on_replica_2_needs_the_first_brick():
    topo = build({"a": 1, "b": 1})
    vol = volume(topo, T.REPLICATE, replica=2)
    vol.options["cluster.quorum-type"] = "auto"
    assert plan(topo, vol, "b").state.writable
    first = plan(topo, vol, "a").state  # since 3.13: ENOTCONN, not read-only
    assert (first.state, first.readable, first.writable) == ("DOWN", False, False)


def test_replica_3_losing_two_bricks_loses_quorum_entirely():
    topo = build({"a": 1, "b": 1, "c": 1})
    s = plan(topo, volume(topo, T.REPLICATE, replica=3), "a", "b").state
    assert (s.state, s.readable, s.writable) == ("DOWN", False, False)


def test_fixed_quorum_count():
    topo = build({"a": 1, "b": 1, "c": 1, "d": 1})
    vol = volume(topo, T.REPLICATE, replica=4)
    vol.options.update({"cluster.quorum-type": "fixed", "cluster.quorum-count": "3"})
    assert plan(topo, vol, "d").state.writable
    assert not plan(topo, vol, "c", "d").state.writable
    assert plan(topo, vol).tolerance.nodes_worst == 1


def test_arbiter_alone_reads_nothing():
    topo = build({"a": 1, "b": 1, "c": 1})
    vol = volume(topo, T.REPLICATE, replica=3, arbiter=1)
    s = plan(topo, vol, "a", "b").state
    assert (s.state, s.readable, s.writable) == ("DOWN", False, False)
    s = plan(topo, vol, "a").state
    assert (s.readable, s.writable) == (True, True)


def test_disperse_survives_redundancy_bricks_and_not_one_more():
    topo = build({f"n{i}": 1 for i in range(6)})
    vol = volume(topo, T.DISPERSE, disperse=6, redundancy=2)
    assert plan(topo, vol, "n0", "n1").state.writable
    assert plan(topo, vol, "n0", "n1", "n2").state.state == "DOWN"


def test_site_and_brick_specs_and_unknown_names():
    topo = build({"a": 1, "b": 1, "c": 1}, sites={"a": "X", "b": "X", "c": "Y"})
    vol = volume(topo, T.REPLICATE, replica=3)
    assert len(resolve_failures(topo, vol, ["site:X"])) == 2
    assert len(resolve_failures(topo, vol, ["brick:c:/data/b1/brick"])) == 1
    for bad in ("site:Z", "zz", "brick:c:/nope", "brick:nocolon"):
        with pytest.raises(FailureSpecError):
            resolve_failures(topo, vol, [bad])


def test_tolerance_of_replica_3_across_three_sites():
    topo = build({"a": 1, "b": 1, "c": 1}, sites={"a": "X", "b": "Y", "c": "Z"})
    t = plan(topo, volume(topo, T.REPLICATE, replica=3)).tolerance
    assert (t.nodes_worst, t.nodes_best, t.sites_worst, t.sites_best) == (1, 1, 1, 1)


def test_tolerance_of_distributed_replica_2():
    topo = build({f"n{i}": 1 for i in range(8)})
    vol = volume(topo, T.DISTRIBUTED_REPLICATE, replica=2)
    t = plan(topo, vol).tolerance
    assert (t.nodes_worst, t.nodes_best, t.sites_worst) == (1, 4, None)
    vol.options["cluster.quorum-type"] = "auto"  # now losing a set's first brick stops it
    t = plan(topo, vol).tolerance
    assert (t.nodes_worst, t.nodes_best) == (0, 4)


def test_tolerance_of_distributed_disperse():
    topo = build({f"n{i}": 1 for i in range(8)})
    t = plan(topo, volume(topo, T.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1)).tolerance
    assert (t.nodes_worst, t.nodes_best) == (1, 2)


def test_bricks_of_one_set_on_one_node_cut_the_tolerance():
    topo = build({"a": 2, "b": 1})
    t = plan(topo, volume(topo, T.REPLICATE, refs(topo, "node"), replica=3)).tolerance
    assert t.nodes_worst == 0


def test_greedy_best_case_matches_exhaustive_on_disjoint_sets():
    # 14 nodes > EXACT_UNITS: the greedy path; sets on disjoint nodes, so it is exact.
    topo = build({f"n{i:02}": 1 for i in range(14)})
    t = plan(topo, volume(topo, T.DISTRIBUTED_DISPERSE, disperse=7, redundancy=3)).tolerance
    assert (t.nodes_worst, t.nodes_best) == (3, 6)


@settings(max_examples=40, deadline=None)
@given(n_nodes=st.integers(3, 7), per_node=st.integers(1, 3), data=st.data())
def test_failing_one_node_never_takes_a_replica_3_set_down(n_nodes, per_node, data):
    topo = build({f"n{i}": per_node for i in range(n_nodes)})
    bricks = refs(topo, "round")
    count = len(bricks) - len(bricks) % 3
    vol = volume(topo, T.DISTRIBUTED_REPLICATE, bricks[:count], replica=3)
    r = plan_volume(topo, vol, auto_place=True)
    if not r.placement_note.startswith("Placed"):
        return
    node = data.draw(st.sampled_from([n.name for n in topo.nodes]))
    state = plan_volume(topo, r.volume, [node]).state
    assert all(s.state != "DOWN" and s.writable for s in state.sets)
    assert r.tolerance.nodes_worst >= 1


@settings(max_examples=60, deadline=None)
@given(per_node=st.lists(st.integers(1, 3), min_size=2, max_size=6),
       kind=st.sampled_from(["rep2", "rep3", "arb", "rep4", "disp", "dist"]),
       quorum=st.sampled_from(["", "auto", "none", "fixed"]), shuffle=st.randoms(use_true_random=False))
def test_tolerance_matches_brute_force_on_small_volumes(per_node, kind, quorum, shuffle):
    from itertools import combinations

    topo = build({f"n{i}": c for i, c in enumerate(per_node)})
    bricks = refs(topo, "round")
    shuffle.shuffle(bricks)
    size = {"rep2": 2, "rep3": 3, "arb": 3, "rep4": 4, "disp": 3, "dist": 1}[kind]
    bricks = bricks[:len(bricks) - len(bricks) % size]
    if not bricks:
        return
    counts = {"rep2": dict(replica=2), "rep3": dict(replica=3), "arb": dict(replica=3, arbiter=1),
              "rep4": dict(replica=4), "disp": dict(disperse=3, redundancy=1), "dist": {}}[kind]
    vtype = (T.DISTRIBUTED_DISPERSE if kind == "disp" else T.DISTRIBUTE if kind == "dist"
             else T.DISTRIBUTED_REPLICATE)
    vol = volume(topo, vtype, bricks, **counts)
    if quorum:
        vol.options["cluster.quorum-type"] = quorum
        vol.options["cluster.quorum-count"] = "2"
    r = plan_volume(topo, vol)
    nodes = sorted({b.node for b in bricks})

    def survives(dead):
        st_ = plan_volume(topo, vol, list(dead)).state
        return st_.readable and st_.writable

    fewest_fatal = min((k for k in range(1, len(nodes) + 1)
                        if any(not survives(c) for c in combinations(nodes, k))), default=len(nodes) + 1)
    most_survived = max(k for k in range(0, len(nodes) + 1) if any(survives(c) for c in combinations(nodes, k)))
    assert r.tolerance.nodes_worst == fewest_fatal - 1
    assert r.tolerance.nodes_best == most_survived


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 3), min_size=4, max_size=8),
       kind=st.sampled_from(["rep2", "rep3", "arb", "rep4", "disp", "disp5"]),
       quorum=st.sampled_from(["", "auto", "none"]), shuffle=st.randoms(use_true_random=False))
def test_greedy_best_case_is_exact_when_no_node_holds_two_sets(sizes, kind, quorum, shuffle):
    # each set on its own nodes, some holding several of its bricks (force)
    from unittest import mock

    from brickyard.core import failures

    size = {"rep2": 2, "rep3": 3, "arb": 3, "rep4": 4, "disp": 3, "disp5": 5}[kind]
    counts = {"rep2": dict(replica=2), "rep3": dict(replica=3), "arb": dict(replica=3, arbiter=1),
              "rep4": dict(replica=4), "disp": dict(disperse=3, redundancy=1),
              "disp5": dict(disperse=5, redundancy=2)}[kind]
    nodes, bricks = {}, []
    for set_no in range(2):
        members = []
        for i, c in enumerate(sizes[:size]):
            nodes[f"s{set_no}n{i}"] = c
        topo_part = [f"s{set_no}n{i}" for i, c in enumerate(sizes[:size]) for _ in range(c)]
        shuffle.shuffle(topo_part)
        members = topo_part[:size]
        bricks.append(members)
    topo = build(nodes)
    used = {}
    refs_ = []
    for members in bricks:
        for n in members:
            used[n] = used.get(n, 0) + 1
            refs_.append(BrickRef(n, f"/data/b{used[n]}/brick"))
    if any(len(m) < size for m in bricks):
        return
    vtype = T.DISTRIBUTED_DISPERSE if kind.startswith("disp") else T.DISTRIBUTED_REPLICATE
    vol = volume(topo, vtype, refs_, **counts)
    if quorum:
        vol.options["cluster.quorum-type"] = quorum
    exact = plan_volume(topo, vol).tolerance
    with mock.patch.object(failures, "EXACT_UNITS", 0):
        greedy = plan_volume(topo, vol).tolerance
    assert greedy.best_exact
    assert greedy.nodes_best == exact.nodes_best


def test_alike_sets_sharing_nodes_make_the_greedy_a_lower_bound():
    # 7 pairs of nodes, each pair holding two replica-2 sets with the same nodes in the same
    # order: the tolerance sees one class of sets per pair, but every node is in two sets.
    topo = build({f"n{i:02}": 2 for i in range(14)})
    bricks = [BrickRef(f"n{p + k:02}", f"/data/b{b}/brick") for p in range(0, 14, 2) for b in (1, 2) for k in (0, 1)]
    t = plan(topo, volume(topo, T.DISTRIBUTED_REPLICATE, bricks, replica=2)).tolerance
    assert (t.nodes_worst, t.nodes_best, t.best_exact) == (1, 7, False)

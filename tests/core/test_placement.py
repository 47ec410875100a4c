"""Auto-placement: no two bricks of a set on one node when possible; spread sets over sites."""

from collections import Counter

from hypothesis import given, settings, strategies as st

from brickyard.core.placement import place
from brickyard.core.topology import Layout, VolumeType as T

from ._topo import build, refs


def test_node_by_node_order_is_fixed():
    topo = build({"a": 2, "b": 2, "c": 2})
    p = place(topo, refs(topo, "node"), Layout(T.DISTRIBUTED_REPLICATE, replica=3))
    assert p.possible
    for i in range(0, 6, 3):
        assert len({b.node for b in p.bricks[i:i + 3]}) == 3


def test_impossible_placement_says_why_in_one_sentence():
    topo = build({"a": 3, "b": 1, "c": 2})
    p = place(topo, refs(topo), Layout(T.DISTRIBUTED_REPLICATE, replica=3))
    assert p.bricks is None
    assert p.note.startswith("Impossible: node a holds 3 of the 6 bricks but there are only 2 sets of 3")
    assert p.note.count(". ") == 0


def test_sets_span_sites():
    topo = build({"n1": 1, "n2": 1, "n3": 1, "n4": 1, "f1": 1, "h1": 1},
                 sites={"n1": "N", "n2": "N", "n3": "N", "n4": "N", "f1": "F", "h1": "H"})
    p = place(topo, refs(topo), Layout(T.DISTRIBUTED_REPLICATE, replica=3))
    site = {n.name: n.site for n in topo.nodes}
    for i in (0, 3):
        assert len({site[b.node] for b in p.bricks[i:i + 3]}) == 2  # 4 of 6 bricks are in N
    topo3 = build({"a": 2, "b": 2, "c": 2}, sites={"a": "X", "b": "Y", "c": "Z"})
    p = place(topo3, refs(topo3, "node"), Layout(T.DISTRIBUTED_REPLICATE, replica=3))
    assert "Every set spans 3 sites" in p.note


def test_bad_counts_cannot_be_placed():
    topo = build({"a": 1, "b": 1})
    p = place(topo, refs(topo), Layout(T.REPLICATE, replica=3))
    assert p.bricks is None and p.note == "Impossible: 2 bricks do not make whole sets of 3."


@settings(max_examples=80, deadline=None)
@given(counts=st.lists(st.integers(1, 5), min_size=1, max_size=8),
       size=st.integers(2, 6), n_sites=st.integers(1, 3), disperse=st.booleans())
def test_placement_never_puts_two_bricks_of_a_set_on_one_node(counts, size, n_sites, disperse):
    nodes = {f"n{i}": c for i, c in enumerate(counts)}
    topo = build(nodes, sites={f"n{i}": f"s{i % n_sites}" for i in range(len(counts))})
    bricks = refs(topo, "node")
    bricks = bricks[:len(bricks) - len(bricks) % size]
    if not bricks:
        return
    if disperse and size >= 3:
        layout = Layout(T.DISTRIBUTED_DISPERSE, disperse=size, redundancy=1)
    else:
        layout = Layout(T.DISTRIBUTED_REPLICATE, replica=size)
    p = place(topo, bricks, layout)
    most = max(Counter(b.node for b in bricks).values())
    assert p.possible == (most <= len(bricks) // size)
    if p.possible:
        assert sorted(p.bricks) == sorted(bricks)
        for i in range(0, len(p.bricks), size):
            members = p.bricks[i:i + size]
            assert len({b.node for b in members}) == size
        # every site's bricks are spread as evenly over the sets as their number allows
        site = {n.name: n.site for n in topo.nodes}
        per_site = Counter(site[b.node] for b in bricks)
        n_sets = len(bricks) // size
        for s, total in per_site.items():
            in_sets = [sum(site[b.node] == s for b in p.bricks[i:i + size]) for i in range(0, len(p.bricks), size)]
            assert max(in_sets) <= -(-total // n_sets)

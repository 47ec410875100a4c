"""gluster 10's volume-create verdicts (cli-cmd-parser.c, glusterd-volume-ops.c, glusterd-utils.c)."""

import pytest
from hypothesis import given, settings, strategies as st

from brickyard.core.layout import (
    auto_redundancy, candidate_layouts, check_volume, resolve, volname_problem,
)
from brickyard.core.topology import BrickRef, Layout, VolumeType as T

from ._topo import build, refs, volume


def codes(check, severity=None):
    return [f.code for f in check.findings if severity is None or f.severity == severity]


def test_replica_3_with_6_bricks_is_created_as_distributed_replicate_and_the_mismatch_is_flagged():
    res, findings = resolve(Layout(T.REPLICATE, replica=3), 6)
    assert res.gluster_type is T.DISTRIBUTED_REPLICATE
    assert res.describe() == "2 x 3 = 6"
    assert [f.code for f in findings] == ["type-differs"]
    assert "Distributed-Replicate" in findings[0].message


def test_replica_2_arbiter_1_is_accepted_as_replica_3_arbiter_1():
    res, findings = resolve(Layout(T.REPLICATE, replica=2, arbiter=1), 3)
    assert (res.replica, res.arbiter, res.set_size) == (3, 1, 3)
    assert res.create_words() == ["replica", "3", "arbiter", "1"]
    assert res.describe() == "1 x (2 + 1) = 3"
    assert findings == []


@pytest.mark.parametrize("replica,arbiter", [(4, 1), (3, 2)])
def test_other_arbiter_configurations_are_refused(replica, arbiter):
    _, findings = resolve(Layout(T.REPLICATE, replica=replica, arbiter=arbiter), 12)
    assert "arbiter-count" in [f.code for f in findings if f.severity == "error"]


def test_replica_2_asks_the_split_brain_question():
    _, findings = resolve(Layout(T.REPLICATE, replica=2), 2)
    (f,) = findings
    assert (f.severity, f.code) == ("warning", "replica-2-split-brain")
    assert f.message.startswith("Replica 2 volumes are prone to split-brain.")


def test_brick_count_must_be_a_multiple_of_the_set_size():
    _, findings = resolve(Layout(T.DISTRIBUTED_REPLICATE, replica=3), 7)
    assert any(f.message.startswith("Failed to create volume files") and "(7)" in f.message
               for f in findings)
    _, findings = resolve(Layout(T.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1), 10)
    # for disperse the CLI refuses first, in its own words (seen on gluster 10.3)
    assert any(f.message.startswith("number of bricks is not a multiple of disperse count")
               for f in findings)


def test_replica_1_is_refused():
    _, findings = resolve(Layout(T.REPLICATE, replica=1), 2)
    assert "replica count should be greater than 1" in [f.message for f in findings]


@pytest.mark.parametrize("disperse,redundancy,question", [
    (3, 1, None), (4, 1, "There isn't an optimal"), (5, 1, None), (6, 2, "optimal redundancy for this configuration is 2"),
    (7, 3, "optimal redundancy for this configuration is 3"), (10, 2, "optimal redundancy for this configuration is 2"),
    (11, 3, "is 3"), (12, 4, "is 4"),
])
def test_gluster_chooses_redundancy_when_it_is_omitted(disperse, redundancy, question):
    got, asked = auto_redundancy(disperse)
    assert got == redundancy
    assert (asked is None) if question is None else (question in asked)


def test_disperse_rules_and_their_words():
    def msgs(**kw):
        return [(f.severity, f.message) for f in resolve(Layout(T.DISPERSE, **kw), 6)[1]]
    assert ("error", "disperse count must be greater than 2") in msgs(disperse=2)
    words = "redundancy must be greater than or equal to 1 and less than 3 for a disperse 6 volume"
    # gluster 10.3 refuses redundancy 0 while reading the word, before asking anything
    assert msgs(disperse=6, redundancy=0) == [("error", "redundancy must be greater than 0")]
    assert ("error", words) in msgs(disperse=6, redundancy=3)
    assert msgs(disperse=6, redundancy=2) == []  # 4 data bricks: a power of two
    assert ("warning", "This configuration is not optimal on most workloads. Do you want to use it ?") \
        in msgs(disperse=6, redundancy=1)


def test_disperse_without_count_takes_every_brick():
    res, findings = resolve(Layout(T.DISPERSE), 6)
    assert (res.disperse, res.redundancy) == (6, 2)
    _, findings = resolve(Layout(T.DISPERSE), 2)
    assert "number of bricks must be greater than 2" in [f.message for f in findings]


def test_more_than_16_data_bricks_is_created_but_flagged():
    _, findings = resolve(Layout(T.DISPERSE, disperse=20, redundancy=2), 20)
    assert [f.severity for f in findings if f.code == "disperse-too-many-data-bricks"] == ["warning"]
    _, findings = resolve(Layout(T.DISPERSE, disperse=18, redundancy=2), 18)
    assert "disperse-too-many-data-bricks" not in [f.code for f in findings]


@pytest.mark.parametrize("name,ok", [
    ("gv0", True), ("my-vol_2", True), ("all", False), ("force", False), ("a/b", False),
    ("-x", False), ("vol.1", False), ("help", False), ("x" * 222, True), ("x" * 223, False),
    ("x" * 255, False), ("x" * 256, False), ("x" * 257, False), ("", False),
])
def test_volume_names(name, ok):
    assert (volname_problem(name) is None) is ok


def test_bricks_of_one_set_on_one_server_need_force():
    topo = build({"n1": 2, "n2": 1})
    bricks = [BrickRef("n1", "/data/b1/brick"), BrickRef("n1", "/data/b2/brick"), BrickRef("n2", "/data/b1/brick")]
    check = check_volume(topo, volume(topo, T.REPLICATE, bricks, replica=3))
    (f,) = [f for f in check.findings if f.code == "same-server-set"]
    assert f.severity == "needs-force"
    assert f.message.startswith("Multiple bricks of a replicate volume are present on the same server.")
    assert set(f.bricks) == set(bricks[:2])


def test_two_sets_sharing_servers_is_fine():
    topo = build({"n1": 2, "n2": 2})
    check = check_volume(topo, volume(topo, T.DISTRIBUTED_REPLICATE, refs(topo, "round"), replica=2))
    assert codes(check) == ["replica-2-split-brain"]


def test_distribute_bricks_on_one_server_need_no_force():
    topo = build({"n1": 3})
    assert codes(check_volume(topo, volume(topo, T.DISTRIBUTE))) == []


def test_root_partition_and_mount_point_need_force():
    topo = build({"n1": 1, "n2": 1, "n3": 1})
    topo.nodes[0].bricks[0].mount = "/"
    topo.nodes[1].bricks[0].mount = "/data/b1/brick"
    check = check_volume(topo, volume(topo, T.DISPERSE, disperse=3, redundancy=1))
    found = {f.code: f for f in check.findings}
    assert found["brick-in-root-partition"].severity == "needs-force"
    assert "is being created in the root partition" in found["brick-in-root-partition"].message
    assert found["brick-is-mount-point"].severity == "needs-force"
    assert "is a mount point" in found["brick-is-mount-point"].message


def test_duplicate_nested_unknown_and_localhost_bricks_are_refused():
    topo = build({"n1": 1, "n2": 1})
    topo.nodes[0].bricks.append(type(topo.nodes[0].bricks[0])("/data/b1/brick/inner", 10))
    bricks = [BrickRef("n1", "/data/b1/brick"), BrickRef("n1", "/data/b1/brick/"),
              BrickRef("n1", "/data/b1/brick/inner"), BrickRef("n9", "/x"), BrickRef("localhost", "/y"),
              BrickRef("n2", "relative")]
    check = check_volume(topo, volume(topo, T.DISTRIBUTE, bricks))
    errors = codes(check, "error")
    for code in ("duplicate-brick", "unknown-brick", "brick-localhost", "brick-path"):
        assert code in errors
    assert "Found duplicate exports n1:/data/b1/brick/" in [f.message for f in check.findings]
    # nested in one volume: glusterd refuses the inner brick only after its container, and force passes it
    assert "brick-inside-brick" in codes(check, "needs-force")


def test_a_brick_listed_before_the_brick_containing_it_is_accepted_with_a_warning():
    topo = build({"n1": 1, "n2": 1})
    topo.nodes[0].bricks.append(type(topo.nodes[0].bricks[0])("/data/b1/brick/inner", 10))
    bricks = [BrickRef("n1", "/data/b1/brick/inner"), BrickRef("n1", "/data/b1/brick")]
    check = check_volume(topo, volume(topo, T.DISTRIBUTE, bricks))
    assert codes(check, "error") == [] and codes(check, "needs-force") == []
    assert codes(check, "warning") == ["brick-contains-brick"]


def test_a_brick_of_another_volume_is_refused():
    topo = build({"n1": 1, "n2": 1})
    volume(topo, T.DISTRIBUTE, name="other")
    check = check_volume(topo, volume(topo, T.DISTRIBUTE, name="gv1"))
    assert codes(check, "error").count("brick-in-use") == 2


def test_candidate_layouts_are_all_accepted_and_cover_the_options():
    layouts = candidate_layouts(12)
    for lay in layouts:
        res, findings = resolve(lay, 12)
        assert not [f for f in findings if f.severity == "error"], lay
    kinds = {(l.type, l.replica, l.arbiter, l.disperse, l.redundancy) for l in layouts}
    assert (T.DISTRIBUTED_REPLICATE, 3, 1, None, None) in kinds
    assert (T.DISTRIBUTED_DISPERSE, None, 0, 6, 2) in kinds
    assert (T.DISPERSE, None, 0, 12, 5) in kinds
    assert (T.REPLICATE, 12, 0, None, None) in kinds
    assert not any(l.disperse == 12 and l.redundancy == 6 for l in layouts)


def test_two_names_for_one_address_are_one_server():
    topo = build({"a": 1, "a-alias": 1, "c": 1})
    topo.nodes[0].address = topo.nodes[1].address = "10.0.0.1"
    check = check_volume(topo, volume(topo, T.REPLICATE, replica=3))
    (f,) = [f for f in check.findings if f.code == "same-server-set"]
    assert {b.node for b in f.bricks} == {"a", "a-alias"}


@settings(max_examples=40, deadline=None)
@given(mounts=st.lists(st.sampled_from(["", "/", "/data", "/data/b1", "/data/b1/brick", "/data/b1/brick/"]),
                       min_size=6, max_size=6),
       order=st.sampled_from(["round", "node"]), replica=st.sampled_from([2, 3]))
def test_the_quick_pass_for_clean_volumes_says_what_the_brick_walk_says(mounts, order, replica):
    from unittest import mock

    from brickyard.core import brickrules
    from brickyard.core.planmodel import TopologyIndex

    topo = build({"a": 2, "b": 2, "c": 2})
    for brick, mount in zip([b for n in topo.nodes for b in n.bricks], mounts):
        brick.mount = mount
    vol = volume(topo, T.DISTRIBUTED_REPLICATE, refs(topo, order)[:6 - 6 % replica], replica=replica)
    res, _ = resolve(vol.layout, len(vol.bricks))
    sets = tuple(tuple(vol.bricks[i:i + replica]) for i in range(0, len(vol.bricks), replica))
    quick = brickrules.brick_findings(topo, vol, res, sets, TopologyIndex(topo))
    with mock.patch.object(brickrules, "_clean_volume_findings", lambda *a: None):
        walked = brickrules.brick_findings(topo, vol, res, sets, TopologyIndex(topo))
    assert quick == walked


@pytest.mark.parametrize("path, words", [
    ("/data/b 1", "cut at the first space"), ("/data/b\t1", "cut at the first space"),
    ('/data/b"1', "volume start fails"), ("/data/b`1", "volume start fails"), ("/data/b\\1", "volume start fails"),
    ("/data/b:1", "Wrong brick type"),
])
def test_brick_paths_gluster_cannot_serve_are_refused(path, words):
    # each character was tried on gluster 10.3: create accepts, then start fails or serves another path
    topo = build({"n1": 1, "n2": 1})
    topo.nodes[0].bricks.append(type(topo.nodes[0].bricks[0])(path, 10))
    check = check_volume(topo, volume(topo, T.DISTRIBUTE, [BrickRef("n1", path), BrickRef("n2", "/data/b1/brick")]))
    found = [f for f in check.findings if f.code == "brick-path-chars"]
    assert found and found[0].severity == "error" and words in found[0].message


@pytest.mark.parametrize("path", ["/data/x;touch${IFS}canary", "/data/$(id)", "/data/a'b", "/data/[x]"])
def test_brick_paths_gluster_serves_pass(path):
    topo = build({"n1": 1, "n2": 1})
    topo.nodes[0].bricks.append(type(topo.nodes[0].bricks[0])(path, 10))
    check = check_volume(topo, volume(topo, T.DISTRIBUTE, [BrickRef("n1", path), BrickRef("n2", "/data/b1/brick")]))
    assert not [f for f in check.findings if f.code == "brick-path-chars"]

"""Layouts gluster 10.3 refuses: refused from a file as from the what-if flags, in gluster's
own words, and nothing else shown as if the volume existed (issue 10, items 12, 13, 14, 17).

Every message quoted here was printed by gluster 10.3 on Brickyard's lab for the same words."""

import json

import pytest

from brickyard.core import topofile
from brickyard.core.layout import resolve
from brickyard.core.names import brick_volfile, name_findings, volname_create_max, volname_problem
from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Topology, Volume, VolumeType as T

from ._topo import build, volume


def _from_file(tmp_path, **counts):
    """A volume read back from a topology file with these fields (what a hand edit can write)."""
    topo = build({"a": 2, "b": 2, "c": 2})
    doc = topofile.to_dict(topo)
    bricks = [f"{n}:/data/b{i}/brick" for i in (1, 2) for n in "abc"]
    doc["volumes"] = [{"name": "gv0", "bricks": bricks, **counts}]
    path = tmp_path / "t.brickyard.json"
    path.write_text(json.dumps(doc))
    loaded = topofile.load(path)
    return loaded, loaded.volumes[0]


@pytest.mark.parametrize("counts,words", [
    ({"type": "distribute", "arbiter": 1}, "arbiter option must be preceded by replica option."),
    ({"type": "disperse", "disperse": 3, "arbiter": 1}, "arbiter option must be preceded by replica option."),
    ({"type": "replicate", "replica": 2, "disperse": 3}, "replicated-dispersed volume is not supported"),
    ({"type": "distributed-replicate", "replica": 3, "redundancy": 1},
     "replicated-dispersed volume is not supported"),
    ({"type": "distributed-disperse", "disperse": 3, "replica": 2}, "replicated-dispersed volume is not supported"),
    ({"type": "distribute", "replica": 2}, "A distribute volume has no replica count"),
    ({"type": "replicate", "replica": 0}, "replica count should be greater than 1"),
    ({"type": "distributed-replicate", "replica": 0, "arbiter": 1}, "replica count should be greater than 1"),
    ({"type": "disperse", "disperse": 3, "redundancy": 0}, "redundancy must be greater than 0"),
    ({"type": "replicate", "replica": 4, "arbiter": 1},
     "For arbiter configuration, replica count must be 2 and arbiter count must be 1. "
     "The 3rd brick of the replica will be the arbiter"),
])
def test_counts_a_file_holds_are_refused_in_glusters_words_never_dropped(tmp_path, counts, words):
    topo, vol = _from_file(tmp_path, **counts)
    r = plan_volume(topo, vol)
    assert r.refused and not r.valid
    assert any(f.message.startswith(words) for f in r.errors), [f.message for f in r.findings]
    # nothing that looks like a volume: no sets, figures, state, estimate or command to paste
    assert (r.sets, r.capacity, r.tolerance, r.state, r.estimate, r.commands) == ((), None, None, None, None, ())
    doc = r.to_json()
    assert doc["refused"] and doc["usable_bytes"] is None and doc["commands"] == [] and doc["state"] is None


def test_eight_bricks_as_replica_2_arbiter_1_show_no_sets_capacity_or_tolerance():
    topo = build({f"n{i}": 1 for i in range(8)})
    r = plan_volume(topo, volume(topo, T.DISTRIBUTED_REPLICATE, replica=2, arbiter=1))
    assert r.refused
    assert [f.code for f in r.errors] == ["not-multiple"]
    # the old plan also said "gluster creates 2 x (2 + 1) = 8" and showed a third set of 2 bricks
    assert not any(f.code == "type-differs" for f in r.findings)
    assert r.sets == () and r.capacity is None and r.tolerance is None


def test_nine_bricks_on_disperse_4_is_not_a_volume_that_is_up():
    topo = build({f"n{i}": 1 for i in range(9)})
    r = plan_volume(topo, volume(topo, T.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1), ["n0"])
    assert r.refused and r.state is None
    assert r.errors[0].message.startswith("number of bricks is not a multiple of disperse count")


def test_a_refused_option_withholds_the_commands_but_not_the_volume():
    topo = build({"a": 1, "b": 1, "c": 1})
    vol = volume(topo, T.REPLICATE, replica=3)
    vol.options["performance.write-behind"] = "perhaps"
    r = plan_volume(topo, vol)
    assert r.errors and not r.refused
    assert r.capacity.usable_bytes == 10**12 and r.commands == ()


@pytest.mark.parametrize("layout,count,words", [
    # the CLI refuses a brick count that is not a multiple of the disperse count itself
    (Layout(T.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1), 5,
     "number of bricks is not a multiple of disperse count"),
    # but passes a replica count that does not divide the bricks on to glusterd
    (Layout(T.DISTRIBUTED_REPLICATE, replica=3), 4, "Failed to create volume files"),
    (Layout(T.REPLICATE, replica=2, arbiter=2), 3,
     "For arbiter configuration, replica count must be 2 and arbiter count must be 1."),
    (Layout(T.DISPERSE, disperse=3, redundancy=0), 3, "redundancy must be greater than 0"),
])
def test_count_messages_are_glusters(layout, count, words):
    _, findings = resolve(layout, count)
    errors = [f.message for f in findings if f.severity == "error"]
    assert errors and errors[0].startswith(words)


def _node_topo(*names):
    topo = Topology(name="t")
    for name in names:
        topo.nodes.append(Node(name, bricks=[Brick("/srv/brick1/t", 10**9, filesystem="fs", mount="/srv/brick1")]))
    return topo


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "0.1.2.3", "0.0.0.0"])
def test_loopback_hosts_are_refused_in_glusters_words(host):
    topo = _node_topo(host, "b")
    vol = Volume("gv0", Layout(T.DISTRIBUTE), [BrickRef(host, "/srv/brick1/t"), BrickRef("b", "/srv/brick1/t")])
    topo.volumes.append(vol)
    r = plan_volume(topo, vol)
    (error,) = r.errors
    assert error.message.startswith("Please provide a valid hostname/ip other than localhost, 127.0.0.1 or "
                                    "loopback address (0.0.0.0 to 0.255.255.255).")


def test_a_brick_of_an_existing_volume_is_not_available_in_glusters_words():
    topo = _node_topo("a")
    topo.volumes.append(Volume("old", Layout(T.DISTRIBUTE), [BrickRef("a", "/srv/brick1/t")]))
    vol = Volume("new", Layout(T.DISTRIBUTE), [BrickRef("a", "/srv/brick1/t")])
    r = plan_volume(topo, vol)
    assert r.errors[0].message.startswith(
        "Brick: a:/srv/brick1/t not available. Brick may be containing or be contained by an existing brick.")


# ---- item 13: names and the file names glusterd derives from them (boundaries seen on the lab)

def test_the_longest_volume_name_gluster_creates_is_222_characters():
    assert volname_create_max("tcp") == 222 and volname_create_max("rdma") == 221
    assert volname_problem("v" * 222) is None
    assert "at most 222" in volname_problem("v" * 223) and "Failed to create volume files" in volname_problem("v" * 223)
    assert "brick path HOST:PATH is too long." in volname_problem("v" * 256)
    assert volname_problem("v" * 257) == "Volume name exceeds 256 characters."
    assert volname_problem("help") == '"help" cannot be the name of a volume.'


def test_brick_volfile_names_follow_glusterd():
    assert brick_volfile("gv0", BrickRef("node1", "/srv/brick1/t")) == "gv0.node1.srv-brick1-t.vol"


def test_a_brick_volfile_name_too_long_for_the_check_or_for_its_tmp_file():
    ref = BrickRef("node1", "/srv/brick1/" + "d" * 60)
    # volfile NAME.node1.srv-brick1-ddd….vol: the name's length + 82 characters
    assert len(brick_volfile("n" * 169, ref)) == 251
    assert name_findings("n" * 169, [ref]) == []                     # 251 + .tmp = 255
    (f,) = name_findings("n" * 170, [ref])                            # 252 + .tmp > 255
    assert f.code == "volfile-name-too-long" and f.message.startswith("Failed to create volume files")
    assert name_findings("n" * 172, [ref])[0].code == "volfile-name-too-long"
    (f,) = name_findings("n" * 173, [ref])                            # "/" + 255: glusterd's check
    assert f.message.startswith(f"Volume file path for volume {'n' * 173} and brick path {ref} is too long.")
    (f,) = name_findings("gv0", [BrickRef("node1", "/srv/" + "x" * 256)])
    assert f.message.startswith("brick path node1:/srv/") and "is too long." in f.message


def test_plan_refuses_a_volume_whose_files_glusterd_cannot_name(tmp_path):
    topo = _node_topo("node1")
    topo.nodes[0].bricks[0].path = "/srv/brick1/" + "d" * 60
    vol = Volume("n" * 170, Layout(T.DISTRIBUTE), [BrickRef("node1", "/srv/brick1/" + "d" * 60)])
    topo.volumes.append(vol)
    r = plan_volume(topo, vol)
    assert r.refused and r.errors[0].code == "volfile-name-too-long"


def test_glusterd_checks_brick_volfile_names_before_it_writes_any_volfile():
    ref = BrickRef("node1", "/srv/brick1/bycase45")   # volfile: the name's length + 30
    # 225 + 30 = 255: the staging check speaks first, though the name alone is too long too
    (f,) = name_findings("w" * 225, [ref])
    assert f.message.startswith(f"Volume file path for volume {'w' * 225} and brick path {ref} is too long.")
    # 223: staging passes, the commit fails on the first volfile it cannot write
    assert name_findings("w" * 223, [ref])[0].message.startswith("Failed to create volume files")
    assert name_findings("w" * 200, [ref]) == []


def test_volfile_names_are_checked_brick_by_brick_among_thousands():
    # the lengths are bounded first; a finding still names the one brick whose volfile is too long
    bricks = [BrickRef(f"node{i:04}", f"/bricks/d{i % 24:02}/brick") for i in range(24000)]
    assert name_findings("gv0", bricks) == []
    long_node, long_path = BrickRef("n" * 120, "/b"), BrickRef("node1", "/" + "p" * 120)
    assert name_findings("v" * 20, [*bricks, long_node, long_path]) == []   # no brick has both
    worst = BrickRef("n" * 120, "/" + "p" * 120)
    (f,) = name_findings("v" * 20, [*bricks, worst, long_node])
    assert f.code == "volfile-path-too-long" and f.bricks == (worst,)   # 266 characters

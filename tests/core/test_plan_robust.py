"""plan_volume answers every volume the canvas can draw, however wrong, without raising."""

import json

from hypothesis import given, settings, strategies as st

from brickyard.core.plan import candidate_layouts, finish_plan, plan_volume
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType

from ._topo import build

counts = st.one_of(st.none(), st.integers(-1, 9))


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(list(VolumeType)), replica=counts, arbiter=st.integers(0, 2),
       disperse=counts, redundancy=counts,
       picks=st.lists(st.tuples(st.sampled_from(["a", "b", "c", "zz", "localhost"]),
                                st.sampled_from(["/data/b1/brick", "/data/b2/brick", "/data/b1/brick/",
                                                 "/data", "rel", "/"])), max_size=12),
       name=st.sampled_from(["gv0", "all", "-x", "a/b", ""]), force=st.booleans(),
       fail=st.lists(st.sampled_from(["a", "b", "site:S1", "brick:a:/data/b1/brick"]), max_size=3),
       auto_place=st.booleans())
def test_any_volume_gets_a_plan_and_a_json_document(kind, replica, arbiter, disperse, redundancy,
                                                     picks, name, force, fail, auto_place):
    topo = build({"a": 2, "b": 2, "c": 1}, sites={"a": "S1", "b": "S2", "c": "S2"})
    vol = Volume(name, Layout(kind, replica, arbiter, disperse, redundancy),
                 [BrickRef(n, p) for n, p in picks], force=force)
    topo.volumes.append(vol)
    fail = [f for f in fail if not f.startswith("brick:") or BrickRef("a", "/data/b1/brick") in vol.bricks]
    r = plan_volume(topo, vol, fail, auto_place=auto_place)
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["valid"] == (not r.errors and (not r.needs_force or force))
    # refused by gluster: no figures, no state, nothing runnable; otherwise all of them
    assert r.refused == any(f.severity == "error" and f.code != "volume-option" for f in r.findings)
    if r.refused:
        assert (r.sets, r.capacity, r.tolerance, r.state, r.estimate, r.commands) == ((), None, None, None, None, ())
        assert doc["usable_bytes"] is None and doc["state"] is None and doc["commands"] == []
    else:
        assert r.capacity.usable_bytes <= r.capacity.raw_bytes and r.state.sets
    if r.errors:
        assert r.commands == ()
    if r.valid:
        assert r.commands and r.commands[-1].argv[-1] == vol.name
    for layout in candidate_layouts(topo, vol.bricks):
        plan_volume(topo, Volume("gv1", layout, list(vol.bricks)))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(list(VolumeType)), replica=counts, arbiter=st.integers(0, 1), disperse=counts,
       redundancy=counts, picks=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]),
                                                   st.sampled_from(["/data/b1/brick", "/data/b2/brick", "rel"])),
                                         max_size=10),
       fail=st.lists(st.sampled_from(["a", "site:S2"]), max_size=2),
       options=st.sampled_from([{}, {"cluster.quorum-type": "none"}, {"performance.nope": "1"}]))
def test_a_draft_plan_finished_is_the_plan(kind, replica, arbiter, disperse, redundancy, picks, fail, options):
    """The canvas draws an edit on plan_volume(draft=True) and finishes it when idle: the draft
    already has everything the canvas colours by, and finish_plan gives what plan_volume does."""
    topo = build({"a": 2, "b": 2, "c": 2}, sites={"a": "S1", "b": "S2", "c": "S3"})
    vol = Volume("gv0", Layout(kind, replica, arbiter, disperse, redundancy),
                 [BrickRef(n, p) for n, p in picks], options=dict(options))
    topo.volumes.append(vol)
    whole = plan_volume(topo, vol, fail)
    draft = plan_volume(topo, vol, fail, draft=True)
    assert draft.draft and not whole.draft
    assert (draft.sets, draft.state, draft.capacity, draft.findings, draft.refused) == (
        whole.sets, whole.state, whole.capacity, whole.findings, whole.refused)
    assert draft.tolerance is None and draft.estimate is None and draft.commands == ()
    finished = finish_plan(draft)
    assert not finished.draft and finish_plan(finished) is finished
    assert finished.to_json() == whole.to_json()

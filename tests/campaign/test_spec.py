"""Campaign files: strict field-path errors before anything runs, and what a good file means."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from brickyard.campaign import spec as campaign_spec
from brickyard.campaign.spec import CampaignFileError, load
from brickyard.core import topofile
from brickyard.core.topology import Brick, Client, Node, Topology, VolumeType

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def lab_topology() -> Topology:
    topo = Topology(name="lab")
    for i in range(1, 5):
        topo.nodes.append(Node(f"node{i}", bricks=[Brick(f"/srv/brick{j}/brick", 2**30, filesystem=f"/dev/loop{j}",
                                                         mount=f"/srv/brick{j}") for j in (1, 2)]))
    topo.clients.append(Client("client1"))
    return topo


def write(tmp_path: Path, doc: dict | str, name: str = "c.campaign.json") -> Path:
    if not (tmp_path / "lab.brickyard.json").exists():
        topofile.save(lab_topology(), tmp_path / "lab.brickyard.json")
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


def good(**over) -> dict:
    doc = {"format_version": 1, "name": "t", "topology": "lab.brickyard.json",
           "layouts": [{"name": "dt8", "type": "distribute"},
                       {"name": "dt4rp2", "type": "distributed-replicate", "replica": 2}],
           "workloads": [{"workload": "dd", "params": {"block_sizes": "1M", "concurrency": "1,8"}}],
           "repeats": 2}
    doc.update(over)
    return doc


def problems(tmp_path, doc) -> list[str]:
    with pytest.raises(CampaignFileError) as err:
        load(write(tmp_path, doc))
    return [str(p) for p in err.value.problems]


def test_a_good_file_gives_one_volume_per_layout_on_the_same_bricks_mounted_on_every_client(tmp_path):
    spec = load(write(tmp_path, good()))
    assert [v.name for v in spec.layouts] == ["dt8", "dt4rp2"]
    # one brick of each node in turn: replica pairs never share a node
    assert [str(b) for b in spec.layouts[0].bricks[:5]] == [
        "node1:/srv/brick1/brick", "node2:/srv/brick1/brick", "node3:/srv/brick1/brick",
        "node4:/srv/brick1/brick", "node1:/srv/brick2/brick"]
    assert spec.layouts[0].bricks == spec.layouts[1].bricks
    assert [(m.client, m.path) for m in spec.layouts[1].mounts] == [("client1", "/mnt/brickyard-dt4rp2")]
    assert spec.workloads[0].params["repeats"] == 2     # the campaign's repeats reach the workload
    assert spec.on_failure == "stop" and spec.source == os.path.abspath(tmp_path / "c.campaign.json")
    # each layout is planned in a topology where it is the only volume (they share bricks)
    assert [v.name for v in spec.topology_for("dt4rp2").volumes] == ["dt4rp2"]
    assert spec.topology.volumes == []


def test_every_problem_is_named_by_its_field_path(tmp_path):
    doc = good(repeats=0, on_failure="panic")
    doc["layouts"].append({"name": "x y", "type": "stripe"})
    doc["workloads"][0]["params"]["concurrency"] = "0"
    doc["workloads"].append({"workload": "nosuch"})
    doc["baselines"] = [{"target": "nopath"}]
    found = problems(tmp_path, doc)
    text = "\n".join(found)
    for path in ("repeats:", "on_failure:", "layouts[2].type:", "layouts[2].name:",
                 "workloads[0].params.concurrency:", "workloads[1].workload:", "baselines[0].target:"):
        assert any(p.startswith(path) for p in found), (path, text)


def test_unknown_fields_and_wrong_types_are_refused_not_coerced(tmp_path):
    found = problems(tmp_path, good(extra=1, repeats="3"))
    assert any(p.startswith("extra: unknown field") for p in found)
    assert any(p.startswith("repeats: must be an integer") for p in found)


def test_layouts_must_use_the_same_bricks(tmp_path):
    doc = good()
    doc["layouts"][1]["bricks"] = ["node1:/srv/brick1/brick", "node2:/srv/brick1/brick"]
    assert any(p.startswith("layouts[1].bricks: must be the campaign's bricks in another order")
               for p in problems(tmp_path, doc))


def test_a_layout_gluster_refuses_without_force_says_to_add_force(tmp_path):
    doc = good(layouts=[{"name": "dp8", "type": "disperse", "disperse": 8, "redundancy": 2}])
    found = problems(tmp_path, doc)
    assert any(p.startswith("layouts[0].force: gluster refuses this layout without force") for p in found)
    doc["layouts"][0]["force"] = True
    assert load(write(tmp_path, doc)).layouts[0].layout.type is VolumeType.DISPERSE


def test_a_layout_gluster_would_refuse_is_an_error_before_anything_runs(tmp_path):
    doc = good(layouts=[{"name": "r3", "type": "distributed-replicate", "replica": 3}])   # 8 bricks ÷ 3
    assert any(p.startswith("layouts[0]: gluster would refuse this layout") for p in problems(tmp_path, doc))


def test_duplicate_keys_and_non_finite_numbers_are_refused(tmp_path):
    text = json.dumps(good())[:-1] + ', "name": "again"}'
    assert any(p.startswith("name: appears twice") for p in problems(tmp_path, text))
    text = json.dumps(good()).replace('"repeats": 2', '"repeats": NaN')
    assert any(p.startswith("repeats: NaN is not a number JSON allows") for p in problems(tmp_path, text))
    text = json.dumps(good()).replace('"repeats": 2', '"repeats": 1e999')
    assert any(p.startswith("repeats: the number 1e999 is too large") for p in problems(tmp_path, text))


def test_size_cap_and_non_regular_files(tmp_path, monkeypatch):
    monkeypatch.setattr(campaign_spec, "MAX_FILE_BYTES", 200)
    big = write(tmp_path, good(description="x" * 400))
    with pytest.raises(CampaignFileError, match="campaign file of at most 200 bytes"):
        load(big)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(CampaignFileError, match="not a regular file"):
        load(fifo)
    with pytest.raises(CampaignFileError, match="is a directory"):
        load(tmp_path)


def test_a_newer_format_version_is_named(tmp_path):
    assert any("a newer Brickyard wrote this file" in p for p in problems(tmp_path, good(format_version=2)))
    assert any(p.startswith("format_version: must be an integer") for p in problems(tmp_path, good(format_version=1.0)))


def test_a_broken_topology_is_reported_under_topology(tmp_path):
    found = problems(tmp_path, good(topology="missing.brickyard.json"))
    assert found[0].startswith("topology: missing.brickyard.json")


def test_mounts_need_a_volume_placeholder_and_a_known_client(tmp_path):
    found = problems(tmp_path, good(mounts=[{"client": "web9", "path": "/mnt/x"}]))
    assert any(p.startswith("mounts[0].client:") for p in found)
    assert any(p.startswith("mounts[0].path: must contain {volume}") for p in found)


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.campaign.json")))
def test_shipped_example_campaigns_load_and_plan(name, tmp_path):
    from brickyard.campaign.dryrun import describe

    doc = json.loads((EXAMPLES / name).read_text())
    topology = None
    if doc["topology"].startswith("/var/lib/brickyard-lab"):   # the sandbox: stand in for the lab's file
        topology = lab_topology()
    spec = load(EXAMPLES / name, topology=topology)
    dry = describe(spec)
    assert len(dry["layouts"]) == len(doc["layouts"])
    assert all(step["commands"] or "bench" in step or "hosts" in step for step in dry["steps"])


def test_a_campaign_built_in_the_app_round_trips_through_a_file(tmp_path):
    """The Compare layouts table ticks layouts of one set of bricks and picks workloads:
    ``document`` writes the same file a user would, and it loads back to the same campaign."""
    from brickyard.campaign.spec import from_data
    from brickyard.campaign.specwrite import document
    from brickyard.core.topology import Layout, Volume

    topo = lab_topology()
    bricks = load(write(tmp_path, good())).layouts[0].bricks
    swapped = bricks[1:] + bricks[:1]
    layouts = [Volume("a", Layout(VolumeType.DISTRIBUTE), list(bricks), {"performance.write-behind": "off"}),
               Volume("b", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2), list(swapped), force=True)]
    doc = document("from the window", layouts, [("dd", {"block_sizes": "1M"}), ("dd", {"block_sizes": "4M"})],
                   topology="lab.brickyard.json", repeats=3, baselines=[("client1:/var/tmp", "local disk")],
                   on_failure="retry")
    spec = from_data(doc, topology=topo)
    assert [v.name for v in spec.layouts] == ["a", "b"]
    assert spec.layout("b").bricks == swapped and spec.layout("b").force
    assert spec.layout("a").options == {"performance.write-behind": "off"} and spec.layout("b").options == {}
    assert [w.id for w in spec.workloads] == ["dd-1", "dd-2"] and spec.workloads[0].params["repeats"] == 3
    path = tmp_path / "saved.campaign.json"
    path.write_text(json.dumps(doc))
    again = load(path)
    assert [(v.name, v.layout, v.bricks) for v in again.layouts] == [(v.name, v.layout, v.bricks) for v in spec.layouts]
    assert again.baselines[0].label == "local disk" and again.on_failure == "retry"


def test_interleave_spreads_copies_of_a_layout_between_the_others():
    from brickyard.campaign.specwrite import copies_of, interleave

    doc = good(layouts=[{"name": n, "type": "distribute"} for n in ("dt8", "a", "b", "c")])
    out = interleave(doc, "dt8", 3)
    assert [lay["name"] for lay in out["layouts"]] == ["dt8", "a", "dt8-2", "b", "dt8-3", "c"]
    assert [lay["name"] for lay in doc["layouts"]] == ["dt8", "a", "b", "c"]      # the input is left alone
    assert copies_of([lay["name"] for lay in out["layouts"]], "dt8") == ("dt8", "dt8-2", "dt8-3")
    assert copies_of(["dt8", "dt8-x", "dt8rp2"], "dt8") == ("dt8",)
    # a copy may differ in its volume options (what the model check does with client io-threads)
    off = interleave(doc, "dt8", 2, lambda k: {"performance.client-io-threads": "off"})
    assert [lay["name"] for lay in off["layouts"]] == ["dt8", "a", "b", "dt8-2", "c"]
    assert off["layouts"][3] == {"name": "dt8-2", "type": "distribute",
                                 "options": {"performance.client-io-threads": "off"}}
    # more copies than other layouts: the rest at the end
    two = interleave(good(), "dt8", 4)
    assert [lay["name"] for lay in two["layouts"]] == ["dt8", "dt4rp2", "dt8-2", "dt8-3", "dt8-4"]
    for bad, words in (((doc, "nope", 3), "no layout 'nope'"), ((doc, "dt8", 1), "2 to 10 times"),
                       ((good(layouts=[{"name": "dt8", "type": "distribute"}, {"name": "dt8-2", "type": "distribute"}]),
                         "dt8", 2), "already has a layout named 'dt8-2'")):
        with pytest.raises(ValueError, match=words):
            interleave(*bad)

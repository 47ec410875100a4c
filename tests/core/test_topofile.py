import json

import jsonschema
import pytest

from brickyard.core import topofile
from brickyard.core.topofile import TopologyFileError
from brickyard.core.topology import BrickRef

from ..conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.brickyard.json"))


def test_the_three_examples_of_the_seed_write_ups_exist():
    names = {p.name.split(".")[0] for p in EXAMPLE_FILES}
    assert {"eight-node-raid5", "three-site", "two-server-12-disk"} <= names


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_load_and_save_back_byte_for_byte(path, tmp_path):
    topo = topofile.load(path)
    out = tmp_path / path.name
    topofile.save(topo, out)
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_satisfy_the_published_json_schema(path):
    schema = json.loads(topofile.SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(path.read_text()), schema)


def test_schema_rejects_what_the_loader_rejects():
    schema = json.loads(topofile.SCHEMA_PATH.read_text())
    bad = {"format_version": topofile.FORMAT_VERSION,
           "nodes": [{"name": "a", "bricks": [{"path": "rel", "size_bytes": -1}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    with pytest.raises(TopologyFileError):
        topofile.from_dict(bad)


def test_every_problem_is_reported_with_its_field_path():
    data = {
        "format_version": 1,
        "sites": [{"name": "A"}],
        "nodes": [
            {"name": "n1", "site": "Nowhere", "bricks": [{"path": "/b", "size_bytes": "14 TB"}]},
            {"name": "n1", "ssh_port": 0, "colour": "red"},
        ],
        "volumes": [{"name": "v", "type": "mirror", "bricks": ["n2:/b", "nocolon"]}],
    }
    with pytest.raises(TopologyFileError) as err:
        topofile.from_dict(data, "t.json")
    paths = {p.path for p in err.value.problems}
    assert {
        "nodes[0].bricks[0].size_bytes",
        "nodes[1].ssh_port",
        "nodes[1].colour",
        "volumes[0].type",
        "volumes[0].bricks[1]",
        "nodes[1].name",
        "nodes[0].site",
    } <= paths
    assert "volumes[0].bricks[0]" in paths  # n2:/b names no brick


def test_a_json_syntax_error_gives_its_line():
    with pytest.raises(TopologyFileError) as err:
        topofile.loads('{\n  "format_version": 1,\n  "nodes": [,]\n}', "x.json")
    assert err.value.problems[0].line == 3
    assert "x.json: line 3" in str(err.value)


def test_a_newer_format_is_refused_not_guessed():
    with pytest.raises(TopologyFileError, match="newer Brickyard"):
        topofile.from_dict({"format_version": topofile.FORMAT_VERSION + 1})


def test_a_size_is_never_coerced_from_a_float_or_bool():
    base = {"format_version": 1, "nodes": [{"name": "n", "bricks": [{"path": "/b", "size_bytes": 1.5}]}]}
    with pytest.raises(TopologyFileError, match="size_bytes"):
        topofile.from_dict(base)
    base["nodes"][0]["bricks"][0]["size_bytes"] = True
    with pytest.raises(TopologyFileError, match="size_bytes"):
        topofile.from_dict(base)


def test_save_is_atomic_and_leaves_no_temp_file_on_failure(tmp_path, monkeypatch):
    topo = topofile.load(EXAMPLE_FILES[0])
    target = tmp_path / "t.brickyard.json"
    target.write_text("original")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(topofile.os, "replace", boom)
    with pytest.raises(OSError):
        topofile.save(topo, target)
    assert target.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["t.brickyard.json"]


def test_renaming_a_node_follows_into_volumes_and_latencies():
    topo = topofile.load(EXAMPLES / "three-site.brickyard.json")
    topo.rename_node("gfs1", "nue1")
    assert topo.volumes[0].bricks[0] == BrickRef("nue1", "/srv/gluster/brick1")
    assert topo.rtt_ms("client:web1", "nue1") == pytest.approx(0.159)
    assert topo.node("gfs1") is None


def test_renaming_a_client_follows_into_mounts_and_latencies_and_refuses_a_taken_name():
    from brickyard.core.topology import Client, TopologyError

    topo = topofile.load(EXAMPLES / "three-site.brickyard.json")
    topo.rename_client("web1", "www")
    assert topo.volume("gv3").mounts[0].client == "www"
    assert topo.rtt_ms("client:www", "gfs4") == pytest.approx(0.060)
    topo.add_client(Client("other"))
    with pytest.raises(TopologyError, match="exists already"):
        topo.rename_client("www", "other")
    topofile.loads(topofile.dumps(topo))  # still a valid file: every reference resolves


@pytest.mark.parametrize("change, field", [
    (lambda t: setattr(t.nodes[0], "nic_gbps", float("inf")), "nodes[0].nic_gbps"),
    (lambda t: setattr(t.nodes[0], "nic_gbps", float("nan")), "nodes[0].nic_gbps"),
    (lambda t: setattr(t.nodes[0].bricks[0], "size_bytes", 2**70), "nodes[0].bricks[0].size_bytes"),
    (lambda t: setattr(t.nodes[0].bricks[0], "speed_bps", 1e300), "nodes[0].bricks[0].speed_bps"),
    (lambda t: setattr(t.nodes[1], "ssh_port", 70000), "nodes[1].ssh_port"),
])
def test_save_reads_its_own_text_back_and_never_writes_a_file_it_would_refuse(tmp_path, change, field):
    """issue 21 item 2: Save wrote "nic_gbps": Infinity, and `brickyard plan` then refused the file."""
    topo = topofile.load(EXAMPLE_FILES[0])
    out = tmp_path / "t.brickyard.json"
    topofile.save(topo, out)
    good = out.read_bytes()
    change(topo)
    with pytest.raises(topofile.TopologySaveError) as err:
        topofile.save(topo, out)
    assert field in err.value.report() and "was not saved" in err.value.report()
    assert out.read_bytes() == good and [p.name for p in tmp_path.iterdir()] == ["t.brickyard.json"]
    with pytest.raises(topofile.TopologySaveError):
        topofile.save(topo, tmp_path / "new.brickyard.json")
    assert not (tmp_path / "new.brickyard.json").exists()

"""Topology format 2: thin-arbiter volumes, disperse-data and measured free space, and the
migration of version 1 files (read as written, saved as version 2)."""

import json

import jsonschema
import pytest

from brickyard.core import topofile
from brickyard.core.topofile import TopologyFileError
from brickyard.core.topology import BrickRef

V1 = {
    "format_version": 1, "name": "old", "description": "",
    "sites": [], "clients": [], "latencies": [],
    "nodes": [{"name": "a", "bricks": [{"path": "/b", "size_bytes": 10, "filesystem": "fs", "mount": "/"}]},
              {"name": "b", "bricks": [{"path": "/b", "size_bytes": 10}]}],
    "volumes": [{"name": "gv0", "type": "replicate", "replica": 2, "arbiter": 0, "disperse": None,
                 "redundancy": None, "bricks": ["a:/b", "b:/b"], "options": {}, "transport": "tcp",
                 "force": False, "mounts": []}],
}


def test_a_version_1_file_migrates_on_reading_and_saves_as_version_2(tmp_path):
    schemas = {v: json.loads(p.read_text()) for v, p in topofile.SCHEMAS.items()}
    jsonschema.validate(V1, schemas[1])
    path = tmp_path / "old.brickyard.json"
    path.write_text(json.dumps(V1))
    topo = topofile.load(path)
    vol = topo.volumes[0]
    assert (vol.layout.replica, vol.layout.thin_arbiter, vol.layout.disperse_data, vol.thin_arbiter_brick) == (2, 0, None, None)
    assert topo.nodes[0].bricks[0].free_bytes is None
    topofile.save(topo, path)
    saved = json.loads(path.read_text())
    assert saved["format_version"] == 2
    jsonschema.validate(saved, schemas[2])
    assert saved["volumes"][0]["thin_arbiter"] == 0 and saved["nodes"][0]["bricks"][0]["free_bytes"] is None
    assert topofile.dumps(topofile.load(path)) == path.read_text()


@pytest.mark.parametrize("where,key,value", [
    ("volume", "thin_arbiter", 1), ("volume", "disperse_data", 2), ("brick", "free_bytes", 5),
])
def test_version_2_fields_in_a_version_1_file_are_refused(where, key, value):
    doc = json.loads(json.dumps(V1))
    (doc["volumes"][0] if where == "volume" else doc["nodes"][0]["bricks"][0])[key] = value
    with pytest.raises(TopologyFileError, match="unknown field"):
        topofile.from_dict(doc)
    doc["format_version"] = 2
    topofile.from_dict(doc)


def test_thin_arbiter_disperse_data_and_free_space_round_trip(tmp_path):
    doc = json.loads(json.dumps(V1))
    doc["format_version"] = 2
    doc["nodes"].append({"name": "w", "bricks": [{"path": "/ta", "size_bytes": 1, "free_bytes": 1,
                                                  "free_measured": "2026-11-23T14:00:00Z"}]})
    doc["volumes"][0].update(thin_arbiter=1, thin_arbiter_brick="w:/ta")
    topo = topofile.from_dict(doc)
    assert topo.volumes[0].thin_arbiter_brick == BrickRef("w", "/ta")
    assert topo.node("w").bricks[0].free_bytes == 1
    again = topofile.loads(topofile.dumps(topo))
    assert topofile.dumps(again) == topofile.dumps(topo)
    jsonschema.validate(json.loads(topofile.dumps(topo)), json.loads(topofile.SCHEMA_PATH.read_text()))


def test_a_thin_arbiter_brick_must_be_a_brick_of_a_node():
    doc = json.loads(json.dumps(V1))
    doc["format_version"] = 2
    doc["volumes"][0].update(thin_arbiter=1, thin_arbiter_brick="nowhere:/ta")
    with pytest.raises(TopologyFileError) as err:
        topofile.from_dict(doc)
    assert [p.path for p in err.value.problems] == ["volumes[0].thin_arbiter_brick"]

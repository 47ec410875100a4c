"""Every example topology loads and plans without a gluster objection."""

import json

import pytest

from brickyard.core import topofile
from brickyard.core.plan import plan_volume
from tests.conftest import EXAMPLES


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.brickyard.json")), ids=lambda p: p.name)
def test_every_example_loads_and_plans(path):
    topo = topofile.load(path)
    assert topo.volumes
    for vol in topo.volumes:
        r = plan_volume(topo, vol)
        assert r.valid, [f.message for f in r.findings]
        assert r.capacity.usable_bytes > 0
        json.dumps(r.to_json())

"""Small-file latency from the RTT (issue 23, part 2): per object = local + round trips × RTT,
on the three-site write-up's own table, and the plan's ``small_files`` for every layout."""

import pytest

from brickyard.core import latency as lat, topofile
from brickyard.core.latency import EXTRACT, LSTAT, Point
from brickyard.core.plan import plan_volume
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType as T

from .test_calibration import EXAMPLES

# The write-up: volume, the RTT each copy's site is away (client in Nuremberg), ms per object with
# one copy (files distributed over the sites) and with a copy on every site.
SITES = {"gv0": [0.06], "gv1": [0.06, 3.635], "gv2": [0.06, 25.441], "gv3": [0.06, 3.635, 26.262],
         "gv5": [0.159, 0.995]}
ONE_COPY = {"gv0": 2.47, "gv1": 19.23, "gv2": 111.93, "gv3": 88.26, "gv5": 6.90}
EVERY_COPY = {"gv0": 2.47, "gv1": 47.83, "gv2": 293.39, "gv3": 294.38, "gv5": 16.77}


def rtt(name, kind):
    nodes = {f"s{i}": r for i, r in enumerate(SITES[name])}
    sets = [[n] for n in nodes] if kind == "distribute" else [list(nodes)]
    return lat.layout_rtt(kind, sets, nodes, EXTRACT)


def test_calibrated_on_two_volumes_of_the_write_up_it_predicts_the_others_within_25_percent():
    points = [Point("distribute", EXTRACT, rtt(v, "distribute"), ONE_COPY[v], v) for v in ("gv0", "gv1")]
    points += [Point("replica", EXTRACT, rtt(v, "replica"), EVERY_COPY[v], v) for v in ("gv0", "gv1")]
    model = lat.fit(points)
    one, every = model.cost("distribute", EXTRACT), model.cost("replica", EXTRACT)
    assert one.source == every.source == "fitted"
    assert one.round_trips == pytest.approx(8.5, abs=0.3) and every.round_trips == pytest.approx(12.5, abs=0.3)
    for v in ("gv2", "gv3", "gv5"):
        for kind, table in (("distribute", ONE_COPY), ("replica", EVERY_COPY)):
            fig = model.predict(kind, EXTRACT, rtt(v, kind))
            assert fig.per_object_ms == pytest.approx(table[v], rel=0.25), (v, kind, fig.per_object_ms, table[v])


def test_a_replicated_set_waits_for_its_slowest_copy_and_files_spread_over_distributed_bricks():
    rtts = {"near": 1.0, "far": 21.0}
    assert lat.layout_rtt("replica", [["near", "far"]], rtts, EXTRACT) == 21.0
    assert lat.layout_rtt("replica", [["near", "far"]], rtts, LSTAT) == 21.0
    assert lat.layout_rtt("distribute", [["near"], ["far"]], rtts, LSTAT) == 11.0
    # an extract's directories are made on every brick: they wait on the farthest
    mixed = lat.layout_rtt("distribute", [["near"], ["far"]], rtts, EXTRACT, dir_share=0.1)
    assert mixed == pytest.approx(0.9 * 11 + 0.1 * 21)


def test_one_point_keeps_the_round_trips_and_takes_the_local_cost():
    model = lat.fit([Point("replica", LSTAT, 0.05, 0.45, "sandbox")])
    c = model.cost("replica", LSTAT)
    assert c.round_trips == 1.0 and c.local_ms == pytest.approx(0.40)
    assert model.predict("replica", LSTAT, 10.0).per_object_ms == pytest.approx(10.40)
    with pytest.raises(ValueError):
        lat.fit([Point("stripe", LSTAT, 1, 1)])


def test_the_plan_predicts_the_extract_and_the_lstat_loop_at_the_topologys_rtts():
    topo = topofile.load(EXAMPLES / "three-site.brickyard.json")
    vol = topo.volumes[0]
    doc = plan_volume(topo, vol).to_json()["small_files"]
    assert doc["kind"] == "replica" and doc["rtt_source"] != "assumed"
    # a copy on every site waits for Helsinki (25.4 ms): the write-up measured 294 ms, 597 s
    assert doc["extract"]["per_object_ms"] == pytest.approx(294, rel=0.25)
    assert doc["extract"]["seconds"] == pytest.approx(597, rel=0.25)
    assert doc["lstat"]["per_object_ms"] == pytest.approx(25.4, rel=0.1)
    assert doc["extract"]["low_ms"] < doc["extract"]["per_object_ms"] < doc["extract"]["high_ms"]
    # one copy per file on the Nuremberg nodes only: LAN RTTs, a few ms per object
    local = Volume("near", Layout(T.DISTRIBUTE), [BrickRef(n.name, n.bricks[0].path) for n in topo.nodes
                                                  if n.site == "Nuremberg"])
    topo.volumes = [local]
    near = plan_volume(topo, local).to_json()["small_files"]
    assert near["kind"] == "distribute" and near["extract"]["per_object_ms"] < 10

"""The planner's throughput figure: the model at the topology's declared speeds and labelled
assumptions (an estimate), or calibrated on measurements (a prediction)."""

import pytest

from brickyard.core import calibration as cal
from brickyard.core.plan import plan_volume
from brickyard.core.topology import Client, VolumeType as T

from ._topo import build, volume

MB = 1e6


def make(kind, **counts):
    topo = build({f"n{i}": 1 for i in range(8)})      # bricks 200 MB/s, NIC 10 Gbit/s
    topo.clients.append(Client("c1", nic_gbps=1.0))  # 125 MB/s
    return plan_volume(topo, volume(topo, kind, **counts)).estimate


def test_an_uncalibrated_figure_is_labelled_an_estimate():
    e = make(T.DISTRIBUTE)
    assert e.label == "estimate (uncalibrated)" and not e.calibrated
    assert e.to_json()["label"] == "estimate (uncalibrated)"


def test_distribute_is_bounded_by_the_client_link():
    e = make(T.DISTRIBUTE)
    assert e.single_write_bps == pytest.approx(125 * MB)
    assert e.concurrent_write_bps == pytest.approx(125 * MB)
    assert e.prediction("write", 8).bound == "client link"


def test_replica_writes_are_bounded_by_link_divided_by_replica():
    e = make(T.DISTRIBUTED_REPLICATE, replica=2)
    assert e.single_write_bps == pytest.approx(62.5 * MB)
    assert e.single_read_bps == pytest.approx(125 * MB)
    assert e.client_traffic_factor == 2.0
    assert "÷ 2" in e.prediction("write", 1).why


def test_disperse_client_traffic_grows_by_disperse_over_data():
    e = make(T.DISPERSE, disperse=8, redundancy=2)
    assert e.client_traffic_factor == 8 / 6
    assert e.single_write_bps == pytest.approx(125 * MB * 6 / 8)


def test_an_unknown_brick_speed_is_named_and_bounds_nothing():
    topo = build({"a": 1, "b": 1})
    topo.nodes[0].bricks[0].speed_bps = None
    e = plan_volume(topo, volume(topo, T.DISTRIBUTE)).estimate
    assert e.single_write_bps is not None
    assert any("brick speed" in m for m in e.missing)


def test_a_slow_arbiter_does_not_slow_the_estimate():
    topo = build({"a": 1, "b": 1, "c": 1})
    topo.nodes[2].bricks[0].speed_bps = 1e6  # a small, slow arbiter disk
    e = plan_volume(topo, volume(topo, T.REPLICATE, replica=3, arbiter=1)).estimate
    assert e.single_read_bps == pytest.approx(200 * MB)
    assert e.client_traffic_factor == 2.0


def test_every_figure_names_its_bound_and_an_interval_around_it():
    e = make(T.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1)
    doc = e.to_json()
    for key in ("single_write", "concurrent_write", "single_read", "concurrent_read"):
        low, high = doc["interval"][key]
        assert low <= doc[f"{key}_bps"] <= high
        assert doc["bound"][key] in doc["bounds"][key]
    assert doc["concurrency"] == 8 and doc["sources"]["assumed"] > 0
    assert [b["block"] for b in doc["per_block_size"]] == ["4K", "64K", "1M"]
    # a call costs the same whatever its size: small blocks are slower
    assert doc["per_block_size"][0]["single_write_bps"] < doc["per_block_size"][2]["single_write_bps"]


def test_a_calibrated_model_makes_the_figure_a_prediction_naming_its_source():
    topo = build({f"n{i}": 1 for i in range(4)})
    vol = volume(topo, T.DISTRIBUTE)
    shape = cal.Observation(plan_volume(topo, vol).estimate.shape, "write", 1, None, 90 * MB, "run abc", "gv0")
    model = cal.fit(topo, cal.Inputs((shape,), {}, ("gv0 run abc",)))
    e = plan_volume(topo, vol, model=model).estimate
    assert e.calibrated and e.label == "predicted (calibrated on gv0 run abc)"
    assert e.single_write_bps == pytest.approx(90 * MB, rel=0.01)

"""The write-up's throughput formulas, always labelled an estimate."""

from brickyard.core.plan import plan_volume
from brickyard.core.topology import Client, VolumeType as T

from ._topo import build, volume

MB = 1e6


def make(kind, **counts):
    topo = build({f"n{i}": 1 for i in range(8)})      # bricks 200 MB/s, NIC 10 Gbit/s
    topo.clients.append(Client("c1", nic_gbps=1.0))  # 125 MB/s
    return plan_volume(topo, volume(topo, kind, **counts)).estimate


def test_every_estimate_is_labelled():
    assert make(T.DISTRIBUTE).label == "estimate"


def test_distribute_is_bounded_by_the_client_link():
    e = make(T.DISTRIBUTE)
    assert e.single_write_bps == 125 * MB
    assert e.concurrent_write_bps == 125 * MB


def test_replica_writes_are_bounded_by_link_divided_by_replica():
    e = make(T.DISTRIBUTED_REPLICATE, replica=2)
    assert e.single_write_bps == 62.5 * MB
    assert e.single_read_bps == 125 * MB
    assert e.client_traffic_factor == 2.0


def test_disperse_client_traffic_grows_by_disperse_over_data():
    e = make(T.DISPERSE, disperse=8, redundancy=2)
    assert e.client_traffic_factor == 8 / 6
    assert e.single_write_bps == 125 * MB * 6 / 8


def test_unknown_speeds_give_no_figure():
    topo = build({"a": 1, "b": 1})
    topo.nodes[0].bricks[0].speed_bps = None
    e = plan_volume(topo, volume(topo, T.DISTRIBUTE)).estimate
    assert e.single_write_bps is None and e.missing


def test_a_slow_arbiter_does_not_slow_the_estimate():
    topo = build({"a": 1, "b": 1, "c": 1})
    topo.nodes[2].bricks[0].speed_bps = 1e6  # a small, slow arbiter disk
    e = plan_volume(topo, volume(topo, T.REPLICATE, replica=3, arbiter=1)).estimate
    assert e.single_read_bps == 200 * MB
    assert e.client_traffic_factor == 2.0

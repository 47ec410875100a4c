"""A run asked for by topology names: the volume's client mounts become targets, its brick
nodes the servers, the topology's NIC speeds the physics bound, and names reach executors."""

import asyncio

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec
from brickyard.bench.request import (BenchRequest, FanOutSink, executor_lookup, run_request, topology_link,
                                     volume_servers, volume_targets)
from brickyard.core.results import RunStatus
from brickyard.core.topology import BrickRef, Client, Layout, Mount, Node, Topology, TopologyError, Volume, VolumeType
from brickyard.remote.local import LocalExecutor


def topo() -> Topology:
    t = Topology(name="t")
    for i in (1, 2, 3):
        t.nodes.append(Node(f"n{i}", nic_gbps=10.0 if i != 2 else 25.0))
    t.clients += [Client("c1", nic_gbps=1.0), Client("c2")]
    t.volumes.append(Volume("gv0", Layout(VolumeType.REPLICATE, replica=3),
                            [BrickRef("n2", "/b"), BrickRef("n1", "/b"), BrickRef("n2", "/c"), BrickRef("n3", "/b")],
                            mounts=[Mount("c1", "/mnt/gv0/"), Mount("c2", "/mnt/gv0")]))
    return t


def test_each_client_mount_of_the_volume_is_a_target_and_brick_nodes_are_servers_in_brick_order():
    t = topo()
    assert volume_targets(t, "gv0") == [TargetSpec("c1", "/mnt/gv0"), TargetSpec("c2", "/mnt/gv0")]
    assert volume_servers(t, "gv0") == ["n2", "n1", "n3"]
    with pytest.raises(TopologyError):
        volume_targets(t, "nope")


def test_link_bound_is_the_slowest_target_nic_then_the_servers_and_says_where_it_came_from():
    t = topo()
    bound = topology_link(t, ["c1", "c2"], ["n1", "n2"])
    assert bound.bps == 1e9 / 8 and "c1" in bound.describe() and "1 Gbit/s" in bound.describe()
    bound = topology_link(t, ["c2"], ["n1", "n2"])           # c2 has no NIC speed: the servers'
    assert bound.bps == 10e9 / 8 and "server n1" in bound.source
    assert topology_link(t, ["c2"]).bps is None
    assert "c2" in topology_link(t, ["c2"]).describe()
    assert topology_link(t, ["local"]).bps is None


def test_names_reach_topology_executors_others_go_to_the_ssh_config_and_local_stays_here():
    t = topo()
    asked = []
    lookup = executor_lookup(lambda name: asked.append(("topo", name)) or name,
                             t, lambda name: asked.append(("ssh", name)) or name)
    assert isinstance(lookup("local"), LocalExecutor)
    lookup("c1"), lookup("n3"), lookup("nfs-box")
    assert asked == [("topo", "c1"), ("topo", "n3"), ("ssh", "nfs-box")]


def test_request_runs_through_the_engine_and_every_sink_sees_every_step(tmp_path):
    class Rec:
        def __init__(self):
            self.seen = []

        def run_started(self, run):
            self.seen.append("start")

        def step_finished(self, run, step):
            self.seen.append(step.index)

        def run_finished(self, run):
            self.seen.append(run.status.value)

    a, b = Rec(), Rec()
    req = BenchRequest("dd", {"block_sizes": "64K", "concurrency": "1", "size": "256K", "repeats": "1",
                              "direction": "write"}, (TargetSpec("local", str(tmp_path)),))
    assert req.hosts == ["local"] and "dd on local:" in req.describe()
    dd = registry.find("dd", tmp_path / "none")
    run = asyncio.run(run_request(req, dd, executor_lookup(lambda n: None, topo(), lambda n: None),
                                  sink=FanOutSink([a, b])))
    assert run.status is RunStatus.COMPLETE, run.error
    assert a.seen == b.seen == ["start", 0, "complete"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("brickyard-")]

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

from .test_engine import Recorder


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
    a, b = Recorder(), Recorder()
    req = BenchRequest("dd", {"block_sizes": "64K", "concurrency": "1", "size": "256K", "repeats": "1",
                              "direction": "write"}, (TargetSpec("local", str(tmp_path)),))
    assert req.hosts == ["local"] and "dd on local:" in req.describe()
    dd = registry.find("dd", tmp_path / "none")
    run = asyncio.run(run_request(req, dd, executor_lookup(lambda n: None, topo(), lambda n: None),
                                  sink=FanOutSink([a, b])))
    assert run.status is RunStatus.COMPLETE, run.error
    assert a.events == b.events and a.events[0][0] == "started"
    assert a.events[1:] == [("step", 0), ("finished", RunStatus.COMPLETE)]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("brickyard-")]


def test_a_host_that_cannot_be_reached_stops_the_request_before_anything_starts(tmp_path):
    from brickyard.bench.request import HostsUnreachable
    from brickyard.remote.executor import ExecutorError

    class Down:
        host = "c1"

        async def run(self, argv, **kw):
            raise ExecutorError("c1", "connection refused")

    req = BenchRequest("dd", {"repeats": "1"}, (TargetSpec("c1", "/mnt/gv0"),), servers=("n1",))
    started = []
    lookup = lambda host: Down() if host == "c1" else LocalExecutor(host)   # noqa: E731
    dd = registry.find("dd", tmp_path / "none")

    class Sink(FanOutSink):
        def run_started(self, run):
            started.append(run)

    with pytest.raises(HostsUnreachable) as err:
        asyncio.run(run_request(req, dd, lookup, sink=Sink()))
    assert "c1: connection refused" in str(err.value) and not started


def test_outcome_names_complete_partial_with_host_stalled_cancelled_and_failed():
    from brickyard.bench.request import run_outcome
    from brickyard.core.results import Provenance, RunResult, StepResult

    def run(status, steps=(), error="", host=""):
        return RunResult("r", "dd", status, 0.0, 1.0, Provenance("0", {}, "c1:/m", "gluster"),
                         list(steps), error, host)

    ok = StepResult(0, {}, 0, (), ())
    bad = StepResult(1, {}, 0, (), (), valid=False)
    stall = StepResult(2, {}, 0, (), (), flags=("stall",), valid=False)
    assert run_outcome(run(RunStatus.COMPLETE, [ok, bad])).text == "complete: 2 steps measured, 1 invalid"
    out = run_outcome(run(RunStatus.PARTIAL, [ok], "c1: connection lost", "c1"))
    assert out.kind == "partial" and "c1 failed" in out.text and "1 step measured" in out.text
    out = run_outcome(run(RunStatus.PARTIAL, [ok, stall], "c1: I/O stalled: no worker made progress for 30 s", "c1"))
    assert out.kind == "stalled" and out.text.startswith("stalled on c1: I/O stalled")
    out = run_outcome(run(RunStatus.CANCELLED, [], "cancelled by the user"))
    assert out.kind == "cancelled" and "0 steps" in out.text
    out = run_outcome(run(RunStatus.PARTIAL, [ok], "cancelled by the user"))     # stored by an older Brickyard
    assert out.kind == "cancelled" and "1 step measured" in out.text
    out = run_outcome(run(RunStatus.FAILED, [], "dd is missing on c1", ""))
    assert out.kind == "failed" and out.text == "failed: dd is missing on c1"


def test_with_locks_a_request_waits_for_a_busy_host_then_runs_and_releases_it(tmp_path):
    import threading
    import time

    from brickyard.bench.hostlock import HostBusy, HostLocks
    from brickyard.remote.loop import Progress

    locks = HostLocks(tmp_path / "locks")
    other = locks.try_acquire(["local"], "campaign x")
    heard = []
    req = BenchRequest("dd", {"block_sizes": "64K", "concurrency": "1", "size": "64K", "repeats": "1",
                              "direction": "write"}, (TargetSpec("local", str(tmp_path)),))
    dd = registry.find("dd", tmp_path / "none")
    lookup = executor_lookup(lambda n: None, topo(), lambda n: None)
    threading.Timer(0.8, other.release).start()
    began = time.monotonic()
    run = asyncio.run(run_request(req, dd, lookup, locks=locks, on_wait=heard.append))
    assert run.status is RunStatus.COMPLETE and time.monotonic() - began >= 0.7
    assert [str(b) for b in heard][0].startswith("local is busy: campaign x")
    assert locks.holder("local") == ""
    held = locks.try_acquire(["local"], "campaign y")
    with pytest.raises(HostBusy, match="campaign y"):
        asyncio.run(run_request(req, dd, lookup, locks=locks, wait=False))
    progress = Progress()
    progress.cancel()
    with pytest.raises(HostBusy):
        asyncio.run(run_request(req, dd, lookup, locks=locks, progress=progress))
    held.release()


def test_topology_nics_are_the_engines_fallback_link_per_host():
    from brickyard.bench.request import topology_nics

    assert topology_nics(topo(), ["c1", "c2", "n2", "local", "elsewhere"]) == {"c1": 1e9 / 8, "n2": 25e9 / 8}

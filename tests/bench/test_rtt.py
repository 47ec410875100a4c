"""Small-file runs record the RTT to each server beside their figures (``bench.rtt``,
``RunContext.round_trips``): the latency model is calibrated on figure and RTT together."""

import asyncio
import socket
import sys

from brickyard.bench import rtt
from brickyard.bench.agentclient import AgentSession
from brickyard.bench.api import Workload
from brickyard.bench.context import RunContext, TargetSession
from brickyard.bench.physics import Physics
from brickyard.core.results import Provenance, RunResult, RunStatus
from brickyard.remote.local import LocalExecutor


def test_the_rtt_is_the_lower_halfs_median_other_traffic_only_adds_time():
    assert rtt.lower_median([0.5, 0.4, 9.0, 0.6, 12.0]) == 0.5
    assert rtt.lower_median([3.0]) == 3.0
    assert rtt.parse('{"node1": {"ms": [0.2, 0.3, 5.0], "error": ""}, "node2": {"ms": [], "error": "refused"}}') \
        == {"node1": 0.25}
    assert rtt.parse("Traceback …") == {}


class Nothing(Workload):
    name = "nothing"

    def step_count(self, values):
        return 1

    async def run(self, ctx):
        pass


def _context(kind: str, server: str) -> tuple[RunContext, TargetSession]:
    ex = LocalExecutor("local")
    agent = AgentSession(ex, python=sys.executable)
    target = TargetSession("client1:/mnt/gv0", "client1", "/mnt/gv0", ex, agent, kind=kind,
                           mount={"source": f"{server}:/gv0"})
    run = RunResult(run_id="0" * 32, workload="nothing", status=RunStatus.RUNNING, started_at=0.0, ended_at=None,
                    provenance=Provenance("0", {}, "client1:/mnt/gv0", "gluster"))
    ctx = RunContext(Nothing(), {}, [target], run, record_sink=lambda s: None, progress=lambda f, t: None,
                     is_cancelled=lambda: False, physics=Physics(layout={"bricks": [f"{server}:/srv/b1"]}))
    return ctx, target


def test_round_trips_measures_each_server_of_a_gluster_target_by_tcp_connects(monkeypatch):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    monkeypatch.setattr(rtt, "GLUSTERD_PORT", listener.getsockname()[1])
    try:
        ctx, target = _context("gluster", "127.0.0.1")
        got = asyncio.run(ctx.round_trips(target))
    finally:
        listener.close()
    assert set(got) == {"127.0.0.1"} and 0 <= got["127.0.0.1"] < 100


def test_round_trips_of_a_target_that_is_not_gluster_is_nothing():
    ctx, target = _context("tmpfs", "127.0.0.1")
    assert asyncio.run(ctx.round_trips(target)) == {}


class _Dropper:
    """An agent whose cache drop waits until every other host's has started."""

    def __init__(self, host: str, started: list, seen: list, fail: str = ""):
        self.host, self.is_root, self._started, self._seen, self._fail = host, True, started, seen, fail

    async def drop_caches(self):
        self._started.append(self.host)
        for _ in range(100):
            if len(self._started) == 3:
                break
            await asyncio.sleep(0.01)
        self._seen.append(len(self._started))      # how many hosts' drops had begun by its end
        if self._fail:
            raise OSError(self._fail)


def test_caches_are_dropped_on_every_host_at_once_and_a_failure_is_still_named_in_host_order():
    """Before each read step: one host after the other cost the sandbox five syncs in a row."""
    ctx, target = _context("local", "127.0.0.1")
    started: list = []
    seen: list = []
    target.agent = _Dropper("client1", started, seen)
    ctx.servers = [_Dropper("node1", started, seen, fail="read-only"), _Dropper("node2", started, seen)]
    assert asyncio.run(ctx.drop_caches()) is False
    assert seen == [3, 3, 3]            # one after the other: [1, 2, 3]
    assert ctx._pending_notes == ["caches not dropped on node1 (read-only)"]
    assert ctx._pending_flags == ["server-caches-not-dropped"]

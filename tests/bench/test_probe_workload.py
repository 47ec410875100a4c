"""The probe workload on this machine: brick filesystems (two directories here) alone and
together, TCP from a client target to a receiver, every step valid; the run dirs are gone
after it; and the probe run calibrates the model (measured brick rates, shared storage)."""

import asyncio
import os

import pytest

from brickyard.bench import registry
from brickyard.bench.api import ParamError
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core import modelinputs
from brickyard.core.throughput import BRICK, NODE_LINK
from brickyard.core.topology import Brick, Node, Topology
from brickyard.remote.local import LocalExecutor


def targets(tmp_path):
    dirs = [tmp_path / "b1", tmp_path / "b2", tmp_path / "client"]
    for d in dirs:
        d.mkdir()
    return [(TargetSpec("local", str(d)), LocalExecutor("local")) for d in dirs], dirs


@pytest.mark.skipif(os.geteuid() != 0, reason="reads need the page cache dropped (root)")
def test_probe_measures_each_filesystem_the_set_of_them_and_tcp_and_calibrates_the_model(tmp_path):
    probe = registry.find("probe")
    specs, dirs = targets(tmp_path)
    params = {"clients": f"local:{dirs[2]}", "names": "local=127.0.0.1", "disk_size": "2M", "block_size": "1M",
              "tcp_bytes": "8M"}
    run = asyncio.run(run_benchmark(probe, params, specs))
    assert run.status.value == "complete", run.error
    kinds = [(s.params["probe"], s.params["scope"], s.params["direction"]) for s in run.steps]
    assert kinds == [("disk", "alone", "write"), ("disk", "alone", "read")] * 2 + [
        ("disk", "together", "write"), ("disk", "together", "read"), ("tcp", "alone", "write")]
    assert all(s.valid for s in run.steps), [s.note for s in run.steps if not s.valid]
    assert all(s.metric("throughput").value > 0 for s in run.steps)
    assert not any(p.name.startswith("brickyard-") for d in dirs for p in d.iterdir())   # run dirs removed
    # the run calibrates: each directory is one brick's filesystem, the receiver "local" a node
    topo = Topology(nodes=[Node("local", bricks=[Brick(str(dirs[0]), 10**9), Brick(str(dirs[1]), 10**9)])])
    inputs = modelinputs.probe_inputs(run, topo)
    assert inputs.measured[f"{BRICK}.write@local:{dirs[0]}"].source == "measured"
    assert inputs.measured[f"{NODE_LINK}@local"].value > 0
    assert inputs.sources == (f"probe {run.run_id[:12]}",)
    # sender and receiver ran on this one kernel: the probe says so, and the model's fan-out
    # costs stay assumed 0 with a range as wide as shared CPUs were seen to need
    tcp = [s for s in run.steps if s.params["probe"] == "tcp"]
    assert tcp and all(s.params["same_kernel"] == ["local"] for s in tcp)
    fan = inputs.measured["fanout_cpu_seconds.write"]
    assert fan.source == "assumed" and fan.value == 0.0 and fan.pessimistic >= 1e-3
    assert any("client's own kernel" in n for n in inputs.notes)


def test_probe_refuses_a_server_address_that_is_not_a_plain_name():
    probe = registry.find("probe")
    for bad in ("node1=$(touch /tmp/x)", "node1", "node1=a b"):
        with pytest.raises(ParamError, match="names"):
            probe.resolve({"names": bad})
    with pytest.raises(ParamError, match="clients"):
        probe.resolve({"clients": "client1;rm"})


def test_one_kernel_is_two_equal_boot_ids_and_nothing_else():
    from brickyard_probe import same_kernel

    assert same_kernel(["0f3c"], ["0f3c"])
    assert not same_kernel(["0f3c"], ["77aa"])
    assert not same_kernel(["-"], ["-"])          # neither could read its boot id
    assert not same_kernel([], ["0f3c"])          # an older sender printed none


def _receiver(port: int, here: str, client: str, wait: float = 10.0):
    import subprocess
    import sys

    from brickyard_probe import RECEIVER

    return subprocess.Popen([sys.executable, "-c", RECEIVER, str(port), str(wait), here, client],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _connect(host: str, port: int, source: str | None = None, payload: bytes = b""):
    import socket
    import time

    for _ in range(200):
        try:
            s = socket.create_connection((host, port), timeout=5, source_address=(source, 0) if source else None)
            break
        except ConnectionRefusedError:
            time.sleep(0.02)
    else:
        raise ConnectionRefusedError(host, port)
    try:
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(5)
        while s.recv(65536):   # the receiver closes when it is done (or at once, refusing: a reset)
            pass
    except ConnectionResetError:
        pass
    finally:
        s.close()


def test_the_tcp_receiver_listens_only_on_the_servers_address_and_counts_only_the_clients_bytes():
    import random
    import socket

    port = random.randrange(40000, 60000)
    rec = _receiver(port, "127.0.0.1", "127.0.0.2")
    try:
        _connect("127.0.0.1", port, source="127.0.0.3", payload=b"x" * 1000)     # not the client: closed
        with pytest.raises(ConnectionRefusedError):                                 # not on every address
            socket.create_connection(("127.0.0.4", port), timeout=2).close()
        _connect("127.0.0.1", port, source="127.0.0.2", payload=b"y" * 4096)     # the client
        out, err = rec.communicate(timeout=10)
    finally:
        rec.kill()
    assert rec.returncode == 0, err
    assert out.split()[0] == "4096"
    assert "closed a connection from 127.0.0.3 (not the client)" in err


def test_an_address_the_server_does_not_hold_is_reported_not_listened_on_everywhere():
    rec = _receiver(45678, "192.0.2.77", "127.0.0.1", wait=1)      # TEST-NET: no interface has it
    out, err = rec.communicate(timeout=10)
    assert rec.returncode == 6 and "bind failed" in err


def test_a_server_the_client_cannot_resolve_is_a_clear_problem_not_a_hang(tmp_path):
    probe = registry.find("probe")
    client = tmp_path / "client"
    client.mkdir()
    specs = [(TargetSpec("local", str(client)), LocalExecutor("local")),
             (TargetSpec("srv", str(tmp_path)), LocalExecutor("srv"))]
    params = {"clients": "local", "names": "srv=no-such-host.invalid", "disk_size": "1M", "block_size": "1M",
              "tcp_bytes": "1M", "together": False}

    run = asyncio.run(run_benchmark(probe, params, specs))
    tcp = [s for s in run.steps if s.params.get("probe") == "tcp"]
    assert tcp and not tcp[0].valid
    assert "cannot resolve or route to no-such-host.invalid" in tcp[0].note

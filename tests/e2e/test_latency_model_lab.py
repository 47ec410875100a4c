"""Small-file latency from the RTT on the sandbox (issue 23, part 2): the lab is brought up again
with delays on four of its servers' links (the lab's user-space forwarder; this kernel has no
netem), so one lab holds five RTTs from the client: node1 its own, node2–node5 about 1, 3, 6 and
10 ms. On a one-brick distribute volume and a replica pair (node1 + the delayed node) at each:
the WordPress-shaped extract (the smallfile workload's tree, scaled) and an uncached lstat loop.

The model (core.latency) is calibrated the way the issue asks: the local cost at the cluster's own
RTT (node1) and the round trips measured once, at one delayed node (node4, ~6 ms); then it
predicts the three other RTTs (node2, node3: inside the calibration; node5: twice beyond it), for
each layout and both operations, each within 25 % — all 12 on a machine that is not crowded
(load at most twice its CPUs, a one-second extract repeating within 15 %), half on a busier one.
Each figure is the least disturbed of its repeats (other jobs only ever add time), and the RTT
the probe's, taken before and after each volume's runs: the lower half's median of 30 TCP
connect times from the client to glusterd on the node (the forwarder's queueing makes it more
than twice the set delay at load; the model takes what was measured). Each volume is created and
stopped through the nodes' own namespaces (no SSH round) and measured in one SSH session on the
client; none is deleted: the lab is restored without delays afterwards (same directory, names and
addresses, new brick images), so later tests find it as they expect.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from brickyard.core import latency as lat
from brickyard.core.latency import EXTRACT, LSTAT, Point
from brickyard.lab import config as cfg
from brickyard.lab.sandbox import up_locked
from brickyard.lab.session import TEST_OWNER
from brickyard.lab.state import lab_lock, live_leases, take_lease
from brickyard.lab.teardown import teardown

DELAYS = {"node2": 0.5, "node3": 1.5, "node4": 3.0, "node5": 5.0}    # one way, ms
CALIBRATE = "node4"
CHECK = ("node2", "node3", "node5")
SCALE = 0.02            # of the WordPress-shaped tree: ~40 objects
TOLERANCE = 0.25
TARBALL = "/tmp/brickyard-e2e-latency.tar.gz"
#: on the client, in one SSH session (each SSH round costs seconds at load 20): per volume
#: (argv[2], a JSON list of [farthest node, source, mount point, extract repeats]) the
#: mount, the RTT to the farthest node (TCP connects to glusterd), the extract's repeats, the
#: uncached lstat loop three times, the RTT again, the unmount; one JSON list
CLIENT_RUN = r"""
import json, os, socket, subprocess, sys, time
tarball, jobs = sys.argv[1], json.loads(sys.argv[2])
def rtts(node):
    out = []
    for _ in range(15):
        t = time.perf_counter(); s = socket.create_connection((node, 24007), timeout=5)
        out.append((time.perf_counter() - t) * 1000); s.close(); time.sleep(0.01)
    return out
docs = []
for node, src, mnt, repeats in jobs:
    os.makedirs(mnt, exist_ok=True)
    subprocess.run(["mount", "-t", "glusterfs", "-o", "attribute-timeout=0,entry-timeout=0", src, mnt], check=True)
    try:
        doc = {"rtt": rtts(node), "extract_s": [], "lstat_ms": []}
        for i in range(repeats):
            os.mkdir(f"{mnt}/x{i}")
            t = time.perf_counter()
            subprocess.run(["tar", "-xzf", tarball, "-C", f"{mnt}/x{i}"], check=True)
            doc["extract_s"].append(time.perf_counter() - t)
        open(f"{mnt}/lstat-target", "w").close()
        for _ in range(3):
            n, t = 0, time.perf_counter(); end = t + 0.3
            while time.perf_counter() < end:
                os.lstat(f"{mnt}/lstat-target"); n += 1
            doc["lstat_ms"].append((time.perf_counter() - t) * 1000 / n)
        doc["rtt"] += rtts(node)
    finally:
        subprocess.run(["umount", mnt])
    docs.append(doc)
print(json.dumps(docs))
"""


def _restart(lab, spec: cfg.LabSpec) -> None:
    """Take the lab down and up again as ``spec`` (the same directory, prefix and subnet), and
    point the session's handle at the new state."""
    with lab_lock(lab.directory):
        others = [p for p in live_leases(lab.directory) if p != lab.lease]
        if others:
            pytest.fail(f"the lab is in use by another test session ({others[0]}): it cannot be restarted "
                        "with delays", pytrace=False)
        left = teardown(lab.state)
        assert not left, left
        lab.state = up_locked(spec, owner=TEST_OWNER)
        lab.lease = take_lease(lab.directory)


#: the seconds each phase of the test took (the fixture's restarts and pool, the body's), printed
PHASES: dict[str, float] = {}


def _phase(name: str, t0: float) -> None:
    PHASES[name] = PHASES.get(name, 0.0) + time.monotonic() - t0


@pytest.fixture(scope="module")
def delayed(lab):
    st = lab.state
    base = cfg.LabSpec(nodes=len(st.servers), clients=len(st.clients), directory=lab.directory,
                       subnet=st.subnet, prefix=st.prefix)
    t0 = time.monotonic()
    _restart(lab, replace(base, nodes=5, delays=tuple(DELAYS.items())))
    _phase("lab restarted with delays", t0)
    try:
        t0 = time.monotonic()
        lab.form_pool(lab.servers)
        _phase("pool formed", t0)
        yield lab
    finally:
        t0 = time.monotonic()
        _restart(lab, base)
        _phase("lab restored", t0)
        print("\nlatency e2e phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in PHASES.items()))


def _create(lab, name: str, words: list[str], nodes: list[str]) -> None:
    """A started volume of ``nodes``' bricks (a node named twice: its second brick filesystem the
    second time; glusterd makes the brick directories), through the node's own namespaces: no
    SSH round. The test stops it after measuring; nothing deletes it: the lab is brought up
    again without delays after the test, from new brick images."""
    bricks = [f"{n}:/srv/brick{1 + nodes[:i].count(n)}/bylat-{name}" for i, n in enumerate(nodes)]
    lab.exec(nodes[0], ["gluster", "--mode=script", "volume", "create", name, *words, *bricks, "force"], timeout=120)
    lab.exec(nodes[0], ["gluster", "--mode=script", "volume", "start", name], timeout=120)


def _measure_all(lab, jobs: list[tuple[str, str, list[str], int]], objects: int) -> list[tuple[float, float, float, list[float]]]:
    """For each (volume, first node, nodes, repeats): (ms per object of the extract, ms per
    uncached lstat, the RTT to the farthest node measured just before and after, the extract's
    repeats), in one SSH session on the client."""
    spec = [[max(set(nodes), key=lambda n: DELAYS.get(n, 0.0)), f"{first}:/{name}", f"/mnt/{name}", repeats]
            for name, first, nodes, repeats in jobs]
    docs = json.loads(lab.ssh("client1", ["python3", "-c", CLIENT_RUN, TARBALL, json.dumps(spec)], timeout=600).stdout)
    out = []
    for doc in docs:
        runs = [t * 1000 / objects for t in doc["extract_s"]]
        # the least disturbed of the repeats (other jobs only add time); the RTT the lower half's
        # median (the forwarder's queue moves with the load)
        out.append((min(runs), min(doc["lstat_ms"]), statistics.median(sorted(doc["rtt"])[:len(doc["rtt"]) // 2]),
                    runs))
    return out


def test_the_extract_and_the_lstat_loop_follow_local_plus_round_trips_times_rtt(delayed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "plugins" / "smallfile"))
    from brickyard_smallfile.tree import wordpress_shaped

    lab = delayed
    tree = wordpress_shaped(SCALE)
    t0 = time.monotonic()
    proc = subprocess.run(lab.ssh_argv("client1", ["sh", "-c", f"cat > {TARBALL}"]), input=tree.data,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    _phase("tarball copied", t0)
    t0 = time.monotonic()
    measured: dict[tuple[str, str, str], float] = {}
    waits: dict[tuple[str, str], float] = {}     # (kind, node) -> the RTT the layout waited on
    spreads = []
    results, created = [], 0.0
    for node in ["node1", CALIBRATE, *CHECK]:
        for kind, words, nodes in (("distribute", [], [node]),
                                   ("replica", ["replica", "2"], ["node1", node])):   # on node1 alone: its two bricks
            name = f"bylat{kind[:3]}{node[-1]}"
            t1 = time.monotonic()
            _create(lab, name, words, nodes)
            created += time.monotonic() - t1
            _phase("volumes created and started", t1)
            # the calibration's two points (own RTT, the round trips) and the short runs: the
            # least disturbed of a few. One volume's bricks at a time, as a user's run would
            # meet them: ten started at once disturbed the first figures (node1's replicated
            # lstat at 11.4 ms where it takes about 1 at load 45), and a stop costs no SSH round
            repeats = {"node1": 3, CALIBRATE: 2, "node2": 2}.get(node, 1)
            t1 = time.monotonic()
            results.append(((kind, node), _measure_all(lab, [(name, nodes[0], nodes, repeats)], tree.objects)[0]))
            _phase("measured (mount, RTT, extracts, lstat, umount)", t1)
            t1 = time.monotonic()
            lab.exec(nodes[0], ["gluster", "--mode=script", "volume", "stop", name], check=False, timeout=120)
            _phase("volumes stopped", t1)
    for (kind, node), (extract_ms, lstat_ms, rtt, runs) in results:
        measured[(kind, EXTRACT, node)] = extract_ms
        measured[(kind, LSTAT, node)] = lstat_ms
        # what the layout waits on (core.latency.layout_rtt): a pair its slowest copy — the
        # delayed node's, node1 being the nearest — a one-brick volume its brick's
        waits[(kind, node)] = rtt
        if len(runs) > 1:
            spreads.append((max(runs) - min(runs)) / 2 / statistics.median(runs))
    points = [Point(kind, op, waits[(kind, node)], ms, node) for (kind, op, node), ms in measured.items()
              if node in ("node1", CALIBRATE)]
    model = lat.fit(points)
    for p in points:
        print(f"  calibration: {p.kind:10s} {p.operation:7s} {p.source} RTT {p.rtt_ms:6.2f} ms: {p.per_object_ms:8.3f} ms")
    lines, misses = [], []
    for (kind, op, node), ms in sorted(measured.items()):
        if node not in CHECK:
            continue
        fig = model.predict(kind, op, waits[(kind, node)])
        error = fig.per_object_ms / ms - 1
        lines.append(f"{kind:10s} {op:7s} {node} RTT {waits[(kind, node)]:6.2f} ms: measured {ms:8.3f} ms, "
                     f"predicted {fig.per_object_ms:8.3f} ms ({error:+.0%})")
        if abs(error) > TOLERANCE:
            misses.append(lines[-1])
    load = os.getloadavg()[0]
    quiet = statistics.median(spreads) <= 0.15 and load <= 2 * (os.cpu_count() or 1)
    rtts = {f"{kind} {node}": round(ms, 2) for (kind, node), ms in waits.items()}
    print(f"latency model on the sandbox ({time.monotonic() - t0:.0f} s, {created:.0f} s of it creating the ten volumes; "
          f"load {os.getloadavg()}): RTTs {rtts}; "
          f"repeats of the short extracts spread {statistics.median(spreads):.0%} (median half-range)")
    print("\n".join(lines))
    for key in (("distribute", EXTRACT), ("replica", EXTRACT), ("distribute", LSTAT), ("replica", LSTAT)):
        c = model.cost(*key)
        print(f"  {key}: {c.local_ms:.3f} ms + {c.round_trips:.2f} round trips ({c.source})")
        assert c.source == "fitted" and c.round_trips > 0.5, (key, c)
    # a replicated create waits for both copies in more round trips than a distributed one
    assert model.cost("replica", EXTRACT).round_trips > model.cost("distribute", EXTRACT).round_trips
    # every figure within 25 % on a machine that is not crowded (load at most twice its CPUs, a
    # one-second extract repeating within 15 %); on a busier one half of them (seen at load 15: an
    # lstat on node1's own RTT at 12.7 ms, where 0.4 ms is its figure on a quiet machine)
    assert len(lines) == 12
    assert len(misses) <= (0 if quiet else 6), "\n".join(misses)

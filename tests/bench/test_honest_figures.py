"""Every figure says what it is, shown through the run engine and the real dd, fio and randread
plugins against a fake host whose agent answers from a script (tests/bench/fakeagent.py):

- the stonewall is the bytes all workers had moved when the first finished (from their
  progress samples): it differs from the sum of rates when workers finish at different
  times, and equals it only when they finish together;
- cache effects planted on purpose (a re-read corpus, a read without a cache drop, a read
  faster than the link) make the step invalid or suspect, never the headline;
- the physics check runs without ``--link`` from the link speed found on the host;
- the live throughput is the rate over the last sampling interval, not a running average.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.clicmd.bench import exit_code, summary
from brickyard.core.results import RunStatus

from .fakeagent import FIXTURES, ScriptedHost, worker

MB = 1_000_000
MIB = 1 << 20


def shared_bandwidth(sizes, weights, bandwidth, interval=0.5):
    """Workers sharing ``bandwidth`` in proportion to ``weights`` until each has moved its
    size: (end times, progress curves sampled every ``interval`` and at each finish)."""
    n = len(sizes)
    left, done, t = [float(s) for s in sizes], [0.0] * n, 0.0
    ends = [None] * n
    events = [0.0]
    curves = [[(0.0, 0)] for _ in range(n)]
    while any(e is None for e in ends):
        running = [i for i in range(n) if ends[i] is None]
        total_w = sum(weights[i] for i in running)
        rates = {i: bandwidth * weights[i] / total_w for i in running}
        step = min(left[i] / rates[i] for i in running)
        next_tick = (int(t / interval) + 1) * interval
        dt = min(step, next_tick - t)
        for i in running:
            moved = rates[i] * dt
            left[i] -= moved
            done[i] += moved
            if left[i] <= 1e-6:
                ends[i] = t + dt
        t += dt
        for i in range(n):
            curves[i].append((t, int(round(done[i]))))
        events.append(t)
    return ends, curves


def argv_bytes(spec) -> int:
    args = dict(a.split("=", 1) for a in spec["argv"][1:] if "=" in a)
    return int(args["bs"]) * int(args["count"])


def dd_step(weights, bandwidth=90 * MB, events=()):
    """A dd step: each dd moves the bytes its argv asks for, sharing ``bandwidth``."""
    def script(specs, t0):
        sizes = [argv_bytes(s) for s in specs]
        ends, curves = shared_bandwidth(sizes, weights, bandwidth)
        out = []
        for i, (spec, end, curve) in enumerate(zip(specs, ends, curves)):
            stderr = f"{sizes[i]} bytes ({sizes[i] / MB:.0f} MB) copied, {end:.6f} s, {sizes[i] / end / MB:.0f} MB/s\n"
            out.append(worker(i, t0, t0 + end, stderr=stderr, counter=spec.get("progress"),
                              curve=[(t0 + t, v) for t, v in curve]))
        return out, [{**ev, "t": t0 + ev["t"]} for ev in events]
    return script


def quick(seconds=0.01):
    """A step whose result nobody reads (a fio layout pass, the randread corpus)."""
    def script(specs, t0):
        return [worker(i, t0, t0 + seconds) for i in range(len(specs))], []
    return script


def fio_step(weights, bandwidth=60 * MB):
    """Each fio process prints the recorded one-job random-read JSON (34,848,768 bytes)."""
    text = (FIXTURES / "fio" / "rand-read-4k-1job.json").read_text()
    size = 34_848_768

    def script(specs, t0):
        ends, curves = shared_bandwidth([size] * len(specs), weights, bandwidth)
        return [worker(i, t0, t0 + end, stdout=text, counter=spec.get("progress"), curve=[(t0 + t, v) for t, v in c])
                for i, (spec, end, c) in enumerate(zip(specs, ends, curves))], []
    return script


def randread_step(weights, bandwidth=40 * MB, file_bytes=640_000):
    def script(specs, t0):
        sizes = [file_bytes * len(s["files"]) for s in specs]
        ends, curves = shared_bandwidth(sizes, weights, bandwidth)
        return [worker(i, t0, t0 + end, counter="rchar", curve=[(t0 + t, v) for t, v in c],
                       result={"bytes": sizes[i], "ops": len(s["files"]), "exhausted": False})
                for i, (s, end, c) in enumerate(zip(specs, ends, curves))], []
    return script


def bench(name, params, client, servers=(), **kw):
    return asyncio.run(run_benchmark(registry.find(name, Path("/nonexistent")), {"repeats": "1", **params},
                                     [(TargetSpec(client.host, "/mnt/gv0"), client)], servers=list(servers), **kw))


def metric(step, name):
    m = step.metric(name)
    return None if m is None else m.value


# ---- stonewall ≠ sum of rates exactly when workers finish apart ------------------------------

def test_dd_stonewall_differs_from_the_sum_of_rates_when_workers_finish_apart():
    # two dd's of 64 MiB share 90 MB/s, one getting twice the other's share until it is done
    client = ScriptedHost("client1", [dd_step([2, 1])])
    run = bench("dd", {"block_sizes": "1M", "concurrency": "2", "size": "64M", "direction": "write"}, client,
                link_bps=10e9)
    (step,) = run.steps
    first_end = 64 * MIB / 60e6
    assert metric(step, "stonewall_seconds") == pytest.approx(first_end, rel=1e-3)
    assert metric(step, "stonewall_throughput") == pytest.approx(90 * MB, rel=1e-3)
    assert metric(step, "sum_of_rates") == pytest.approx(60 * MB + 64 * MIB / (first_end + 64 * MIB / 2 / 90e6), rel=1e-3)
    assert metric(step, "sum_of_rates") > 1.15 * metric(step, "stonewall_throughput")
    assert "stonewall not measured" not in step.note


def test_dd_stonewall_equals_the_sum_of_rates_when_workers_finish_together():
    client = ScriptedHost("client1", [dd_step([1, 1])])
    run = bench("dd", {"block_sizes": "1M", "concurrency": "2", "size": "64M", "direction": "write"}, client,
                link_bps=10e9)
    (step,) = run.steps
    assert metric(step, "stonewall_throughput") == pytest.approx(metric(step, "sum_of_rates"), rel=1e-6)
    assert metric(step, "stonewall_throughput") == pytest.approx(metric(step, "throughput"), rel=1e-6)


@pytest.mark.parametrize("weights, apart", [([3, 1], True), ([1, 1], False)])
def test_fio_stonewall_against_the_sum_of_rates(weights, apart):
    client = ScriptedHost("client1", [quick(), fio_step(weights)])
    run = bench("fio", {"presets": "rand-read", "size": "64M", "numjobs": "2"}, client, servers=[ScriptedHost("node1")])
    (step,) = run.steps
    assert step.valid and step.params["jobs"] == 2
    wall, rates = metric(step, "stonewall_throughput"), metric(step, "sum_of_rates")
    if apart:
        assert rates > 1.15 * wall and wall == pytest.approx(60 * MB, rel=1e-3)
    else:
        assert wall == pytest.approx(rates, rel=1e-6)


@pytest.mark.parametrize("weights, apart", [([1, 4], True), ([1, 1], False)])
def test_randread_stonewall_against_the_sum_of_rates(weights, apart):
    client = ScriptedHost("client1", [quick(), randread_step(weights)])
    run = bench("randread", {"files": "40", "readers": "2", "seconds": "5"}, client, servers=[ScriptedHost("node1")])
    (step,) = run.steps
    assert step.valid, step.note
    wall, rates = metric(step, "stonewall_throughput"), metric(step, "sum_of_rates")
    if apart:
        assert rates > 1.15 * wall and wall == pytest.approx(40 * MB, rel=1e-3)
    else:
        assert wall == pytest.approx(rates, rel=1e-6)


def test_a_worker_without_progress_samples_leaves_the_stonewall_not_measured():
    def no_samples(specs, t0):
        out, events = dd_step([2, 1])(specs, t0)
        for w in out:
            w["samples"], w["progress"] = None, None
        return out, events

    client = ScriptedHost("client1", [no_samples])
    run = bench("dd", {"block_sizes": "1M", "concurrency": "2", "size": "64M", "direction": "write"}, client,
                link_bps=10e9)
    (step,) = run.steps
    assert step.metric("stonewall_throughput") is None and metric(step, "sum_of_rates") > 0
    assert "stonewall not measured: the workload names no I/O counter" in step.note


# ---- planted cache effects --------------------------------------------------------------------

def test_a_re_read_corpus_faster_than_its_first_read_is_flagged_and_not_the_headline():
    """A 4-file corpus, 2 readers: the first step reads every file once; the second re-reads
    them (after a drop the hypervisor's cache ignored) ten times faster."""
    client = ScriptedHost("client1", [quick(), randread_step([1, 1], 40 * MB), randread_step([1, 1], 400 * MB)])
    run = bench("randread", {"files": "4", "readers": "2", "seconds": "5", "repeats": "2"}, client,
                servers=[ScriptedHost("node1")], link_bps=10e9)
    first, again = run.steps
    assert first.valid and not first.suspect and "faster-than-cold" not in first.flags
    assert "faster-than-cold" in again.flags and again.suspect and "10.0× the first read" in again.note
    assert "re-read files an earlier step of this run had read" in again.note
    rows = [r for r in summary(run) if r["metric"] == "throughput"]
    assert [r["n"] for r in rows] == [1] and rows[0]["median"] == pytest.approx(metric(first, "throughput"))


def test_no_reader_is_given_a_file_twice_in_one_step():
    client = ScriptedHost("client1", [quick(), randread_step([1, 1, 1])])
    bench("randread", {"files": "10", "readers": "3", "seconds": "5"}, client, servers=[ScriptedHost("node1")])
    step_op = [op for op in client.ops if op.get("op") == "step"][-1]
    given = [f for spec in step_op["workers"] for f in spec["files"]]
    assert len(given) == len(set(given)) == 10 and all(spec["once"] for spec in step_op["workers"])


def test_a_read_whose_client_caches_could_not_be_dropped_is_invalid():
    client = ScriptedHost("client1", [dd_step([1]), dd_step([1], bandwidth=3800 * MB)], euid=1000, drop_fails=True)
    run = bench("dd", {"block_sizes": "1M", "concurrency": "1", "size": "64M", "direction": "both"}, client,
                link_bps=10e9)
    write, read = run.steps
    assert write.valid
    assert not read.valid and "caches-not-dropped" in read.flags and "not a cold read" in read.note
    assert exit_code(run) == 1


def test_a_read_twice_without_a_drop_is_caught_by_the_first_read_of_the_same_point():
    """A third-party workload that reads one file twice and says the second is a re-read."""
    from brickyard.bench.api import Measurement, Workload

    class ReadTwice(Workload):
        name = "read-twice"

        def step_count(self, values):
            return 2

        async def run(self, ctx):
            t = ctx.targets[0]
            for first in (True, False):
                runs = await ctx.run_workers([(t, ctx.exec_worker(["dd", "if=f", "of=/dev/null", "bs=1048576",
                                                                    "count=64"], progress="rchar"))])
                ctx.record(Measurement({"direction": "read", "pass": 1 if first else 2},
                                       [r.timing.__class__(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                                           bytes=64 * MIB) for r in runs],
                                       cold_key="f", first_read=first), direction="read")

    client = ScriptedHost("client1", [dd_step([1], 270 * MB), dd_step([1], 3800 * MB)])
    run = asyncio.run(run_benchmark(ReadTwice(), {"repeats": "1"}, [(TargetSpec("client1", "/mnt/gv0"), client)],
                                    link_bps=10e9))
    cold, warm = run.steps
    assert cold.headline and "faster-than-cold" in warm.flags and not warm.headline


# ---- the physics check, by default --------------------------------------------------------------

def test_the_physics_check_runs_with_the_link_speed_found_on_the_client():
    client = ScriptedHost("client1", [dd_step([1]), dd_step([1], bandwidth=500 * MB)], link_mbps=1000)
    run = bench("dd", {"block_sizes": "1M", "concurrency": "1", "size": "64M", "direction": "both"}, client)
    write, read = run.steps
    assert run.provenance.extra["links"]["client1"]["bps"] == 125 * MB
    assert "sysfs speed of eth0 (physical)" in run.provenance.extra["links"]["client1"]["source"]
    assert not write.suspect
    assert "cache-effect-suspected" in read.flags and read.valid and read.suspect
    assert "above the 125.0 MB/s the link allows for read" in read.note
    assert run.status is RunStatus.COMPLETE and run.error == "" and exit_code(run) == 0   # 1 of 2: not most


def test_a_run_whose_steps_are_mostly_suspect_says_so_and_exits_1():
    # a read-only sweep writes its files first (not recorded), then reads them
    client = ScriptedHost("client1", [dd_step([1]), dd_step([1], bandwidth=500 * MB)] * 2, link_mbps=1000)
    run = bench("dd", {"block_sizes": "1M,4M", "concurrency": "1", "size": "64M", "direction": "read"}, client)
    assert [s.suspect for s in run.steps] == [True, True]
    assert run.status is RunStatus.COMPLETE
    assert run.error.startswith("most steps suspect: 2 of 2") and "faster than the link allows" in run.error
    assert exit_code(run) == 1 and summary(run) == []


def test_a_veth_speed_is_used_as_nominal_and_an_unknown_speed_means_no_check():
    veth = ScriptedHost("client1", [dd_step([1], bandwidth=2000 * MB)], link_mbps=10000, link_kind="veth")
    run = bench("dd", {"block_sizes": "1M", "concurrency": "1", "size": "64M", "direction": "write"}, veth)
    assert "nominal" in run.provenance.extra["links"]["client1"]["source"]
    assert "(a virtual device's nominal speed)" in run.steps[0].note
    unknown = ScriptedHost("client1", [dd_step([1], bandwidth=2000 * MB)], link_mbps=None, link_kind="physical")
    run = bench("dd", {"block_sizes": "1M", "concurrency": "1", "size": "64M", "direction": "write"}, unknown)
    assert run.provenance.extra["links"]["client1"]["bps"] is None
    assert "reports no speed" in run.provenance.extra["links"]["client1"]["source"]
    assert "cache-effect-suspected" not in run.steps[0].flags


# ---- live throughput ------------------------------------------------------------------------------

def test_live_throughput_is_the_rate_of_the_last_interval():
    events = []

    class Live:
        def run_started(self, run): pass

        def step_finished(self, run, step): pass

        def run_finished(self, run): pass

        def progress(self, run, event):
            events.append(event)

    ticks = [{"t": 0.5, "payload": 50 * MB, "io_bytes": 100 * MB, "done": 0, "workers": 1},
             {"t": 1.0, "payload": 60 * MB, "io_bytes": 120 * MB, "done": 0, "workers": 1}]
    client = ScriptedHost("client1", [dd_step([1], events=ticks)])
    bench("dd", {"block_sizes": "1M", "concurrency": "1", "size": "64M", "direction": "write"}, client,
          sink=Live(), link_bps=10e9)
    live = [e for e in events if e.live_bps is not None]
    assert [round(e.live_bps / MB) for e in live] == [100, 20]
    assert [e.bytes_done for e in live] == [50 * MB, 60 * MB] and live[-1].step_seconds == pytest.approx(1.0)
    assert {e.live_source for e in live} == {"payload"} and live[0].workers_total == 1
    assert all(not re.search("live", e.label) for e in events)


def test_reads_on_tmpfs_are_never_compared_with_a_cold_read():
    """tmpfs lives in RAM: a faster second pass there is noise, not a cache the drop missed."""
    client = ScriptedHost("client1", [quick(), randread_step([1, 1], 40 * MB), randread_step([1, 1], 400 * MB)],
                          fstype="tmpfs", source="tmpfs")
    run = bench("randread", {"files": "4", "readers": "2", "seconds": "5", "repeats": "2"}, client)
    assert not any(s.suspect for s in run.steps) and run.provenance.extra["links"]["client1"]["network"] is False

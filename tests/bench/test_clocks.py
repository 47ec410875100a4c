"""Cross-host start skew on clocks Brickyard cannot check (issue: with 40 ms one way towards
one host, that host's workers were released 20 ms late every step while Brickyard reported
it starting first and flagged nothing): offsets bounded by the lowest-round-trip exchanges,
each host's clock uncertainty beside its start, one release instant on every host's own
clock, and a flag for a late host or a clock too uncertain to tell."""

import asyncio
from pathlib import Path

import pytest

from brickyard.bench import registry
from brickyard.bench.agentclient import clock_from_exchanges
from brickyard.bench.clocks import step_clocks
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core.results import RunStatus

from .fakeagent import ScriptedHost, worker

MS = 0.001


def exchanges(offset, out_ms, back_ms, n=8, jitter_ms=0.0, wall=1_700_000_000.0):
    """Clock exchanges with an agent whose monotonic clock is ``offset`` ahead of ours, over a
    path taking ``out_ms`` there and ``back_ms`` back (the k-th one ``jitter_ms``·k slower
    each way); its real-time clock is ``wall`` ahead of its monotonic one."""
    rows, t = [], 100.0
    for k in range(n):
        out, back = (out_ms + jitter_ms * k) * MS, (back_ms + jitter_ms * k) * MS
        agent = t + out + offset
        rows.append((t, agent, t + out + back, agent + wall))
        t += 0.01
    return rows


def test_the_offset_interval_holds_the_truth_whatever_the_paths_asymmetry():
    sync = clock_from_exchanges(exchanges(offset=3.0, out_ms=40, back_ms=0.1))
    assert sync.offset == pytest.approx(3.0 + 0.02, abs=1e-4)          # the middle: 20 ms wrong
    assert sync.uncertainty == pytest.approx(0.02005, abs=1e-4)        # and it says so
    assert sync.offset - sync.uncertainty <= 3.0 <= sync.offset + sync.uncertainty


def test_the_lowest_round_trip_exchanges_set_the_bounds():
    noisy = exchanges(offset=-1.0, out_ms=0.1, back_ms=0.1, jitter_ms=5)
    sync = clock_from_exchanges(list(reversed(noisy)))
    assert sync.uncertainty == pytest.approx(0.0001, abs=2e-5) and sync.offset == pytest.approx(-1.0, abs=2e-5)


def test_hosts_whose_real_time_clocks_agree_are_placed_by_them_not_by_a_one_sided_path():
    wall_minus_mono_here = 1_700_000_000.0 - 0.0      # every clock here: the same kernel, as in the lab
    near = clock_from_exchanges(exchanges(0.0, 0.1, 0.1, wall=wall_minus_mono_here), local_wall=wall_minus_mono_here)
    far = clock_from_exchanges(exchanges(0.0, 40, 0.1, wall=wall_minus_mono_here), local_wall=wall_minus_mono_here)
    clocks = step_clocks({"client1": near, "client2": far}, local_wall=wall_minus_mono_here)
    assert clocks["client2"].frame == "real time" and clocks["client2"].offset == pytest.approx(0.0, abs=2e-4)
    assert far.offset == pytest.approx(0.02, abs=2e-4)       # what the old release used: 20 ms late
    assert clocks["client2"].uncertainty == pytest.approx(0.02, abs=2e-4)


def test_a_host_whose_real_time_clock_is_off_is_placed_by_its_exchanges_and_named():
    base = 1_700_000_000.0
    a = clock_from_exchanges(exchanges(5.0, 0.1, 0.1, wall=base - 5.0), local_wall=base)   # agrees with ours
    b = clock_from_exchanges(exchanges(7.0, 0.1, 0.1, wall=base - 7.0 + 0.3), local_wall=base)  # 300 ms off
    c = clock_from_exchanges(exchanges(2.0, 0.2, 0.2, wall=base - 2.0), local_wall=base)
    clocks = step_clocks({"a": a, "b": b, "c": c}, local_wall=base)
    assert clocks["a"].frame == clocks["c"].frame == "real time"
    assert clocks["b"].frame == "exchanges" and clocks["b"].offset == pytest.approx(7.0, abs=1e-4)
    assert clocks["b"].wall_gap == pytest.approx(0.3, abs=1e-3)


def two_hosts(**second):
    def step(specs, t0):
        return [worker(i, t0, t0 + 0.5, stderr="4194304 bytes (4.2 MB) copied, 0.5 s, 8.4 MB/s\n")
                for i in range(len(specs))], []
    return ScriptedHost("client1", [step], keeps_time=True), ScriptedHost("client2", [step], keeps_time=True, **second)


def bench_two(c1, c2):
    return asyncio.run(run_benchmark(registry.find("dd", Path("/nonexistent")),
                                     {"block_sizes": "1M", "concurrency": "1", "size": "4M", "direction": "write",
                                      "repeats": "1"},
                                     [(TargetSpec("client1", "/mnt/gv0"), c1), (TargetSpec("client2", "/mnt/gv0"), c2)],
                                     link_bps=10e9))


def test_a_one_sided_path_does_not_move_that_hosts_release_and_its_uncertainty_is_flagged():
    c1, c2 = two_hosts(request_delay=0.04)
    run = bench_two(c1, c2)
    assert run.status is RunStatus.COMPLETE, run.error
    release = {h.host: next(op["release_at"] for op in h.ops if op.get("op") == "step") for h in (c1, c2)}
    # one process clock plays both hosts: the same instant is the same number (the old release: 20 ms apart)
    assert abs(release["client2"] - release["client1"]) < 0.002, release
    (step,) = run.steps
    hosts = step.start_skew["hosts"]
    assert hosts["client2"]["uncertainty"] > 0.019 and hosts["client1"]["uncertainty"] < 0.005
    assert "clock-uncertain" in step.flags and "client2 ±" in step.note and "client1 ±" not in step.note
    assert step.start_skew["uncertainty"] == hosts["client2"]["uncertainty"]


def test_a_host_released_late_is_named_and_flagged_whatever_the_steps_length():
    c1, c2 = two_hosts(release_late=0.008)
    (step,) = bench_two(c1, c2).steps
    assert step.start_skew["hosts"]["client2"]["lag"] == pytest.approx(0.008, abs=0.002)
    assert step.start_skew["hosts"]["client2"]["late"] == pytest.approx(0.008)
    assert list(step.start_skew["hosts"]) == ["client1", "client2"]        # client1 first
    assert "start-skew" in step.flags
    assert "client2 8.0 ms" in step.note and "release ran 8.0 ms late" in step.note
    assert "clock-uncertain" not in step.flags


def test_hosts_released_together_are_not_flagged():
    (step,) = bench_two(*two_hosts()).steps
    assert "start-skew" not in step.flags and "clock-uncertain" not in step.flags, step.note
    assert step.start_skew["hosts"]["client2"]["lag"] < 0.002


def test_each_hosts_start_and_clock_uncertainty_are_shown_beside_the_skew_everywhere():
    from brickyard.bench.lines import step_line
    from brickyard.core.results import RunResult, host_starts_text
    from brickyard.report.content import RunEntry
    from brickyard.report.runsections import hygiene_row

    c1, c2 = two_hosts(release_late=0.008)
    run = bench_two(c1, c2)
    (step,) = run.steps
    words = host_starts_text(step.start_skew)
    assert words.startswith("client1 +0.00 ms ±") and "client2 +8.0" in words and "released 8.0 ms late" in words
    assert "±" in step_line(step).split("skew_p99=")[1].split()[0]                 # CLI and the Run view's log
    assert step.metric("clock_uncertainty").value == step.start_skew["uncertainty"]   # History's and the report's figures
    cells = hygiene_row(RunEntry(run, "two clients"))
    assert any("host clocks ±" in c.text for c in cells)
    assert isinstance(run, RunResult)


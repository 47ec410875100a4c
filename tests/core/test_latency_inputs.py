"""Stored smallfile and metadata runs calibrate the small-file latency model (issue 23, part 2 as
the admin uses it): each run's least disturbed repeat at the RTT it measured, on its layout kind."""

import json
import random

import pytest

from brickyard.core import latency as lat
from brickyard.core.latency import EXTRACT, LSTAT
from brickyard.core.latency_inputs import LatencyInputError, points_from_run, points_from_runs
from brickyard.core import topofile
from brickyard.store.synthetic import synthetic_run, synthetic_small_file_run

RTTS = {"gfs1": 0.2, "gfs2": 0.2, "gfs3": 6.0}


def test_an_extract_run_is_a_point_at_the_rtt_its_layout_waited_on_least_disturbed_repeat():
    run = synthetic_small_file_run([31.0, 25.0, 40.0], layout="replica", rtt_ms=RTTS)
    points, notes = points_from_run(run, None)
    (p,) = points
    # a replica-3 set over gfs1..3 waits for its slowest copy: 6 ms, for files and directories
    assert (p.kind, p.operation, p.per_object_ms) == ("replica", EXTRACT, 25.0) and p.rtt_ms == pytest.approx(6.0)
    assert "least of 3 repeat(s)" in notes[0] and "measured by the run" in notes[0]


def test_a_distributed_extract_waits_on_the_mean_brick_and_the_slowest_for_directories():
    run = synthetic_small_file_run([10.0], layout="distribute", rtt_ms=RTTS)
    (p,), _ = points_from_run(run, None)
    mean = (0.2 + 0.2 + 6.0) / 3
    assert p.kind == "distribute"
    assert p.rtt_ms == pytest.approx((1 - lat.WRITE_UP_DIR_SHARE) * mean + lat.WRITE_UP_DIR_SHARE * 6.0)


def test_a_metadata_run_gives_the_uncached_lstat_only():
    run = synthetic_small_file_run([0.9, 0.7], workload="metadata", layout="replica", rtt_ms=RTTS)
    (p,), _ = points_from_run(run, None)
    assert (p.operation, p.per_object_ms) == (LSTAT, 0.7) and p.rtt_ms == pytest.approx(6.0)   # not the cached 2.5 µs


def test_without_measured_rtts_the_topologys_declared_ones_are_used_else_a_lan_assumed():
    run = synthetic_small_file_run([20.0], layout="replica")
    (p,), notes = points_from_run(run, None)
    assert p.rtt_ms == pytest.approx(lat.LAN_RTT_MS) and "assumed" in notes[0]
    doc = {"format_version": 2, "name": "t",
           "nodes": [{"name": f"gfs{i}", "bricks": [{"path": "/data/b1", "size_bytes": 10**12}]} for i in (1, 2, 3)],
           "clients": [{"name": "client1"}],
           "latencies": [{"a": "client:client1", "b": "gfs3", "rtt_ms": 12.0}]}
    (p,), notes = points_from_run(run, topofile.loads(json.dumps(doc)))
    assert p.rtt_ms == pytest.approx(12.0) and "declared latencies" in notes[0]


def test_runs_that_cannot_calibrate_it_are_refused_with_the_reason():
    with pytest.raises(LatencyInputError, match="dd run"):
        points_from_run(synthetic_run(random.Random(1), layout="distribute"), None)
    run = synthetic_small_file_run([20.0], workload="metadata")
    run.steps[:] = [s for s in run.steps if not s.params["mount"].startswith("target via")]
    with pytest.raises(LatencyInputError, match="attribute cache"):
        points_from_run(run, None)


def test_two_runs_at_two_rtts_measure_the_round_trips_and_the_local_cost():
    near = synthetic_small_file_run([2.0 + 12 * 0.2], layout="replica", rtt_ms={"gfs1": 0.1, "gfs2": 0.2, "gfs3": 0.2},
                                    seed=1)
    far = synthetic_small_file_run([2.0 + 12 * 8.0], layout="replica", rtt_ms={"gfs1": 0.1, "gfs2": 0.2, "gfs3": 8.0},
                                   seed=2)
    points, _ = points_from_runs([near, far], lambda run: None)
    model = lat.fit(points)
    cost = model.cost("replica", EXTRACT)
    assert cost.source == "fitted"
    assert cost.round_trips == pytest.approx(12.0) and cost.local_ms == pytest.approx(2.0)

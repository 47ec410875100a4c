"""The aggregate maths: which number is which, and that they differ when they should."""

import math

import pytest

from brickyard.core import stats
from brickyard.core.results import WorkerTiming

MB = 1_000_000


def w(i, start, end, nbytes=100 * MB):
    return WorkerTiming(worker=i, host="h", start=start, end=end, bytes=nbytes)


def test_headline_is_total_bytes_over_wall_window():
    ws = [w(0, 0.0, 1.0), w(1, 0.5, 1.5)]
    assert stats.headline_bps(ws) == pytest.approx(200 * MB / 1.5)


def test_sum_of_rates_overstates_when_workers_are_staggered():
    staggered = [w(i, 0.25 * i, 0.25 * i + 1.0) for i in range(4)]
    assert stats.sum_of_rates_bps(staggered) == pytest.approx(400 * MB)
    assert stats.headline_bps(staggered) == pytest.approx(400 * MB / 1.75)
    assert stats.sum_of_rates_bps(staggered) / stats.headline_bps(staggered) > 1.7


def test_sum_of_rates_equals_headline_when_workers_run_together():
    together = [w(i, 0.0, 1.0) for i in range(4)]
    assert stats.sum_of_rates_bps(together) == pytest.approx(stats.headline_bps(together))


def test_stonewall_counts_bytes_until_first_finisher_from_the_progress_curve():
    """Two workers share 100 MB/s: 50 MB/s each until the first finishes its 50 MB at t=1,
    then the second gets all 100 MB/s and finishes its 100 MB at t=1.5. Stonewall: the 100 MB
    both had moved at t=1 over 1 s. The sum of rates (50 + 66.7) overstates it, and an
    average-rate estimate (what the old figure was) would be the sum of rates again."""
    ws = [w(0, 0.0, 1.0, 50 * MB), w(1, 0.0, 1.5, 100 * MB)]
    curves = {1: [(0.0, 0), (0.5, 25 * MB), (1.0, 50 * MB), (1.5, 100 * MB)]}
    wall = stats.stonewall(ws, curves)
    assert wall.bps == pytest.approx(100 * MB) and wall.bytes == pytest.approx(100 * MB) and wall.seconds == 1.0
    assert stats.sum_of_rates_bps(ws) == pytest.approx(50 * MB + 100 * MB / 1.5)
    assert wall.bps < 0.9 * stats.sum_of_rates_bps(ws)
    assert stats.tail_seconds(ws) == pytest.approx(0.5)


def test_stonewall_interpolates_between_samples_and_caps_at_the_worker_total():
    ws = [w(0, 0.0, 1.0, 10 * MB), w(1, 0.0, 3.0, 30 * MB)]
    assert stats.stonewall(ws, {1: [(0.0, 0), (0.5, 10 * MB), (1.5, 20 * MB)]}).bytes == pytest.approx(25 * MB)
    assert stats.stonewall(ws, {1: [(0.0, 0), (0.9, 90 * MB)]}).bytes == pytest.approx(40 * MB)


def test_stonewall_is_not_measured_without_the_progress_of_a_running_worker():
    ws = [w(0, 0.0, 1.0), w(1, 0.0, 2.0)]
    assert stats.stonewall(ws) is None and stats.stonewall(ws, {0: [(0.0, 0)]}) is None
    names = {m.name for m in stats.throughput_metrics(ws)}
    assert "stonewall_throughput" not in names and "throughput" in names and "sum_of_rates" in names


def test_stonewall_equals_the_headline_when_workers_finish_together():
    ws = [w(i, 0.0, 1.0) for i in range(4)]
    assert stats.stonewall(ws).bps == pytest.approx(stats.headline_bps(ws)) == pytest.approx(stats.sum_of_rates_bps(ws))


def test_start_skew_percentiles_are_lags_after_first_start():
    ws = [w(i, 10.0 + 0.001 * i, 20.0) for i in range(5)]
    skew = stats.start_skew(ws)
    assert skew["max"] == pytest.approx(0.004)
    assert skew["p50"] == pytest.approx(0.002)
    assert 0.0039 < skew["p99"] <= 0.004


def test_scaling_efficiency_is_concurrent_over_n_times_single():
    assert stats.scaling_efficiency(300.0, 100.0, 4) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        stats.scaling_efficiency(1.0, 1.0, 0)
    assert math.isnan(stats.scaling_efficiency(1.0, 0.0, 2))


def test_throughput_metrics_are_labelled_with_their_formula():
    names = {m.name: m for m in stats.throughput_metrics([w(0, 0, 1), w(1, 0, 2)])}
    assert "last end − first start" in names["throughput"].label
    assert "not a wall-clock rate" in names["sum_of_rates"].label
    assert names["worker_rate_min"].value == pytest.approx(50 * MB)
    assert names["worker_rate_max"].value == pytest.approx(100 * MB)


def test_summary_median_and_spread():
    s = stats.summarize([90.0, 100.0, 110.0])
    assert (s.n, s.median, s.minimum, s.maximum) == (3, 100.0, 90.0, 110.0)
    assert s.spread == pytest.approx(0.2)


def test_bootstrap_ci_is_deterministic_and_brackets_the_estimate():
    a = [100.0, 102.0, 98.0, 101.0, 99.0]
    b = [120.0, 118.0, 122.0, 121.0, 119.0]
    est, lo, hi = stats.bootstrap_ci(a, b)
    assert lo <= est <= hi
    assert est == pytest.approx(1.2)
    assert lo > 1.1 and hi < 1.3
    assert stats.bootstrap_ci(a, b) == (est, lo, hi)
    est1, lo1, hi1 = stats.bootstrap_ci(a)
    assert lo1 <= est1 == 100.0 <= hi1
    with pytest.raises(ValueError):
        stats.bootstrap_ci([], b)


def test_rank_test_separates_distinct_samples_and_not_equal_ones():
    a = [1.0, 2.0, 3.0, 4.0, 5.0]
    b = [6.0, 7.0, 8.0, 9.0, 10.0]
    assert stats.rank_test(a, b) < 0.01
    assert stats.rank_test(a, [1.5, 2.5, 3.5, 4.5, 5.5]) > 0.3
    big_a = [float(i % 7) for i in range(40)]
    big_b = [float(i % 7) + 3 for i in range(40)]
    assert stats.rank_test(big_a, big_b) < 0.001


def test_repeats_are_summarized_per_sweep_point_and_invalid_steps_left_out():
    from brickyard.core.results import Metric, StepResult

    def step(i, bs, repeat, value, valid=True):
        return StepResult(i, {"bs": bs, "repeat": repeat}, repeat, (), (Metric("throughput", value, "B/s"),), valid=valid)

    steps = [step(0, 4, 0, 10.0), step(1, 8, 0, 20.0), step(2, 4, 1, 12.0), step(3, 8, 1, 1e9, valid=False),
             step(4, 4, 2, 11.0)]
    (p4, s4), (p8, s8) = stats.summarize_repeats(steps)
    assert p4 == {"bs": 4} and (s4.n, s4.median) == (3, 11.0)
    assert p8 == {"bs": 8} and (s8.n, s8.median) == (1, 20.0)

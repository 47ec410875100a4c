"""Significance on a noisy machine: intervals widened for few repeats, no "likely real" for a
change smaller than the spread measured in the same runs, interleaved A/B repeats compared
pair by pair."""

from __future__ import annotations

import math

import pytest

from brickyard.core.compare import compare_runs, headline_metrics
from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult
from brickyard.core.stats import (
    bootstrap_ci,
    expanded_alpha,
    interleaved_schedule,
    paired_ratio_ci,
    relative_spread,
    signed_rank_test,
    student_t_cdf,
    student_t_ppf,
)


def _run(run_id: str, values: list[float], metric: str = "init_seconds", unit: str = "s", group: str = "",
         params: dict | None = None) -> RunResult:
    steps = [StepResult(index=i, params=params or {"phase": "init", "scale": 1}, repeat=i, workers=(),
                        metrics=(Metric(metric, v, unit),)) for i, v in enumerate(values)]
    extra = {"interleave_group": group} if group else {}
    p = Provenance(brickyard_version="0.1.0", hosts={}, target="client1:/mnt/gv0", target_kind="gluster",
                   volume_name="gv0", extra=extra)
    return RunResult(run_id, "pgbench", RunStatus.COMPLETE, 1.76e9, 1.76e9 + 60, p, steps)


def test_student_t_quantiles_match_the_tables():
    for df, t975 in ((1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042)):
        assert student_t_ppf(0.975, df) == pytest.approx(t975, abs=1e-3)
        assert student_t_cdf(t975, df) == pytest.approx(0.975, abs=1e-4)
    assert expanded_alpha(3) < 1e-6 < expanded_alpha(10) < 0.05 and expanded_alpha(200) == pytest.approx(0.05, abs=0.005)


def test_three_repeats_get_a_wider_interval_than_the_plain_bootstrap():
    a, b = [100.0, 104.0, 98.0], [108.0, 111.0, 106.0]
    _, lo, hi = bootstrap_ci(a, b)
    _, wlo, whi = bootstrap_ci(a, b, expand=True)
    assert wlo < lo and whi > hi


def test_a_change_within_the_run_to_run_spread_is_never_likely_real():
    # the pgbench init times of issue 12: −9.4 % between runs whose repeats scatter by ~30 %
    a = _run("a" * 32, [2.04, 1.62, 2.10])
    b = _run("b" * 32, [1.86, 1.85, 1.87])
    (c,) = compare_runs(a, b)
    assert c.change == pytest.approx(1.86 / 2.04 - 1, abs=1e-9)
    assert c.noise == pytest.approx(relative_spread([2.04, 1.62, 2.10]))
    assert not c.significant
    assert c.certainty().startswith("no clear difference")
    # the same medians from tight repeats are a real change
    tight_a = _run("c" * 32, [2.04, 2.05, 2.03, 2.04, 2.06])
    tight_b = _run("d" * 32, [1.85, 1.86, 1.87, 1.86, 1.85])
    (t,) = compare_runs(tight_a, tight_b)
    assert t.significant and t.certainty().startswith("very likely real")


def test_the_spread_of_the_whole_run_counts_where_one_point_looks_tight_by_luck():
    pts = [{"phase": "run", "clients": c} for c in (1, 2, 4)]
    base = [_step for _step in []]
    def run(rid, series):
        steps = []
        for k, (params, vals) in enumerate(zip(pts, series)):
            for rep, v in enumerate(vals):
                steps.append(StepResult(index=len(steps), params=params, repeat=rep, workers=(),
                                        metrics=(Metric("tps", v, "tps"),)))
        r = _run(rid, [])
        r.steps = steps
        return r
    a = run("a" * 32, [[100, 101, 100], [200, 150, 260], [300, 220, 400]])
    b = run("b" * 32, [[110, 111, 110], [200, 150, 260], [300, 220, 400]])
    lucky = next(c for c in compare_runs(a, b) if dict(c.point)["clients"] == "1")
    assert lucky.change == pytest.approx(0.10) and lucky.noise > 0.10 and not lucky.significant


def test_interleaved_repeats_are_compared_pair_by_pair():
    # slow drift moves both configurations alike; B is steadily 5 % faster within each pair
    drift = [100.0, 120.0, 90.0, 130.0, 110.0, 95.0]
    a_vals = drift
    b_vals = [v * 1.05 for v in drift]
    unpaired = compare_runs(_run("a" * 32, a_vals, "tps", "tps"), _run("b" * 32, b_vals, "tps", "tps"))[0]
    assert not unpaired.significant                # lost in the drift
    a = _run("c" * 32, a_vals, "tps", "tps", group="campaign-7")
    b = _run("d" * 32, b_vals, "tps", "tps", group="campaign-7")
    (c,) = compare_runs(a, b)
    assert c.paired and c.ratio == pytest.approx(1.05) and c.significant
    assert c.p_value == pytest.approx(signed_rank_test(a_vals, b_vals)) and c.p_value < 0.05
    assert "interleaved pairs" in c.certainty()
    ratio, lo, hi = paired_ratio_ci(a_vals, b_vals)
    assert lo == pytest.approx(1.05) and hi == pytest.approx(1.05)


def test_an_abba_schedule_and_the_signed_rank_test():
    assert interleaved_schedule(3) == [(0, "A"), (0, "B"), (1, "B"), (1, "A"), (2, "A"), (2, "B")]
    assert signed_rank_test([1, 2, 3], [2, 3, 4]) == pytest.approx(0.25)
    assert signed_rank_test([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 7]) == pytest.approx(0.03125)
    assert signed_rank_test([1, 2], [1, 2]) == 1.0


def test_the_default_metric_is_the_workloads_headline():
    init = _run("a" * 32, [2.0, 2.1])
    tps = _run("b" * 32, [400.0, 410.0], "tps", "tps", params={"phase": "run", "clients": 2})
    tps.steps += init.steps
    assert headline_metrics([tps]) == ["tps", "init_seconds"]
    assert headline_metrics([_run("c" * 32, [1e8], "throughput", "B/s")]) == ["throughput"]
    assert [c.metric for c in compare_runs(tps, tps)] == ["tps", "init_seconds"]
    assert math.isclose(compare_runs(tps, tps)[0].ratio, 1.0)

"""The throughput model's goal (issue 23) judged on recorded sandbox figures, so both branches
of the e2e check are exercised where a unit test can see them: the loose branch on the busy
machine the figures were recorded on, and the strict one (90 % within 25 %), which a noisy CI
machine never reaches, on the same recorded figures judged as if the calibration were quiet."""

import copy
import gzip
import json
from pathlib import Path

import pytest

from brickyard.core import topofile
from brickyard.core.calibration import NOISY
from brickyard.core.modelgoal import (GOAL, analyse_runs, binomial_tail, goal_figures, judge, noisy_share, resolution,
                                      shifted)
from brickyard.store.codec import run_from_dict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "modelcheck"


def replay(name: str) -> dict:
    """A recorded model check through today's model: calibrated on the probe and every copy of
    the calibration layout (dt8, dt8-2, …), each other layout predicted."""
    doc = json.loads(gzip.open(FIXTURES / name, "rt").read())
    runs = [run_from_dict(r) for r in doc["runs"]]
    topologies = [topofile.loads(t) for t in doc["topologies"]]
    of = {rid: topologies[i] for rid, i in doc["topology_of"].items()}
    probe = next(r for r in runs if r.run_id == doc["probe_run"])
    calibrate_on = tuple(n for n in doc["layouts"] if n == "dt8" or n.startswith("dt8-"))
    return analyse_runs(probe, [r for r in runs if r is not probe], lambda r: of.get(r.run_id), calibrate_on)


@pytest.fixture(scope="module")
def small():
    return replay("small-2026-11-27-load22.json.gz")


def test_the_ci_loop_recorded_at_load_22_takes_the_loose_branch_and_meets_it(small):
    v = judge(small)
    assert small["tested"] == 16 and {r["layout"] for r in small["rows"] if not r["fit"]} == {"dt2dp4rd1", "dt4rp2"}
    assert not v.strict and v.spread > 0.3          # the machine spread its own figures by 43 % run to run
    assert small["spread"] == v.spread and any("spread" in w for w in small["warnings"])
    assert v.met, v.describe()
    assert v.inside >= 15 and v.within >= 6
    # the calibration measured what a client without io-threads moves, on the copy run without them
    ratio = small["parameters"]["no_io_threads_ratio.write"]
    assert ratio["source"] == "fitted" and "dt8-2" in ratio["note"] and ratio["value"] <= 1.0


def test_the_strict_branch_on_the_recorded_figures_fails_them_where_they_miss_by_more_than_25_percent(small):
    v = judge(small, limit=1.0)      # judged as if the calibration had spread less than that
    assert v.strict and not v.met
    assert any("predicted figures within 25%" in p for p in v.problems), v.problems


def _at(result: dict, errors: list[float], spread: float = 0.10) -> dict:
    """The recorded result with each tested figure measured at ``errors`` off its prediction
    (and the calibration's run-to-run spread ``spread``, warned about where it passes 15 %, as
    the calibration does): what a quiet machine's check would hold."""
    out = copy.deepcopy(result)
    tested = [r for r in out["rows"] if not r["fit"]]
    for r, e in zip(tested, errors):
        r["measured_bps"] = r["predicted_bps"] / (1 + e)
        r["error"] = e
    out["spread"] = spread
    out["warnings"] = [w for w in out["warnings"] if "spread" not in w]
    if spread > NOISY:
        out["warnings"].append(f"the calibration figures spread {spread:.0%} run to run")
    return out


def test_the_strict_branch_asks_90_percent_within_25_percent_and_90_percent_inside_the_range(small):
    n = small["tested"]
    near = [0.2 if i % 2 else -0.2 for i in range(n)]
    assert judge(_at(small, near)).met and judge(_at(small, near)).strict
    one_miss = near[:-1] + [0.6]                           # 15 of 16: 94 %
    assert judge(_at(small, one_miss)).met
    two_misses = near[:-2] + [0.6, -0.4]                   # 14 of 16: 88 %
    v = judge(_at(small, two_misses))
    assert not v.met and "14 of 16 predicted figures within 25%" in v.problems[0]
    # measurements outside the stated range count against the other half of the goal
    wide = _at(small, near)
    for r in [r for r in wide["rows"] if not r["fit"]][:2]:
        r["high_bps"] = r["measured_bps"] * 0.99
    assert any("inside the stated range" in p for p in judge(wide).problems)


def test_the_branch_is_taken_on_the_spread_the_warning_is_given_on_not_on_the_ranges_sigma(small):
    """CI failed on this (a844e51): a 15 % spread with a 6 % misfit is σ 16 % for the ranges, and
    no spread warning; the check asked the loose branch's warning, found none, and failed a
    calibration that had 16 of 16 figures within 25 %."""
    quiet = _at(small, [0.1] * small["tested"], spread=NOISY)
    quiet["parameters"]["noise_log_sigma"]["value"] = 0.16          # spread and misfit in quadrature
    v = judge(quiet)
    assert v.strict and v.met, v.describe()
    assert "at most 15 %" in v.describe()
    # just over the limit: the calibration warns, the loose branch is asked, and the words say so
    busy = _at(small, [0.1] * small["tested"], spread=NOISY + 0.01)
    v = judge(busy)
    assert not v.strict and v.met and "warned" in v.describe()
    # a result written before the spread was stored: the warning alone decides, as the e2e test did
    old = copy.deepcopy(quiet)
    del old["spread"]
    assert judge(old).strict


def test_the_loose_branch_still_asks_a_third_within_25_percent_a_warning_and_every_figure_within_a_quarter_to_5x(small):
    assert GOAL == 0.25
    few = _at(small, [0.6] * 11 + [0.1] * 5, spread=0.5)    # 5 of 16 within: under a third
    for r in few["rows"]:
        r["low_bps"], r["high_bps"] = r["measured_bps"] / 3, r["measured_bps"] * 3
    assert not judge(few).met and "under 33%" in " ".join(judge(few).problems)
    quiet_words = copy.deepcopy(small)
    quiet_words["warnings"] = []
    assert "no warning says so" in " ".join(judge(quiet_words).problems)
    slip = _at(small, [5.5] + [0.1] * 15, spread=0.5)        # a figure 6.5 × its measurement
    assert any("outside ¼ … 5 ×" in p for p in judge(slip).problems)


def test_the_full_run_recorded_at_load_14_20_is_judged_too():
    full = replay("full-2026-11-27-load14-20.json.gz")
    v = judge(full)
    assert full["tested"] == 36 and not v.strict
    assert v.met, v.describe()
    assert v.inside >= 33


def test_a_share_on_16_figures_is_asked_as_a_binomial_test_where_alpha_is_given(small):
    """What the e2e test asks: a model whose ranges hold 90 % shows 15 of 16 inside them only
    half the time; at 1 % the test fails 10 of 16, not 14 (as the goal as it stands does)."""
    assert binomial_tail(10, 16, 0.9) < 0.01 < binomial_tail(11, 16, 0.9)
    n = small["tested"]
    near = [0.2 if i % 2 else -0.2 for i in range(n)]
    for misses, met in ((2, True), (5, True), (6, False)):          # 14, 11, 10 of 16 within 25 %
        errors = near[:n - misses] + [0.6] * misses
        v = judge(_at(small, errors), alpha=0.01)
        assert v.strict and v.met == met, (misses, v.describe())
        assert judge(_at(small, errors)).met == (misses == 0 or misses == 1)    # the goal as it stands
    assert "binomial test at 1% on 16 figures" in judge(_at(small, near), alpha=0.01).describe()


def test_on_the_noisy_branch_the_share_asked_is_what_the_measured_spread_leaves_a_right_model():
    assert noisy_share(0.15) == pytest.approx(0.71, abs=0.01)     # at the limit: 71 % within 25 %
    assert noisy_share(0.33) == pytest.approx(0.37, abs=0.01)
    assert noisy_share(0.5) == pytest.approx(0.25, abs=0.01)
    # recorded while the load went from 6.6 to 34: spread 33 %, 5 of 16 within 25 %, 15 inside
    busy = replay("small-2026-11-27-load7-34.json.gz")
    assert busy["tested"] == 16 and busy["spread"] > 0.25
    v = judge(busy, alpha=0.01)
    assert not v.strict and v.met, v.describe()
    assert v.share == pytest.approx(noisy_share(busy["spread"]))
    # one or no figure within 25 % at that spread is not noise any more
    bad = _at(busy, [0.6] * 15 + [0.1], spread=busy["spread"])
    for r in bad["rows"]:
        r["low_bps"], r["high_bps"] = r["measured_bps"] / 3, r["measured_bps"] * 3
    assert not judge(bad, alpha=0.01).met


def test_the_goal_figures_are_printed_beside_their_targets_and_say_whether_the_misses_go_one_way(small):
    """What benchmarks/model_check.py and the e2e test print: each share against its 90 % target,
    writes and reads apart, the spread against the 15 % the full goal needs, and the misses' sign
    (all one way is a bias of the model, not the machine's scatter)."""
    lines = [" ".join(line.split()) for line in goal_figures(small, judge(small))]
    text = "\n".join(lines)
    v = judge(small)
    assert f"within 25% of the measurement: {v.within} of 16" in lines[1] and "target ≥ 90%" in lines[1]
    assert f"measured inside the stated range: {v.inside} of 16" in lines[2] and "target ≥ 90%" in lines[2]
    assert "writes " in lines[1] and "reads " in lines[1]
    assert f"spread: {small['spread']:.0%}" in text and "asked in full at ≤ 15%" in text
    assert "predicted too high" in text and "too low" in text          # the recorded misses go both ways
    low = _at(small, [-0.5] * 4 + [0.1] * 12, spread=0.1)
    assert "all 4 misses predicted too low: one way, a bias of the model" in "\n".join(goal_figures(low, judge(low)))
    near = _at(small, [0.1] * 16, spread=0.1)
    assert "no figure missed by more than 25%" in "\n".join(goal_figures(near, judge(near)))


def test_resolution_is_the_smallest_factor_by_which_a_wrong_model_would_have_failed_the_check(small):
    """What the e2e test asserts beside the verdict, so it can fail on a wrong model on a noisy
    machine too: the same measurements judged against predictions (and ranges) f × too high and
    f × too low must both fail for some f up to 3."""
    two = shifted(small, 2.0)
    r0, r2 = [r for r in small["rows"] if not r["fit"]][0], [r for r in two["rows"] if not r["fit"]][0]
    assert r2["predicted_bps"] == 2 * r0["predicted_bps"] and r2["high_bps"] == 2 * r0["high_bps"]
    assert r2["measured_bps"] == r0["measured_bps"] and r2["error"] == pytest.approx(2 * (1 + r0["error"]) - 1)
    assert [r for r in two["rows"] if r["fit"]] == [r for r in small["rows"] if r["fit"]]
    # a quiet calibration (strict branch), every figure within ±5 %: a model 1.5 × off fails
    # it (1.25 × too low leaves all 16 within 25 %)
    near = _at(small, [0.05 if i % 2 else -0.05 for i in range(small["tested"])])
    assert judge(near, alpha=0.01).met and resolution(near, alpha=0.01) == 1.5
    # the recorded busy runs (spread 43 % and 33 %): only a model 3 × (2.5 ×) off fails the ranges
    assert resolution(small, alpha=0.01) == 3.0
    assert resolution(replay("small-2026-11-27-load7-34.json.gz"), alpha=0.01) == 2.5
    # ranges so wide that nothing falls outside them (a 50 % spread, every figure on its
    # prediction): no wrong model up to 4 × would fail
    wide = _at(small, [0.0] * small["tested"], spread=0.5)
    for r in wide["rows"]:
        r["low_bps"], r["high_bps"] = r["predicted_bps"] / 10, r["predicted_bps"] * 10
    assert resolution(wide, alpha=0.01) is None

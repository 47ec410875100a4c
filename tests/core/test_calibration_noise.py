"""A calibration knows its own noise (issue 23, part 1): the measured run-to-run spread of its
figures is carried into every predicted range, and a calibration that does not fit its own
inputs says so, naming the points, and offers to repeat the runs interleaved."""

import math

import pytest

from brickyard.core import calibration as cal, modelcheck, throughput as tm
from brickyard.core.plan import plan_volume
from brickyard.core.topology import VolumeType as T

from ._topo import build, volume

MB = 1e6


def dt_shape():
    topo = build({f"n{i}": 2 for i in range(4)})
    return topo, plan_volume(topo, volume(topo, T.DISTRIBUTE)).estimate.shape


def obs(shape, d, n, values, block=1 << 22, source="run a"):
    values = tuple(v * MB for v in values)
    return cal.Observation(shape, d, n, block, sorted(values)[len(values) // 2], source, "dt8", len(values), values)


def fit(topo, observations):
    return cal.fit(topo, cal.Inputs(tuple(observations), {}, ("dt8",)))


def test_quiet_repeats_leave_the_ranges_as_the_parameters_make_them():
    topo, shape = dt_shape()
    quiet = fit(topo, [obs(shape, "write", 1, (200, 201, 199)), obs(shape, "write", 8, (600, 603, 598))])
    noisy = fit(topo, [obs(shape, "write", 1, (120, 200, 330)), obs(shape, "write", 8, (360, 600, 990))])
    q = tm.predict(shape, quiet.params, "write", 8, 1 << 22)
    n = tm.predict(shape, noisy.params, "write", 8, 1 << 22)
    assert q.bps == pytest.approx(n.bps, rel=0.05)
    # the noisy calibration's range is far wider: ± 1.645 σ of its measured spread
    assert n.high / n.low > 2.5 * (q.high / q.low)
    noise = noisy.params.get(tm.NOISE)
    assert noise.source == "measured" and 0.35 < noise.value < 0.65, noise
    assert "run-to-run spread" in noise.note and "2 point(s) measured 6 times" in noise.note
    assert quiet.params.get(tm.NOISE).value < 0.02
    assert any("spread" in w and "interleaved" in w for w in noisy.warnings)
    assert not quiet.warnings


def test_repeats_across_runs_of_one_layout_count_as_its_spread():
    topo, shape = dt_shape()
    model = fit(topo, [obs(shape, "write", 1, (100,), source="run a"), obs(shape, "write", 1, (200,), source="run b")])
    sigma = model.params.get(tm.NOISE).value
    assert sigma == pytest.approx(math.log(2) / math.sqrt(2), rel=0.05)


def test_a_calibration_that_does_not_fit_its_own_inputs_says_which_points():
    topo, shape = dt_shape()
    # one file at 4M ran at half the rate of 1M and 16M: no per-call cost makes a larger block slower
    model = fit(topo, [obs(shape, "write", 1, (200,), 1 << 20), obs(shape, "write", 1, (90,), 1 << 22),
                       obs(shape, "write", 1, (210,), 1 << 24)])
    assert [r.observation.block_size for r in model.misfits] == [1 << 22]
    (warning,) = [w for w in model.warnings if "does not fit its own inputs" in w]
    assert "dt8 write 1 file, 4M blocks: measured 90.0 MB/s" in warning and "interleaved" in warning
    assert model.to_json()["warnings"] == list(model.warnings)
    # the misfit is noise the ranges carry
    assert model.params.get(tm.NOISE).value > 0.3


def test_the_model_check_covers_its_figures_with_the_noisy_ranges():
    """What the goal asks of a range: a figure measured again on the same noisy machine falls
    inside it (here: every figure of a second, equally noisy run)."""
    topo, shape = dt_shape()
    first = [obs(shape, "write", 1, (120, 200, 260)), obs(shape, "write", 8, (400, 560, 700)),
             obs(shape, "read", 1, (150, 240, 300)), obs(shape, "read", 8, (420, 610, 760))]
    model = fit(topo, first)
    again = [(d, n, v) for d, n, values in (("write", 1, (115, 265)), ("write", 8, (390, 720)),
                                            ("read", 1, (140, 310)), ("read", 8, (410, 780))) for v in values]
    for d, n, v in again:
        p = tm.predict(shape, model.params, d, n, 1 << 22)
        assert p.low <= v * MB <= p.high, (d, n, v, p.low, p.high)


def test_the_model_carries_its_spread_alone_and_warns_exactly_when_it_passes_noisy():
    """What the model check's strict/lenient branch reads (``Model.spread``) is what the spread
    warning is given on: the run-to-run spread, not the ranges' σ (which adds the misfit)."""
    topo, shape = dt_shape()
    # 4M one file ran at half of 1M and 16M: a misfit, on repeats that spread ~10 % (quiet)
    model = fit(topo, [obs(shape, "write", 1, (180, 200, 220), 1 << 20), obs(shape, "write", 1, (82, 90, 99), 1 << 22),
                       obs(shape, "write", 1, (190, 210, 231), 1 << 24)])
    assert model.spread == pytest.approx(0.095, abs=0.01)
    assert model.params.get(tm.NOISE).value > model.spread + 0.1     # σ: spread and misfit together
    assert not model.noisy and not any("spread" in w for w in model.warnings)
    assert model.to_json()["spread"] == model.spread
    for values in ((190, 200, 210), (170, 200, 235), (150, 200, 260)):
        m = fit(topo, [obs(shape, "write", 1, values)])
        assert m.noisy == (m.spread > cal.NOISY) == any("spread" in w for w in m.warnings), (values, m.spread)
    single = fit(topo, [obs(shape, "write", 1, (200,))])
    assert single.spread is None and not single.noisy

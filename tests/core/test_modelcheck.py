"""The model checks itself in the decision table: each measured layout beside what the model
predicted for it (from the other layouts' runs, or a given calibration) and the error."""

from __future__ import annotations

import pytest

from brickyard.core import calibration as cal
from brickyard.core.decision import build_table
from brickyard.core.decisiontable import ESTIMATED, MEASURED, PREDICTED, LayoutEntry
from brickyard.core.topology import Layout, VolumeType

from .test_decision import MIB, dd_run, eight_node, planned

BS = 16 * MIB
DT8 = Layout(VolumeType.DISTRIBUTE)
RP2 = Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2)
DP4 = Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1)


def entry(topo, name, layout, points, run_id):
    return LayoutEntry(name, planned(topo, name, layout), [dd_run(run_id, points)])


def three_layouts():
    topo = eight_node()
    return [entry(topo, "dt8", DT8, {("write", 1, BS): [315e6, 312e6], ("write", 8, BS): [2.2e9, 2.1e9]}, "r1"),
            entry(topo, "dt4rp2", RP2, {("write", 1, BS): [290e6], ("write", 8, BS): [1.4e9]}, "r2"),
            entry(topo, "dt2dp4rd1", DP4, {("write", 1, BS): [300e6], ("write", 8, BS): [1.65e9]}, "r3")]


def test_each_measured_layout_shows_its_prediction_from_the_others_and_the_error():
    table = build_table(three_layouts(), model_check=True)
    keys = [c.key for c in table.columns]
    for n in (1, 8):
        measured = f"tput:write:{n}:{BS}"
        assert keys[keys.index(measured) + 1] == f"pred:write:{n}:{BS}"
        assert keys[keys.index(measured) + 2] == f"err:write:{n}:{BS}"
    row = table.row("dt4rp2")
    pred, meas, err = (row.figure(f"{k}:write:8:{BS}") for k in ("pred", "tput", "err"))
    assert pred.source == PREDICTED and meas.source == MEASURED
    assert "calibrated on dt8, dt2dp4rd1" in pred.note and "bound:" in pred.note
    assert pred.low <= pred.value <= pred.high
    assert err.value == pytest.approx(pred.value / meas.value - 1)
    assert table.text(row, f"err:write:8:{BS}") == f"{err.value * 100:+.0f} %"
    assert any(n.startswith("model check:") and "without its own runs" in n for n in table.notes)


def test_a_single_measured_layout_is_only_estimated_and_says_why():
    table = build_table(three_layouts()[:1], model_check=True)
    f = table.row("dt8").figure(f"pred:write:8:{BS}")
    assert f.source == ESTIMATED and "uncalibrated" in f.note
    assert any("uncalibrated" in n for n in table.notes)


def test_a_given_model_predicts_every_row_and_marks_a_fit_of_its_own_runs():
    entries = three_layouts()
    shape = entries[0].plan.estimate.shape
    model = cal.fit(eight_node(), cal.Inputs((cal.Observation(shape, "write", 8, BS, 2.2e9, "run r1", "dt8"),),
                                             {}, ("dt8",)))
    table = build_table(entries, model_check=True, model=model)
    assert "a fit, not a test" in table.row("dt8").figure(f"pred:write:8:{BS}").note
    assert "a fit, not a test" not in table.row("dt4rp2").figure(f"pred:write:8:{BS}").note


def test_the_prediction_columns_go_into_csv_and_json_when_asked_for():
    table = build_table(three_layouts(), model_check=True)
    assert "predicted write 16M × 8 files [B/s]" in table.to_csv().splitlines()[0]
    assert any(c["key"].startswith("err:") for c in table.to_json()["columns"])
    plain = build_table(three_layouts())
    assert not any(c.key.startswith(("pred:", "err:")) for c in plain.columns)


def test_an_unmeasured_point_gets_the_model_at_exactly_that_point():
    topo = eight_node()
    entries = [LayoutEntry("dt8", planned(topo, "dt8", DT8), [dd_run("r1", {("write", 1, 4096): [20e6]})]),
               LayoutEntry("dp", planned(topo, "dp", DP4))]
    table = build_table(entries, block_sizes=[4096])
    small = table.row("dp").figure("tput:write:1:4096")
    large = entries[1].plan.estimate.single_write_bps
    assert small.source == ESTIMATED and small.value < large     # a 4 KiB call costs a stream more


def test_check_table_lists_every_measured_figure_with_the_errors_the_table_notes():
    from brickyard.core.modelcheck import check_table

    entries = three_layouts()
    table = build_table(entries)
    check = check_table(table, entries)
    assert check.layouts == ("dt8", "dt4rp2", "dt2dp4rd1") and not check.why_not
    assert {(p.row, p.column.params["concurrency"]) for p in check.points} == {
        (k, n) for k in check.layouts for n in (1, 8)}
    checked = build_table(entries, model_check=True)          # the same errors as the table's own columns
    for p in check.points:
        err = checked.row(p.row).figure(f"err:{p.column.key[len('tput:'):]}")
        assert p.error == pytest.approx(err.value)
        assert p.model.label == f"predicted (calibrated on {', '.join(k for k in check.layouts if k != p.row)})"
    assert f"model check: the calibrated model's figures are {check.summary}" in checked.notes
    assert check.worst is max(check.points, key=lambda p: abs(p.error))


def test_check_table_of_one_measured_layout_says_why_there_is_no_check():
    from brickyard.core.modelcheck import check_table

    entries = three_layouts()[:1]
    check = check_table(build_table(entries), entries)
    assert not check.points and check.median_error is None
    assert check.why_not.startswith("Only dt8 was measured")


def test_a_layout_measured_again_under_another_name_is_not_predicted_from_its_twin():
    """The calibration layout repeated between the others (dt8, …, dt8-2): the same sets, so
    neither is predicted from the other's runs — that would be a fit, not a test."""
    from brickyard.core.modelcheck import leave_one_out

    topo = eight_node()
    entries = three_layouts() + [entry(topo, "dt8-2", DT8, {("write", 1, BS): [300e6],
                                                            ("write", 8, BS): [2.0e9]}, "r4")]
    models = leave_one_out(entries)
    assert "dt8-2" not in " ".join(models["dt8"].model.calibrated_on)
    assert "dt8" not in [c for c in models["dt8-2"].model.calibrated_on]
    assert set(models["dt4rp2"].model.calibrated_on) == {"dt8", "dt2dp4rd1", "dt8-2"}

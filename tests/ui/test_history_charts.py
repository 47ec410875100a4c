"""History charts on synthesized runs: axes, curves, error bars, hover readout, live feed.
Screenshots go to $BRICKYARD_SCREENSHOTS (or the test's tmp dir)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF

from brickyard.core.series import sweep_by_block_size, value_at
from brickyard.core.units import format_block_label
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.history.charts import (
    LayoutBarChart,
    LiveChart,
    ScalingChart,
    ThroughputChart,
    TrendChart,
)
from brickyard.ui.widgets.chart import Log2SizeAxis

MiB = 2**20
MB = 10**6


def shot(widget, tmp_path: Path, name: str) -> Path:
    out = Path(os.environ.get("BRICKYARD_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    assert widget.grab().save(str(path))
    assert path.stat().st_size > 5000      # not an empty grab
    return path


@pytest.fixture
def runs():
    rng = random.Random(7)
    return [synthetic_run(rng, gluster="3.12.15", repeats=3), synthetic_run(rng, gluster="6.0", repeats=3, speedup=1.3)]


def _show(qtbot, widget, w=900, h=560):
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)


def test_block_size_axis_labels_powers_of_two_in_kib_mib_without_si_prefix(qapp):
    axis = Log2SizeAxis()
    assert axis.tickStrings([12, 20, 26, 30], 1, 1) == ["4 KiB", "1 MiB", "64 MiB", "1 GiB"]
    assert axis.autoSIPrefix is False
    assert axis.tickValues(11.7, 24.2, 900)[0][1] == [float(v) for v in range(12, 25)]
    assert axis.tickValues(11.7, 24.2, 500)[0][1] == [float(v) for v in range(12, 25, 2)]   # no overlap
    assert format_block_label(1536) == "1.5 KiB"


def test_throughput_chart_has_a_curve_per_run_and_concurrency_with_exact_hover(qtbot, runs, tmp_path):
    chart = ThroughputChart()
    _show(qtbot, chart)
    chart.set_runs(runs, ["gluster 3.12.15", "gluster 6.0"])
    assert sorted(chart.curves) == ["gluster 3.12.15 · 4 concurrent", "gluster 3.12.15 · single",
                                    "gluster 6.0 · 4 concurrent", "gluster 6.0 · single"]
    assert chart.unit_label == "MB/s" and "MB/s" in chart.plot_item.getAxis("left").labelText   # decimal, as dd
    assert chart.plot_item.getAxis("left").autoSIPrefix is False
    assert sum(isinstance(i, pg.ErrorBarItem) for i in chart.plot_item.items) == 4
    expected = sweep_by_block_size(runs[1])[1]
    xs, ys = chart.curves["gluster 6.0 · single"].getData()
    assert np.allclose(2 ** xs, [p.x for p in expected])
    assert np.allclose(ys, [p.median / MB for p in expected])
    one_mib = next(p for p in expected if p.x == MiB)
    text = chart.readout_at(20.0, one_mib.median / MB)
    assert text.startswith("gluster 6.0 · single\nblock 1 MiB:") and f"{one_mib.median / MB:,.4g} MB/s" in text
    assert "repeats 3" in text and chart.readout.isVisible()
    assert text.endswith(f"= {one_mib.median:,.0f} B/s")            # the stored number itself
    assert chart.readout_at(13.0, 1e6) == "" and not chart.readout.isVisible()
    shot(chart, tmp_path, "history-throughput-vs-block-size")


def test_hover_follows_the_real_mouse(qtbot, runs):
    chart = ThroughputChart()
    _show(qtbot, chart)
    chart.set_runs(runs[:1], ["run"])
    qtbot.wait(50)
    p = sweep_by_block_size(runs[0])[1][3]
    scene = chart.plot_item.vb.mapViewToScene(QPointF(np.log2(p.x), p.median / MB))
    chart.scene().sigMouseMoved.emit(scene)
    assert chart.readout.isVisible() and f"block {format_block_label(p.x)}" in chart.readout.textItem.toPlainText()


def test_layouts_side_by_side_at_one_block_size(qtbot, tmp_path):
    rng = random.Random(8)
    runs = [synthetic_run(rng, layout=k, repeats=3) for k in ("distribute", "replica", "arbiter", "disperse")]
    chart = LayoutBarChart()
    _show(qtbot, chart, 800, 480)
    chart.set_runs(runs, ["distribute 3", "replica 3", "replica 3 arbiter 1", "disperse 6 (2)"], MiB, 4)
    heights = chart.bars.opts["height"]
    medians = [next(p for p in sweep_by_block_size(r)[4] if p.x == MiB).median / MB for r in runs]
    assert np.allclose(heights, medians)
    assert heights[0] > heights[1]        # distribute writes once, replica 3 three times
    assert chart.category_axis.names[3] == "disperse 6 (2)"
    assert "range" in chart.readout_at(1.0, heights[1])
    shot(chart, tmp_path, "history-layouts-side-by-side")


def test_trend_and_scaling_charts(qtbot, tmp_path):
    rng = random.Random(9)
    runs = [synthetic_run(rng, started_at=1.76e9 + i * 86400, speedup=1 + i * 0.03, repeats=2,
                          concurrencies=(1, 2, 4, 8)) for i in range(12)]
    trend = TrendChart()
    _show(qtbot, trend, 800, 420)
    points = [(r.started_at, r.run_id, next(p for p in sweep_by_block_size(r)[1] if p.x == MiB).median) for r in runs]
    trend.set_points(points, "B/s", "throughput at 1 MiB, single")
    xs, ys = trend.curve.getData()
    assert len(xs) == 12 and ys[-1] > ys[0]
    assert "run " + runs[5].run_id[:12] in trend.readout_at(xs[5], ys[5])
    shot(trend, tmp_path, "history-trend")

    scaling = ScalingChart()
    _show(qtbot, scaling, 800, 420)
    scaling.set_runs(runs[:3], ["a", "b", "c"], 64 * 1024)
    text = scaling.readout_at(1.0, 1.0)
    assert "1 worker: efficiency 1 by definition" in text
    shot(scaling, tmp_path, "history-scaling")


def test_live_chart_grows_step_by_step(qtbot, tmp_path):
    run = synthetic_run(random.Random(10), repeats=1, concurrencies=(1,))
    chart = LiveChart()
    _show(qtbot, chart, 700, 400)
    chart.begin("running now")
    for n, step in enumerate(run.steps, start=1):
        chart.add_step(step)
        assert len(chart.curves["running now · single"].getData()[0]) == n
    shot(chart, tmp_path, "history-live")


def _no_overlap(chart) -> bool:
    legend = chart.legend.sceneBoundingRect()
    plot = chart.plot_item.vb.sceneBoundingRect()
    return legend.height() > 0 and not legend.intersects(plot) and legend.top() >= plot.bottom()


def test_legends_sit_under_the_plot_never_over_the_data(qtbot, runs, tmp_path):
    chart = ThroughputChart()
    _show(qtbot, chart)
    chart.set_runs(runs, ["glusterfs 3.12.15", "glusterfs 6.0"])
    qtbot.wait(50)
    assert _no_overlap(chart)
    assert chart.legend.columnCount >= 2               # entries flow across the width
    scaling = ScalingChart()
    _show(qtbot, scaling)
    scaling.set_runs(runs, ["glusterfs 3.12.15", "glusterfs 6.0"], MiB)
    qtbot.wait(50)
    assert _no_overlap(scaling)
    shot(chart, tmp_path, "history-legend-under-plot")


def test_scaling_efficiency_at_one_worker_has_no_error_bar(qtbot):
    rng = random.Random(21)
    run = synthetic_run(rng, repeats=3, concurrencies=(1, 2, 4))
    chart = ScalingChart()
    _show(qtbot, chart)
    chart.set_runs([run], ["r"], MiB)
    bars = [i for i in chart.plot_item.items if isinstance(i, pg.ErrorBarItem)]
    assert bars and all(1.0 not in list(b.opts["x"]) for b in bars)
    assert "by definition" in chart.readout_at(1.0, 1.0)


def test_one_run_charts_on_its_own_single_against_each_concurrency(qtbot, tmp_path):
    from brickyard.ui.history.compare_panel import ComparePanel

    run = synthetic_run(random.Random(22), repeats=3, concurrencies=(1, 2, 4))
    panel = ComparePanel()
    _show(qtbot, panel, 1000, 700)
    panel.show_runs([run])
    assert panel.tabs.currentWidget() is panel.throughput_chart
    curves = panel.throughput_chart.curves
    assert len(curves) == 3 and all(len(c.getData()[0]) == 7 for c in curves.values())
    colors = {c.opts["pen"].color().name() for c in curves.values()}
    assert len(colors) == 3                            # single and each concurrency told apart
    shot(panel, tmp_path, "history-one-run")


def test_point_chart_labels_points_and_bars_with_units(qtbot, tmp_path):
    from pathlib import Path

    from brickyard.store.exchange import read_export
    from brickyard.ui.history.charts import PointChart

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "sandbox"
    a, b = read_export(fixtures / "pgbench-replica-hrep.json")
    chart = PointChart()
    _show(qtbot, chart)
    chart.set_runs([a, b], ["write-behind on", "write-behind off"], "tps")
    assert chart.category_axis.names == ["run clients=2 pg_version=postgres (PostgreSQL) 15.18 "
                                         "(Debian 15.18-0+deb12u1) scale=1 transactions=50"]
    texts = [t.textItem.toPlainText() for t in chart.value_labels]
    assert len(texts) == 2 and all(t.endswith(" tps") for t in texts)
    assert chart.plot_item.getAxis("left").labelText == "tps"
    assert _no_overlap(chart)
    chart.set_runs([a, b], ["write-behind on", "write-behind off"], "init_seconds")
    assert chart.category_axis.names == ["init pg_version=postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1) "
                                         "scale=1"] and all(t.textItem.toPlainText().endswith(" s")
                                                            for t in chart.value_labels)
    shot(chart, tmp_path, "history-by-point")


def test_the_binary_preference_relabels_the_charts(qtbot, runs):
    from brickyard.core import units

    chart = ThroughputChart()
    _show(qtbot, chart)
    units.set_binary_rates(True)
    try:
        chart.set_runs(runs, ["a", "b"])
        assert chart.unit_label == "MiB/s"
        _, ys = chart.curves["a · single"].getData()
        assert np.allclose(ys, [p.median / MiB for p in sweep_by_block_size(runs[0])[1]])
    finally:
        units.set_binary_rates(False)
    chart.set_runs(runs, ["a", "b"])
    assert chart.unit_label == "MB/s"


def test_bars_side_by_side_say_their_value_with_its_unit(qtbot):
    runs = [synthetic_run(random.Random(23), layout=k, repeats=3) for k in ("replica", "disperse")]
    chart = LayoutBarChart()
    _show(qtbot, chart)
    chart.set_runs(runs, ["replica 3", "disperse 6"], MiB, 1)
    assert [t.textItem.toPlainText() for t in chart.value_labels] == \
        [f"{value_at(r, 'throughput', MiB, 1).median / 1e6:.1f} MB/s" for r in runs]

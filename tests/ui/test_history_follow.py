"""History follows what the user does (issue 21 items 8 and 12): a fio run opens on the view it
has figures for (not a red "no throughput was measured" on a block-size axis), Compare follows
the selected row, bar and point labels thin out or wrap instead of overlapping when many runs
are shown, and a chart with nothing to draw has no empty 0.2–0.8 axes."""

from __future__ import annotations

import dataclasses
import random
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from brickyard.store import HistoryStore
from brickyard.store.exchange import read_export
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.history import HistoryWindow
from brickyard.ui.history.charts import LayoutBarChart, PointChart, ScalingChart, ThroughputChart, TrendChart
from brickyard.ui.run.charts import LiveRateChart, RunChart

FIO = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "fio" / "local-fio-presets.json"
LEFT = Qt.MouseButton.LeftButton


def fio_runs(n: int) -> list:
    (run,) = read_export(FIO)
    return [dataclasses.replace(run, run_id=uuid.uuid4().hex if i else run.run_id,
                                started_at=run.started_at + 3600 * i) for i in range(n)]


@pytest.fixture
def store(tmp_path):
    s = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
    rng = random.Random(8)
    s.dd = [synthetic_run(rng, started_at=1.76e9 + i * 86400, repeats=2) for i in range(3)]
    s.fio = fio_runs(2)
    for r in s.dd + s.fio:
        s.add_run(r)
    yield s
    s.close()


def _view(qtbot, store):
    window = HistoryWindow(store)
    qtbot.addWidget(window)
    window.resize(1600, 900)
    window.show()
    qtbot.waitExposed(window)
    window.view.set_live(False)
    return window.view


def _row_of(view, run_id: str) -> int:
    return next(i for i, r in enumerate(view.model.rows) if r.run_id == run_id)


def _click_row(qtbot, view, row: int, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    rect = view.table.visualRect(view.model.index(row, 1))
    qtbot.mouseClick(view.table.viewport(), LEFT, modifier, rect.center())


def test_a_fio_run_opens_on_the_view_it_has_figures_for(qtbot, store):
    view = _view(qtbot, store)
    compare = view.compare
    view.show_runs([store.dd[-1].run_id])                  # a dd run before: its block-size chart in front
    assert compare.tabs.currentWidget() is compare.throughput_chart and not compare.throughput_chart.empty
    view.show_runs([store.fio[-1].run_id], overlay_same_volume=True)    # what "Show in History" does
    assert [r.workload for r in compare.runs] == ["fio", "fio"]
    assert compare.tabs.currentWidget() is compare.point_chart
    assert not compare.point_chart.empty and len(compare.point_chart.bars) == 2
    assert compare.throughput_chart.empty                    # and the block-size chart says why, no red
    assert "no block-size sweep" in compare.throughput_chart.plot_item.titleLabel.text
    assert "By point" in compare.throughput_chart.plot_item.titleLabel.text
    view.show_runs([store.dd[0].run_id, store.dd[1].run_id])   # back to a sweep: its chart, not an empty one
    compare.tabs.setCurrentWidget(compare.layout_chart)
    view.show_runs([store.fio[0].run_id])
    assert compare.tabs.currentWidget() is compare.point_chart


def test_compare_follows_the_selected_row(qtbot, store):
    view = _view(qtbot, store)
    compare = view.compare
    first = _row_of(view, store.dd[0].run_id)
    _click_row(qtbot, view, first)
    qtbot.waitUntil(lambda: [r.run_id for r in compare.runs] == [store.dd[0].run_id])
    qtbot.keyClick(view.table, Qt.Key.Key_Up if first > 0 else Qt.Key.Key_Down)
    moved = view.model.rows[view.table.currentIndex().row()].run_id
    assert moved != store.dd[0].run_id
    qtbot.waitUntil(lambda: [r.run_id for r in compare.runs] == [moved])
    _click_row(qtbot, view, first, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: {r.run_id for r in compare.runs} == {moved, store.dd[0].run_id})
    assert compare.diff_note.text().endswith("the first run is the baseline.") or "differs" in compare.diff_note.text()


def shown_point_chart(qtbot, width: int) -> PointChart:
    chart = PointChart()
    qtbot.addWidget(chart)
    chart.resize(width, 500)
    chart.show()
    qtbot.waitExposed(chart)
    return chart


def _visible_label_rects(chart) -> list:
    out = []
    for t in chart.value_labels:
        if t.isVisible():
            out.append(t.mapRectToScene(t.boundingRect()))
    return out


def test_bar_labels_thin_out_instead_of_overlapping_when_many_runs_are_shown(qtbot):
    chart = shown_point_chart(qtbot, 900)
    one = fio_runs(1)
    chart.set_runs(one, ["one"], "throughput")
    assert all(t.isVisible() for t in chart.value_labels) and len(chart.value_labels) == 4
    many = fio_runs(12)
    chart.set_runs(many, [f"run {i}" for i in range(12)], "throughput")
    qtbot.wait(50)
    rects = _visible_label_rects(chart)
    assert len(chart.value_labels) == 48 and 4 <= len(rects) < 48
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    chart.resize(1800, 500)                                   # more room: more of them come back
    qtbot.wait(50)
    assert len(_visible_label_rects(chart)) > len(rects)


def test_point_names_wrap_under_their_bars_instead_of_running_into_each_other(qtbot):
    chart = shown_point_chart(qtbot, 700)
    chart.set_runs(fio_runs(1), ["one"], "throughput")
    qtbot.wait(50)
    axis = chart.category_axis
    (lo, hi), width = chart.plot_item.vb.viewRange()[0], axis.geometry().width()
    step = axis.label_step(lo, hi, width)
    strings = axis.tickStrings([float(i) for i in range(0, len(axis.names), step)], 1, 1)
    assert step == 1 and any("\n" in s for s in strings)     # every point named, on more than one line
    metrics = axis._metrics()
    room = width / (hi - lo)
    assert all(metrics.horizontalAdvance(line) <= room for s in strings for line in s.splitlines())


@pytest.mark.parametrize("make", [ThroughputChart, LayoutBarChart, PointChart, ScalingChart, TrendChart,
                                  LiveRateChart])
def test_a_chart_with_nothing_to_draw_shows_no_axes(qtbot, make):
    chart = make()
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    chart.show()
    qtbot.waitExposed(chart)
    assert chart.empty and chart.plot_item.titleLabel.text.strip()
    assert not chart.plot_item.getAxis("left").isVisible() and not chart.plot_item.getAxis("bottom").isVisible()


def test_the_run_tabs_chart_has_axes_only_once_a_step_is_measured(qtbot):
    chart = RunChart()
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    chart.show()
    chart.reset()
    shown = chart.currentWidget()
    assert shown.empty and not shown.plot_item.getAxis("left").isVisible()
    run = synthetic_run(random.Random(1), repeats=1, block_sizes=(65536,), concurrencies=(1,))
    chart.begin("this run")
    chart.add_step(run.steps[0])
    shown = chart.currentWidget()
    assert not shown.empty and shown.plot_item.getAxis("left").isVisible()
    chart.reset()
    assert chart.currentWidget().empty

"""While a run streams, nothing the Run tab shows may move the window's layout.

A layout change re-lays out and repaints both charts (tens of milliseconds of the GUI thread
each time, issue 13's frame budget is 50): these were the bursts benchmarks/run_view_frames.py
found. Each test names one: the status bar made by the first message, the progress bar and
the "where" line appearing at Start, a live-throughput sample re-laying out its chart four times
a second, and a unit change (MB/s → GB/s) rebuilding every curve."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from brickyard.core.results import StepResult, WorkerTiming
from brickyard.core.stats import throughput_metrics
from brickyard.core.topology import Topology
from brickyard.ui.widgets.chart import format_value, value_scale
from brickyard.ui.run.charts import LiveRateChart, RunChart
from brickyard.ui.run.live import LivePanel


class LayoutRequests(QObject):
    """Counts the layout requests (or ``kind`` events) a (graphics) widget receives."""

    def __init__(self, target: QObject, kind: QEvent.Type = QEvent.Type.LayoutRequest):
        super().__init__()
        self.count = 0
        self.kind = kind
        target.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
        if event.type() == self.kind:
            self.count += 1
        return False


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def step(i: int, bs: int, rate: float, conc: int = 1) -> StepResult:
    workers = tuple(WorkerTiming(w, "client1", 0.0, 1.0, bytes=int(rate / conc)) for w in range(conc))
    return StepResult(i, {"block_size": bs, "concurrency": conc, "direction": "write"}, 0, workers,
                      throughput_metrics(list(workers)))


def test_a_status_message_does_not_shrink_the_views(qtbot, tmp_path: Path):
    from brickyard.ui.frame.mainwindow import MainWindow

    window = MainWindow(Topology(name="t"), tmp_path / "s.ini", tmp_path / "auto")
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.show()
    settle()
    central = window.centralWidget().height()
    window.statusBar().showMessage("Run started: gv0 on client1")
    settle()
    assert window.centralWidget().height() == central


def test_starting_and_progress_keep_the_charts_where_they_are(qtbot):
    panel = LivePanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 900)
    panel.show()
    settle()
    before = (panel.chart.geometry(), panel.rate.geometry())
    panel.clear()
    panel.begin_run("gv0 on client1")
    panel.set_state("running", "gv0 on client1: starting agents")
    panel.show_progress(1, 1, 0, 24, 0.0, 0.5, "gv0 on client1: dd write bs=4M ×8 repeat 1/3 " * 6)
    settle()
    assert panel.bar.isVisible()
    assert (panel.chart.geometry(), panel.rate.geometry()) == before
    long = "gv0 on client1, client2, client3: laying out files for the read (not recorded) " * 4
    panel.show_progress(1, 1, 3, 24, 0.2, 9.0, long)
    settle()
    assert (panel.chart.geometry(), panel.rate.geometry()) == before
    assert panel.where.text() == long and panel.where.toolTip() == long     # elided on screen, whole on hover
    panel.idle()
    settle()
    assert (panel.chart.geometry(), panel.rate.geometry()) == before


def test_live_samples_change_no_layout_and_the_axes_move_in_steps(qtbot):
    chart = LiveRateChart()
    qtbot.addWidget(chart)
    chart.resize(900, 200)
    chart.show()
    chart.add(0.0, 100e6)
    settle()
    requests = LayoutRequests(chart.plot_item)
    ranges = chart.plot_item.vb.viewRange()
    for i in range(1, 40):                      # ten seconds of samples at 4 Hz, 80–120 MB/s
        chart.add(i * 0.25, (100 + (i % 5) * 5) * 1e6)
        settle()
    assert requests.count == 0
    assert chart.plot_item.vb.viewRange() == ranges
    assert chart.now_text.toPlainText() == format_value(120e6, "B/s") + " now"
    chart.add(70.0, 400e6)                      # past a minute and out of the band: the axes move once
    settle()
    (x0, x1), (y0, y1) = chart.plot_item.vb.viewRange()
    assert (x0, x1) == (0.0, 120.0) and y1 * value_scale("B/s", 400e6)[0] >= 400e6
    assert chart.now_text.toPlainText() == format_value(400e6, "B/s") + " now"


def shown_run_chart(qtbot) -> RunChart:
    """A RunChart at 900x500, shown, with a run begun: the setup the sweep-chart tests share."""
    chart = RunChart()
    qtbot.addWidget(chart)
    chart.resize(900, 500)
    chart.show()
    chart.begin("run")
    return chart


def test_a_new_unit_rescales_the_same_curves_instead_of_rebuilding_the_chart(qtbot):
    chart = shown_run_chart(qtbot)
    chart.add_step(step(0, 4096, 500e6))
    chart.add_step(step(1, 4096, 800e6, conc=4))
    sweep = chart.sweep_chart
    items = {name: (curve, bars) for name, (curve, bars) in sweep._items.items()}
    mega, giga = value_scale("B/s", 800e6), value_scale("B/s", 5e9)
    assert mega[1] in sweep.plot_item.getAxis("left").labelText
    chart.add_step(step(2, 1 << 20, 5e9))      # 5 GB/s: the axis says GB/s, every curve rescaled
    assert giga[1] in sweep.plot_item.getAxis("left").labelText
    for name, (curve, bars) in items.items():
        assert sweep._items[name][0] is curve and sweep._items[name][1] is bars
    single = items["write · single"][0].getData()[1]
    assert list(single) == [500e6 / giga[0], 5e9 / giga[0]]
    assert list(items["write · 4 concurrent"][0].getData()[1]) == [800e6 / giga[0]]


def test_a_new_maximum_inside_the_band_moves_neither_the_y_range_nor_the_layout(qtbot):
    from brickyard.ui.run.charts import headroom

    assert headroom(100.0, 0.0) == 150.0 and headroom(120.0, 150.0) == 150.0   # inside the band: kept
    assert headroom(160.0, 150.0) == 200.0 and headroom(50.0, 150.0) == 80.0   # left it: a round figure
    chart = shown_run_chart(qtbot)
    chart.add_step(step(0, 4096, 100e6))
    settle()
    sweep = chart.sweep_chart
    requests = LayoutRequests(sweep.plot_item)
    y_range = sweep.plot_item.vb.viewRange()[1]
    for i, rate in enumerate((110e6, 119e6, 125e6, 140e6), start=1):   # each a new maximum, all under 150
        chart.add_step(step(i, 4096 << i, rate))
        settle()
    assert sweep.plot_item.vb.viewRange()[1] == y_range
    assert requests.count == 0
    # 'out of range: 1,000' is wider than '100': the left axis keeps its width, the plot stays put
    chart.add_step(step(9, 4096, 900e6))
    settle()
    assert sweep.plot_item.getAxis("left").width() == 64


def test_a_step_that_moves_the_axis_or_adds_a_curve_is_painted_once(qtbot):
    # pyqtgraph moves the curves to a new range inside the paint itself, which dirtied them and
    # made Qt paint the chart a second time straight after (two repaints in one frame, issue 13)
    chart = shown_run_chart(qtbot)
    chart.add_step(step(0, 4096, 100e6))
    settle()
    paints = LayoutRequests(chart.sweep_chart.viewport(), QEvent.Type.Paint)
    ranges = chart.sweep_chart.plot_item.vb.viewRange()
    legend_rows = len(chart.sweep_chart.legend.items)
    # a wider x range; a new curve (and legend row, which shrinks the plot); both at once
    for i, (bs, conc) in enumerate(((1 << 16, 1), (1 << 20, 4), (1 << 22, 2)), start=1):
        paints.count = 0
        chart.add_step(step(i, bs, 120e6, conc=conc))
        settle()
        assert paints.count == 1, f"step {i} painted {paints.count} times"
    assert chart.sweep_chart.plot_item.vb.viewRange()[0] != ranges[0]
    assert len(chart.sweep_chart.legend.items) == legend_rows + 2

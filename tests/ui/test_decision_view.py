"""The decision table on screen: the core table's own words in every cell, where each figure
came from visible (estimates grey italic, planned blue), sortable by clicking a header,
copyable as tab-separated text, exported as the core CSV, and charted layouts side by side."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from brickyard.core.decision import build_table
from brickyard.core.decisiontable import ESTIMATED, BASELINE, LayoutEntry
from brickyard.core.topology import Layout, VolumeType
from brickyard.ui.campaign import DecisionView

from ..core.test_decision import MIB, dd_run, eight_node, planned


def table():
    topo = eight_node()
    dt = planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE))
    dp = planned(topo, "dp8", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2))
    dr = planned(topo, "dr4", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2))
    runs = {
        "dt8": dd_run("r-dt", {("write", 1, 4 * MIB): [300e6, 310e6, 305e6], ("write", 8, 4 * MIB): [900e6, 950e6, 940e6]}),
        "dp8": dd_run("r-dp", {("write", 1, 4 * MIB): [200e6, 190e6, 210e6], ("write", 8, 4 * MIB): [700e6, 720e6, 690e6]}),
    }
    base = dd_run("r-local", {("write", 1, 4 * MIB): [1.5e9], ("write", 8, 4 * MIB): [2.0e9]},
                  target="local:/var/tmp/b", kind="local")
    return build_table([LayoutEntry("dt8", dt, (runs["dt8"],)), LayoutEntry("dp8", dp, (runs["dp8"],)),
                        LayoutEntry("dr4", dr, ()),
                        LayoutEntry("local:/var/tmp/b", None, (base,), label="local baseline", kind=BASELINE)])


def test_cells_show_the_tables_own_words_and_where_each_figure_came_from(qtbot):
    view = DecisionView(table())
    qtbot.addWidget(view)
    m = view.model
    assert m.headerData(0, Qt.Orientation.Horizontal) == "layout"
    cols = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())]
    usable = cols.index("usable")
    single = cols.index("write 4M × 1 file")
    assert m.cell_text(0, usable) == view.table.text(view.table.rows[0], "usable")
    assert m.cell_text(0, single) == "305.0 MB/s ±2 %"
    dr4 = [r.key for r in view.table.rows].index("dr4")
    est = m.index(dr4, single)
    assert m.data(est, Qt.ItemDataRole.UserRole).source == ESTIMATED
    assert m.data(est).startswith("≈") and m.data(est, Qt.ItemDataRole.FontRole).italic()
    assert "estimate (planner's formula, not measured)" in m.data(est, Qt.ItemDataRole.ToolTipRole)
    assert "median of 3 repeats" in m.data(m.index(0, single), Qt.ItemDataRole.ToolTipRole)
    assert "exact from the topology" in m.data(m.index(0, usable), Qt.ItemDataRole.ToolTipRole)


def test_clicking_a_header_sorts_best_first_with_unknowns_last(qtbot):
    view = DecisionView(table())
    qtbot.addWidget(view)
    view.resize(1400, 800)
    view.show()
    cols = [view.model.headerData(c, Qt.Orientation.Horizontal) for c in range(view.model.columnCount())]
    header = view.view.horizontalHeader()
    view.view.scrollTo(view.model.index(0, cols.index("write 4M × 8 files")))
    x = header.sectionViewportPosition(cols.index("write 4M × 8 files")) + 5
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))
    key = "tput:write:8:4194304"

    def known() -> list[float]:
        return [r.figure(key).value for r in view.table.rows if r.figure(key).known]

    assert known() == sorted(known(), reverse=True) and view.table.rows[0].key == "local:/var/tmp/b"
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))
    assert known() == sorted(known())
    view.view.scrollTo(view.model.index(0, 0))
    x = header.sectionViewportPosition(0) + 5                 # the layout column: by name
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))
    labels = [r.label.lower() for r in view.table.rows]
    assert labels in (sorted(labels), sorted(labels, reverse=True))


def test_copy_gives_tab_separated_text_and_csv_export_is_the_core_csv(qtbot, tmp_path):
    view = DecisionView(table())
    qtbot.addWidget(view)
    text = view.copy_all()
    lines = text.splitlines()
    assert QGuiApplication.clipboard().text() == text
    assert lines[0].split("\t")[:2] == ["layout", "write 4M × 1 file"] and len(lines) == 1 + 4   # as on screen
    assert "305.0 MB/s ±2 %" in lines[1].split("\t")
    view.view.selectionModel().select(view.model.index(1, 0),
                                      view.view.selectionModel().SelectionFlag.Select)
    view.view.selectionModel().select(view.model.index(1, 1),
                                      view.view.selectionModel().SelectionFlag.Select)
    assert view.copy_selection().splitlines() == ["layout\twrite 4M × 1 file",
                                                  f"{view.table.rows[1].label}\t{view.model.cell_text(1, 1)}"]
    view.export_csv(tmp_path / "d.csv")
    assert (tmp_path / "d.csv").read_text() == view.table.to_csv()


def test_the_chart_puts_layouts_side_by_side_one_bar_per_concurrency(qtbot):
    view = DecisionView(table())
    qtbot.addWidget(view)
    assert view.direction_box.currentData() == "write" and view.block_box.currentData() == 4 * MIB
    assert view.redraw_chart() == 2 * 3 + 2                  # 3 measured rows × 2, dr4's two estimates
    assert view.chart.category_axis.names == [r.label for r in view.table.rows]
    assert not view.chart.plot_item.titleLabel.isVisible()     # the bar above names it: no title row
    empty = DecisionView(None)
    qtbot.addWidget(empty)
    assert empty.redraw_chart() == 0 and not empty.copy_button.isEnabled()
    QApplication.processEvents()


def test_the_window_builds_a_decision_table_from_the_runs_selected_in_history(qtbot, tmp_path, monkeypatch):
    import random

    from brickyard.store import HistoryStore
    from brickyard.store.synthetic import synthetic_run
    from brickyard.ui.frame.mainwindow import MainWindow

    from .helpers import small_topology

    db = tmp_path / "h.sqlite3"
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{db}")
    rng = random.Random(3)
    runs = [synthetic_run(rng, layout=kind, started_at=1_760_000_000.0 + i) for i, kind in
            enumerate(("replica", "arbiter", "disperse"))]
    with HistoryStore(f"sqlite:///{db}") as store:
        for run in runs:
            store.add_run(run)
    win = MainWindow(small_topology(), tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(win)
    assert win.open_decision() is None and "Select runs in History" in win.statusBar().currentMessage()
    history = win.tabs.currentWidget()
    history.select_runs([r.run_id for r in runs])
    view = win.open_decision()
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Decision"
    assert len(view.table.rows) == 3 and view.table.workload == "dd"
    assert view.redraw_chart() >= 3


# ---- issue 21 point 5: room, a frozen layout column, measured columns first ---------------------
def campaign_table(layouts: int = 6):
    """A campaign's end: ``layouts`` layouts of the write-up's eight bricks measured at 1M, 4M
    and 16M, one file and 8, write and read, three repeats; two first-start baselines; the
    model's predictions beside the measurements."""
    topo = eight_node()
    shapes = [("dt8", Layout(VolumeType.DISTRIBUTE)), ("dp8rd2", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2)),
              ("dt2dp4rd1", Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1)),
              ("dt4rp2", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2)),
              ("dt2rp4", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=4)),
              ("dt4rp2a1", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2, arbiter=1)),
              ("dp4rd1", Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=4, redundancy=1))][:layouts]
    entries = []
    for k, (name, layout) in enumerate(shapes):
        scale = 1.0 - 0.1 * k
        points = {(d, n, bs): [v * scale * w for w in (0.97, 1.0, 1.04)] for d in ("write", "read")
                  for n, v in ((1, 3e8), (8, 2e9)) for bs in (MIB, 4 * MIB, 16 * MIB)}
        entries.append(LayoutEntry(name, planned(topo, name, layout), (dd_run(f"r-{name}", points),), topology=topo))
    for target, v in (("local:/home/ana/.cache/brickyard/baseline", 9e8), ("local:/dev/shm", 3e9)):
        points = {(d, n, bs): [v] for d in ("write",) for n in (1, 4) for bs in (MIB, 4 * MIB, 16 * MIB)}
        entries.append(LayoutEntry(target, None, (dd_run(f"b-{target}", points, target=target, kind="local"),),
                                   label=f"local baseline {target}", kind=BASELINE))
    return build_table(entries, model_check=True)


def _every_row_in_view(view) -> bool:
    table = view.view
    height = table.viewport().height()
    return table.verticalScrollBar().maximum() == 0 and all(
        0 <= table.visualRect(view.model.index(r, 0)).bottom() < height for r in range(view.model.rowCount()))


def test_every_layout_is_in_view_without_scrolling_at_1600x900_in_the_decision_and_campaign_tabs(qtbot):
    from brickyard.ui.frame.mainwindow import MainWindow

    table = campaign_table()
    window = MainWindow(None)
    qtbot.addWidget(window)
    window.resize(1600, 900)
    window.show()
    qtbot.waitUntil(lambda: window.width() == 1600 and window.height() == 900)
    # the Decision tab (View ▸ Decision table of selected runs)
    view = DecisionView()
    window.decision_view = view
    view.set_table(table)
    window._show_tab("Decision", view)
    qtbot.waitUntil(lambda: view.isVisible() and view.view.viewport().height() > 100)
    qtbot.waitUntil(lambda: _every_row_in_view(view))
    assert view.chart.height() >= 100
    # the Campaign tab's, where a campaign ends
    window.open_campaign()
    campaign = window.campaign_view
    campaign.show_decision_table(table)
    qtbot.waitUntil(lambda: campaign.decision.isVisible())
    qtbot.waitUntil(lambda: _every_row_in_view(campaign.decision))
    assert campaign.decision.chart.height() >= 100


def test_measured_columns_come_first_and_the_models_predictions_wait_under_all_columns(qtbot):
    view = DecisionView(campaign_table(3))
    qtbot.addWidget(view)
    view.resize(1500, 800)
    view.show()
    shown = [view.model.headerData(c, Qt.Orientation.Horizontal) for c in range(view.model.columnCount())
             if not view.view.isColumnHidden(c)]
    assert shown[:3] == ["layout", "write 4M × 1 file", "write 16M × 1 file"]
    groups = [view.model.column_at(c).group for c in range(1, view.model.columnCount()) if not view.view.isColumnHidden(c)]
    assert groups == sorted(groups, key=("throughput", "scaling", "capacity", "failures").index)
    assert not any(title.startswith(("predicted", "model error")) for title in shown)
    qtbot.mouseClick(view.all_columns, Qt.MouseButton.LeftButton)
    shown = [view.model.headerData(c, Qt.Orientation.Horizontal) for c in range(view.model.columnCount())
             if not view.view.isColumnHidden(c)]
    # each prediction right after the measurement it predicts, then its error
    at = shown.index("write 4M × 1 file")
    assert shown[at + 1:at + 3] == ["predicted write 4M × 1 file", "model error write 4M × 1 file"]
    assert "raw" in shown and "node failures survived (best case)" in shown


def test_the_layout_column_stays_in_place_when_the_figures_scroll_sideways(qtbot):
    view = DecisionView(campaign_table(3))
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.mouseClick(view.all_columns, Qt.MouseButton.LeftButton)
    table = view.view
    bar = table.horizontalScrollBar()
    assert bar.maximum() > 0                                      # the figures are wider than the view
    table.setFocus()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(view.model.index(0, 2)).center())
    qtbot.keyClick(table, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert table.columnViewportPosition(0) < 0                    # the table's own layout column scrolled away …
    frozen = table.frozen
    assert frozen.isVisible() and frozen.geometry().left() <= table.frameWidth() + 1   # … the frozen one did not
    assert frozen.columnWidth(0) == table.columnWidth(0) and frozen.geometry().width() == table.columnWidth(0)
    assert frozen.model() is table.model() and frozen.selectionModel() is table.selectionModel()
    assert [frozen.isColumnHidden(c) for c in range(view.model.columnCount())] == \
        [False] + [True] * (view.model.columnCount() - 1)
    # sorting by the layout is a click on the frozen column's header
    qtbot.mouseClick(frozen.horizontalHeader().viewport(), Qt.MouseButton.LeftButton, pos=QPoint(10, 5))
    assert view.model.sorted_key == "layout"


def test_the_heading_counts_only_what_the_table_holds_and_the_verdict_is_the_reports(qtbot):
    from brickyard.report.sentences import reading

    view = DecisionView(campaign_table(3))
    qtbot.addWidget(view)
    assert "3 layouts and 2 baselines, dd sweep." in view.heading.text()
    no_baselines = build_table([e for e in campaign_entries_without_baselines()])
    view.set_table(no_baselines)
    assert "3 layouts, dd sweep." in view.heading.text() and "baseline" not in view.heading.text()
    assert view.verdict.text() == "<br>".join(reading(no_baselines)).replace("&", "&amp;")
    assert view.verdict.text().startswith("Fastest at write 16M × 8 files: dt8")


def campaign_entries_without_baselines():
    topo = eight_node()
    out = []
    for k, (name, layout) in enumerate((("dt8", Layout(VolumeType.DISTRIBUTE)),
                                         ("dt4rp2", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2)),
                                         ("dp8rd2", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2)))):
        run = dd_run(f"r-{name}", {("write", 1, 16 * MIB): [3e8 / (k + 1)], ("write", 8, 16 * MIB): [2e9 / (k + 1)]})
        out.append(LayoutEntry(name, planned(topo, name, layout), (run,)))
    return out


def test_the_window_verdict_rests_on_the_volumes_measurements(qtbot):
    """Issue 21 point 3 in the window: layouts measured at 4M, first-start baselines at 4K … 16M."""
    from brickyard.core.decision_runs import entries_from_runs

    from ..core.test_decision import issue_runs

    view = DecisionView(build_table(entries_from_runs(issue_runs(), eight_node()), model_check=True))
    qtbot.addWidget(view)
    assert view.block_box.currentData() == 4 * MIB and view.block_box.count() == 1
    assert view.verdict.text().startswith("Fastest at write 4M × 4 files: gv0-dt6, 300.0 MB/s")
    assert "est." not in view.verdict.text() and "3.00 GB/s at 16M" in view.verdict.text()
    assert "“at 16M”: a baseline measured at another block size" in view.legend.text()


def test_the_legend_names_only_the_marks_the_shown_columns_hold(qtbot):
    view = DecisionView(campaign_table(3))
    qtbot.addWidget(view)
    assert "(pred.)" not in view.legend.text() and "estimate" not in view.legend.text()
    qtbot.mouseClick(view.all_columns, Qt.MouseButton.LeftButton)
    assert "(pred.) a calibrated model's prediction" in view.legend.text()


def test_export_and_copy_never_start_a_formula_and_never_write_through_a_link(qtbot, tmp_path):
    topo = eight_node()
    evil = '=HYPERLINK("http://evil.example","click")'
    dt = planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE))
    run = dd_run("r-dt", {("write", 1, 4 * MIB): [300e6, 310e6, 305e6]})
    view = DecisionView(build_table([LayoutEntry("dt8", dt, (run,), label=evil)]))
    qtbot.addWidget(view)
    assert view.copy_all().splitlines()[1].startswith("'" + evil)
    precious = tmp_path / "precious.csv"
    precious.write_text("mine")
    link = tmp_path / "d.csv"
    link.symlink_to(precious)
    view.export_csv(link)
    assert precious.read_text() == "mine" and not link.is_symlink()
    assert link.read_text().splitlines()[1].startswith(f'"\'{evil[:10]}')

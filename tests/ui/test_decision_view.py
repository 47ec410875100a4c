"""The decision table on screen: the core table's own words in every cell, where each figure
came from visible (estimates grey italic, planned blue), sortable by clicking a header,
copyable as tab-separated text, exported as the core CSV, and charted layouts side by side."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from brickyard.core.decision import ESTIMATED, BASELINE, LayoutEntry, build_table
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
    assert lines[0].split("\t")[:2] == ["layout", "usable"] and len(lines) == 1 + 4
    assert "305.0 MB/s ±2 %" in lines[1].split("\t")
    view.view.selectionModel().select(view.model.index(1, 0),
                                      view.view.selectionModel().SelectionFlag.Select)
    view.view.selectionModel().select(view.model.index(1, 1),
                                      view.view.selectionModel().SelectionFlag.Select)
    assert view.copy_selection().splitlines() == ["layout\tusable",
                                                  f"{view.table.rows[1].label}\t{view.model.cell_text(1, 1)}"]
    view.export_csv(tmp_path / "d.csv")
    assert (tmp_path / "d.csv").read_text() == view.table.to_csv()


def test_the_chart_puts_layouts_side_by_side_one_bar_per_concurrency(qtbot):
    view = DecisionView(table())
    qtbot.addWidget(view)
    assert view.direction_box.currentData() == "write" and view.block_box.currentData() == 4 * MIB
    assert view.redraw_chart() == 2 * 3 + 2                  # 3 measured rows × 2, dr4's two estimates
    assert view.chart.category_axis.names == [r.label for r in view.table.rows]
    assert "layouts side by side" in view.chart.plot_item.titleLabel.text
    empty = DecisionView(None)
    qtbot.addWidget(empty)
    assert empty.redraw_chart() == 0 and not empty.copy_button.isEnabled()
    QApplication.processEvents()


def test_the_window_builds_a_decision_table_from_the_runs_selected_in_history(qtbot, tmp_path, monkeypatch):
    import random

    from brickyard.store import HistoryStore
    from brickyard.store.synthetic import synthetic_run
    from brickyard.ui.mainwindow import MainWindow

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

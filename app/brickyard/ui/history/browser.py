"""The history browser: filter stored runs, pick some, compare them, chart a trend, and
move runs in and out as JSON/CSV. ``HistoryView(store)`` is self-contained so the main
window can host it; ``HistoryWindow(store)`` is the same in its own window."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from brickyard.core.compare import metric_unit
from brickyard.core.settings import UNITS_KEY
from brickyard.core.units import binary_rates, format_block_label, set_binary_rates
from brickyard.store import HistoryStore, RunFilter
from brickyard.store.exchange import ExchangeError
from brickyard.store.settings import Settings

from .charts import TrendChart
from .compare_panel import ComparePanel
from .filter_bar import FilterBar
from .model_check import ModelCheckPanel
from .refresher import HistoryRefresher, Snapshot
from .runs_model import COLUMNS, RunTableModel

FOLLOW_AT_MOST = 24      # more selected rows than this: Compare waits for "Compare selected"


class HistoryView(QWidget):
    """Everything stored in ``store``: list, filters, compare, trend, export/import.

    ``sig_status(str)``: a one-line message for the main window's status bar;
    ``sig_show_changes()``: the user asked for the changes to live volumes (the change history)."""

    sig_status = Signal(str)
    sig_show_changes = Signal()

    def __init__(self, store: HistoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.filter_bar = FilterBar()
        self.model = RunTableModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in enumerate((118, 100, 80, 80, 110, 170, 60, 150)):
            self.table.setColumnWidth(col, width)
        self.count_label = QLabel("")
        self.units_combo = QComboBox()
        self.units_combo.addItem("MB/s, GB/s", "decimal")
        self.units_combo.addItem("MiB/s, GiB/s", "binary")
        self.units_combo.setCurrentIndex(1 if binary_rates() else 0)
        self.units_combo.setToolTip("How every rate is written (saved as \"units\" in settings.json; the CLI "
                                    "follows it too)")
        self.compare_button = QPushButton("Compare selected")
        self.export_json_button = QPushButton("Export JSON…")
        self.export_csv_button = QPushButton("Export CSV…")
        self.import_button = QPushButton("Import…")
        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label)
        buttons.addStretch(1)
        buttons.addWidget(QLabel("rates in"))
        buttons.addWidget(self.units_combo)
        for b in (self.compare_button, self.export_json_button, self.export_csv_button, self.import_button):
            buttons.addWidget(b)

        self.compare = ComparePanel()
        self.trend_chart = TrendChart()
        self.right = QTabWidget()
        self.right.addTab(self.compare, "Compare")
        self.right.addTab(self.trend_chart, "Trend")
        self.model_check = ModelCheckPanel()
        self.right.addTab(self.model_check, "Model check")
        self.changes_button = QPushButton("Changes to live volumes…")
        self.changes_button.setObjectName("history-changes")
        self.changes_button.setToolTip("The change history: each expand, shrink, replace or raise of a live volume, "
                                       "step by step, predicted against measured, with its PDF record")
        self.changes_button.setFlat(True)
        self.changes_button.clicked.connect(self.sig_show_changes)
        self.right.setCornerWidget(self.changes_button, Qt.Corner.TopRightCorner)
        self._model_check_stale = False

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.filter_bar)
        lv.addWidget(self.table)
        lv.addLayout(buttons)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        self.filter_bar.sig_changed.connect(self.refresh)
        self.compare_button.clicked.connect(self.compare_selected)
        self.table.doubleClicked.connect(lambda _i: self.compare_selected())
        self.export_json_button.clicked.connect(lambda: self._export_dialog("json"))
        self.export_csv_button.clicked.connect(lambda: self._export_dialog("csv"))
        self.import_button.clicked.connect(self._import_dialog)
        self.compare.sig_metric_changed.connect(lambda _m: self.refresh_trend())
        self.compare.block_combo.currentIndexChanged.connect(lambda _i: self.refresh_trend())
        self.compare.conc_combo.currentIndexChanged.connect(lambda _i: self.refresh_trend())
        self.compare.direction_combo.currentIndexChanged.connect(lambda _i: self.refresh_trend())
        self.right.currentChanged.connect(lambda _i: self.refresh_trend())
        self.right.currentChanged.connect(lambda _i: self.refresh_model_check())
        self.units_combo.currentIndexChanged.connect(self._units_changed)
        copy_key = QShortcut(QKeySequence.StandardKey.Copy, self.table)
        copy_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        copy_key.activated.connect(self.copy_selected_rows)
        self._selecting = False
        self._follow = QTimer(self)          # a burst of arrow keys loads the runs once
        self._follow.setSingleShot(True)
        self._follow.setInterval(150)
        self._follow.timeout.connect(self._follow_selection)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        reload_key = QShortcut(QKeySequence(Qt.Key.Key_F5), self)
        reload_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        reload_key.activated.connect(self.reload)
        self._filters = RunFilter()
        self._compared_state: dict[str, tuple] = {}
        # follow the store while shown: a thread watches, a timer here picks up what it read
        self.refresher = HistoryRefresher(store, self._watch_state, RunTableModel.FIRST_PAGE)
        self._pickup = QTimer(self)
        self._pickup.setInterval(200)
        self._pickup.timeout.connect(self._pick_up)
        refresher = self.refresher
        self.destroyed.connect(lambda *_: refresher.stop())     # never self: it is gone by then
        self.live = self._can_follow()
        # the list first; the filter choices and sweep pickers (a scan of every run's hosts,
        # options and steps) once the view is painted, or when a filter is set before that
        self._choices_due = True
        self.filter_bar.before_use = self._fill_choices_if_due
        self.reload(choices=False)

    def _can_follow(self) -> bool:
        """Not for a private in-memory database, which nothing else can write."""
        return self.store.engine.url.database not in (None, "", ":memory:") or \
            self.store.engine.url.get_backend_name() != "sqlite"

    def set_live(self, live: bool) -> None:
        """Follow the store while shown (the default), or only on F5 / a filter change."""
        self.live = live and self._can_follow()
        if self.live and self.isVisible():
            self._start_following()
        elif not self.live:
            self._stop_following()

    def _start_following(self) -> None:
        self.refresher.start()
        self._pickup.start()

    def _stop_following(self) -> None:
        self.refresher.stop()
        self._pickup.stop()

    def _pick_up(self) -> None:
        error = self.refresher.take_error()
        if error:
            self.sig_status.emit(error)
        snap = self.refresher.take()
        if snap is not None:
            self._apply_snapshot(snap)

    def _watch_state(self) -> tuple[RunFilter, dict[str, tuple]]:
        """For the watching thread: plain attributes only, no widget."""
        return self._filters, self._compared_state

    def _apply_snapshot(self, snap: Snapshot) -> None:
        """What the watching thread read, applied on the GUI thread; the selection and the
        compared runs stay, and a snapshot for other filters than shown now is dropped."""
        if snap.filters != self._filters:
            return
        selected = set(self.selected_run_ids())
        scroll = self.table.verticalScrollBar().value()
        self.filter_bar.blockSignals(True)
        self.filter_bar.set_choices(snap.choices)
        self.filter_bar.blockSignals(False)
        filters = snap.filters
        self.model.set_source(
            lambda offset, limit: self.store.list_runs(dataclasses.replace(filters, offset=offset, limit=limit)),
            snap.matching, snap.first_page)
        self.count_label.setText(f"{snap.matching} of {snap.total} runs")
        self._reselect(selected)
        self.table.verticalScrollBar().setValue(scroll)
        if snap.compared is not None:
            order = [r.run_id for r in self.compare.runs]
            by_id = {r.run_id: r for r in snap.compared}
            self._show_compared([by_id[i] for i in order if i in by_id])
        self.refresh_trend()

    def _reselect(self, run_ids: set[str]) -> None:
        sel = self.table.selectionModel()
        self._selecting = True           # the same runs again: Compare stays as it is
        try:
            for row, r in enumerate(self.model.rows):
                if r.run_id in run_ids:
                    sel.select(self.model.index(row, 0), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
        finally:
            self._selecting = False

    def _selection_changed(self) -> None:
        if not self._selecting:
            self._follow.start()

    def _follow_selection(self) -> None:
        """Compare follows the rows the user selects (a click, arrow keys, Ctrl+A): what it shows
        is the selection, not what was selected when Compare was last pressed."""
        ids = self.selected_run_ids()
        if not ids or set(ids) == {r.run_id for r in self.compare.runs}:
            return
        if len(ids) > FOLLOW_AT_MOST:
            self.sig_status.emit(f"{len(ids)} runs selected: Compare selected charts them all together")
            return
        self._show_compared(self.store.load_runs(ids))
        self.refresh_trend()

    def _show_compared(self, runs: list) -> None:
        self.compare.show_runs(runs)
        self._compared_state = {r.run_id: (r.status.value, len(r.steps)) for r in runs}
        self._model_check_stale = True
        self.refresh_model_check()

    def _units_changed(self, _index: int) -> None:
        choice = self.units_combo.currentData()
        set_binary_rates(choice == "binary")
        settings = Settings()               # merged into the file as it is now, atomically
        settings.setValue(UNITS_KEY, choice)
        if settings.problem:
            self.sig_status.emit(f"rates are in {self.units_combo.currentText()} for now; {settings.problem}")
        if self.compare.runs:
            self._show_compared(self.compare.runs)
        self.refresh_trend()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt API)
        """Reopening the view (View ▸ History again, back to its tab) reloads it, and it
        follows the store while it is shown."""
        super().showEvent(event)
        if getattr(self, "_shown_once", False):
            self.reload()
        self._shown_once = True
        if self.live:
            self._start_following()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt API)
        self._stop_following()            # hidden (another tab, closed): nothing to follow for
        super().hideEvent(event)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        self._stop_following()
        super().closeEvent(event)

    # -- list ---------------------------------------------------------------------------

    def reload(self, choices: bool = True) -> None:
        """Re-read the filter choices, the list and the compared runs (F5, reopening the
        view, an import). Runs whose writer died are marked interrupted first. ``choices=False``
        leaves the filter choices and sweep pickers to ``fill_choices``."""
        self.store.mark_interrupted_runs()
        if choices:
            self.fill_choices(refresh=False)
        if self.compare.runs:
            ids = [r.run_id for r in self.compare.runs]
            present = self.store.has_runs(ids)
            self._show_compared(self.store.load_runs([i for i in ids if i in present]))
        self.refresh()

    def fill_choices(self, refresh: bool = True) -> None:
        """The filter bar's stored values and, with no run compared, the block size and
        concurrency pickers (the trend is redrawn for them when it shows)."""
        self._choices_due = False
        self.filter_bar.blockSignals(True)
        self.filter_bar.set_choices(self.store.filter_choices())
        self.filter_bar.blockSignals(False)
        if not self.compare.runs:
            self.compare.set_point_choices(*self.store.sweep_values())
            if refresh:
                self.refresh_trend()

    def _fill_choices_if_due(self) -> None:
        if self._choices_due:
            self.fill_choices()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().paintEvent(event)
        if self._choices_due:      # the list is on the screen: the choices come on the next turn
            QTimer.singleShot(0, self, self._fill_choices_if_due)

    def refresh(self) -> None:
        """Show the runs the filters let through (on a filter change)."""
        selected = set(self.selected_run_ids()) if self.model.rows else set()
        filters = self._filters = self.filter_bar.filters()
        matching = self.store.run_count(filters)
        self.model.set_source(
            lambda offset, limit: self.store.list_runs(dataclasses.replace(filters, offset=offset, limit=limit)),
            matching)
        self.count_label.setText(f"{matching} of {self.store.run_count()} runs")
        self._reselect(selected)
        self.refresh_trend()

    def load_all_rows(self) -> None:
        """Fetch every matching run into the table (select-all, export of the whole list)."""
        while self.model.canFetchMore():
            self.model.fetchMore()

    def select_runs(self, run_ids: list[str]) -> None:
        self.load_all_rows()
        sel = self.table.selectionModel()
        sel.clearSelection()
        for row, r in enumerate(self.model.rows):
            if r.run_id in run_ids:
                sel.select(self.model.index(row, 0), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)

    def selected_run_ids(self) -> list[str]:
        """Selected runs, oldest first (the oldest is the comparison's baseline)."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        picked = [self.model.rows[r] for r in rows]
        return [r.run_id for r in sorted(picked, key=lambda s: s.started_at)]

    def copy_selected_rows(self) -> str:
        """Ctrl+C in the list: the selected runs as the table shows them, tab-separated
        under the column titles (full run ids), ready to paste into a spreadsheet or ticket."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        lines = ["\t".join(COLUMNS)]
        for row in rows:
            cells = [str(self.model.data(self.model.index(row, c)) or "") for c in range(len(COLUMNS))]
            cells[1] = self.model.rows[row].run_id
            lines.append("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in cells))
        text = "\n".join(lines) + "\n" if rows else ""
        if text:
            QGuiApplication.clipboard().setText(text)
            self.sig_status.emit(f"copied {len(rows)} runs")
        return text

    def compare_selected(self) -> None:
        ids = self.selected_run_ids()
        if not ids:
            self.sig_status.emit("select runs to compare")
            return
        self._show_compared(self.store.load_runs(ids))
        self.right.setCurrentWidget(self.compare)
        self.refresh_trend()

    def show_runs(self, run_ids: Sequence[str], overlay_same_volume: bool = False, earlier: int = 4) -> list[str]:
        """Open ``run_ids`` in the Compare tab, charted together with what differs between
        them listed first, and select them in the list where it shows them.

        With ``overlay_same_volume``, up to ``earlier`` earlier runs of the same workload on
        the same volume (a baseline: the same target) join each given run, so a run that
        just finished is read against its history. Runs are shown oldest first; the oldest
        is the comparison's baseline. Returns the ids shown. An unknown id raises
        ``StoreError``."""
        ids = list(dict.fromkeys(run_ids))
        if overlay_same_volume:
            for run_id in list(ids):
                ids += [r for r in self.store.earlier_runs(run_id, earlier) if r not in ids]
        runs = sorted(self.store.load_runs(ids), key=lambda r: r.started_at)
        self._show_compared(runs)
        self.right.setCurrentWidget(self.compare)
        shown = [r.run_id for r in runs]
        sel = self.table.selectionModel()
        self._selecting = True           # Compare shows these runs and their history already
        try:
            sel.clearSelection()
            for row, r in enumerate(self.model.rows):       # only rows already fetched: no full load
                if r.run_id in shown:
                    sel.select(self.model.index(row, 0), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
        finally:
            self._selecting = False
        self.refresh_trend()
        return shown

    def refresh_model_check(self) -> None:
        """Predicted vs measured for the runs in Compare, worked out when the tab shows."""
        if self.right.currentWidget() is not self.model_check or not self._model_check_stale:
            return
        self._model_check_stale = False
        from brickyard.core import topofile

        def topology_for(run):
            text = self.store.topology_snapshot(run.run_id)
            try:
                return topofile.loads(text) if text else None
            except topofile.TopologyFileError:
                return None
        self.model_check.show_runs(self.compare.runs, topology_for)

    def refresh_trend(self) -> None:
        """Redraw the trend of the filtered runs at the chosen point; only while the Trend
        tab shows (with 10,000 runs the query is the slow part of a filter change)."""
        if self.right.currentWidget() is not self.trend_chart:
            return
        bs = self.compare.block_combo.currentData()
        conc = self.compare.conc_combo.currentData()
        metric = self.compare.current_metric
        points = self.store.metric_trend(metric, block_size=bs, concurrency=conc, direction=self.compare.direction,
                                         filters=self.filter_bar.filters())
        unit = metric_unit(self.compare.runs, metric) or self.store.metric_unit(metric)
        where = " at " + ", ".join(p for p in (format_block_label(bs) if bs else "", f"×{conc}" if conc else "") if p) \
            if bs or conc else " (all sweep points)"
        lines = len({p.series for p in points})
        self.trend_chart.set_points(points, unit, f"{metric.replace('_', ' ')}{where}: {len(points)} runs"
                                    + (f" on {lines} volumes or paths" if lines > 1 else ""), metric)

    # -- exchange -----------------------------------------------------------------------

    def export_selected(self, path: str, fmt: str) -> int:
        """Export the selected runs; with none selected, every run the filters show."""
        ids = self.selected_run_ids()
        if not ids:
            self.load_all_rows()
            ids = [r.run_id for r in reversed(self.model.rows)]
            if not ids:
                self.sig_status.emit("no runs to export")
                return 0
        report = self.store.export_json(ids, path) if fmt == "json" else self.store.export_csv(ids, path)
        left = (f"; left out {len(report.left_out)} whose stored data would not import again "
                f"({', '.join(r[:12] for r, _ in report.left_out[:3])})" if report.left_out else "")
        self.sig_status.emit(f"exported {report.written} runs to {path}{left}")
        return report.written

    def import_file(self, path: str) -> Any:
        report = self.store.import_json(path)
        self.reload()
        self.sig_status.emit(f"imported {len(report.added)} runs; {len(report.skipped)} were already here")
        return report

    def _export_dialog(self, fmt: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Export runs as {fmt.upper()}", f"brickyard-runs.{fmt}",
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            try:
                self.export_selected(path, fmt)
            except OSError as exc:
                QMessageBox.warning(self, "Export failed", f"{path}: {exc.strerror or exc}")

    def _import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import runs", "", "Brickyard export (*.json)")
        if path:
            try:
                self.import_file(path)
            except ExchangeError as exc:
                QMessageBox.warning(self, "Import failed", str(exc))


class HistoryWindow(QMainWindow):
    def __init__(self, store: HistoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Brickyard — history ({store.describe()})")
        self.view = HistoryView(store)
        self.setCentralWidget(self.view)
        self.view.sig_status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.resize(1400, 860)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        self.view.set_live(False)
        super().closeEvent(event)

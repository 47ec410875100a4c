"""The history browser: filter stored runs, pick some, compare them, chart a trend, and
move runs in and out as JSON/CSV. ``HistoryView(store)`` is self-contained so the main
window can host it; ``HistoryWindow(store)`` is the same in its own window."""

from __future__ import annotations

import calendar
import dataclasses
from typing import Any, Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QDate, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFileDialog,
    QGridLayout,
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

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore, RunFilter, RunSummary
from brickyard.store.exchange import ExchangeError

from .charts import TrendChart, size_label
from .compare_panel import ComparePanel
from brickyard.core.units import format_utc

COLUMNS = ("started (UTC)", "run", "status", "workload", "volume", "layout", "gluster", "hosts", "steps")
STATUS_COLORS = {RunStatus.RUNNING: "#1f6feb", RunStatus.PARTIAL: "#9a6700", RunStatus.FAILED: "#b42318",
                 RunStatus.INTERRUPTED: "#b42318"}
ANY = "(any)"


class RunTableModel(QAbstractTableModel):
    """The filtered runs, fetched a page at a time as the table scrolls (Qt's fetchMore), so
    opening the list costs the same with 100 or 100,000 runs."""

    FIRST_PAGE = 300
    PAGE = 2000

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[RunSummary] = []
        self.total = 0
        self._fetch: Callable[[int, int], list[RunSummary]] = lambda offset, limit: []

    def set_source(self, fetch: Callable[[int, int], list[RunSummary]], total: int) -> None:
        """``fetch(offset, limit)`` returns one page; ``total`` is how many there are."""
        self.beginResetModel()
        self._fetch, self.total = fetch, total
        self.rows = fetch(0, self.FIRST_PAGE)
        self.endResetModel()

    def canFetchMore(self, parent: QModelIndex = QModelIndex()) -> bool:  # noqa: N802
        return not parent.isValid() and len(self.rows) < self.total

    def fetchMore(self, parent: QModelIndex = QModelIndex()) -> None:  # noqa: N802
        page = self._fetch(len(self.rows), self.PAGE)
        if not page:
            self.total = len(self.rows)
            return
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(page) - 1)
        self.rows.extend(page)
        self.endInsertRows()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        r = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (format_utc(r.started_at), r.run_id[:12], r.status.value,
                    r.workload, r.volume, r.layout, r.gluster_versions, r.hosts, r.step_count)[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{r.run_id}\n{r.target}" + (f"\n{r.error}" if r.error else "")
        if role == Qt.ItemDataRole.ForegroundRole and col == 2 and r.status in STATUS_COLORS:
            return QColor(STATUS_COLORS[r.status])
        return None


class FilterBar(QWidget):
    """Volume, layout, workload, host, gluster version, volume option, date range."""

    sig_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combos: dict[str, QComboBox] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for i, (key, text) in enumerate((("volume", "volume"), ("layout", "layout"), ("workload", "workload"),
                                         ("host", "host"), ("gluster_version", "gluster"), ("option", "option"))):
            combo = QComboBox()
            combo.setMinimumContentsLength(10)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.addItem(ANY)
            combo.currentIndexChanged.connect(self.sig_changed)
            self.combos[key] = combo
            row, col = divmod(i, 4)       # two rows of four: label, field
            grid.addWidget(QLabel(text), row, 2 * col)
            grid.addWidget(combo, row, 2 * col + 1)
        self.since_check, self.until_check = QCheckBox("since"), QCheckBox("before")
        self.since, self.until = QDateEdit(), QDateEdit()
        for check, edit, col in ((self.since_check, self.since, 4), (self.until_check, self.until, 6)):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setDate(QDate.currentDate())
            edit.setEnabled(False)
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(self.sig_changed)
            edit.dateChanged.connect(self.sig_changed)
            grid.addWidget(check, 1, col)
            grid.addWidget(edit, 1, col + 1)

    def set_choices(self, choices: Any) -> None:
        for key, values in (("volume", choices.volumes), ("layout", choices.layouts), ("workload", choices.workloads),
                            ("host", choices.hosts), ("gluster_version", choices.gluster_versions),
                            ("option", choices.options)):
            combo = self.combos[key]
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([ANY, *values])
            combo.setCurrentIndex(max(0, combo.findText(keep)))
            combo.blockSignals(False)

    def set_value(self, key: str, text: str) -> None:
        combo = self.combos[key]
        i = combo.findText(text)
        if i < 0:
            raise ValueError(f"{key} {text!r} is not among the stored values")
        combo.setCurrentIndex(i)

    def filters(self) -> RunFilter:
        values = {k: ("" if c.currentText() == ANY else c.currentText()) for k, c in self.combos.items()}

        def epoch(edit: QDateEdit) -> float:
            d = edit.date()
            return float(calendar.timegm((d.year(), d.month(), d.day(), 0, 0, 0)))

        return RunFilter(**values, since=epoch(self.since) if self.since_check.isChecked() else None,
                         until=epoch(self.until) if self.until_check.isChecked() else None)


class HistoryView(QWidget):
    """Everything stored in ``store``: list, filters, compare, trend, export/import.

    ``sig_status(str)``: a one-line message for the main window's status bar."""

    sig_status = Signal(str)

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
        for col, width in enumerate((118, 100, 80, 80, 70, 170, 90, 150)):
            self.table.setColumnWidth(col, width)
        self.count_label = QLabel("")
        self.compare_button = QPushButton("Compare selected")
        self.export_json_button = QPushButton("Export JSON…")
        self.export_csv_button = QPushButton("Export CSV…")
        self.import_button = QPushButton("Import…")
        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label)
        buttons.addStretch(1)
        for b in (self.compare_button, self.export_json_button, self.export_csv_button, self.import_button):
            buttons.addWidget(b)

        self.compare = ComparePanel()
        self.trend_chart = TrendChart()
        self.right = QTabWidget()
        self.right.addTab(self.compare, "Compare")
        self.right.addTab(self.trend_chart, "Trend")

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
        self.reload()

    # -- list ---------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the filter choices and the list (after an import, or a run finishing)."""
        self.filter_bar.set_choices(self.store.filter_choices())
        if not self.compare.runs:
            self.compare.set_point_choices(*self.store.sweep_values())
        self.refresh()

    def refresh(self) -> None:
        filters = self.filter_bar.filters()
        matching = self.store.run_count(filters)
        self.model.set_source(
            lambda offset, limit: self.store.list_runs(dataclasses.replace(filters, offset=offset, limit=limit)),
            matching)
        self.count_label.setText(f"{matching} of {self.store.run_count()} runs")
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

    def compare_selected(self) -> None:
        ids = self.selected_run_ids()
        if not ids:
            self.sig_status.emit("select runs to compare")
            return
        self.compare.show_runs(self.store.load_runs(ids))
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
        self.compare.show_runs(runs)
        self.right.setCurrentWidget(self.compare)
        shown = [r.run_id for r in runs]
        sel = self.table.selectionModel()
        sel.clearSelection()
        for row, r in enumerate(self.model.rows):       # only rows already fetched: no full load
            if r.run_id in shown:
                sel.select(self.model.index(row, 0), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
        self.refresh_trend()
        return shown

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
        unit = "B/s" if metric in ("throughput", "stonewall_throughput", "sum_of_rates") else "s"
        where = " at " + ", ".join(p for p in (size_label(bs) if bs else "", f"×{conc}" if conc else "") if p) \
            if bs or conc else " (all sweep points)"
        self.trend_chart.set_points(points, unit, f"{metric.replace('_', ' ')}{where}: {len(points)} runs", metric)

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

"""The History list's table: the runs a filter matches, one row each, read from the store a page
at a time as the table scrolls. The browser (``browser.HistoryView``) shows it and keeps its
selection; this holds only the rows and how a row reads."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor

from brickyard.core.results import RunStatus
from brickyard.core.runlabels import series_of
from brickyard.core.units import format_utc
from brickyard.store import RunSummary

COLUMNS = ("started (UTC)", "run", "status", "workload", "volume or path", "layout", "gluster", "hosts", "steps")
STATUS_COLORS = {RunStatus.RUNNING: "#1f6feb", RunStatus.PARTIAL: "#9a6700", RunStatus.FAILED: "#b42318",
                 RunStatus.INTERRUPTED: "#b42318", RunStatus.CANCELLED: "#6e7781"}


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

    def set_source(self, fetch: Callable[[int, int], list[RunSummary]], total: int,
                   first_page: list[RunSummary] | None = None) -> None:
        """``fetch(offset, limit)`` returns one page; ``total`` is how many there are;
        ``first_page``, when already read (by the watching thread), is used as it is."""
        self.beginResetModel()
        self._fetch, self.total = fetch, total
        self.rows = first_page if first_page is not None else fetch(0, self.FIRST_PAGE)
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
            # a run without a volume (a local or NFS baseline) shows what it measured instead
            what = r.volume or series_of(r.target_kind, r.target)
            return (format_utc(r.started_at), r.run_id[:12], r.status.value,
                    r.workload, what, r.layout, r.gluster_versions, r.hosts, r.step_count)[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{r.run_id}\n{r.target}" + (f"\n{r.error}" if r.error else "")
        if role == Qt.ItemDataRole.ForegroundRole and col == 2 and r.status in STATUS_COLORS:
            return QColor(STATUS_COLORS[r.status])
        return None

"""File ▸ Export PDF…: the report of what the window shows.

What is reported follows the tab in front: History → the selected runs; Campaign → its
campaign once it has one (finished, paused or stopped: the cells it completed); Decision →
the runs of its table; anything else → the planner's current volume, with the failure
scenario on the canvas. The dialog edits the title and who made it (the OS user by default),
picks A4 or Letter and the file (.pdf, or .html for a wiki); the report is
``brickyard.report.export_report`` over a content object built from core results, exactly
what ``brickyard report`` writes.

A view may also offer its own source by a ``report_source()`` method returning
``("runs", [ids])``, ``("campaign", id)`` or None.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget)

from ..report import PAPERS, ReportContent, ReportInputError, export_report, os_user, report_format


def report_source(window: Any) -> tuple[str, Any, str]:
    """(kind, what, words) for the tab in front: kind 'runs' (ids), 'campaign' (id), 'plan'
    (None), or '' with the reason in ``words`` when there is nothing to report."""
    widget = window.tabs.currentWidget()
    offer = getattr(widget, "report_source", None)
    if callable(offer):
        source = offer()
        if source:
            kind, what = source
            return kind, what, f"{kind} {what if isinstance(what, str) else len(what)}"
    if widget is getattr(window, "campaign_view", None) and widget is not None:
        state = getattr(widget, "state", None)
        if state is None or not getattr(state, "campaign_id", ""):
            return "", None, "The campaign has not started: nothing measured to report yet"
        return "campaign", state.campaign_id, f"campaign {widget.runner.spec.name if widget.runner else ''}".strip()
    if widget is getattr(window, "decision_view", None) and widget is not None and widget.table is not None:
        ids = list(dict.fromkeys(r for row in widget.table.rows for r in row.run_ids))
        if ids:
            return "runs", ids, f"the {len(ids)} runs of the decision table"
    if hasattr(widget, "selected_run_ids") and hasattr(widget, "store"):
        ids = widget.selected_run_ids()
        if not ids:
            return "", None, "Select runs in History first: the report is about the selected runs"
        return "runs", ids, f"the {len(ids)} selected run{'s' if len(ids) != 1 else ''}"
    volume = window.session.volume
    if volume is None:
        return "", None, "No volume to report on: add one in the Layout panel, or select runs in History"
    return "plan", None, f"the planner's volume {volume.name}"


def build_content(window: Any, kind: str, what: Any) -> ReportContent:
    """The content for a source of ``report_source``. Raises ValueError (a failure spec, an
    unknown run) with a sentence for the user."""
    from ..report import content_from_campaign, content_from_plan, content_from_runs

    if kind == "plan":
        session = window.session
        return content_from_plan(session.topo, session.volume, list(session.failures))
    store = _store_of(window)
    if kind == "campaign":
        return content_from_campaign(store, what)
    topology = window.session.topo if window.session.topo.nodes else None
    return content_from_runs(store, list(what), topology)


def _store_of(window: Any) -> Any:
    widget = window.tabs.currentWidget()
    store = getattr(widget, "store", None)
    if store is not None and hasattr(store, "load_runs"):
        return store
    return window.history_store()


class ExportReportDialog(QDialog):
    """Title, author, paper and file of a report; ``accept`` writes it."""

    sig_written = Signal(object)      # ExportResult

    def __init__(self, content: ReportContent, what: str, start_dir: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export report")
        self.content = content
        self.result_info: Any = None
        self.title = QLineEdit(content.title)
        self.title.setObjectName("report-title")
        self.author = QLineEdit(content.author or os_user())
        self.author.setObjectName("report-author")
        self.paper = QComboBox()
        self.paper.setObjectName("report-paper")
        for p in PAPERS:
            self.paper.addItem("A4" if p == "a4" else "Letter", p)
        self.path = QLineEdit(str(start_dir / (_slug(content.title) + ".pdf")))
        self.path.setObjectName("report-path")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        self.problem = QLabel("")
        self.problem.setObjectName("report-problem")
        self.problem.setStyleSheet("color: #c62828")
        self.problem.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Report of", QLabel(what))
        form.addRow("Title", self.title)
        form.addRow("Made by", self.author)
        form.addRow("Paper", self.paper)
        form.addRow("File (.pdf or .html)", row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.problem)
        box.addWidget(buttons)
        self.resize(620, self.sizeHint().height())

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export report", self.path.text(),
                                              "PDF (*.pdf);;HTML, one self-contained file (*.html)")
        if path:
            self.path.setText(path)

    def accept(self) -> None:
        """Write the report; a problem is shown in the dialog, which stays open."""
        path = self.path.text().strip()
        title = self.title.text().strip()
        if not title:
            self.problem.setText("Give the report a title.")
            return
        try:
            report_format(path)
        except ReportInputError as exc:
            self.problem.setText(str(exc))
            return
        content = dataclasses.replace(self.content, title=title, author=self.author.text().strip() or os_user())
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.result_info = export_report(content, path, self.paper.currentData())
        except (ReportInputError, OSError) as exc:
            self.problem.setText(f"Not written: {exc}")
            return
        finally:
            QApplication.restoreOverrideCursor()
        self.sig_written.emit(self.result_info)
        super().accept()


def _slug(title: str) -> str:
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in title.lower())
    return "-".join(part for part in keep.split("-") if part)[:80] or "report"


def export_report_dialog(window: Any, *, exec_dialog: bool = True) -> ExportReportDialog | None:
    """Build the content for the tab in front and show the dialog (``exec_dialog=False``
    returns it unshown, for tests). Says in the status bar why nothing can be reported."""
    kind, what, words = report_source(window)
    if not kind:
        window.statusBar().showMessage(words, 10000)
        return None
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        content = build_content(window, kind, what)
    except (ValueError, KeyError) as exc:      # StoreError, FailureSpecError, CampaignFileError are ValueErrors
        window.statusBar().showMessage(f"No report: {exc}", 15000)
        return None
    finally:
        QApplication.restoreOverrideCursor()
    path = getattr(window.files, "path", None)
    start = Path(path).parent if path else Path.home()
    dialog = ExportReportDialog(content, words, start, window)
    dialog.sig_written.connect(lambda r: window.statusBar().showMessage(
        f"Report written: {r.path}" + (f" ({r.pages} pages)" if r.pages else ""), 15000))
    if exec_dialog:
        dialog.exec()
    return dialog

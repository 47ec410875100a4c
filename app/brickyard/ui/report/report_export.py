"""File ▸ Export PDF…: the report of what the window shows, written by a process of its own.

What is reported follows the tab in front: History → the selected runs; Campaign → its
campaign once it has one (finished, paused or stopped: the cells it completed); Decision →
the runs of its table; anything else → the planner's current volume, with the failure
scenario on the canvas. The dialog edits the title and who made it (the OS user by default),
picks A4 or Letter and the file (.pdf, or .html for a wiki).

The report is built and painted by ``brickyard report --worker`` (``report/worker.py``), the
same ``content_from_*`` and ``export_report`` that ``brickyard report`` runs: a 100-run report
is 10–20 s of CPU, which froze the window when it ran here, and still held it up to 0.2 s at
a time from a thread (Python's GIL). The dialog opens at once and the writer prepares the
content while you read it; Export shows each page as it is painted and Cancel stops it (the
prepared content is kept, so another file is written without starting again). A file that
cannot be written (a full disk, a folder you may not write to) is said in the dialog, which
keeps everything you typed; nothing is half-written, and the window stays usable throughout.

A view may also offer its own source by a ``report_source()`` method returning
``("runs", [ids])``, ``("campaign", id)``, ``("change", id)`` (the PDF change record of a change
to a live volume: the Change tab and the change history) or None.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QProgressBar, QPushButton, QVBoxLayout, QWidget)

from ...report import PAPERS, ExportResult, ReportInputError, os_user, report_format

log = logging.getLogger("brickyard.report")
STDERR_KEPT = 4000          # the writer's last words kept for a crash message


def report_source(window: Any) -> tuple[str, Any, str]:
    """(kind, what, words) for the tab in front: kind 'runs' (ids), 'campaign' (id), 'plan'
    (None), or '' with the reason in ``words`` when there is nothing to report."""
    widget = window.tabs.currentWidget()
    offer = getattr(widget, "report_source", None)
    if callable(offer):
        source = offer()
        if source:
            kind, what = source
            if kind == "change":
                return kind, what, f"the record of change {what[:12]}"
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


def report_request(window: Any, kind: str, what: Any) -> dict:
    """The writer's ``source`` for a source of ``report_source``: the planner's topology as
    it is now (saved or not), or the history database and the runs or campaign. Raises
    ValueError with a sentence for the user."""
    from ...core import topofile

    session = window.session
    if kind == "plan":
        return {"kind": "plan", "topology": topofile.dumps(session.topo), "volume": session.volume.name,
                "failures": list(session.failures)}
    url = getattr(_store_of(window), "url", "") or ""
    if not url or url in ("sqlite://", "sqlite:///:memory:") or "mode=memory" in url:
        raise ValueError("the history is in memory, where the report writer cannot read it")
    if kind == "campaign":
        return {"kind": "campaign", "db": url, "campaign": what}
    if kind == "change":
        return {"kind": "change", "db": url, "change": what}
    return {"kind": "runs", "db": url, "runs": list(what),
            "topology": topofile.dumps(session.topo) if session.topo.nodes else None}


def writer_command() -> tuple[str, list[str]]:
    """How to start ``brickyard report --worker``: this very executable in the bundle (its
    real name: ``brickyard-gui`` is a link that would open a window), else this Python."""
    if getattr(sys, "frozen", False):
        return os.path.realpath(sys.executable), ["report", "--worker"]
    return sys.executable, ["-m", "brickyard.cli", "report", "--worker"]


def _store_of(window: Any) -> Any:
    widget = window.tabs.currentWidget()
    store = getattr(widget, "store", None)
    if store is not None and hasattr(store, "load_runs"):
        return store
    return window.history_store()




class ReportWriter(QObject):
    """The writer process, seen from the GUI thread: requests go in as JSON lines, its events
    come back as signals (``report/worker.py`` has the protocol). The GUI thread only reads a
    line now and then; the process is ended when the dialog goes (it also stops by itself
    when its input closes, so a window that dies leaves no writer behind)."""

    sig_progress = Signal(str, float, str)
    """phase ('prepare' | 'write'), fraction done, what it is doing."""
    sig_prepared = Signal(dict)
    """title, author, subject, kind, runs: the content is built."""
    sig_written = Signal(dict)
    """file, format, paper, pages, bytes."""
    sig_failed = Signal(str, str)
    """phase, the sentence for the user."""
    sig_cancelled = Signal(str)
    """phase."""
    sig_gone = Signal(str)
    """The process ended without being asked to (a crash, killed): what is known of why."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.process = QProcess(self)
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.SeparateChannels)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("QT_QPA_PLATFORM", "offscreen")     # it paints into a PDF, never onto a screen
        env.insert("PYTHONUNBUFFERED", "1")
        self.process.setProcessEnvironment(env)
        self.process.readyReadStandardOutput.connect(self._read_out)
        self.process.readyReadStandardError.connect(self._read_err)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        self._partial = b""
        self._stderr = b""
        self._leaving = False
        self.alive = False

    def start(self, source: dict) -> None:
        program, args = writer_command()
        self._leaving = False
        self.alive = True
        self.process.start(program, args)
        self._send({"source": source})

    def write(self, path: str, paper: str, title: str, author: str) -> None:
        self._send({"command": "write", "path": path, "paper": paper, "title": title, "author": author})

    def cancel(self) -> None:
        self._send({"command": "cancel"})

    def stop(self) -> None:
        """End the writer: asked to quit, killed if it has not within a second (nothing it
        holds is on disk until the very last write, so killing it loses nothing)."""
        if not self.alive:
            return
        self._leaving = True
        self._send({"command": "cancel"})       # whatever is under way or asked: the dialog is gone
        self._send({"command": "quit"})
        self.process.closeWriteChannel()
        QTimer.singleShot(1000, self._kill_if_running)

    def _kill_if_running(self) -> None:
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.kill()

    def _send(self, doc: dict) -> None:
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.write((json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8"))

    def _read_out(self) -> None:
        data = self._partial + bytes(self.process.readAllStandardOutput().data())
        *lines, self._partial = data.split(b"\n")
        for line in lines:
            if line.strip():
                self._event(line)

    def _read_err(self) -> None:
        self._stderr = (self._stderr + bytes(self.process.readAllStandardError().data()))[-STDERR_KEPT:]

    def _event(self, line: bytes) -> None:
        try:
            doc = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            log.warning("report writer said: %s", line[:300])
            return
        event = doc.get("event")
        if event == "progress":
            self.sig_progress.emit(str(doc.get("phase", "")), float(doc.get("fraction", 0.0)), str(doc.get("text", "")))
        elif event == "prepared":
            self.sig_prepared.emit(doc)
        elif event == "written":
            self.sig_written.emit(doc)
        elif event == "failed":
            if doc.get("traceback"):
                log.error("report writer: %s\n%s", doc.get("error"), doc["traceback"])
            self.sig_failed.emit(str(doc.get("phase", "")), str(doc.get("error", "")))
        elif event == "cancelled":
            self.sig_cancelled.emit(str(doc.get("phase", "")))

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read_out()
        self.alive = False
        if self._leaving:
            return
        tail = self._stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        how = "crashed" if status == QProcess.ExitStatus.CrashExit else f"ended (exit code {code})"
        log.error("report writer %s: %s", how, "\n".join(tail))
        self.sig_gone.emit(f"the report writer {how}" + (f": {tail[-1]}" if tail else ""))

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.alive = False
            program, _ = writer_command()
            self.sig_gone.emit(f"the report writer did not start ({program}: {self.process.errorString()})")


class ExportReportDialog(QDialog):
    """Title, author, paper and file of a report, with the writer's progress and Cancel.
    Not modal: the window stays usable while a report is prepared and written."""

    sig_written = Signal(object)      # ExportResult
    sig_finished = Signal()           # written, failed, cancelled or gone: the dialog is idle again

    def __init__(self, source: dict, what: str, start_dir: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export report")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.source = source
        self.start_dir = start_dir
        self.prepared: dict | None = None
        self.result_info: ExportResult | None = None
        self.writing = False
        self.pending = False           # Export pressed before the content was ready
        self.title = QLineEdit()
        self.title.setObjectName("report-title")
        self.title.setPlaceholderText("preparing the report… (its own title appears here)")
        self.author = QLineEdit(os_user())
        self.author.setObjectName("report-author")
        self.paper = QComboBox()
        self.paper.setObjectName("report-paper")
        for p in PAPERS:
            self.paper.addItem("A4" if p == "a4" else "Letter", p)
        self._default_path = str(start_dir / "report.pdf")
        self.path = QLineEdit(self._default_path)
        self.path.setObjectName("report-path")
        self._edited: set[str] = set()
        self._filled = {"title": "", "author": self.author.text()}     # what the writer put in them
        for name, field in (("title", self.title), ("author", self.author), ("path", self.path)):
            field.textEdited.connect(lambda _t, n=name: self._edited.add(n))
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        self.bar = QProgressBar()
        self.bar.setObjectName("report-progress")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.status = QLabel("Preparing the report…")
        self.status.setObjectName("report-status")
        self.status.setWordWrap(True)
        self.problem = QLabel("")
        self.problem.setObjectName("report-problem")
        self.problem.setStyleSheet("color: #c62828")
        self.problem.setWordWrap(True)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        form.addRow("Report of", QLabel(what))
        form.addRow("Title", self.title)
        form.addRow("Made by", self.author)
        form.addRow("Paper", self.paper)
        form.addRow("File (.pdf or .html)", row)
        self.buttons = QDialogButtonBox()
        self.export_button = self.buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setObjectName("report-export")
        self.cancel_button = self.buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        self.cancel_button.setObjectName("report-cancel")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.bar)
        box.addWidget(self.status)
        box.addWidget(self.problem)
        box.addWidget(self.buttons)
        self.resize(640, self.sizeHint().height())
        self.writer = ReportWriter(self)
        self.writer.sig_progress.connect(self._progress)
        self.writer.sig_prepared.connect(self._prepared)
        self.writer.sig_written.connect(self._written)
        self.writer.sig_failed.connect(self._failed)
        self.writer.sig_cancelled.connect(self._cancelled)
        self.writer.sig_gone.connect(self._gone)
        self.writer.start(source)

    # ---- what the writer says ---------------------------------------------------------
    def _progress(self, phase: str, fraction: float, text: str) -> None:
        self.bar.setValue(round(fraction * 1000))
        self.status.setText(("Preparing: " if phase == "prepare" else "Writing: ") + text)

    def _prepared(self, info: dict) -> None:
        self.prepared = info
        # the writer's title and author fill the fields only where nothing else was put (typed
        # or set): a writer started again after one died must not undo what is there
        shown = self._filled
        if not self.title.text().strip() or self.title.text() == shown["title"]:
            self.title.setText(info.get("title", ""))
        if info.get("author") and self.author.text() == shown["author"]:
            self.author.setText(info["author"])
        self._filled = {"title": self.title.text(), "author": self.author.text()}
        # the file is named after the title unless a name was given (typed, browsed, set) or
        # Export was already pressed with the name shown then
        if not self.pending and "path" not in self._edited and self.path.text() == self._default_path:
            suffix = Path(self.path.text()).suffix or ".pdf"
            self.path.setText(str(Path(self.path.text()).parent / (_slug(self.title.text()) + suffix)))
        self.bar.setValue(1000 if not self.writing else self.bar.value())
        if self.pending:
            self.pending = False
            self._send_write()
        elif not self.writing:
            self.status.setText("Ready: Export writes the file.")

    def _written(self, doc: dict) -> None:
        self.result_info = ExportResult(doc["file"], doc["format"], doc["paper"], doc.get("pages"), doc["bytes"])
        self._idle()
        self.sig_written.emit(self.result_info)
        self.sig_finished.emit()
        super().accept()

    def _failed(self, phase: str, error: str) -> None:
        if phase == "prepare":
            self.problem.setText(f"No report: {error}")
            self.status.setText("")
            self.export_button.setEnabled(False)
            self.pending = False
            self.writing = False
            self.cancel_button.setText("Close")
            self.sig_finished.emit()
            return
        self._idle()
        self.bar.setValue(0)
        self.problem.setText(f"Not written: {error}")
        self.status.setText("Everything above is kept: change what is needed and Export again.")
        self.sig_finished.emit()

    def _cancelled(self, phase: str) -> None:
        if phase == "write":
            self._idle()
            self.status.setText(f"Stopped: nothing was written; {Path(self.path.text()).name} is as it was.")
            self.sig_finished.emit()

    def _gone(self, message: str) -> None:
        self.prepared = None
        was_busy = self.writing or self.pending
        self._idle()
        self.problem.setText(f"Not written: {message}. Export tries again.")
        self.status.setText("")
        if was_busy:
            self.sig_finished.emit()

    # ---- the user ---------------------------------------------------------------------
    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export report", self.path.text(),
                                              "PDF (*.pdf);;HTML, one self-contained file (*.html)")
        if path:
            self.path.setText(path)
            self._edited.add("path")

    def accept(self) -> None:
        """Export: check what can be checked here, then hand it to the writer (at once, or as
        soon as the content is prepared). A problem is shown in the dialog, which stays open."""
        if self.writing:
            return
        path = self.path.text().strip()
        if self.prepared is not None and not self.title.text().strip():
            self.problem.setText("Give the report a title.")
            return
        try:
            report_format(path)
        except ReportInputError as exc:
            self.problem.setText(str(exc))
            return
        folder = Path(path).expanduser().resolve().parent
        if not folder.is_dir():
            self.problem.setText(f"{path}: the folder {folder} does not exist")
            return
        if Path(path).is_dir():
            self.problem.setText(f"{path} is a folder; give a file name ending in .pdf or .html")
            return
        self.problem.setText("")
        self.writing = True
        for w in (self.title, self.author, self.paper, self.path, self.browse, self.export_button):
            w.setEnabled(False)
        self.cancel_button.setText("Stop")
        if not self.writer.alive:
            self.writer.start(self.source)
        if self.prepared is None:
            self.pending = True
            self.status.setText("Export starts as soon as the report is prepared…")
            return
        self._send_write()

    def _send_write(self) -> None:
        self.bar.setValue(0)
        self.status.setText("Writing…")
        self.writer.write(str(Path(self.path.text().strip()).expanduser()), self.paper.currentData(),
                          self.title.text().strip(), self.author.text().strip() or os_user())

    def reject(self) -> None:
        """Cancel: while writing, stop the writing (the dialog stays); else close."""
        if self.writing and self.pending:       # nothing was sent: the preparing goes on
            self._idle()
            self.status.setText("Nothing was written; the report is still being prepared.")
            self.sig_finished.emit()
            return
        if self.writing:
            self.writer.cancel()
            self.status.setText("Stopping…")
            return
        super().reject()

    def done(self, result: int) -> None:
        self.writer.stop()
        super().done(result)

    def closeEvent(self, event) -> None:
        if self.writing:          # the window's close button while writing: stop it, then close
            self.writer.cancel()
        self.writer.stop()
        super().closeEvent(event)

    def _idle(self) -> None:
        self.writing = False
        self.pending = False
        for w in (self.title, self.author, self.paper, self.path, self.browse):
            w.setEnabled(True)
        self.export_button.setEnabled(True)
        self.cancel_button.setText("Cancel")


def _slug(title: str) -> str:
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in title.lower())
    return "-".join(part for part in keep.split("-") if part)[:80] or "report"


def export_report_dialog(window: Any, *, show: bool = True) -> ExportReportDialog | None:
    """Open the export dialog for the tab in front (``show=False`` returns it unshown, for
    tests); the writer starts preparing at once. Says in the status bar why nothing can be
    reported. One dialog at a time: one still writing is brought to the front."""
    current = getattr(window, "_report_dialog", None)
    if current is not None and current.isVisible():
        if current.writing:
            current.raise_()
            current.activateWindow()
            window.statusBar().showMessage("A report is being written: its dialog is in front", 10000)
            return current
        current.done(QDialog.DialogCode.Rejected)
    kind, what, words = report_source(window)
    if not kind:
        window.statusBar().showMessage(words, 10000)
        return None
    try:
        source = report_request(window, kind, what)
    except ValueError as exc:
        window.statusBar().showMessage(f"No report: {exc}", 15000)
        return None
    path = getattr(window.files, "path", None)
    start = Path(path).parent if path else Path.home()
    dialog = ExportReportDialog(source, words, start, window)
    dialog.sig_written.connect(lambda r: window.statusBar().showMessage(
        f"Report written: {r.path}" + (f" ({r.pages} pages)" if r.pages else ""), 15000))
    window._report_dialog = dialog
    if show:
        dialog.show()
    return dialog

"""An unexpected exception in the window: logged with its traceback, and shown as a dialog that
says what to do next, where the log is, and holds a report to copy — never a bare traceback.

``install()`` sets ``sys.excepthook`` (exceptions in Qt slots and event handlers land there)
and ``threading.excepthook`` (logged; the window learns of it through its status bar).
Only one dialog shows at a time; errors while it is open are logged and counted in it.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from types import TracebackType

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from ...core import applog
from ...core.applog import mask_secrets
from .bridge import GuiCall

log = logging.getLogger("brickyard.crash")


def report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> str:
    """The text a user pastes into a bug report: what failed, the traceback, the versions."""
    from .about import report_text

    try:
        versions = report_text()
    except Exception as err:  # noqa: BLE001 - the report must not fail on its own
        versions = f"(versions unavailable: {err})"
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    return mask_secrets(f"Brickyard hit an unexpected error\n\n{text}\n{versions}\nLog: {applog.log_path()}\n")


class CrashReporter(QObject):
    """Turns uncaught exceptions into a logged traceback and one dialog at a time."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.dialog: QMessageBox | None = None
        self.more = 0
        self.shown: list[str] = []   # the summaries shown (tests read them)
        self._previous = (sys.excepthook, threading.excepthook)
        self._thread_failed = GuiCall(self, "_status")   # called on the failing thread

    def install(self) -> None:
        sys.excepthook = self.handle
        threading.excepthook = self._thread_hook

    def uninstall(self) -> None:
        sys.excepthook, threading.excepthook = self._previous

    def handle(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        log.error("unexpected error", exc_info=(exc_type, exc, tb))
        summary = mask_secrets(f"{exc_type.__name__}: {exc}")
        if self.dialog is not None and self.dialog.isVisible():
            self.more += 1
            self.dialog.setInformativeText(self._next_steps() + f"\n\n{self.more} more error(s) since: see the log.")
            return
        self.shown.append(summary)
        self.more = 0
        self.dialog = self._dialog(summary, report(exc_type, exc, tb))
        self.dialog.open()

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        log.error("unexpected error in thread %s", args.thread.name if args.thread else "?",
                  exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
        self._thread_failed(mask_secrets(f"{args.exc_type.__name__}: {args.exc_value}"))

    def _status(self, summary: str) -> None:
        for widget in QApplication.topLevelWidgets():
            bar = getattr(widget, "statusBar", None)
            if callable(bar) and widget.isVisible():
                bar().showMessage(f"A background task failed ({summary}); details in {applog.log_path()}", 30000)

    @staticmethod
    def _next_steps() -> str:
        return ("Brickyard keeps running, but what you just did may not have finished. Save your topology "
                "(File ▸ Save As… to a new file, to be safe) and restart Brickyard if anything looks wrong. "
                f"The details are in the log: {applog.log_path()}. If it happens again, please report it with "
                "the text under Show Details (Copy report puts it on the clipboard).")

    def _dialog(self, summary: str, text: str) -> QMessageBox:
        parent = QApplication.activeWindow()
        box = QMessageBox(QMessageBox.Icon.Critical, "Brickyard: unexpected error",
                          f"Something went wrong inside Brickyard: {summary[:300]}",
                          QMessageBox.StandardButton.Close, parent if isinstance(parent, QWidget) else None)
        box.setObjectName("crash-dialog")
        box.setInformativeText(self._next_steps())
        box.setDetailedText(text)
        copy = box.addButton("Copy report and close", QMessageBox.ButtonRole.ActionRole)
        copy.setObjectName("crash-copy")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(text))
        box.report = text
        return box

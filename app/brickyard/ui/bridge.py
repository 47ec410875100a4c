"""Where the asyncio loop thread meets Qt: futures, progress and secret prompts become signals.

``RemoteServices`` (``remote/services.py``) runs every SSH conversation on one asyncio loop in
its own thread and hands back ``concurrent.futures.Future`` objects; it never imports Qt. The
objects here live in the GUI thread and re-emit what happens over there as Qt signals,
always through a queued connection, so a slot never runs on the loop thread:

- ``FutureWatcher``: ``sig_done(result)`` / ``sig_failed(exception)`` / ``sig_cancelled()``.
- ``QtProgress``: a ``remote.loop.Progress`` whose callbacks become ``sig_progress`` / ``sig_log``.
- ``SecretPrompt``: the SSH layer asks for a key passphrase or a password from a worker thread
  (never the loop thread, so other hosts' work goes on) and waits while the GUI thread shows
  the dialog.
- ``RemoteBridge``: the app's one ``RemoteServices``, built on first use and closed with the window.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import CancelledError, Future
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QWidget

from ..remote.loop import Progress
from ..remote.services import RemoteServices
from ..remote.ssh import SshOptions

SSH_CONFIG_ENV = "BRICKYARD_SSH_CONFIG"
PROMPT_TIMEOUT = 600.0  # seconds the loop thread waits for an answer before giving up


def _on_gui_thread() -> bool:
    app = QApplication.instance()
    return app is not None and QThread.currentThread() is app.thread()


class FutureWatcher(QObject):
    """Turns one future's completion into a signal on the GUI thread.

    Keep a reference (or give it a parent) until it fires; ``cancel()`` asks the future to stop
    (for a loop-thread task this cancels the task, which kills its remote commands).
    """

    sig_done = Signal(object)
    """The future's result."""
    sig_failed = Signal(object)
    """The exception the future raised."""
    sig_cancelled = Signal()
    sig_finished = Signal()
    """After any of the three above."""
    _arrived = Signal(object)

    def __init__(self, future: Future, parent: QObject | None = None, label: str = ""):
        super().__init__(parent)
        self.future = future
        self.label = label  # what runs, in words ("teardown of gv0"), for the quit question
        self.finished = False
        self._arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        future.add_done_callback(self._arrived.emit)

    def cancel(self) -> bool:
        return self.future.cancel()

    @Slot(object)
    def _deliver(self, future: Future) -> None:
        if self.finished:
            return
        self.finished = True
        try:
            result = future.result()
        except CancelledError:
            self.sig_cancelled.emit()
        except BaseException as exc:  # noqa: BLE001 - every failure goes to the view that asked
            self.sig_failed.emit(exc)
        else:
            self.sig_done.emit(result)
        self.sig_finished.emit()


class QtProgress(QObject):
    """A ``Progress`` for a service call whose reports arrive as GUI-thread signals."""

    sig_progress = Signal(float, str)
    sig_log = Signal(str)
    sig_item = Signal(object)
    """One finished piece of the work (e.g. one host's pre-flight checks)."""
    _progress = Signal(float, str)
    _log = Signal(str)
    _item = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        queued = Qt.ConnectionType.QueuedConnection
        self._progress.connect(self.sig_progress, queued)
        self._log.connect(self.sig_log, queued)
        self._item.connect(self.sig_item, queued)
        self.progress = Progress(on_progress=self._progress.emit, on_log=self._log.emit)

    def item(self, obj: object) -> None:
        """Report a finished piece (any thread)."""
        self._item.emit(obj)

    def cancel(self) -> None:
        self.progress.cancel()


class _Request:
    def __init__(self, kind: str, label: str):
        self.kind = kind
        self.label = label
        self.answer: str | None = None
        self.done = threading.Event()


class SecretPrompt(QObject):
    """Ask the user for a passphrase or password on behalf of the loop thread.

    ``ask`` blocks its caller (the loop thread) until the GUI thread's dialog is answered;
    called on the GUI thread it asks directly. ``answer`` is replaceable for tests.
    """

    _asked = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.parent_widget = parent
        self._open: set[_Request] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._asked.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def passphrase(self, key_file: str) -> str | None:
        return self.ask("passphrase", key_file)

    def password(self, label: str) -> str | None:
        return self.ask("password", label)

    def ask(self, kind: str, label: str) -> str | None:
        if _on_gui_thread():
            return self.answer(kind, label)
        request = _Request(kind, label)
        with self._lock:
            if self._closed:
                return None
            self._open.add(request)
        self._asked.emit(request)
        request.done.wait(PROMPT_TIMEOUT)
        with self._lock:
            self._open.discard(request)
        return request.answer

    @Slot(object)
    def _show(self, request: _Request) -> None:
        try:
            if not self._closed:
                request.answer = self.answer(request.kind, request.label)
        finally:
            request.done.set()

    def answer(self, kind: str, label: str) -> str | None:
        """Show the dialog; None when the user cancels."""
        if kind == "passphrase":
            title, text = "Key passphrase", f"Passphrase for the SSH key {label}:"
        else:
            title, text = ("SSH password", f"No key was accepted by {label}.\nPassword (kept only in the "
                           "OS keyring, never in files):")
        value, ok = QInputDialog.getText(self.parent_widget, title, text, QLineEdit.EchoMode.Password)
        return value if ok and value else None

    def close(self) -> None:
        """Release every waiting caller with no answer (the window is closing)."""
        with self._lock:
            self._closed = True
            waiting = list(self._open)
        for request in waiting:
            request.done.set()


def default_ssh_config() -> list[str] | None:
    """``$BRICKYARD_SSH_CONFIG`` when set (what ``--ssh-config`` is for the CLI), else ~/.ssh/config."""
    chosen = os.environ.get(SSH_CONFIG_ENV, "")
    return [chosen] if chosen else None


class RemoteBridge(QObject):
    """The window's way to reach hosts: one ``RemoteServices`` for the app's life."""

    sig_note = Signal(str)
    """Something the SSH layer wants the user to read once (e.g. a password it could not keep)."""

    def __init__(self, parent: QWidget | None = None, *, ssh_config: str | Path | None = None,
                 make_services: Callable[[SshOptions], RemoteServices] | None = None):
        super().__init__(parent)
        self.prompt = SecretPrompt(parent)
        self._ssh_config = [str(ssh_config)] if ssh_config else default_ssh_config()
        self._make = make_services or RemoteServices
        self._services: RemoteServices | None = None
        self._watchers: set[FutureWatcher] = set()
        self._notes_shown = 0
        self._closed = False

    def adopt(self, window: QWidget) -> None:
        """Belong to ``window``: its dialogs are the prompts' parent."""
        self.setParent(window)
        self.prompt.parent_widget = window

    @property
    def ssh_config(self) -> list[str] | None:
        return self._ssh_config

    def options(self) -> SshOptions:
        return SshOptions(config_files=self._ssh_config, passphrase=self.prompt.passphrase,
                          password_prompt=self.prompt.password)

    @property
    def services(self) -> RemoteServices:
        if self._services is None:
            self._services = self._make(self.options())
        return self._services

    def watch(self, future: Future, label: str = "") -> FutureWatcher:
        """A watcher kept alive by the bridge until its future has been delivered; ``label``
        says what runs ("teardown of gv0") when the user wants to quit meanwhile."""
        watcher = FutureWatcher(future, self, label)
        self._watchers.add(watcher)
        watcher.sig_finished.connect(lambda w=watcher: self._forget(w))
        return watcher

    def _forget(self, watcher: FutureWatcher) -> None:
        self._watchers.discard(watcher)
        watcher.deleteLater()
        self._pass_on_notes()

    def _pass_on_notes(self) -> None:
        pool = getattr(self._services, "pool", None)
        notes = list(getattr(pool, "notes", []))
        for note in notes[self._notes_shown:]:
            self.sig_note.emit(note)
        self._notes_shown = len(notes)

    @property
    def busy(self) -> bool:
        """Is a run still going? (False once the bridge is closed: what ran was cancelled.)"""
        return not self._closed and any(not w.finished for w in self._watchers)

    def running(self) -> list[str]:
        """What is still running, in words, oldest first."""
        if self._closed:
            return []
        return list(dict.fromkeys(w.label or "a run on the cluster" for w in self._watchers if not w.finished))

    def close(self) -> None:
        """Cancel what is still running and close the SSH pool and loop (window close)."""
        self._closed = True
        self.prompt.close()
        for watcher in list(self._watchers):
            watcher.cancel()
        if self._services is not None:
            services, self._services = self._services, None
            services.close()

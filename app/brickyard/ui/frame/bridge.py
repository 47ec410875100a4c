"""Where the asyncio loop thread meets Qt: futures, progress and secret prompts become signals.

``RemoteServices`` (``remote/services.py``) runs every SSH conversation on one asyncio loop in
its own thread and hands back ``concurrent.futures.Future`` objects; it never imports Qt. The
objects here live in the GUI thread and re-emit what happens over there as Qt signals on the
GUI thread, so a slot never runs on the loop thread.

Another thread never emits a signal of, or otherwise touches, an object a window owns: that
object may be deleted with its window at any moment (a dialog closed while its import still
runs), and a signal emitted on a deleted object from another thread is a crash, not an error.
It calls a ``GuiCall`` instead, which holds its object only weakly and hands the call to one
application-lifetime dispatcher; on the GUI thread the call is dropped if the object is gone.

A finished watcher is deleted on its own, while its bridge (and the window) live on. Whatever
its connections hold is released inside its destructor: a view's slot may hold the last
reference to a view, and through it to a bridge or window that nobody else holds (a test's, or a
window being closed). Deleted there, that owner deletes the watcher a second time (a segmentation
fault in ``QObject::~QObject``). So the bridge's own slot holds nothing (a bound method), and a
finished watcher is handed to the dispatcher, which outlives everything, before it is deleted.

- ``GuiCall(owner, "name")``: callable from any thread; runs ``owner.name(*args)`` (or emits
  ``owner.name`` when it is a signal) on the GUI thread while ``owner`` exists.

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
import weakref
from concurrent.futures import CancelledError, Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QWidget

from ...remote.connection import ConnectionSettings

if TYPE_CHECKING:   # the SSH layer (asyncssh, cryptography) loads when a host is first reached
    from ...remote.services import RemoteServices
    from ...remote.ssh import SshOptions

SSH_CONFIG_ENV = "BRICKYARD_SSH_CONFIG"
#: what a refused login in the window suggests (the commands suggest their flags)
WINDOW_AUTH_HINT = ("Choose the SSH config, a key or the user in Cluster ▸ Connection settings…, or load the key "
                    "into ssh-agent; a host that offers password login asks for the password.")
PROMPT_TIMEOUT = 600.0  # seconds the loop thread waits for an answer before giving up


def _on_gui_thread() -> bool:
    app = QApplication.instance()
    return app is not None and QThread.currentThread() is app.thread()


class _Dispatcher(QObject):
    """The one object other threads emit on. It lives in the GUI thread and is never deleted
    before the process ends, so an emit from any thread is always on a live object."""

    _posted = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _run(self, posted: tuple[weakref.ref, str, tuple]) -> None:
        ref, name, args = posted
        owner = ref()
        if owner is None or not shiboken6.isValid(owner):
            return   # deleted meanwhile (its window closed): nobody is left to tell
        target = getattr(owner, name)
        (target.emit if hasattr(target, "emit") else target)(*args)


_dispatcher: _Dispatcher | None = None
_dispatcher_lock = threading.Lock()


def _gui_dispatcher() -> _Dispatcher:
    global _dispatcher
    with _dispatcher_lock:
        if _dispatcher is None:
            dispatcher = _Dispatcher()
            app = QCoreApplication.instance()
            if app is not None and dispatcher.thread() is not app.thread():
                dispatcher.moveToThread(app.thread())
            _dispatcher = dispatcher
        return _dispatcher


def _delete_later(obj: QObject) -> None:
    """``obj.deleteLater()``, as a child of the dispatcher (on the GUI thread).

    Deleting ``obj`` releases what its connections hold (a slot's closure, and what that holds).
    If that was the last reference to a Python-owned ancestor of ``obj`` (a bridge or window
    without a parent), the ancestor is deleted inside ``obj``'s destructor and deletes ``obj``
    again. The dispatcher is never deleted while the process runs, so it is never released there.
    """
    obj.setParent(_gui_dispatcher())
    obj.deleteLater()


class GuiCall:
    """A call from any thread to ``owner.name`` on the GUI thread, while ``owner`` exists.

    Build it on the GUI thread (with ``owner``); hand it to the thread as its callback. Calling
    it touches no Qt object but the dispatcher and holds ``owner`` only weakly, so neither a
    deleted owner nor the thread's last reference to it (a C++ object freed off the GUI thread)
    can crash. Calls arrive in the order they were made.
    """

    __slots__ = ("_ref", "_name", "_post")

    def __init__(self, owner: QObject, name: str):
        if not hasattr(owner, name):
            raise AttributeError(f"{type(owner).__name__} has no {name!r}")
        self._ref = weakref.ref(owner)
        self._name = name
        self._post = _gui_dispatcher()._posted.emit

    def __call__(self, *args: Any) -> None:
        self._post((self._ref, self._name, args))


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

    def __init__(self, future: Future, parent: QObject | None = None, label: str = ""):
        super().__init__(parent)
        self.future = future
        self.label = label  # what runs, in words ("teardown of gv0"), for the quit question
        self.finished = False
        # the future calls back on whichever thread finishes it (or here, if it already has);
        # either way the delivery is queued to the GUI thread and dropped if this watcher is gone
        future.add_done_callback(GuiCall(self, "_deliver"))

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

    def __init__(self, parent: QObject | None = None):
        from ...remote.loop import Progress

        super().__init__(parent)
        self.progress = Progress(on_progress=GuiCall(self, "sig_progress"), on_log=GuiCall(self, "sig_log"))
        self.item = GuiCall(self, "sig_item")   # report a finished piece (any thread): sig_item

    def cancel(self) -> None:
        self.progress.cancel()


class _Request:
    def __init__(self, kind: str, label: str):
        self.kind = kind
        self.label = label
        self.answer: str | None = None
        self.done = threading.Event()


class _Waiters:
    """The callers waiting for an answer. Plain Python shared with their threads: it outlives
    the prompt, so a prompt deleted with its window still releases them (with no answer)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open: set[_Request] = set()
        self.closed = False

    def release_all(self, *_: object) -> None:
        with self.lock:
            self.closed = True
            waiting = list(self.open)
        for request in waiting:
            request.done.set()


class SecretPrompt(QObject):
    """Ask the user for a passphrase or password on behalf of the loop thread.

    ``ask`` blocks its caller (the loop thread) until the GUI thread's dialog is answered;
    called on the GUI thread it asks directly. ``answer`` is replaceable for tests.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.parent_widget = parent
        self._waiters = _Waiters()
        self._asked = GuiCall(self, "_show")
        # deleted before close() (with its window): whoever still waits is released, unanswered
        self.destroyed.connect(self._waiters.release_all)

    def passphrase(self, key_file: str) -> str | None:
        return self.ask("passphrase", key_file)

    def password(self, label: str) -> str | None:
        return self.ask("password", label)

    def ask(self, kind: str, label: str) -> str | None:
        if _on_gui_thread():
            return self.answer(kind, label)
        # another thread: only the plain-Python waiters and the GuiCall are touched from here
        waiters, request = self._waiters, _Request(kind, label)
        with waiters.lock:
            if waiters.closed:
                return None
            waiters.open.add(request)
        self._asked(request)
        request.done.wait(PROMPT_TIMEOUT)
        with waiters.lock:
            waiters.open.discard(request)
        return request.answer

    @Slot(object)
    def _show(self, request: _Request) -> None:
        try:
            if not self._waiters.closed:
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
        self._waiters.release_all()


def default_ssh_config() -> list[str] | None:
    """``$BRICKYARD_SSH_CONFIG`` when set (what ``--ssh-config`` is for the CLI), else ~/.ssh/config."""
    chosen = os.environ.get(SSH_CONFIG_ENV, "")
    return [chosen] if chosen else None


class RemoteBridge(QObject):
    """The window's way to reach hosts: one ``RemoteServices`` for the app's life."""

    sig_note = Signal(str)
    """Something the SSH layer wants the user to read once (e.g. a password it could not keep)."""

    def __init__(self, parent: QWidget | None = None, *, ssh_config: str | Path | None = None,
                 make_services: Callable[[SshOptions], RemoteServices] | None = None,
                 connection: ConnectionSettings | None = None):
        super().__init__(parent)
        self.prompt = SecretPrompt(parent)
        if parent is None:   # owned by Qt, never by whichever thread drops the last reference
            self.prompt.setParent(self)
        self._override = [str(ssh_config)] if ssh_config else default_ssh_config()
        self.connection = connection or ConnectionSettings()
        self._pending: ConnectionSettings | None = None
        self._make = make_services
        self._services: RemoteServices | None = None
        self._trial: RemoteServices | None = None
        self._watchers: set[FutureWatcher] = set()
        self._notes_shown = 0
        self._closed = False

    def adopt(self, window: QWidget) -> None:
        """Belong to ``window``: its dialogs are the prompts' parent."""
        self.setParent(window)
        self.prompt.parent_widget = window

    @property
    def ssh_config(self) -> list[str] | None:
        """The SSH config files in use: ``--ssh-config`` (or ``$BRICKYARD_SSH_CONFIG``), else
        the Connection settings' file, else None (``~/.ssh/config``, as ssh reads it)."""
        return self.connection.ssh_options(self._override)["config_files"]

    @property
    def ssh_config_override(self) -> list[str] | None:
        """The config the window was started with (``--ssh-config``), which wins over the settings."""
        return self._override

    def options(self, connection: ConnectionSettings | None = None) -> SshOptions:
        from ...remote.ssh import SshOptions

        return SshOptions(**(connection or self.connection).ssh_options(self._override),
                          passphrase=self.prompt.passphrase, password_prompt=self.prompt.password,
                          auth_hint=WINDOW_AUTH_HINT)

    def set_connection(self, connection: ConnectionSettings) -> None:
        """Reach hosts as ``connection`` says from now on: the pool is rebuilt for the next
        use, or once the work running now has finished (it keeps its connections)."""
        if self.busy:
            self._pending = connection
            return
        self._pending = None
        self.connection = connection
        if self._services is not None:
            services, self._services = self._services, None
            self._notes_shown = 0
            services.close()

    def trial_services(self, connection: ConnectionSettings) -> RemoteServices:
        """Services with ``connection`` instead of the one in use, on the same loop (the
        Connection settings' Test, before anything is saved); ``close_trial`` ends them."""
        from ...remote.services import RemoteServices

        self.close_trial()
        self._trial = RemoteServices(self.options(connection), loop=self.services.loop)
        return self._trial

    def close_trial(self) -> None:
        if self._trial is not None:
            trial, self._trial = self._trial, None
            trial.close()

    @property
    def services(self) -> RemoteServices:
        if self._services is None:
            if self._make is None:
                from ...remote.services import RemoteServices

                self._make = RemoteServices
            self._services = self._make(self.options())
        return self._services

    def watch(self, future: Future, label: str = "") -> FutureWatcher:
        """A watcher kept alive by the bridge until its future has been delivered; ``label``
        says what runs ("teardown of gv0") when the user wants to quit meanwhile."""
        watcher = FutureWatcher(future, self, label)
        self._watchers.add(watcher)
        # a bound slot, not a lambda: the watcher's connection must not keep this bridge alive
        watcher.sig_finished.connect(self._watcher_finished)
        return watcher

    @Slot()
    def _watcher_finished(self) -> None:
        watcher = self.sender()
        if isinstance(watcher, FutureWatcher):
            self._forget(watcher)

    def _forget(self, watcher: FutureWatcher) -> None:
        self._watchers.discard(watcher)
        _delete_later(watcher)   # no longer this bridge's child: its deletion cannot delete the bridge
        self._pass_on_notes()
        if self._pending is not None and not self.busy:
            self.set_connection(self._pending)

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
        self.close_trial()
        if self._services is not None:
            services, self._services = self._services, None
            services.close()

"""The run engine's sink on the GUI side: what the engine reports on the loop thread arrives
here as GUI-thread signals (through ``bridge.GuiCall``), so the Run view never touches a result
from another thread, and the loop thread never touches this object.

Live throughput events come many times a second while workers run; they are only stored here
(``latest``) and read by the view's timer, so a fast stream cannot flood the GUI's event queue.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal

from ...core.results import RunResult, StepResult
from ..frame.bridge import GuiCall


class QtRunSink(QObject):
    """A ``bench.engine.ResultSink`` whose events become GUI-thread signals."""

    sig_run_started = Signal(str)
    """str: the run id (the run is in the store from now on, when it is saved)."""
    sig_step = Signal(object)
    """StepResult: one measured step (frozen: safe to keep)."""
    sig_run_finished = Signal(object)
    """RunResult: the run in its end state (the engine no longer changes it)."""
    sig_waiting = Signal(str)
    """str: why the run waits ("client1 is busy: campaign … (pid 4121), since 14:02:11")."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        # the engine calls on the loop thread; each call is handed to the GUI thread and dropped
        # there if this sink was deleted meanwhile (its view closed while the run went on)
        self._started = GuiCall(self, "sig_run_started")
        self._step = GuiCall(self, "sig_step")
        self._finished = GuiCall(self, "sig_run_finished")
        self._waiting = GuiCall(self, "sig_waiting")
        self._lock = threading.Lock()
        self._latest: Any = None

    # ---- called by the engine on the loop thread ------------------------------------
    def run_started(self, run: RunResult) -> None:
        self._started(run.run_id)

    def step_finished(self, run: RunResult, step: StepResult) -> None:
        self._step(step)

    def run_finished(self, run: RunResult) -> None:
        self._finished(run)

    def waiting(self, busy: Exception) -> None:
        """``run_request``'s ``on_wait``: another benchmark holds a host this run needs."""
        self._waiting(str(busy))

    def progress(self, run: RunResult, event: Any) -> None:
        with self._lock:
            self._latest = event

    # ---- read by the GUI ------------------------------------------------------------
    def latest(self) -> Any:
        """The newest ``ProgressEvent`` (or None), taken: the next call gives None until another arrives."""
        with self._lock:
            event, self._latest = self._latest, None
        return event

"""The Run tab's batch: ``bench.request.BenchRequest``s run one after another on the SSH loop
thread, without widgets. ``RunView`` builds the batch from its form, hands it to ``BatchRunner.start``
and shows what the signals say.

Each request goes to ``bench.request.run_request`` with a ``relay.QtRunSink`` (steps, waiting,
live events) and, when saved, a ``store.sink.HistorySink`` (written on the loop thread as it is
measured). A run that ends starts the next; one that fails ends the batch; an unknown host key
becomes a question (``sig_host_key``) that the view answers with ``retry`` or ``give_up``.
Cancel stops the running one (its agents kill their workers and remove the run's files) and
drops the rest; a run that ignores Cancel for ``HARD_CANCEL_MS`` is abandoned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal

from ...bench.hostlock import HostLocks
from ...bench.request import BenchRequest, FanOutSink, executor_lookup, run_request
from ...core.results import RunResult
from ...remote.hostkeys import HostKeyError
from ..frame.bridge import FutureWatcher, QtProgress, RemoteBridge
from .relay import QtRunSink

HARD_CANCEL_MS = 20_000   # a run that ignores Cancel this long is abandoned (its task cancelled)


@dataclass(frozen=True)
class Now:
    """Where the running request is, for a progress display (``BatchRunner.now``)."""

    request: BenchRequest
    run_no: int                # 1-based place of this request in the batch
    runs: int                  # requests in the batch
    elapsed: float             # seconds since it was submitted
    event: Any                 # the newest ProgressEvent seen during this run (None: none yet)
    fresh: Any                 # the event that arrived since the last call (None: none)
    fraction: float            # the engine's progress fraction when there is no event
    text: str                  # the engine's last progress line
    waiting_for: str           # why it waits its turn for a host ("": it does not)


class BatchRunner(QObject):
    """Runs a batch of requests one after another through the bridge's services.

    ``workload`` gives the loaded Workload of a request's workload name; ``store`` the history
    store (called when a saved run starts; None: nothing is saved)."""

    sig_run_started = Signal(object)
    """BenchRequest: submitted to the loop thread (``running`` is True from now on)."""
    sig_step = Signal(object, object)
    """(BenchRequest, StepResult): one measured step of the running request."""
    sig_log = Signal(str)
    """str: a line for the run's log (progress text, waiting, the run's id)."""
    sig_run_done = Signal(object, object, str)
    """(BenchRequest, RunResult, str): a run ended in a state; the str is a message saying it was
    NOT saved to history when it should have been, and why ("": saved, or not asked)."""
    sig_run_failed = Signal(object, object)
    """(BenchRequest, BaseException): the request did not run; the batch ends."""
    sig_host_key = Signal(object, object)
    """(BenchRequest, HostKeyError): answer with ``retry(request)`` or ``give_up()``."""
    sig_problem = Signal(str)
    """str: the next request could not be started (history database, loop gone); the batch ends."""
    sig_batch_done = Signal(list)
    """list[RunResult]: every run of the batch, in order (cancelled ones too)."""

    def __init__(self, bridge: RemoteBridge, workload: Callable[[str], Any],
                 store: Callable[[], Any] | None = None, locks: HostLocks | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.bridge = bridge
        self._workload = workload
        self._store = store
        self.locks = locks or HostLocks()
        self.batch: list[BenchRequest] = []
        self.queue: list[BenchRequest] = []
        self.results: list[RunResult] = []
        self.request: BenchRequest | None = None
        self.watcher: FutureWatcher | None = None
        self.cancelled = False
        self._topo = None
        self._save = False
        self._relay: QtRunSink | None = None
        self._history: Any = None        # the HistorySink of the run going on (None: not saved)
        self._progress: QtProgress | None = None
        self._started = 0.0
        self._event = None
        self._last_text = ""
        self._fraction = 0.0
        self._waiting_for = ""

    @property
    def running(self) -> bool:
        return self.watcher is not None and not self.watcher.finished

    def start(self, batch: list[BenchRequest], topo, save: bool) -> bool:
        """Run ``batch`` on ``topo`` (a snapshot), each run saved to history when ``save``.
        False: nothing was started (``sig_problem`` and ``sig_batch_done`` said so)."""
        if self.running:
            return False
        self._topo, self._save = topo, save
        self.batch, self.queue, self.results = list(batch), list(batch), []
        self.cancelled = False
        return self._next()

    def _next(self) -> bool:
        if not self.queue or self.cancelled:
            self._batch_done()
            return False
        request = self.queue.pop(0)
        services = self.bridge.services
        sinks: list[Any] = []
        self._history = None
        if self._save:
            try:
                store = self._store() if self._store is not None else None
            except Exception as exc:  # noqa: BLE001 - the database named in the settings cannot be opened
                self.sig_problem.emit(f"Cannot open the history database: {exc}. Untick 'Save to history' to run "
                                      "without it.")
                self._batch_done()
                return False
            if store is not None:
                from ...store.sink import HistorySink

                self._history = HistorySink(store, self._topo)
                sinks.append(self._history)
        relay = QtRunSink(self)
        sinks.append(relay)
        progress = QtProgress(self)
        relay.sig_step.connect(lambda step, r=relay: r is self._relay and self.sig_step.emit(self.request, step))
        relay.sig_waiting.connect(lambda why, r=relay: r is self._relay and self._waiting(why))
        relay.sig_run_started.connect(lambda run_id, r=relay: r is self._relay and self.sig_log.emit(
            f"run {run_id[:12]} started" + (" (saved to history as it is measured)" if len(sinks) > 1 else "")))
        progress.sig_progress.connect(lambda f, text, p=progress: p is self._progress and self._progressed(f, text))
        progress.sig_log.connect(lambda line, p=progress: p is self._progress and self.sig_log.emit(line))
        lookup = executor_lookup(services.hosts(self._topo), self._topo, services.pool.executor)
        try:
            future = services.loop.submit(run_request(request, self._workload(request.workload), lookup,
                                                      progress=progress.progress, sink=FanOutSink(sinks),
                                                      locks=self.locks, on_wait=relay.waiting,
                                                      link_typed_as="the Link field"))
        except RuntimeError as exc:   # the loop thread is gone (window closing)
            self.sig_problem.emit(f"Cannot start: {exc}")
            self._batch_done()
            return False
        self.request, self._relay, self._progress = request, relay, progress
        self._started, self._event, self._last_text, self._fraction = time.monotonic(), None, "", 0.0
        self._waiting_for = ""
        self.watcher = self.bridge.watch(future, f"the benchmark {request.describe()}")
        self.watcher.sig_done.connect(self._run_done)
        self.watcher.sig_failed.connect(self._run_failed)
        self.watcher.sig_cancelled.connect(self._run_abandoned)   # bound: never called once this runner is gone
        self.sig_run_started.emit(request)
        return True

    # ---- while it runs --------------------------------------------------------------------
    def _waiting(self, why: str) -> None:
        self._waiting_for = why
        self.sig_log.emit(f"waiting: {why}")

    def _progressed(self, fraction: float, text: str) -> None:
        self._fraction = fraction
        self._waiting_for = ""
        if text and text != self._last_text and "live" not in text:
            self._last_text = text
            self.sig_log.emit(text)

    def now(self) -> Now | None:
        """Where the running request is (None: none runs). Takes the relay's newest live event."""
        if not self.running or self._relay is None or self.request is None:
            return None
        fresh = self._relay.latest()
        if fresh is not None:
            self._event = fresh
        return Now(self.request, len(self.batch) - len(self.queue), len(self.batch), time.monotonic() - self._started,
                   self._event, fresh, self._fraction, self._last_text, self._waiting_for)

    def cancel(self) -> bool:
        """Stop the running run (its workers are killed, its files removed) and drop the rest.
        False: nothing to cancel."""
        if not self.running or self._progress is None:
            return False
        self.cancelled = True
        self.queue.clear()
        self._progress.cancel()
        watcher = self.watcher
        QTimer.singleShot(HARD_CANCEL_MS, self,   # with this runner as context: never fires once it is gone
                          lambda: watcher is self.watcher and self.running and watcher.cancel())
        return True

    # ---- the end --------------------------------------------------------------------------
    def _run_done(self, run: RunResult) -> None:
        request = self.request
        self._relay = self._progress = None
        self.results.append(run)
        history, unsaved = self._history, ""
        if history is not None and history.outcome.get(run.run_id) != run.status.value:
            stored = history.outcome.get(run.run_id, "not stored")
            unsaved = (f"Run {run.run_id[:12]} was NOT saved to the history ({stored}): {history.problem}. "
                       "Its results are in this window's log and charts.")
        self.sig_run_done.emit(request, run, unsaved)
        self._next()

    def _run_abandoned(self) -> None:
        self._run_failed(RuntimeError("abandoned: it did not stop after Cancel"))

    def _run_failed(self, exc: BaseException) -> None:
        request = self.request
        self._relay = self._progress = None
        if isinstance(exc, HostKeyError):
            self.sig_host_key.emit(request, exc)
            return
        self.sig_run_failed.emit(request, exc)
        self.queue.clear()
        self._batch_done()

    def retry(self, request: BenchRequest) -> bool:
        """Run ``request`` again first (its host key is trusted now), then the rest."""
        self.queue.insert(0, request)
        return self._next()

    def give_up(self) -> None:
        """End the batch here (the host key question was refused)."""
        self._batch_done()

    def _batch_done(self) -> None:
        self.request = None
        self.sig_batch_done.emit(list(self.results))

"""The Change tab's conversations with the cluster, on the app's one SSH loop thread.

``ChangeControl`` asks the loop thread (``RemoteBridge.services.loop``) and hears back on the
GUI thread through signals, as the Provision and Campaign tabs do; it never blocks the window:

- ``read_live(topo, volume)``: ``remote.changeread.read_live_state`` on the volume's pool
  origin -> ``sig_live(LiveState)``;
- ``check(topo, volume, …)``: read the live volume again, plan on it, and run the change
  pre-flight (``remote.changeflight``) -> ``sig_checked(live, plan, report)``: what Apply
  runs is planned on the cluster as it is at that moment, not as it was when first read;
- ``start(…)``, or ``prepare_resume(change_id)`` / ``prepare_rollback(change_id, live)`` then
  ``run_prepared(runner)``: a ``remote.change.ChangeRunner`` stored in the history first, then
  run -> ``sig_event`` for every step, progress and log line, ``sig_done(report, record)`` at
  the end;
- ``cancel()``: the runner stops the running step and any rebalance or remove-brick it
  started, so the volume stays consistent (``remote.change`` says how).

Any failure to reach a host arrives as ``sig_failed(exception)``: the view shows an unknown
host key for trust and asks again, and says anything else in words.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from ...core.topology import Topology
from ..cluster.runtable import snapshot
from ..frame.bridge import FutureWatcher, GuiCall, RemoteBridge


class _Events(QObject):
    """Runner events from the loop thread as GUI-thread signals, in the order they happened;
    the frequent progress events of a step are coalesced: only its newest waits for the GUI
    thread (a slow window skips figures, never a step)."""

    sig_event = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._post = GuiCall(self, "_deliver")
        self._lock = threading.Lock()
        self._latest: dict[str, Any] = {}

    def __call__(self, event: Any) -> None:        # on the loop thread
        if event.kind == "progress":
            with self._lock:
                fresh = event.step not in self._latest
                self._latest[event.step] = event
            if fresh:
                self._post(("progress", event.step))
            return
        self._post(event)

    def _deliver(self, event: Any) -> None:
        if isinstance(event, tuple):
            with self._lock:
                event = self._latest.pop(event[1], None)
            if event is not None:
                self.sig_event.emit(event)
            return
        with self._lock:                             # a step's last figures go before its end
            pending = self._latest.pop(event.step, None) if event.step else None
        if pending is not None:
            self.sig_event.emit(pending)
        self.sig_event.emit(event)


class ChangeControl(QObject):
    sig_live = Signal(object, str)
    """LiveState, the volume's name: the volume as gluster reports it now."""
    sig_checked = Signal(object, object, object)
    """LiveState, ChangePlan, PreflightReport: read again, planned again, checked."""
    sig_event = Signal(object)
    """remote.change.ChangeEvent: a step started or ended, progress, a log line, the end."""
    sig_done = Signal(object, object)
    """RunReport, ChangeRecord | None: the run ended (complete, cancelled, failed)."""
    sig_failed = Signal(str, object)
    """What was being done ('read', 'check', 'run'), the exception."""

    def __init__(self, bridge: RemoteBridge, store: Callable[[], Any], parent: QObject | None = None):
        super().__init__(parent)
        self.bridge = bridge
        self._store = store
        self.runner: Any = None
        self.watcher: FutureWatcher | None = None
        self.topo: Topology | None = None
        self._events: _Events | None = None

    @property
    def busy(self) -> bool:
        return self.watcher is not None and not self.watcher.finished

    @property
    def running(self) -> bool:
        """A change (not just a read) is under way."""
        return self.busy and self.runner is not None

    def store(self) -> Any:
        return self._store()

    # ---- reading ------------------------------------------------------------------------------
    def _hosts(self, topo: Topology):
        return self.bridge.services.hosts(topo)

    def read_live(self, topo: Topology, volume: str) -> bool:
        from ...remote.changeread import read_live_state

        topo = snapshot(topo)
        origin = topo.pool_origin(topo.require_volume(volume))
        return self._submit("read", lambda: read_live_state(self._hosts(topo)(origin), volume),
                            lambda live: self.sig_live.emit(live, volume), f"reading {volume} from {origin}")

    def check(self, topo: Topology, volume: str, fix_layout: bool, own_tasks: set[str] = frozenset(),
              resume: Any = None) -> bool:
        """Read again, plan again (or the stored plan of ``resume``, a ChangeRunner), pre-flight."""
        from ...core.change import plan_change
        from ...remote.changeflight import change_preflight
        from ...remote.changeread import read_live_state

        topo = snapshot(topo)
        rates = self.rates()
        origin = topo.pool_origin(topo.require_volume(volume))

        async def check():
            hosts = self._hosts(topo)
            live = await read_live_state(hosts(origin), volume)
            plan = resume.plan if resume is not None else plan_change(topo, volume, live, fix_layout=fix_layout,
                                                                      rates=rates)
            report = None
            if plan.ok and plan.steps:
                report = await change_preflight(plan, live, resume.topo if resume is not None else topo, hosts,
                                                own_tasks=own_tasks)
            return live, plan, report

        self.topo = topo
        return self._submit("check", check, lambda result: self.sig_checked.emit(*result),
                            f"checking the change of {volume}")

    def rates(self):
        from ...remote.change import measured_rates

        try:
            return measured_rates(self.store())
        except Exception:  # noqa: BLE001 - no history yet: the uncalibrated default
            return None

    # ---- running --------------------------------------------------------------------------------
    def start(self, live: Any, volume: str, fix_layout: bool, source: str, rates: Any = None) -> Any:
        """Store and run the change planned on ``live`` (after ``check``; uses its topology).
        Raises ``remote.change.ChangeError`` when it is refused or has nothing to do."""
        from ...remote.change import ChangeRunner

        topo = self.topo
        events = self._new_events()
        runner = ChangeRunner.start(topo, volume, live, self.store(), self._hosts(topo), fix_layout=fix_layout,
                                    source=source, rates=rates, on_event=events)
        return self._run(runner, volume)

    def prepare_resume(self, change_id: str) -> Any:
        """The stored change as a runner (planned again from what it stored), not started yet."""
        from ...core import topofile
        from ...remote.change import ChangeRunner

        store = self.store()
        record = store.changes.get(change_id)
        topo = topofile.from_dict(record.topology, "<stored change topology>")
        events = self._new_events()
        runner = ChangeRunner.resume(record, store, self._hosts(topo), on_event=events)
        self.topo = runner.topo
        return runner

    def run_prepared(self, runner: Any) -> Any:
        return self._run(runner, runner.volume)

    def prepare_rollback(self, change_id: str, live: Any) -> Any:
        """A change of its own from ``live`` (the volume as it is now) back to the volume before
        ``change_id``, stored, not started yet (``remote.change.ChangeRunner.rollback``)."""
        from ...core import topofile
        from ...remote.change import ChangeRunner

        store = self.store()
        record = store.changes.get(change_id)
        topo = topofile.from_dict(record.topology, "<stored change topology>")
        events = self._new_events()
        runner = ChangeRunner.rollback(record, live, store, self._hosts(topo), on_event=events)
        self.topo = runner.topo
        return runner

    def _new_events(self) -> _Events:
        events = _Events(self)
        events.sig_event.connect(lambda ev, e=events: e is self._events and self.sig_event.emit(ev))
        self._events = events
        return events

    def _run(self, runner: Any, volume: str) -> Any:
        future = self.bridge.services.loop.submit(runner.run())
        self.runner = runner
        watcher = self.bridge.watch(future, f"the change of {volume} (Cancel leaves it consistent; Resume in the "
                                            "Change tab goes on)")
        self.watcher = watcher
        watcher.sig_done.connect(lambda report, w=watcher: w is self.watcher and self._done(report))
        watcher.sig_failed.connect(lambda exc, w=watcher: w is self.watcher and self._gone("run", exc))
        watcher.sig_cancelled.connect(lambda w=watcher: w is self.watcher and self._gone(
            "run", RuntimeError("the change was abandoned; it is kept in the history: Resume goes on")))
        return runner

    def _done(self, report: Any) -> None:
        runner, self.runner = self.runner, None
        record = None
        try:
            record = self.store().changes.get(runner.change_id)
        except Exception:  # noqa: BLE001 - no store (tests): the report says enough
            pass
        self.sig_done.emit(report, record)

    def _gone(self, what: str, exc: BaseException) -> None:
        self.runner = None
        self.sig_failed.emit(what, exc)

    def cancel(self) -> bool:
        if self.runner is None or not self.busy:
            return False
        self.runner.cancel()
        return True

    # ---- plumbing -----------------------------------------------------------------------------------
    def _submit(self, what: str, make, then, label: str) -> bool:
        if self.busy:
            return False
        try:
            future = self.bridge.services.loop.submit(make())
        except Exception as exc:  # noqa: BLE001 - no SSH config file, the loop is gone…
            self.sig_failed.emit(what, exc)
            return False
        self.runner = None
        watcher = self.bridge.watch(future, label)
        self.watcher = watcher
        watcher.sig_done.connect(lambda result, w=watcher: w is self.watcher and then(result))
        watcher.sig_failed.connect(lambda exc, w=watcher: w is self.watcher and self.sig_failed.emit(what, exc))
        watcher.sig_cancelled.connect(lambda w=watcher: w is self.watcher and self.sig_failed.emit(
            what, RuntimeError(f"{label} was stopped")))
        return True

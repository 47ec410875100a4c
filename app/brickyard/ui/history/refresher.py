"""The history view follows the store while it is open: a thread watches the database
(``store.watch``: SQLite ``data_version``, PostgreSQL LISTEN/NOTIFY plus a light poll), and
when it changed reads what the view shows — the first page of the list for the current
filters, the counts, the filter choices, and the compared runs that changed — and leaves it
for the GUI thread, which picks it up on a timer. The GUI thread never waits on the database
for an automatic refresh, and the thread never touches a Qt object (a view deleted while its
thread is between two reads cannot be reached from there).

Runs whose writer died while the view is open are marked interrupted here too (every
``interrupted_check_s``), so a run does not stay "running" until the next start-up.
"""

from __future__ import annotations

import inspect
import threading
import time
import weakref
from dataclasses import dataclass, replace
from typing import Callable

from brickyard.core.results import RunResult
from brickyard.store import FilterChoices, HistoryStore, RunFilter, RunSummary


@dataclass(frozen=True)
class Snapshot:
    """What the view shows, read off the GUI thread for ``filters``."""

    filters: RunFilter
    matching: int
    total: int
    first_page: list[RunSummary]
    choices: FilterChoices
    compared: list[RunResult] | None     # the compared runs again, when one of them changed


class HistoryRefresher:
    """Watches ``store`` on a thread of its own while started; ``take()`` (GUI thread) hands
    over the newest ``Snapshot`` and ``take_error()`` a problem to show, each once."""

    def __init__(self, store: HistoryStore, current: Callable[[], tuple[RunFilter, dict[str, tuple]]],
                 page: int, interval: float = 1.0, interrupted_check_s: float = 30.0) -> None:
        """``current()`` returns (the view's filters, {compared run id: (status, steps)});
        it is called from the watching thread and must only read plain attributes. A view's
        method is held weakly: the thread never keeps the view alive, so its last reference is
        never dropped (and the widget deleted) on the watching thread."""
        self.store = store
        self._current: Callable[[], Callable | None] = (
            weakref.WeakMethod(current) if inspect.ismethod(current) else lambda: current)
        self._page = page
        self.interval = interval
        self.interrupted_check_s = interrupted_check_s
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._error = ""
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self.refreshes = 0

    def start(self) -> None:
        if self.running:
            return
        self._stop = threading.Event()          # each thread its own: an old one may still be ending
        self._thread = threading.Thread(target=self._loop, args=(self._stop,), name="brickyard-history-watch",
                                        daemon=True)
        self._thread.start()

    def stop(self, wait: float = 0.0) -> None:
        """Ask the thread to end (it does within ``interval``); wait up to ``wait`` seconds."""
        if self._stop is not None:
            self._stop.set()
        if wait and self._thread is not None:
            self._thread.join(timeout=wait)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not (self._stop and self._stop.is_set())

    def take(self) -> Snapshot | None:
        with self._lock:
            snap, self._snapshot = self._snapshot, None
        return snap

    def take_error(self) -> str:
        with self._lock:
            error, self._error = self._error, ""
        return error

    def _loop(self, stop: threading.Event) -> None:
        try:
            watcher = self.store.watcher(poll_interval=max(self.interval, 2.0))
        except Exception as exc:  # noqa: BLE001 - a view without live updates still works
            with self._lock:
                self._error = f"history is not followed live: {exc}"
            return
        last_check = time.monotonic()
        try:
            while not stop.is_set():
                changed = watcher.wait(self.interval)
                if stop.is_set():
                    break
                if time.monotonic() - last_check >= self.interrupted_check_s:
                    last_check = time.monotonic()
                    if self.store.mark_interrupted_runs():
                        changed = True
                if changed:
                    snap = self.snapshot()
                    if snap is None:
                        break                   # the view is gone
                    with self._lock:
                        self._snapshot = snap
        except Exception as exc:  # noqa: BLE001
            with self._lock:
                self._error = f"history is no longer followed live: {type(exc).__name__}: {exc}"
        finally:
            watcher.close()

    def snapshot(self) -> Snapshot | None:
        """Read what the view shows (any thread); None once the view is gone."""
        current = self._current()
        if current is None:
            return None
        filters, compared_state = current()
        matching = self.store.run_count(filters)
        total = self.store.run_count()
        first = self.store.list_runs(replace(filters, offset=0, limit=self._page))
        choices = self.store.filter_choices()
        compared = None
        if compared_state:
            now = {r.run_id: (r.status.value, r.step_count)
                   for r in self.store.list_runs(RunFilter(run_ids=tuple(compared_state)))}
            if any(now.get(i) != state for i, state in compared_state.items()):
                present = [i for i in compared_state if i in now]
                compared = self.store.load_runs(present)
        self.refreshes += 1
        return Snapshot(filters, matching, total, first, choices, compared)

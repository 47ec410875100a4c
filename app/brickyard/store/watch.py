"""Noticing that the history changed — another process saved a run, a run finished, an
import landed — cheaply enough to ask every second, without Qt.

- SQLite: ``PRAGMA data_version`` on a connection of our own: it changes exactly when
  another connection (another process, or this process's store) commits; reading it costs
  microseconds and no table is touched.
- PostgreSQL: every write transaction of ``HistoryStore`` sends ``NOTIFY brickyard_history``
  (delivered at commit); the watcher ``LISTEN``s on a connection of its own and wakes at
  once. Writers that do not notify (an older Brickyard, a hand-made import) are still seen
  by a light poll of the runs table every ``poll_interval`` seconds.
- Anything else: that poll alone.

``HistoryWatcher.wait(timeout)`` blocks (call it off the GUI thread) until something
changed or the timeout passed, and says which.
"""

from __future__ import annotations

import select
import sqlite3
import threading
import time
from typing import Any

from sqlalchemy import case, func, select as sa_select

from .models import Run

NOTIFY_CHANNEL = "brickyard_history"


class HistoryWatcher:
    """Change detection on one history database; one per watching thread."""

    def __init__(self, store: Any, poll_interval: float = 5.0) -> None:
        self.store = store
        self.poll_interval = poll_interval
        self.backend = store.engine.url.get_backend_name()
        self._lock = threading.Lock()
        self._sqlite: sqlite3.Connection | None = None
        self._pg: Any = None
        self._last_poll = 0.0
        self._token: tuple | None = None
        self._closed = False
        self._psycopg2 = False
        self._pending = False
        self._start()

    # -- set-up ------------------------------------------------------------------------

    def _start(self) -> None:
        if self.backend == "sqlite" and self.store.engine.url.database not in (None, "", ":memory:"):
            path = self.store.engine.url.database
            # our own connection, read-only: it sees every commit made by any other one
            self._sqlite = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False,
                                           isolation_level=None, timeout=5)
            self._token = self._sqlite_token()
        elif self.backend == "postgresql":
            try:
                self._pg = self._listen()
            except Exception:  # noqa: BLE001 - LISTEN is an optimisation; the poll still works
                self._pg = None
            self._token = self._poll_token()
        else:
            self._token = self._poll_token()

    def _listen(self) -> Any:
        """A connection of our own (psycopg 3 or psycopg2) listening on the channel."""
        engine = self.store.engine
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        conn = engine.dialect.connect(*cargs, **cparams)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute(f"LISTEN {NOTIFY_CHANNEL}")
        cur.close()
        self._psycopg2 = hasattr(conn, "poll")
        return conn

    # -- tokens ------------------------------------------------------------------------

    def _sqlite_token(self) -> tuple:
        assert self._sqlite is not None
        return ("data_version", self._sqlite.execute("PRAGMA data_version").fetchone()[0])

    def _poll_token(self) -> tuple:
        """What the list shows, summed up: any saved run, step, status change, import or
        deletion moves it. One aggregate over the runs table (10,000 runs: a few ms)."""
        self._last_poll = time.monotonic()
        running = func.sum(case((Run.status == "running", 1), else_=0))
        q = sa_select(func.count(), func.max(Run.id), func.sum(Run.step_count), running, func.max(Run.ended_at))
        with self.store.engine.connect() as conn:
            return tuple(conn.execute(q).one())

    def token(self) -> tuple:
        """The current change token (equal tokens: nothing the history shows changed)."""
        if self._sqlite is not None:
            return self._sqlite_token()
        return self._poll_token()

    # -- waiting -----------------------------------------------------------------------

    def wait(self, timeout: float = 1.0) -> bool:
        """Block up to ``timeout`` seconds; True as soon as the history changed since the
        last call that returned True (or since the watcher started)."""
        deadline = time.monotonic() + timeout
        while not self._closed:
            with self._lock:
                if self._closed:
                    return False
                if self._pg is not None:
                    if self._drain_notifications():
                        self._token = self._poll_token()
                        return True
                    if time.monotonic() - self._last_poll >= self.poll_interval:
                        new = self._poll_token()
                        if new != self._token:
                            self._token = new
                            return True
                else:
                    new = self.token()
                    if new != self._token:
                        self._token = new
                        return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self._pg is not None:
                self._block_for_notification(min(left, self.poll_interval))
            else:
                time.sleep(min(left, 0.25 if self._sqlite is not None else self.poll_interval))
        return False

    def _block_for_notification(self, seconds: float) -> None:
        """Sleep until a notification may have arrived (or ``seconds`` passed)."""
        conn = self._pg
        try:
            if self._psycopg2:
                select.select([conn], [], [], seconds)
            else:                        # psycopg 3 keeps what arrives; note it for the next drain
                for _ in conn.notifies(timeout=seconds, stop_after=1):
                    self._pending = True
        except Exception:  # noqa: BLE001 - closed under us or broken: the poll carries on
            time.sleep(min(seconds, 0.25))

    def _drain_notifications(self) -> bool:
        try:
            if self._psycopg2:
                self._pg.poll()
                got = bool(self._pg.notifies)
                self._pg.notifies.clear()
                return got
            got, self._pending = self._pending, False
            for _ in self._pg.notifies(timeout=0):
                got = True
            return got
        except Exception:  # noqa: BLE001 - the LISTEN connection broke: fall back to polling
            self._pg = None
            return False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for conn in (self._sqlite, self._pg):
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:  # noqa: BLE001
                        pass
            self._sqlite = self._pg = None

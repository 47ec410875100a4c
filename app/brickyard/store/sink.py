"""``HistorySink``: the run engine's result sink (``bench.engine.ResultSink``) writing into a
``HistoryStore``. The store and the engine do not import each other; the app (or the CLI)
hands the engine this sink.

The engine calls it on its own thread: ``run_started`` (provenance still sparse),
``step_finished`` for every measured step (each committed before it returns), and
``run_finished`` with the final status. Provenance learnt after the start (hosts,
versions, the volume) is written as soon as it differs from what is stored. The engine's
live ``progress`` events renew the run's heartbeat (at most every ``HEARTBEAT_EVERY_S``), so
a long step does not look like a dead app to another instance on the same database.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from brickyard.core.results import Provenance, RunResult, StepResult
from brickyard.core.topology import Topology

from .history import HistoryStore


HEARTBEAT_EVERY_S = 30.0


class HistorySink:
    def __init__(self, store: HistoryStore, topology: Topology | dict | str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.topology = topology
        self._stored: dict[str, Provenance] = {}
        self._clock = clock
        self._beat: dict[str, float] = {}

    def progress(self, run: RunResult, event: Any) -> None:
        """A live progress event from the engine: proof of life, written now and then."""
        now = self._clock()
        if now - self._beat.get(run.run_id, -HEARTBEAT_EVERY_S) >= HEARTBEAT_EVERY_S:
            self.store.heartbeat(run.run_id)
            self._beat[run.run_id] = now

    def _sync_provenance(self, run: RunResult) -> None:
        if self._stored.get(run.run_id) != run.provenance:
            self.store.update_provenance(run.run_id, run.provenance)
            self._stored[run.run_id] = run.provenance

    def run_started(self, run: RunResult) -> None:
        self.store.begin_run(run, self.topology)
        self._stored[run.run_id] = run.provenance

    def step_finished(self, run: RunResult, step: StepResult) -> None:
        self._sync_provenance(run)
        self.store.add_step(run.run_id, step)

    def run_finished(self, run: RunResult) -> None:
        self._sync_provenance(run)
        self.store.finish_run(run.run_id, run.status, error=run.error, failed_host=run.failed_host,
                              ended_at=run.ended_at)
        self._stored.pop(run.run_id, None)
        self._beat.pop(run.run_id, None)

"""``HistorySink``: the run engine's result sink (``bench.engine.ResultSink``) writing into a
``HistoryStore``. The store and the engine do not import each other; the app (or the CLI)
hands the engine this sink.

The engine calls it on its own thread: ``run_started`` (provenance still sparse),
``step_finished`` for every measured step (each committed before it returns), and
``run_finished`` with the final status. Provenance learnt after the start (hosts,
versions, the volume) is written as soon as it differs from what is stored. The engine's
live ``progress`` events renew the run's heartbeat (at most every ``HEARTBEAT_EVERY_S``), so
a long step does not look like a dead app to another instance on the same database.

A database that fails mid-run (a full disk, a lost server) never stops the measurement: no
method here raises. Steps not yet stored wait in memory and go in with the next step that
can be written (one transaction for the backlog, so the stored run has no gap); ``problem``
says what failed. If the backlog still cannot be written when the run ends, the run is
marked interrupted with the reason, or — when even that fails — left running for the next
start's ``mark_interrupted_runs``.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from brickyard.core.results import Provenance, RunResult, RunStatus, StepResult
from brickyard.core.topology import Topology

from .history import HistoryStore


HEARTBEAT_EVERY_S = 30.0


def _say(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class HistorySink:
    def __init__(self, store: HistoryStore, topology: Topology | dict | str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.topology = topology
        self._stored: dict[str, Provenance] = {}
        self._clock = clock
        self._beat: dict[str, float] = {}
        self._begun: set[str] = set()
        self._pending: dict[str, list[StepResult]] = {}
        #: the first store failure in words ("" while everything reached the database)
        self.problem = ""
        #: run id -> how its run ended up in the database ("complete", "interrupted: …", "not stored")
        self.outcome: dict[str, str] = {}

    def _failed(self, what: str, exc: BaseException) -> None:
        if not self.problem:
            self.problem = f"the history database failed while {what} ({_say(exc)})"

    @property
    def saved_everything(self) -> bool:
        return not self.problem and not any(self._pending.values())

    def progress(self, run: RunResult, event: Any) -> None:
        """A live progress event from the engine: proof of life, written now and then."""
        now = self._clock()
        if run.run_id not in self._begun:
            return
        if now - self._beat.get(run.run_id, -HEARTBEAT_EVERY_S) >= HEARTBEAT_EVERY_S:
            self._beat[run.run_id] = now
            try:
                self.store.heartbeat(run.run_id)
            except Exception as exc:  # noqa: BLE001 - the measurement goes on; said in `problem`
                self._failed("renewing the run's heartbeat", exc)

    def _sync_provenance(self, run: RunResult) -> None:
        if self._stored.get(run.run_id) != run.provenance:
            self.store.update_provenance(run.run_id, run.provenance)
            self._stored[run.run_id] = run.provenance

    def _begin(self, run: RunResult) -> None:
        """Store the run (with the steps measured so far, when an earlier try failed)."""
        self.store.begin_run(run, self.topology)
        self._begun.add(run.run_id)
        self._stored[run.run_id] = run.provenance
        self._pending[run.run_id] = []

    def orphans_killed(self, run: RunResult, host: str, found: list[dict]) -> None:
        """The agent starting this run on ``host`` killed processes an earlier run's killed
        agent had left running (``agentclient.AgentSession.orphans``): that run says so."""
        for item in found:
            for prefix in item.get("runs") or []:
                note = (f"its benchmark agent on {host} was killed with its watchdog and {item.get('killed', 0)} "
                        f"worker process(es) went on running after the run ended; the agent of run "
                        f"{run.run_id[:12]} killed them")
                try:
                    self.store.note_run(prefix, note)
                except Exception as exc:  # noqa: BLE001
                    self._failed("marking the killed run", exc)

    def run_started(self, run: RunResult) -> None:
        self._pending[run.run_id] = []
        try:
            self._begin(run)
        except Exception as exc:  # noqa: BLE001
            self._failed("storing the new run", exc)

    def _flush(self, run: RunResult) -> None:
        """Write what is waiting: the run itself (with its steps) or the step backlog."""
        if run.run_id not in self._begun:
            self._begin(run)
            return
        self._sync_provenance(run)
        pending = self._pending.get(run.run_id) or []
        if pending:
            self.store.add_steps(run.run_id, pending)
            self._pending[run.run_id] = []

    def step_finished(self, run: RunResult, step: StepResult) -> None:
        self._pending.setdefault(run.run_id, []).append(step)
        try:
            self._flush(run)
        except Exception as exc:  # noqa: BLE001
            self._failed(f"storing step #{step.index}", exc)

    def run_finished(self, run: RunResult) -> None:
        rid = run.run_id
        try:
            self._flush(run)
            self.store.finish_run(rid, run.status, error=run.error, failed_host=run.failed_host,
                                  ended_at=run.ended_at)
            self.outcome[rid] = run.status.value
        except Exception as exc:  # noqa: BLE001
            self._failed("storing the end of the run", exc)
            self.outcome[rid] = self._give_up(run)
        self._stored.pop(rid, None)
        self._beat.pop(rid, None)

    def _give_up(self, run: RunResult) -> str:
        """The run's steps cannot all be stored: mark it interrupted with the reason."""
        if run.run_id not in self._begun:
            return "not stored"
        missing = len(self._pending.get(run.run_id) or [])
        why = (f"{self.problem}; {len(run.steps) - missing} of {len(run.steps)} measured steps were stored, "
               f"the rest are only in the run's own output (JSON)")
        try:
            self.store.finish_run(run.run_id, RunStatus.INTERRUPTED, error=why, failed_host=run.failed_host,
                                  ended_at=run.ended_at)
            return f"interrupted: {why}"
        except Exception:  # noqa: BLE001 - the next start marks it (its process is gone by then)
            return "left running: the next start marks it interrupted"

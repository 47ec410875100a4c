"""Running a change to a live volume: the plan's steps with the provisioning step machinery,
its state in the history database, every command's output kept.

Design. ``core.change.plan_change`` decides what to do; this module only runs it. A change is
stored (``store.changes``) before its first command with the drawing, gluster's own XML of
the live state it was planned from, and the plan; its state is saved whenever a step starts
or ends. The steps are ``remote.steps.Step``s (``remote.changesteps``) run by
``remote.steps.run_steps``: reach every host first, a done-check before each step, a
``Progress`` whose cancel kills the running command, a report of what was done and what is
left. Every command a step runs goes through a recording executor into the change's kept
outputs, so it can be shown afterwards that a commit followed a clean status.

    runner = ChangeRunner.start(topo, "gv0", live, store, executor_for, source=path)
    report = await runner.run()        # on the asyncio loop thread
    runner.cancel()                    # any thread: stop now, leaving the volume consistent

- Cancel: the running step is cancelled; a rebalance or remove-brick under way is stopped
  (``rebalance stop``, ``remove-brick stop``: files moved so far stay moved, every brick stays
  in the volume); add-brick adds every new set in one command, so no half set is left.
  The change is then *interrupted*: ``resume`` goes on, ``rollback`` undoes it.
- Resume (after Cancel, a failure, or a killed process): ``ChangeRunner.resume(record, …)``
  plans again from the *stored* live state and drawing, so it gets the very same steps; each
  step's done-check reads the cluster, so what was done is skipped (a rebalance this change
  started is recognised by its task id) and what runs is watched again.
- Rollback: ``ChangeRunner.rollback(record, live_now, …)`` plans from the cluster as it is now
  back to the volume as it was before the change (a shrink of the added sets, a stop of a
  remove-brick) and runs that as a change of its own; the first is marked rolled back when it
  completes.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core import changemodel as cm
from ..core import gluster_progress as gp
from ..core import livestate as ls
from ..core import topofile
from ..core.change import plan_change, planned_again
from ..core.changecost import MoveRates, measured_rate, rates_from_json
from ..core.changemodel import ChangePlan
from ..core.topology import BrickRef, Topology, Volume
from . import changeread as rd
from .executor import CommandResult, Executor, ExecutorError, RemoteProcess
from .loop import Progress
from .steps import DONE, PENDING, RUNNING, RunReport, StepOutcome, run_steps

ExecutorFor = Callable[[str], Executor]
STATE_VERSION = 1
# change statuses
NEW, RUNNING_C, INTERRUPTED, FAILED_C, COMPLETE, CANCELLED, ROLLED_BACK = (
    "new", "running", "interrupted", "failed", "complete", "cancelled", "rolled-back")


class ChangeError(Exception):
    """The change cannot start or go on as asked (owned by a live process, refused, …)."""


@dataclass(frozen=True)
class ChangeEvent:
    """What a view or the CLI hears while a change runs (on the loop thread).

    ``kind``: "step" (a step started or ended: ``status``, ``message``, ``detail`` the
    ``StepOutcome``), "progress" (inside a wait step: ``fraction`` of that step and ``detail``
    a ``MigrationStatus``, a heal summary or heal counts), "log", "finished"."""

    kind: str
    step: str = ""
    status: str = ""
    message: str = ""
    fraction: float = 0.0
    detail: Any = None


@dataclass
class ChangeState:
    """What is saved after every step: each step's status and times, the tasks this change
    started (by gluster's task id), and what the migrations and heals measured."""

    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    task_ids: dict[str, list[str]] = field(default_factory=dict)
    measured: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "steps": self.steps, "task_ids": self.task_ids, "measured": self.measured,
                "sessions": self.sessions, "message": self.message}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "ChangeState":
        return cls(dict(d.get("steps", {})), {k: list(v) for k, v in d.get("task_ids", {}).items()},
                   dict(d.get("measured", {})), list(d.get("sessions", [])), str(d.get("message", "")))


class _Recording(Executor):
    """An executor that keeps every command it runs (but the reachability probe) in the change."""

    def __init__(self, inner: Executor, runner: "ChangeRunner"):
        self.inner, self.runner, self.host = inner, runner, inner.host
        self.alias = getattr(inner, "alias", None)

    async def run(self, argv, **kw) -> CommandResult:
        result = await self.inner.run(argv, **kw)
        if list(argv) != ["true"]:
            self.runner.keep(self.host, list(argv), result)
        return result

    async def start(self, argv, **kw) -> RemoteProcess:
        return await self.inner.start(argv, **kw)

    async def upload(self, *args, **kw) -> None:
        return await self.inner.upload(*args, **kw)

    async def machine_key(self) -> str:
        return await self.inner.machine_key()

    async def close(self) -> None:
        return await self.inner.close()


class ChangeRunner:
    def __init__(self, change_id: str, topo: Topology, live: ls.LiveState, plan: ChangePlan, store: Any,
                 executor_for: ExecutorFor, state: ChangeState, *, options: dict[str, Any] | None = None,
                 on_event: Callable[[ChangeEvent], None] | None = None):
        self.change_id, self.topo, self.live, self.plan = change_id, topo, live, plan
        self.store, self._executor_for, self.state = store, executor_for, state
        self.options = dict(options or {})
        self.on_event = on_event
        self.volume = plan.volume
        self.names = dict(live.uuid_names)
        self.progress_obj = Progress(on_log=lambda line: self._emit(ChangeEvent("log", message=line)))
        self._current = ""
        self._index = {s.key: i for i, s in enumerate(plan.steps)}
        self._recorders: dict[str, _Recording] = {}

    # ---- creating, resuming, rolling back ---------------------------------------------------
    @classmethod
    def start(cls, topo: Topology, volume: str, live: ls.LiveState, store: Any, executor_for: ExecutorFor, *,
              fix_layout: bool = False, replacements: dict[BrickRef, BrickRef] | None = None,
              source: str = "", rates: MoveRates | None = None, rollback_of: str = "",
              baseline_options: dict[str, str] | None = None,
              on_event: Callable[[ChangeEvent], None] | None = None) -> "ChangeRunner":
        """Plan the change and store it before anything runs. ChangeError when the plan is refused
        or has nothing to do."""
        if rates is None and store is not None:
            rates = measured_rates(store)
        if rates is not None:      # as stored (rounded), so a resume plans the very same predictions
            rates = rates_from_json(rates.to_json())
        plan = plan_change(topo, volume, live, fix_layout=fix_layout, replacements=replacements, rates=rates,
                           baseline_options=baseline_options)
        if not plan.ok:
            raise ChangeError("; ".join(r.message for r in plan.refusals))
        if plan.nothing_to_do:
            raise ChangeError(plan.summary()[0])
        options = {"fix_layout": fix_layout, "replacements": {str(k): str(v) for k, v in (replacements or {}).items()},
                   "rates": rates.to_json() if rates else None, "rollback_of": rollback_of,
                   "baseline_options": baseline_options}
        state = ChangeState(steps={s.key: {"status": PENDING, "predicted": s.predicted.to_json() if s.predicted else None}
                                   for s in plan.steps})
        change_id = uuid.uuid4().hex
        if store is not None:
            store.changes.create(change_id, volume, plan.kinds, source, topofile.to_dict(topo),
                                 {"measured": live.measured, "outputs": dict(live.outputs)}, options, plan.to_json(),
                                 state.to_json(), NEW, plan.movement.seconds.expected)
        return cls(change_id, topo, live, plan, store, executor_for, state, options=options, on_event=on_event)

    @classmethod
    def resume(cls, record: Any, store: Any, executor_for: ExecutorFor,
               on_event: Callable[[ChangeEvent], None] | None = None) -> "ChangeRunner":
        """The stored change, planned again from the stored live state and drawing (the same
        steps); refused while another live process on this machine runs it."""
        if store is not None and store.changes.owner_alive(record):
            raise ChangeError(f"change {record.change_id[:12]} is running now in process {record.owner_pid}")
        if record.finished:
            raise ChangeError(f"change {record.change_id[:12]} is {record.status}: nothing to resume")
        again = planned_again(record)
        if not again.plan.ok:
            raise ChangeError("the stored change no longer plans: " + "; ".join(r.message for r in again.plan.refusals))
        return cls(record.change_id, again.topo, again.live, again.plan, store, executor_for,
                   ChangeState.from_json(record.state), options=record.options, on_event=on_event)

    @classmethod
    def rollback(cls, record: Any, live_now: ls.LiveState, store: Any, executor_for: ExecutorFor,
                 on_event: Callable[[ChangeEvent], None] | None = None) -> "ChangeRunner":
        """A change of its own, from the cluster as it is now back to the volume as it was
        before ``record`` (refused, like any change, when gluster cannot go back: a replaced
        brick has left the volume for good)."""
        if store is not None and store.changes.owner_alive(record):
            raise ChangeError(f"change {record.change_id[:12]} is running now in process {record.owner_pid}")
        topo = topofile.from_dict(record.topology, "<stored change topology>")
        before = ls.from_outputs(record.live["outputs"], record.volume, record.live.get("measured", ""))
        drawn = topo.require_volume(record.volume)
        back = Volume(drawn.name, before.info.to_volume().layout, [b.ref for b in before.info.bricks],
                      dict(drawn.options), drawn.transport, drawn.force, list(drawn.mounts))
        topo.volumes = [back if v.name == record.volume else v for v in topo.volumes]
        # the threads a killed change raised go back to the volume's own values, as they were before it
        return cls.start(topo, record.volume, live_now, store, executor_for, source=record.source,
                         rollback_of=record.change_id, baseline_options=dict(before.info.options), on_event=on_event)

    # ---- control ------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop now (any thread): the running step is cancelled and any migration stopped."""
        self.progress_obj.cancel()

    # ---- the Context the steps use ---------------------------------------------------------------
    def executor(self, host: str) -> Executor:
        rec = self._recorders.get(host)
        if rec is None:
            rec = self._recorders[host] = _Recording(self._executor_for(host), self)
        return rec

    __call__ = executor

    def pool_members(self) -> list[str]:
        return list(dict.fromkeys(b.node for b in self.plan.result.bricks))

    def set_of(self, brick: BrickRef) -> tuple[BrickRef, ...]:
        for members in (self.plan.before.sets if self.plan.before else ()):
            if brick in members:
                return members
        return (brick,)

    def log(self, line: str) -> None:
        self.progress_obj.log(f"{self.volume}: {line}")

    def task_started(self, step_key: str, task_id: str) -> None:
        ids = self.state.task_ids.setdefault(step_key, [])
        if task_id and task_id not in ids:
            ids.append(task_id)
            self._save()

    def known_task(self, step_key: str) -> set[str]:
        return set(self.state.task_ids.get(step_key, []))

    def own_tasks(self) -> set[str]:
        """Every gluster task id this change started."""
        return {t for ids in self.state.task_ids.values() for t in ids}

    def progress(self, key: str, fraction: float, text: str, detail: object = None) -> None:
        index = self._index.get(key, 0)
        self.progress_obj.set_progress((index + fraction) / max(len(self.plan.steps), 1), text)
        self._emit(ChangeEvent("progress", key, RUNNING, text, fraction, detail))

    def measured(self, key: str, figures: dict) -> None:
        self.state.measured[key] = figures
        self._save()

    def measured_of(self, key: str) -> dict:
        return dict(self.state.measured.get(key, {}))

    def keep(self, host: str, argv: list[str], result: CommandResult) -> None:
        if self.store is None:
            return
        self.store.changes.add_output(self.change_id, self._current, host, argv, result.exit_status,
                                      result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace"),
                                      result.started)

    # ---- running ----------------------------------------------------------------------------------
    async def run(self) -> RunReport:
        """Run every step not done yet (each read back from the cluster first); the report."""
        from .changesteps import remote_steps

        started = time.time()
        self.state.sessions.append({"started_at": started, "pid": _pid(), "resumed": bool(self.state.sessions)})
        self._status(RUNNING_C, "")
        steps = remote_steps(self.plan, self)
        report = await run_steps("change", self.volume, steps, self.executor, self.progress_obj, self._on_step)
        if report.interrupted:
            await self._stop_migrations(report)
        if not report.ok:
            await self._set_threads_back(report)
        self.state.sessions[-1].update(ended_at=time.time())
        done_any = any(s.get("status") == DONE for s in self.state.steps.values())
        if report.ok:
            status, message = COMPLETE, "every step done and read back"
        elif report.interrupted:
            status = INTERRUPTED if done_any else CANCELLED
            message = ("cancelled before anything changed" if status == CANCELLED else
                       "cancelled; the volume is consistent: --resume goes on, --rollback undoes what was done")
        else:
            status, message = FAILED_C, (report.failed.message if report.failed else report.error)
        measured = sum(float(s.get("seconds") or 0.0) for s in self.state.steps.values())
        self.state.sessions[-1]["status"] = status
        self._status(status, message, measured if status == COMPLETE else None)
        if status == COMPLETE and self.options.get("rollback_of") and self.store is not None:
            rolled = self.store.changes.get(self.options["rollback_of"])
            self.store.changes.save_state(rolled.change_id, rolled.state, ROLLED_BACK)
        report.notes.extend(self._notes(status))
        self._emit(ChangeEvent("finished", status=status, message=message, fraction=1.0 if report.ok else 0.0,
                               detail=report))
        return report

    def _on_step(self, index: int, outcome: StepOutcome) -> None:
        key = outcome.step.key
        entry = self.state.steps.setdefault(key, {})
        if outcome.status == RUNNING:
            self._current = key
            entry.update(status=RUNNING, started_at=time.time(), ended_at=None, message="")
        else:
            entry.update(status=outcome.status, ended_at=time.time(), message=outcome.message,
                         seconds=round(outcome.seconds, 3))
        self._save()
        self._emit(ChangeEvent("step", key, outcome.status, outcome.message, detail=outcome))

    async def _stop_migrations(self, report: RunReport) -> None:
        """After a cancel: stop what moves data, so nothing keeps changing behind the admin's back."""
        ex = self.executor(self.plan.origin)
        self._current = "cancel"
        for kind, bricks in ((gp.REBALANCE, ()), (gp.REMOVE_BRICK, tuple(self.plan.role(cm.RETIRING)))):
            if kind == gp.REMOVE_BRICK and not bricks:
                continue
            try:
                st = await rd.migration_status(ex, self.volume, kind, bricks, self.names)
                if st is None or not st.running or (kind == gp.REBALANCE and st.task_id not in self.own_tasks()):
                    continue
                from ..core import gluster_cli as cli

                argv = cli.rebalance_argv(self.volume, "stop") if kind == gp.REBALANCE else \
                    cli.remove_brick_argv(self.volume, bricks, "stop")
                await rd.gluster(ex, argv)
                report.notes.append(f"the {kind} this change started was stopped: files moved so far stay moved "
                                    "and readable; --resume starts it again")
            except ExecutorError as exc:
                report.notes.append(f"could not stop the {kind}: {exc}; stop it by hand "
                                    f"(gluster volume {'rebalance ' + self.volume if kind == gp.REBALANCE else 'remove-brick ' + self.volume + ' …'} stop)")

    async def _set_threads_back(self, report: RunReport) -> None:
        """After a cancel or a failure: the heal and migration threads this change raised go back
        to the volume's own values (its options-restore step's commands), so no raised option is
        left behind while nothing drives the change; a resume raises them again."""
        from .changesteps import options_now, options_of, set_options

        restore = next((s for s in self.plan.steps if s.kind == cm.OPTIONS_RESTORE), None)
        if restore is None:
            return
        ex = self.executor(self.plan.origin)
        self._current = restore.key
        wanted = options_of(restore)
        try:
            if await options_now(ex, self.volume, wanted) == wanted:
                return
            said = await set_options(ex, self.volume, restore)
            report.notes.append(f"the heal and migration threads raised for this change were set back ({said}); "
                                "--resume raises them again")
        except ExecutorError as exc:
            from ..core import gluster_cli as cli

            report.notes.append(f"could not set the heal and migration threads back: {exc}; do it by hand: "
                                + "; ".join(cli.render(c) for c in restore.commands))

    def _notes(self, status: str) -> list[str]:
        notes = []
        retired = self.plan.role(cm.RETIRING) + self.plan.role(cm.REPLACED)
        if status == COMPLETE and retired:
            notes.append("the bricks that left the volume keep their directories (with gluster's metadata and "
                         "link files) on their servers: " + ", ".join(map(str, retired))
                         + "; remove them by hand once you have looked (Brickyard deletes nothing it did not make "
                           "for this volume)")
        if status in (INTERRUPTED, FAILED_C):
            notes.append(f"change {self.change_id[:12]} is kept in the history: brickyard change FILE --volume "
                         f"{self.volume} --resume goes on; --rollback undoes what was done")
        return notes

    # ---- bookkeeping --------------------------------------------------------------------------------
    def _status(self, status: str, message: str, measured: float | None = None) -> None:
        self.state.message = message
        self._status_word = status
        if self.store is not None:
            self.store.changes.save_state(self.change_id, self.state.to_json(), status, measured)

    def _save(self) -> None:
        if self.store is not None:
            self.store.changes.save_state(self.change_id, self.state.to_json(),
                                          getattr(self, "_status_word", RUNNING_C))

    def _emit(self, event: ChangeEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)


def _pid() -> int:
    import os

    return os.getpid()


def measured_rates(store: Any) -> MoveRates | None:
    """Rates from the newest completed change that measured a migration and a heal (each from
    its own newest), or None when no change has been measured yet."""
    migrate = heal = None
    for record in store.changes.list():
        if record.status != COMPLETE:
            continue
        for key, figures in record.state.get("measured", {}).items():
            step = record.state.get("steps", {}).get(key, {})
            seconds = float(step.get("seconds") or 0.0)
            when = time.strftime("%Y-%m-%d", time.gmtime(record.created_at))
            if migrate is None and key in ("rebalance-wait", "remove-brick-wait") and figures.get("files"):
                migrate = measured_rate(int(figures.get("bytes", 0)),
                                        int(figures.get("files", 0)) + int(figures.get("lookups", 0)),
                                        float(figures.get("runtime") or seconds), int(figures.get("nodes") or 1),
                                        f"{key.split('-wait')[0]} of {record.volume} on {when}")
            if heal is None and key.startswith("heal:") and seconds > 0:
                moved = record.plan.get("movement", {})
                heal = measured_rate(int(moved.get("bytes", 0)), int(moved.get("entries", 0)), seconds, 1,
                                     f"heal of {record.volume} on {when}, its bytes and entries as predicted")
        if migrate and heal:
            break
    if migrate is None and heal is None:
        return None
    return MoveRates(migrate or heal, heal or migrate)


"""Running a campaign: each named step in turn, the state saved after every change.

``CampaignRunner`` is the service the CLI and the app's Campaign view drive (no Qt here):

    runner = CampaignRunner.start(spec, store, executor_for, on_event=...)   # or .resume(...)
    state = await runner.run()          # on the asyncio loop thread
    runner.pause()                      # any thread: stop after the current step
    runner.cancel(teardown=True)        # any thread: stop now, tear down what it provisioned
    runner.cancel(teardown=False)       # Ctrl-C: stop now, keep the volume; --resume goes on

Events (``on_event(CampaignEvent)``, on the loop thread): ``step`` when a step starts or
ends (status, message, run id), ``run-progress`` while a cell measures (the engine's
``ProgressEvent`` in ``detail``), ``run-step`` for each measured step of a cell (the
``StepResult`` in ``detail``, for a live chart), ``log`` lines, ``waiting`` while another
benchmark holds a host, and ``finished``. Each carries the overall fraction done and, once
a step has finished, an estimate of the time remaining.

What the runner guarantees:
- a cell that is done is never run again: its run id is in the saved state, and resuming
  starts at the first step that is not done;
- the layout about to be provisioned is recorded as ``provisioned`` before any command
  runs, so a campaign killed at any instant knows which volume it may have left, and a
  name already used on the cluster by a volume it did not create stops it untouched;
- one benchmark at a time per host: the campaign holds the host lease of every host it
  uses (servers, clients, baseline hosts) from start to end.
"""

from __future__ import annotations

import asyncio
import shlex
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from ..bench import registry
from ..bench.engine import parse_target
from ..bench.hostlock import HostBusy, HostLease, HostLocks, machine_keys
from ..bench.targetcheck import TargetNotReady
from ..bench.request import BenchRequest, FanOutSink, run_request, topology_nics, volume_servers, volume_targets
from ..core import topofile
from ..core.results import RunResult, RunStatus, StepResult
from ..core.units import parse_link_rate
from ..remote import glusterstate
from ..remote.executor import Executor, ExecutorError
from ..remote.hostkeys import HostKeyError
from ..remote.loop import Progress
from ..remote.preflight import preflight, preflight_hosts, recheck
from ..remote.provision import ProvisionError, provision_plan, run_provision
from ..remote.teardown import run_teardown
from . import spec as specfile
from .spec import CampaignSpec
from .state import (
    BASELINE, C_CANCELLED, C_COMPLETE, C_FAILED, C_INTERRUPTED, C_PAUSED, C_RUNNING, CELL, DONE, FAILED,
    PENDING, PREFLIGHT, PROVISION, RUNNING, SKIPPED, TEARDOWN, CampaignState, CampaignStep, campaign_steps,
)
from .timeleft import cell_work, time_left

ExecutorFor = Callable[[str], Executor]
#: a pre-flight that passed this session stands for a later layout on the same hosts and
#: bricks for this long (s), with a re-check of what can change (``preflight.recheck``:
#: the hosts answer, free space, the mount points); a resumed campaign (a new session) and
#: a layout after that checks in full again
PREFLIGHT_REUSE = 3600.0


@dataclass(frozen=True)
class CampaignEvent:
    kind: str                       # "step", "run-progress", "run-step", "log", "waiting", "finished"
    step: CampaignStep | None = None
    status: str = ""                # the step's status, or the campaign's for "finished"
    message: str = ""
    run_id: str = ""
    fraction: float = 0.0           # of the whole campaign
    elapsed: float = 0.0            # seconds since this session started
    remaining: float | None = None  # estimated seconds left (None until a step has finished)
    detail: Any = None


class CampaignError(Exception):
    """The campaign cannot start or go on as asked (a busy host, an unfinished twin…)."""


class CampaignRunner:
    def __init__(self, spec: CampaignSpec, state: CampaignState, store: Any, executor_for: ExecutorFor, *,
                 locks: HostLocks | None = None, on_event: Callable[[CampaignEvent], None] | None = None,
                 wait_for_hosts: bool = True, engine_options: dict[str, Any] | None = None):
        self.spec = spec
        self.state = state
        self.store = store
        self.steps = campaign_steps(spec)
        self.executor_for = executor_for
        self.locks = locks or HostLocks()
        self.on_event = on_event
        self.wait_for_hosts = wait_for_hosts
        self.engine_options = dict(engine_options or {})
        self._progress: Progress | None = None
        self._pause = False
        self._cancel: bool | None = None        # None: not asked; True/False: tear down or not
        self._t0 = time.monotonic()
        self._done_seconds: list[float] = []
        self._done: dict[str, float] = {}        # step key -> seconds, for the steps finished this session
        self._step_t0 = time.monotonic()
        self._running: CampaignStep | None = None
        self._current = 0.0
        #: pre-flights passed this session: what they checked → (layout, when)
        #: … and the free space each brick had then ((node, path) -> bytes)
        self._preflights: dict[tuple[frozenset, frozenset], tuple[str, float, dict[tuple[str, str], int]]] = {}
        self.work = {s.key: cell_work(spec, s) for s in self.steps if s.measures}

    # ---- creating and resuming ----------------------------------------------------------

    @classmethod
    def start(cls, spec: CampaignSpec, store: Any, executor_for: ExecutorFor, **kw: Any) -> "CampaignRunner":
        """A new campaign, stored (file, topology and an all-pending state) before it runs."""
        cid = uuid.uuid4().hex
        state = CampaignState.fresh(cid, campaign_steps(spec))
        if store is not None:
            store.campaigns.create(cid, spec.name, spec.source, spec.sha256, spec.data,
                                   topofile.to_dict(spec.topology), state.to_json(), state.status)
        return cls(spec, state, store, executor_for, **kw)

    @classmethod
    def resume(cls, record: Any, store: Any, executor_for: ExecutorFor, **kw: Any) -> "CampaignRunner":
        """The stored campaign ``record`` as it was started (its file and topology as stored,
        whatever the files on disk say now), at the step where it stopped. Refused (with
        ``CampaignError``) while another live process on this machine is running it."""
        if store is not None and store.campaigns.owner_alive(record):
            raise CampaignError(f"campaign {record.campaign_id[:12]} is running now in process {record.owner_pid}")
        spec, state = _from_record(record)
        for st in state.steps.values():
            if st.status == RUNNING:            # killed mid-step: that step runs again
                st.status, st.message = PENDING, (st.message or "interrupted") + "; runs again"
        if state.status == C_FAILED:            # stopped at a failure: that step is tried again
            for st in state.steps.values():
                if st.status == FAILED:
                    st.status = PENDING
        return cls(spec, state, store, executor_for, **kw)

    # ---- control (any thread) -----------------------------------------------------------

    def pause(self) -> None:
        """Stop after the current step; a provisioned volume stays for the resume."""
        self._pause = True

    def cancel(self, teardown: bool = True) -> None:
        """Stop now: the running step is cancelled (its remote commands killed). With
        ``teardown`` every volume the campaign provisioned is torn down and the campaign is
        cancelled for good; without it (Ctrl-C) it is interrupted and ``resume`` goes on."""
        if self._cancel is None or teardown:
            self._cancel = teardown
        if self._progress is not None:
            self._progress.cancel()

    @property
    def stopping(self) -> bool:
        return self._cancel is not None

    # ---- running ------------------------------------------------------------------------

    def hosts(self) -> list[str]:
        """Every host the campaign loads: the layouts' servers and clients, baseline hosts."""
        names: list[str] = []
        for vol in self.spec.layouts:
            names += [r.node for r in vol.bricks] + [m.client for m in vol.mounts]
        names += [parse_target(b.target).host for b in self.spec.baselines]
        return list(dict.fromkeys(names))

    async def run(self) -> CampaignState:
        """Run every step not done yet; returns the final state (also saved)."""
        self._t0 = time.monotonic()
        lease = await self._lease()
        try:
            self.state.status, self.state.message = C_RUNNING, ""
            self.state.begin_session(resumed=any(st.status != PENDING for st in self.state.steps.values()))
            self._save()
            try:
                await self._steps()
            except HostKeyError as exc:
                self.state.status, self.state.message = C_INTERRUPTED, f"stopped for a host key: {exc}"
                self._save()
                raise
            except BaseException as exc:
                if self.state.status == C_RUNNING:
                    self.state.status = C_INTERRUPTED
                    self.state.message = f"stopped: {type(exc).__name__}: {exc}".rstrip(": ")
                    self._save()
                raise
        finally:
            lease.release()
        if self.state.sessions:
            self.state.sessions[-1].update(ended_at=time.time(), status=self.state.status)
        self._save()
        self._emit("finished", None, self.state.status, self.state.message)
        return self.state

    async def _lease(self) -> HostLease:
        owner = f"campaign {self.spec.name} ({self.state.campaign_id[:12]})"
        hosts = self.hosts()
        keys = await machine_keys(hosts, self.executor_for)    # the machines, not their names
        if not self.wait_for_hosts:
            try:
                return self.locks.try_acquire(hosts, owner, keys)
            except HostBusy as exc:
                raise CampaignError(str(exc)) from None

        def waiting(busy: HostBusy) -> None:
            self._emit("waiting", None, "waiting", f"waiting: {busy}")

        try:
            return await self.locks.acquire(hosts, owner, keys=keys, is_cancelled=lambda: self._cancel is not None,
                                            on_wait=waiting)
        except HostBusy as exc:
            raise CampaignError(f"cancelled while waiting: {exc}") from None

    async def _steps(self) -> None:
        index = 0
        while index < len(self.steps):
            step = self.steps[index]
            st = self.state.step(step.key)
            if st.status in (DONE, SKIPPED, FAILED):
                index += 1
                continue
            if self._cancel is not None:
                break
            if self._pause:
                self.state.status = C_PAUSED
                left = ", ".join(self.state.provisioned)
                self.state.message = "paused" + (f"; {left} stays provisioned until you resume or cancel" if left else "")
                self._save()
                return
            outcome = await self._run_step(step)
            if outcome == "stop":
                break
            index += 1
        if self._cancel is not None:
            await self._stop_for_cancel()
            return
        if self.state.status == C_RUNNING:
            counts = self.state.counts()
            failed = [s.title for s in self.steps if self.state.step(s.key).status == FAILED]
            self.state.status = C_COMPLETE
            self.state.message = (f"finished; {len(failed)} failed: {', '.join(failed)}" if failed else
                                  f"finished: {counts[DONE]} steps done" +
                                  (f", {counts[SKIPPED]} skipped" if counts[SKIPPED] else ""))
            self._save()

    async def _run_step(self, step: CampaignStep) -> str:
        """Run one step and apply the failure policy; returns "next" or "stop"."""
        st = self.state.step(step.key)
        st.status, st.message, st.started_at, st.ended_at = RUNNING, "", time.time(), None
        self._current = 0.0
        self._running, self._step_t0 = step, time.monotonic()
        self._save()
        self._emit("step", step, RUNNING)
        self._progress = Progress(on_progress=self._on_fraction, on_log=lambda line: self._emit("log", step, "", line))
        if self._cancel is not None:
            self._progress.cancel()
        self._current = 0.0
        try:
            ok, message = await {PREFLIGHT: self._preflight, PROVISION: self._provision, CELL: self._cell,
                                 BASELINE: self._cell, TEARDOWN: self._teardown}[step.kind](step)
        finally:
            progress, self._progress = self._progress, None
        st.ended_at = time.time()
        if progress.is_cancelled() and not ok:
            st.status, st.message = PENDING, f"cancelled ({message})" if message else "cancelled"
            self._save()
            self._emit("step", step, PENDING, st.message)
            return "stop"
        if ok:
            st.status, st.message = DONE, message
            if st.seconds is not None:
                self._done_seconds.append(st.seconds)
                self._done[step.key] = st.seconds
            self._save()
            self._emit("step", step, DONE, message, run_id=st.run_id)
            return "next"
        st.failures += 1
        st.status, st.message = FAILED, message
        self._save()
        self._emit("step", step, FAILED, message)
        return await self._after_failure(step)

    async def _after_failure(self, step: CampaignStep) -> str:
        st = self.state.step(step.key)
        policy = self.spec.on_failure
        if step.kind == TEARDOWN:
            self.state.status = C_FAILED
            self.state.message = (f"teardown of {step.layout} failed ({st.message}); the campaign stops so the next "
                                  f"layout does not meet its bricks in use. Resume to try the teardown again")
            self._save()
            return "stop"
        if policy == "retry" and step.measures and st.failures < 2:
            st.status, st.message = PENDING, f"failed once ({st.message}); retrying"
            self._save()
            self._emit("step", step, PENDING, st.message)
            return await self._run_step(step)
        if policy == "stop":
            self.state.status = C_FAILED
            self.state.message = f"stopped at {step.title}: {st.message}"
            self._save()
            if step.layout and step.kind != BASELINE and step.layout in self.state.provisioned:
                await self._early_teardown(step.layout)
            self._save()
            return "stop"
        # skip (or retry exhausted): the cell stays failed; a layout that did not come up skips its cells
        if step.kind in (PREFLIGHT, PROVISION):
            why = f"{step.layout} was not provisioned: {st.message}"
            for other in self.steps:
                if other.layout == step.layout and other.kind in (PROVISION, CELL) and other is not step:
                    ost = self.state.step(other.key)
                    if ost.status == PENDING:
                        ost.status, ost.message = SKIPPED, why
                        self._emit("step", other, SKIPPED, why)
            self._save()
        return "next"

    async def _stop_for_cancel(self) -> None:
        teardown = bool(self._cancel)
        if teardown:
            for layout in list(self.state.provisioned):
                await self._early_teardown(layout)
            left = ", ".join(self.state.provisioned)
            self.state.status = C_CANCELLED if not left else C_FAILED
            self.state.message = ("cancelled; every volume it provisioned was torn down" if not left else
                                  f"cancelled, but the teardown of {left} failed: resume or abandon to try again")
        else:
            left = ", ".join(self.state.provisioned)
            self.state.status = C_INTERRUPTED
            self.state.message = ("interrupted at " + self.state.where(self.steps) +
                                  (f"; {left} is still provisioned (the campaign knows it): --resume goes on, "
                                   "--abandon tears it down" if left else "; --resume goes on"))
        self._save()

    async def _early_teardown(self, layout: str) -> None:
        """Tear a layout down before its cells are all done (stop, cancel): its pre-flight and
        provisioning become pending again so a resume brings it back up first."""
        ok, message = await self._remove(layout, Progress(on_log=lambda line: self._emit("log", None, "", line)))
        if not ok:
            self._emit("log", None, "", f"teardown of {layout} failed: {message}")
            return
        unfinished = any(self.state.step(s.key).status not in (DONE, SKIPPED)
                         for s in self.steps if s.layout == layout and s.kind == CELL)
        for s in self.steps:
            if s.layout != layout or s.kind not in (PREFLIGHT, PROVISION, TEARDOWN):
                continue
            st = self.state.step(s.key)
            if s.kind == TEARDOWN:
                st.status, st.message = (PENDING, "") if unfinished else (DONE, "torn down early")
            elif unfinished and st.status == DONE:
                st.status, st.message = PENDING, "torn down early; provisioned again on resume"
        self._emit("log", None, "", f"tore down {layout}")
        self._save()

    # ---- the steps ----------------------------------------------------------------------

    def _preflight_key(self, layout: str) -> tuple[frozenset, frozenset]:
        """What a layout's pre-flight checks: its hosts (with their roles) and its bricks.
        Every layout of a campaign has the same bricks and clients, so the same key."""
        topo = self.spec.topology_for(layout)
        volume = topo.require_volume(layout)
        return frozenset(preflight_hosts(topo, layout)), frozenset(str(b) for b in volume.bricks)

    async def _preflight(self, step: CampaignStep) -> tuple[bool, str]:
        key = self._preflight_key(step.layout)
        earlier = self._preflights.get(key)
        if earlier is not None and time.monotonic() - earlier[1] < PREFLIGHT_REUSE:
            # the hosts and bricks it would check were checked this session and nothing but this
            # campaign's own provisioning and teardown (each read back) has touched them on
            # purpose since: only what can change without it is checked again (one command a
            # host, all at once)
            again = await recheck(self.spec.topology_for(step.layout), self.executor_for, step.layout, earlier[2])
            for h in again.hosts:
                if h.host_key_error is not None:
                    raise h.host_key_error
            for line in again.text().splitlines():
                self._progress.log(line)            # type: ignore[union-attr]
            if not again.ok:
                return False, "re-check: " + _fails(again)
            return True, (f"not repeated in full: the same hosts and bricks passed the pre-flight for {earlier[0]} "
                          f"{time.monotonic() - earlier[1]:.0f} s ago; re-checked: {len(again.hosts)} hosts answer, "
                          "free space, mount points")
        report = await preflight(self.spec.topology_for(step.layout), self.executor_for, step.layout)
        for h in report.hosts:
            if h.host_key_error is not None:
                raise h.host_key_error
        for line in report.text().splitlines():
            self._progress.log(line)            # type: ignore[union-attr]
        if report.ok:
            free = {(node, path): bytes_free for node, path, bytes_free in report.free_space()}
            self._preflights[key] = (step.layout, time.monotonic(), free)
            warns = sum(1 for h in report.hosts for c in h.checks if c.status == "warn")
            return True, f"{len(report.hosts)} hosts ok" + (f", {warns} warnings" if warns else "")
        return False, _fails(report)

    async def _provision(self, step: CampaignStep) -> tuple[bool, str]:
        layout = step.layout
        try:
            plan = provision_plan(self.spec.topology_for(layout), layout)
        except ProvisionError as exc:
            return False, str(exc)
        if layout not in self.state.provisioned:
            # a volume of this name that this campaign did not create is never touched
            first = plan.volume.bricks[0].node
            try:
                live = await glusterstate.live_volume(self.executor_for(first), layout)
            except ExecutorError as exc:
                return False, str(exc)
            if live is not None:
                return False, (f"a volume named {layout} already exists on the cluster ({live.type_str}, "
                               f"{len(live.bricks)} bricks) and this campaign did not create it: it is left "
                               "alone; rename the layout or remove that volume")
            self._claim(layout)
        report = await run_provision(plan, self.executor_for, self._progress, topology_file=self.spec.source or None)
        if report.ok:
            done = sum(1 for o in report.outcomes if o.status == "done")
            return True, f"{done} steps run, {len(report.outcomes) - done} already done"
        return False, report.summary()[0]

    async def _teardown(self, step: CampaignStep) -> tuple[bool, str]:
        if step.layout not in self.state.provisioned:
            return True, "nothing to tear down (never provisioned)"
        return await self._remove(step.layout, self._progress)

    async def _remove(self, layout: str, progress: Progress | None) -> tuple[bool, str]:
        """Tear the layout's volume down (unmount, stop, delete, remove what Brickyard made)."""
        report = await run_teardown(self.spec.topology_for(layout), layout, self.executor_for, progress)
        if not report.ok:
            return False, report.summary()[0]
        self._release(layout)
        kept = [n for n in report.notes if "was kept" in n]
        for note in kept:
            self._emit("log", None, "", note)
        return True, "torn down; bricks left reusable" + (f" ({len(kept)} kept: see the log)" if kept else "")

    def request(self, step: CampaignStep) -> BenchRequest:
        """The benchmark a cell runs (also what the dry run shows)."""
        w = self.spec.workload(step.workload)
        if step.kind == BASELINE:
            base = next(b for b in self.spec.baselines if b.id == step.layout)
            target = parse_target(base.target)
            return BenchRequest(w.workload, dict(w.params), (target,), (),
                                parse_link_rate(self.spec.link) if self.spec.link else None, "", step.title)
        topo = self.spec.topology_for(step.layout)
        targets = tuple(volume_targets(topo, step.layout))
        servers = tuple(volume_servers(topo, step.layout))
        # a typed link wins; else each client's is detected, its topology NIC the fallback
        link = parse_link_rate(self.spec.link) if self.spec.link else None
        return BenchRequest(w.workload, dict(w.params), targets, servers, link, step.layout, step.title,
                            link_hints=topology_nics(topo, [t.host for t in targets]))

    async def _cell(self, step: CampaignStep) -> tuple[bool, str]:
        if step.kind == BASELINE:
            await self._clean_interrupted(step)
        request = self.request(step)
        try:
            workload = registry.find(request.workload)
        except LookupError as exc:
            return False, str(exc)
        sinks: list[Any] = []
        if self.store is not None:
            from ..store.sink import HistorySink

            topo = self.spec.topology_for(step.layout) if step.kind == CELL else self.spec.topology
            sinks.append(HistorySink(self.store, topofile.to_dict(topo)))
        sinks.append(_CellSink(self, step))
        try:
            run = await run_request(request, workload, self.executor_for, progress=self._progress,
                                    sink=FanOutSink(sinks), **{"link_typed_as": "the campaign's \"link\"",
                                                               **self.engine_options})
        except TargetNotReady as exc:      # the layout is not mounted (or a baseline is on gluster)
            return False, str(exc)
        st = self.state.step(step.key)
        if run.status is RunStatus.COMPLETE:
            st.run_id = run.run_id
            invalid = sum(1 for s in run.steps if not s.valid)
            return True, f"run {run.run_id[:12]}: {len(run.steps)} steps" + (f", {invalid} invalid" if invalid else "")
        where = f" ({run.failed_host})" if run.failed_host and run.failed_host not in run.error else ""
        return False, f"run {run.run_id[:12]} {run.status.value}{where}: {run.error or 'no steps measured'}"

    async def _clean_interrupted(self, step: CampaignStep) -> None:
        """A baseline cell killed mid-run may have left its run directory on a local disk (a
        layout's is removed with the volume): remove the directories named by its own runs."""
        st = self.state.step(step.key)
        if not st.run_ids:
            return
        target = parse_target(next(b.target for b in self.spec.baselines if b.id == step.layout))
        ex = self.executor_for(target.host)
        for rid in st.run_ids:
            script = 'for d in "$1"/brickyard-"$2"-*; do [ -d "$d" ] && rm -rf -- "$d"; done; exit 0'
            try:
                await ex.run(["sh", "-c", script, "sh", target.path, rid[:12]], timeout=120)
            except ExecutorError as exc:
                self._emit("log", step, "", f"could not remove what run {rid[:12]} left in {target.text}: {exc}")

    # ---- bookkeeping --------------------------------------------------------------------

    def _claim(self, layout: str) -> None:
        """Record (and save) that the layout's volume may exist from now on: before the first
        command that could create it runs."""
        if layout not in self.state.provisioned:
            self.state.provisioned.append(layout)
        teardown = self.state.step(f"teardown:{layout}")
        teardown.status, teardown.message = PENDING, ""
        self._save()

    def _release(self, layout: str) -> None:
        """The layout's volume is gone (torn down): saved at once."""
        if layout in self.state.provisioned:
            self.state.provisioned.remove(layout)
        self._save()

    def _save(self) -> None:
        if self.store is not None:
            self.store.campaigns.save_state(self.state.campaign_id, self.state.to_json(), self.state.status)

    def _on_fraction(self, fraction: float, text: str) -> None:
        self._current = fraction

    def fraction(self) -> float:
        finished = sum(1 for s in self.steps if self.state.step(s.key).status in (DONE, SKIPPED, FAILED))
        return min(1.0, (finished + self._current) / max(len(self.steps), 1))

    def remaining(self) -> float | None:
        """Seconds left, from the plan's steps and sizes (``timeleft.time_left``); None before
        anything can be timed."""
        return time_left(self.steps, self.state, self._done, self.work, self._running, self._current,
                         time.monotonic() - self._step_t0)

    def _emit(self, kind: str, step: CampaignStep | None, status: str = "", message: str = "",
              run_id: str = "", detail: Any = None) -> None:
        if self.on_event is None:
            return
        self.on_event(CampaignEvent(kind, step, status, message, run_id, self.fraction(),
                                    time.monotonic() - self._t0, self.remaining(), detail))


def _fails(report: Any) -> str:
    fails = [f"{h.host}: {c.name}: {c.message}" for h in report.hosts for c in h.checks if c.status == "fail"]
    return "; ".join(fails[:3]) + (f" (and {len(fails) - 3} more)" if len(fails) > 3 else "")


def _from_record(record: Any) -> tuple[CampaignSpec, CampaignState]:
    topo = topofile.from_dict(record.topology, "<stored campaign topology>")
    spec = specfile.from_data(record.spec, source=record.source, sha256=record.spec_sha256, topology=topo)
    return spec, CampaignState.from_json(record.state, campaign_steps(spec))


class _CellSink:
    """Tags each run of a cell with the campaign in history and records its id in the state
    the moment it starts, so a kill mid-run still knows which run it was."""

    def __init__(self, runner: CampaignRunner, step: CampaignStep):
        self.runner, self.step = runner, step

    def run_started(self, run: RunResult) -> None:
        st = self.runner.state.step(self.step.key)
        st.run_ids.append(run.run_id)
        if self.runner.store is not None:
            self.runner.store.campaigns.tag_run(run.run_id, self.runner.state.campaign_id, self.step.key)
        self.runner._save()
        self.runner._emit("step", self.step, RUNNING, f"run {run.run_id[:12]} started", run_id=run.run_id)

    def step_finished(self, run: RunResult, step: StepResult) -> None:
        self.runner._emit("run-step", self.step, RUNNING, run_id=run.run_id, detail=step)

    def run_finished(self, run: RunResult) -> None:
        pass

    def progress(self, run: RunResult, event: Any) -> None:
        self.runner._current = float(getattr(event, "fraction", 0.0))
        self.runner._emit("run-progress", self.step, RUNNING, getattr(event, "label", ""), run_id=run.run_id,
                          detail=event)


def command_line(request: BenchRequest) -> str:
    """The ``brickyard bench`` command that measures the same as a cell (dry run, logs)."""
    argv = ["brickyard", "bench", "--workload", request.workload]
    for t in request.targets:
        argv += ["--target", t.text]
    for s in request.servers:
        argv += ["--server", s]
    for k, v in request.params.items():
        argv += ["--param", f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"]
    if request.link_bps:
        argv += ["--link", f"{request.link_bps * 8 / 1e9:g}Gbit"]
    return shlex.join(argv)

"""Plans as lists of steps, run one at a time with a check first, a log, and an honest report.

A ``Step`` names the host it runs on, the argument lists it will run (what a dry run shows),
how to tell it is already done (so a re-run skips it), and how to undo it. ``run_steps``
stops at the first failure and the ``RunReport`` says what was done, what is left and how
to undo what was done.
"""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Awaitable, Callable, Sequence

from .executor import CommandFailed, CommandResult, Executor, ExecutorError, RemoteProcess
from .hostkeys import HostKeyChanged, UnknownHostKey
from .loop import Cancelled, Progress, run_cancellable

DONE = "done"
SKIPPED = "skipped"  # already done before this run
FAILED = "failed"
PENDING = "pending"  # not reached
PLANNED = "planned"  # dry run
RUNNING = "running"  # only in on_step snapshots: the step has started

# what running a step may change (``Step.changes``)
CLUSTER, HOST, NOTHING = "cluster", "host", "nothing"

# returns a sentence when the step is already done, None when it still has to run
DoneCheck = Callable[[Executor], Awaitable[str | None]]
Action = Callable[[Executor], Awaitable[str]]


#: what the steps of one run have read from each host, kept until a step changes something on
#: that host (``run_memo``): three probe checks need one ``peer status``, a stop's check the
#: ``volume info`` the teardown's first step read
_MEMO: ContextVar[dict | None] = ContextVar("brickyard_step_memo", default=None)


def run_memo() -> dict:
    """The running ``run_steps``' readings, keyed ``(host, what)``; outside a run a new empty
    dict each call (nothing is kept)."""
    memo = _MEMO.get()
    return memo if memo is not None else {}


class AlreadyDone(Exception):
    """Raised by a step's action that found its effect in place on the host, in the same
    command that would have made it (one round trip instead of a check and an action): the
    step counts as already done (skipped), with this sentence."""


@dataclass
class Step:
    key: str  # stable id, e.g. "peer-probe:node2"
    title: str  # a sentence: "probe node2 into the trusted pool"
    host: str  # topology name of the node or client it runs on
    commands: list[list[str]]  # what it runs, in order (what --dry-run prints)
    undo: str = ""  # how to undo it by hand
    sudo: bool = True
    timeout: float = 120.0
    done_check: DoneCheck | None = None
    action: Action | None = None  # default: run ``commands`` in order, each must succeed
    #: consecutive steps with the same (non-empty) value run at once, one host's in order:
    #: e.g. every node's brick directories, every client's mount
    together: str = ""
    #: keys of earlier steps of the same plan: when one of them ran (done, not skipped) in
    #: this run, this step's effect cannot be in place yet and its done-check is not asked
    #: (a volume created a moment ago is not started; a volume just stopped still exists)
    fresh_after: tuple[str, ...] = ()
    #: what running it may change, for what the run has read (``run_memo``): CLUSTER (what
    #: any node says: a gluster command), HOST (its own host's files and mounts only: what
    #: was read from other hosts stays good) or NOTHING (a read-only check)
    changes: str = CLUSTER

    async def perform(self, ex: Executor) -> str:
        if self.action is not None:
            return await self.action(ex)
        for argv in self.commands:
            await ex.run(argv, sudo=self.sudo, check=True, timeout=self.timeout)
        return ""


@dataclass
class StepOutcome:
    step: Step
    status: str
    message: str = ""
    seconds: float = 0.0
    # what failed the step (a UI tells an unknown host key, to be trusted, from other failures)
    error: Exception | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {
            "key": self.step.key, "title": self.step.title, "host": self.step.host,
            "commands": [list(c) for c in self.step.commands], "status": self.status,
            "message": self.message, "seconds": round(self.seconds, 3), "undo": self.step.undo,
        }


@dataclass
class RunReport:
    action: str  # "provision", "teardown"
    subject: str  # the volume
    outcomes: list[StepOutcome] = field(default_factory=list)
    dry_run: bool = False
    error: str = ""
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False  # cancelled (Ctrl-C, Cancel) before or while a step ran

    @property
    def ok(self) -> bool:
        return not self.error and all(o.status != FAILED for o in self.outcomes)

    @property
    def failed(self) -> StepOutcome | None:
        return next((o for o in self.outcomes if o.status == FAILED), None)

    def undo_lines(self) -> list[str]:
        """Undo hints of the steps this run did, last first."""
        return [f"{o.step.host}: {o.step.undo}" for o in reversed(self.outcomes) if o.status == DONE and o.step.undo]

    def summary(self) -> list[str]:
        done = [o for o in self.outcomes if o.status == DONE]
        skipped = [o for o in self.outcomes if o.status == SKIPPED]
        left = [o for o in self.outcomes if o.status in (PENDING, FAILED)]
        lines = []
        failed = self.failed
        if failed and self.interrupted:
            lines.append(f"INTERRUPTED at step '{failed.step.title}' on {failed.step.host}: {failed.message} "
                         "(it may or may not have finished)")
        elif failed:
            lines.append(f"FAILED at step '{failed.step.title}' on {failed.step.host}: {failed.message}")
        elif self.error:
            lines.append(f"{'INTERRUPTED' if self.interrupted else 'FAILED'}: {self.error}")
        lines.append(f"done ({len(done)}): " + ("; ".join(f"{o.step.host}: {o.step.title}" for o in done) or "nothing"))
        if skipped:
            lines.append(f"already done, skipped ({len(skipped)}): "
                         + "; ".join(f"{o.step.host}: {o.step.title}" for o in skipped))
        if left:
            lines.append(f"left ({len(left)}): " + "; ".join(f"{o.step.host}: {o.step.title}" for o in left))
        if not self.ok:
            undo = self.undo_lines()
            lines.append("to undo what this run did: " + (" | ".join(undo) if undo else "nothing to undo"))
        lines.extend(self.notes)
        return lines

    def to_json(self) -> dict:
        return {
            "action": self.action, "volume": self.subject, "dry_run": self.dry_run, "ok": self.ok,
            "interrupted": self.interrupted,
            "error": self.error or (self.failed.message if self.failed else ""),
            "failed_step": self.failed.step.key if self.failed else None,
            "steps": [o.to_json() for o in self.outcomes],
            "undo": self.undo_lines(), "notes": self.notes,
        }


def dry_run(action: str, subject: str, steps: Sequence[Step], notes: Sequence[str] = ()) -> RunReport:
    return RunReport(action, subject, [StepOutcome(s, PLANNED) for s in steps], dry_run=True, notes=list(notes))


async def run_steps(
    action: str,
    subject: str,
    steps: Sequence[Step],
    executor_for: Callable[[str], Executor],
    progress: Progress | None = None,
    on_step: Callable[[int, StepOutcome], None] | None = None,
) -> RunReport:
    """Run each step after its done-check; stop at the first failure.

    ``on_step(index, outcome)`` is called (on the loop thread) with a copy of the step's outcome
    when it starts (status ``RUNNING``) and when it has its final status, so a view can fill in
    its rows step by step.
    """
    progress = progress or Progress()

    def tell(index: int, outcome: StepOutcome, status: str | None = None) -> None:
        if on_step is not None:
            on_step(index, replace(outcome, status=status or outcome.status))

    token = _MEMO.set({})
    try:
        return await _run(action, subject, steps, executor_for, progress, tell)
    finally:
        _MEMO.reset(token)


async def _run(action, subject, steps, executor_for, progress: Progress, tell) -> RunReport:
    report = RunReport(action, subject, [StepOutcome(s, PENDING) for s in steps])
    total = len(steps)
    hosts = list(dict.fromkeys(s.host for s in steps))
    try:
        unreachable = await run_cancellable(progress, reach_hosts(hosts, executor_for))
    except (asyncio.CancelledError, Cancelled):
        report.error, report.interrupted = "cancelled while reaching the hosts: nothing was changed", True
        progress.log(f"{action} {subject}: {report.error}")
        return report
    if unreachable:
        report.error = ("cannot reach every host, so nothing was changed: " + "; ".join(unreachable))
        progress.log(f"{action} {subject}: {report.error}")
        return report
    performed: dict[str, bool] = {}     # step key -> it ran in this run (not skipped)

    async def one(index: int, outcome: StepOutcome) -> bool:
        """Run one step after its done-check; False when it failed or was cancelled."""
        step = outcome.step
        progress.set_progress(index / max(total, 1), f"{step.host}: {step.title}")
        started = time.monotonic()
        tell(index, outcome, RUNNING)
        try:
            ex = RetryTransient(executor_for(step.host))
            fresh = any(performed.get(key) for key in step.fresh_after)
            already = await step.done_check(ex) if step.done_check is not None and not fresh else None
            if already is not None:
                outcome.status, outcome.message = SKIPPED, already
            else:
                # progress.cancel() from any thread cancels the running step (and kills its command)
                try:
                    note = await run_cancellable(progress, step.perform(ex))
                    outcome.status, outcome.message = DONE, note
                except AlreadyDone as found:
                    outcome.status, outcome.message = SKIPPED, str(found)
                performed[step.key] = outcome.status == DONE
                # what was read may have changed: from this host, or from any when the step
                # may have changed what gluster says
                memo = run_memo()
                for key in [k for k in memo if step.changes == CLUSTER or
                            (step.changes == HOST and k[0] == step.host)]:
                    del memo[key]
        except (ExecutorError, ValueError, OSError) as exc:
            outcome.status, outcome.message, outcome.error = FAILED, _reason(exc, step), exc
        except (asyncio.CancelledError, Cancelled):
            outcome.status, outcome.message = FAILED, "cancelled by the user while it ran"
            report.interrupted = True
            outcome.seconds = time.monotonic() - started
            tell(index, outcome)
            progress.log(f"[{index + 1}/{total}] {step.host}: {step.title}: CANCELLED")
            return False
        outcome.seconds = time.monotonic() - started
        tell(index, outcome)
        word = {DONE: "done", SKIPPED: "already done", FAILED: "FAILED"}[outcome.status]
        extra = f" ({outcome.message})" if outcome.message else ""
        progress.log(f"[{index + 1}/{total}] {step.host}: {step.title}: {word}{extra} [{outcome.seconds:.1f} s]")
        return outcome.status != FAILED

    def cancelled_before(index: int) -> bool:
        if not progress.is_cancelled():
            return False
        if not report.interrupted:
            step = steps[index]
            report.error = f"cancelled before step '{step.title}' on {step.host}"
            report.interrupted = True
        return True

    async def in_order(indices: list[int]) -> bool:
        for index in indices:
            if cancelled_before(index) or not await one(index, report.outcomes[index]):
                return False
        return True

    for group in _groups(steps):
        if cancelled_before(group[0]):
            break
        if len(group) == 1:
            ok = await one(group[0], report.outcomes[group[0]])
        else:   # each host's steps in order, the hosts at once; the group ends when all have
            by_host: dict[str, list[int]] = {}
            for index in group:
                by_host.setdefault(steps[index].host, []).append(index)
            ok = all(await asyncio.gather(*(in_order(indices) for indices in by_host.values())))
        if not ok:
            break
    if report.ok:
        progress.set_progress(1.0, f"{action} {subject}: finished")
    return report


def _groups(steps: Sequence[Step]) -> list[list[int]]:
    """Step indices in runs: consecutive steps with the same ``together`` make one run."""
    groups: list[list[int]] = []
    for index, step in enumerate(steps):
        if groups and step.together and steps[groups[-1][-1]].together == step.together:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


async def reach_hosts(hosts: Sequence[str], executor_for: Callable[[str], Executor]) -> list[str]:
    """Log in to every host once, all at a time, before anything is changed.

    A changed host key is raised first; otherwise the first unknown key in ``hosts`` order is
    raised carrying the others in ``.others``, so the caller can ask the user to trust them and
    run again; any other failure is returned as one line per host that cannot be reached."""

    async def reach(host: str) -> None:
        await executor_for(host).run(["true"], timeout=60, check=True)

    results = await asyncio.gather(*(reach(h) for h in hosts), return_exceptions=True)
    for result in results:
        if isinstance(result, HostKeyChanged):
            raise result
    unknown = [r for r in results if isinstance(r, UnknownHostKey)]
    if unknown:
        unknown[0].others = unknown[1:]
        raise unknown[0]
    failures = []
    for host, result in zip(hosts, results):
        if isinstance(result, (asyncio.CancelledError, KeyboardInterrupt)):
            raise result
        if isinstance(result, BaseException):
            text = str(result) or type(result).__name__
            failures.append(text if text.startswith(f"{host}: ") else f"{host}: {text}")
    return failures


# gluster's own words when another command holds the cluster lock: try again shortly
TRANSIENT_GLUSTER = (b"Another transaction is in progress", b"Locking failed on")
RETRY_DELAYS = (2.0, 4.0, 8.0, 8.0, 8.0)  # seconds between tries: 6 tries over ~30 s


def transient_gluster_failure(argv: Sequence[str], result: CommandResult) -> bool:
    if not argv or argv[0] != "gluster":
        return False
    text = result.stdout + result.stderr
    refused = result.exit_status != 0 or b"<opRet>-1</opRet>" in result.stdout
    return refused and any(marker in text for marker in TRANSIENT_GLUSTER)


class RetryTransient(Executor):
    """An executor that runs a gluster command again, after a short pause, while gluster says
    another transaction holds the lock (a run interrupted a moment ago, a second admin)."""

    def __init__(self, inner: Executor, delays: Sequence[float] | None = None):
        self.inner, self.host = inner, inner.host
        self.delays = RETRY_DELAYS if delays is None else tuple(delays)

    async def run(self, argv, *, check: bool = False, **kw) -> CommandResult:
        for delay in (*self.delays, None):
            result = await self.inner.run(argv, check=False, **kw)
            if delay is None or not transient_gluster_failure(argv, result):
                break
            await asyncio.sleep(delay)
        if check and not result.ok:
            raise CommandFailed(result)
        return result

    async def start(self, argv, **kw) -> RemoteProcess:
        return await self.inner.start(argv, **kw)

    async def upload(self, *args, **kw) -> None:
        return await self.inner.upload(*args, **kw)

    async def close(self) -> None:
        return await self.inner.close()


def _reason(exc: Exception, step: Step) -> str:
    text = str(exc)
    host_prefix = f"{step.host}: "
    return text[len(host_prefix):] if text.startswith(host_prefix) else text


def first_line(result: CommandResult) -> str:
    lines = (result.stderr or result.stdout).decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {result.exit_status}"

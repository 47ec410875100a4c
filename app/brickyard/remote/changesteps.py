"""A change plan's steps as ``remote.steps.Step``s: what each runs, how it reads back that it is
done, and how a re-run (``--resume``) tells what is done already.

Every gluster command runs with ``--xml`` and is judged by gluster's ``<opRet>`` (it exits 0
when it refuses). The rules a change keeps, each enforced here, right where the command runs:

- ``remove-brick … commit`` only after ``remove-brick … status`` read right before it says
  completed on every node with 0 failures and 0 skipped, and no data file is left on a
  retiring brick (glusterfs #2350: a commit after failures drops those files);
- ``replace-brick`` only while ``heal info summary`` shows nothing pending on the volume's
  other bricks (glusterfs #895), and the next brick only after the heal wait read it clean
  twice;
- a wait step is done when gluster says so, never when a command exited 0.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

from ..core import changemodel as cm
from ..core import gluster_cli as cli
from ..core import gluster_progress as gp
from ..core import gluster_xml as gx
from ..core import rebalancelog
from ..core.change import GLUSTER_DEFAULTS
from ..core.changemodel import ChangePlan, ChangeStep
from ..core.topology import BrickRef
from ..core.units import format_bytes
from . import changeread as rd
from . import glusterstate
from .executor import CommandResult, Executor, ExecutorError
from .provision import brick_dir_check
from .steps import Step

POLL_FIRST, POLL_MAX = 2.0, 15.0
POLL_SHARE = 0.1              # a wait polls every tenth of the time it has waited (POLL_FIRST to POLL_MAX apart)
HEAL_CLEAN_READS = 2          # heal info read clean this many times in a row, HEAL_RECHECK apart
HEAL_RECHECK = 3.0
HEAL_STALL = 30.0             # seconds without fewer entries pending before an index heal is launched
DISCONNECTED_LIMIT = 120.0    # a brick not connected this long stops a heal wait
ONLINE_LIMIT = 180.0          # seconds a rebalance start waits for every brick to be online
ONLINE_POLL = 1.0             # first pause between two reads of volume status while it waits
REBALANCE_RESTARTS = 2        # a rebalance that failed for a transient cause is started again this often
STATUS_RETRIES = 3            # a migration status read gluster answers with an error is read again this often
STATUS_RETRY_PAUSE = 3.0


def poll_delay(waited: float) -> float:
    """Seconds to the next read of a migration or heal that has run ``waited`` seconds: a tenth
    of that, so a wait learns the end at most ~10 % late (a short one within POLL_FIRST, a
    long one within POLL_MAX) and reads gluster a few times a minute at most, not more often
    the longer it runs."""
    return min(max(POLL_FIRST, waited * POLL_SHARE), POLL_MAX)


class Context(Protocol):
    """What the steps need from the runner."""

    volume: str
    names: dict[str, str]          # peer UUID -> host name

    def executor(self, host: str) -> Executor: ...
    def pool_members(self) -> list[str]: ...
    def set_of(self, brick: BrickRef) -> tuple[BrickRef, ...]: ...
    def log(self, line: str) -> None: ...
    def task_started(self, step_key: str, task_id: str) -> None: ...
    def known_task(self, step_key: str) -> set[str]: ...
    def progress(self, key: str, fraction: float, text: str, detail: object = None) -> None: ...
    def measured(self, key: str, figures: dict) -> None: ...
    def measured_of(self, key: str) -> dict: ...


def accepted(result: CommandResult, host: str, what: str):
    """gluster's answer to a command that changes something: its XML root, or ExecutorError with
    gluster's own words."""
    try:
        return gx.parse(result.stdout)
    except gx.GlusterCommandError as exc:
        raise ExecutorError(host, f"gluster refused {what}: {exc.op_errstr or exc}") from exc
    except gx.GlusterXMLError as exc:
        raise ExecutorError(host, f"{what}: {exc}") from exc


def remote_steps(plan: ChangePlan, ctx: Context) -> list[Step]:
    return [_remote(step, ctx, plan) for step in plan.steps]


def _remote(s: ChangeStep, ctx: Context, plan: ChangePlan) -> Step:
    commands = [list(c) for c in s.commands] or ([list(s.watch)] if s.watch else [])
    start = next((x for x in plan.steps if x.kind == cm.REBALANCE_START), None)
    make = {
        cm.PROBE: _probe, cm.PEERS_WAIT: _peers_wait, cm.MKDIR: _mkdir, cm.ADD_BRICK: _add_brick,
        cm.REBALANCE_START: _rebalance_start,
        cm.REBALANCE_WAIT: lambda s, ctx: _rebalance_wait(s, ctx, start),
        cm.REMOVE_START: _remove_start, cm.REMOVE_WAIT: _remove_wait, cm.REMOVE_COMMIT: _remove_commit,
        cm.REMOVE_STOP: _stop, cm.REPLACE_BRICK: _replace, cm.HEAL_WAIT: _heal_wait, cm.READ_BACK: _read_back,
        cm.OPTIONS_RAISE: _options, cm.OPTIONS_RESTORE: _options,
    }[s.kind]
    action, done = make(s, ctx)
    return Step(s.key, s.title, s.host, commands, undo=s.undo, done_check=done, action=action,
                timeout=600.0)


# ---- simple steps -------------------------------------------------------------------------
def _probe(s: ChangeStep, ctx: Context):
    host = s.key.partition(":")[2]

    async def action(ex: Executor) -> str:
        accepted(await rd.gluster(ex, s.commands[0]), ex.host, f"peer probe {host}")
        return f"{host} probed"

    return action, glusterstate.peer_in_pool_check(host)


def _peers_wait(s: ChangeStep, ctx: Context):
    async def action(ex: Executor) -> str:
        # every member must see the others: add-brick is staged on each of them
        members = list(dict.fromkeys([s.host, *ctx.pool_members()]))
        for host in members:
            await glusterstate.wait_pool_connected(len(members) - 1)(ctx.executor(host))
        return f"{len(members)} members see each other connected"

    return action, None


def _mkdir(s: ChangeStep, ctx: Context):
    async def action(ex: Executor) -> str:
        await ex.run(list(s.commands[0]), sudo=True, check=True, timeout=60)
        return "created"

    return action, brick_dir_check(s.bricks[0].path)


def _in_volume(bricks: tuple[BrickRef, ...], ctx: Context, present: bool, what: str):
    async def check(ex: Executor) -> str | None:
        info = await rd.volume_info(ex, ctx.volume)
        have = {b.ref for b in info.bricks}
        if all((b in have) == present for b in bricks):
            return what
        return None

    return check


def _add_brick(s: ChangeStep, ctx: Context):
    added = tuple(b for b in s.bricks)

    async def action(ex: Executor) -> str:
        accepted(await rd.gluster(ex, s.commands[0]), ex.host, "add-brick")
        info = await rd.volume_info(ex, ctx.volume)          # read back
        missing = [str(b) for b in added if b not in {x.ref for x in info.bricks}]
        if missing:
            raise ExecutorError(ex.host, f"add-brick said yes but volume info lacks {', '.join(missing)}")
        return f"{len(added)} brick(s) in the volume ({info.type_str}, {len(info.bricks)} bricks)"

    return action, _in_volume(added, ctx, True, "the bricks are in the volume already")


# ---- migrations -------------------------------------------------------------------------------
async def _bricks_online(ex: Executor, ctx: Context) -> str:
    """Wait (up to ONLINE_LIMIT) until ``volume status`` shows every brick online, as a
    rebalance needs: gluster starts one with a brick down, and the node's rebalance process
    then fails at once (it runs with assert-no-child-down: a replica set or a distribute brick
    it cannot reach stops it). Bricks an add-brick just started show online only once they
    have registered their port, seconds later on a loaded server. '' when none had to be
    waited for, else what was waited for; ExecutorError naming the bricks still offline."""
    t0 = time.monotonic()
    delay, first = ONLINE_POLL, None
    while True:
        offline = await rd.offline_bricks(ex, ctx.volume)
        if not offline:
            if first is None:
                return ""
            waited = f"waited {time.monotonic() - t0:.0f} s until {', '.join(map(str, first))} came online"
            ctx.log(waited)
            return waited
        if first is None:
            first = offline
            ctx.log(f"{', '.join(map(str, offline))} not online yet (gluster volume status {ctx.volume}): "
                    "the rebalance starts once every brick is")
        if time.monotonic() - t0 > ONLINE_LIMIT:
            raise ExecutorError(ex.host, (
                f"not starting the rebalance: {', '.join(map(str, offline))} not online after {ONLINE_LIMIT:.0f} s "
                f"(gluster volume status {ctx.volume}); a rebalance started with a brick down fails on every node. "
                f"Bring the brick back (gluster volume start {ctx.volume} force starts the bricks that are down), "
                "then --resume"))
        await asyncio.sleep(delay)
        delay = min(delay * 1.5, 5 * ONLINE_POLL)


async def _start_rebalance(ex: Executor, ctx: Context, argv, key: str) -> tuple[str, str]:
    """Every brick online, then ``rebalance start``: (its task id, what was waited for)."""
    waited = await _bricks_online(ex, ctx)
    root = accepted(await rd.gluster(ex, argv), ex.host, "rebalance start")
    task = (root.findtext("volRebalance/task-id") or "").strip()
    ctx.task_started(key, task)
    return task, waited


def _rebalance_start(s: ChangeStep, ctx: Context):
    async def action(ex: Executor) -> str:
        task, waited = await _start_rebalance(ex, ctx, s.commands[0], s.key)
        return (f"started (task {task})" if task else "started") + (f" after every brick was online ({waited})"
                                                                   if waited else "")

    async def done(ex: Executor) -> str | None:
        st = await rd.migration_status(ex, ctx.volume, gp.REBALANCE, names=ctx.names)
        if st is None or st.task_id not in ctx.known_task(s.key) or not (st.running or st.completed):
            return None
        return f"the rebalance this change started is {'running' if st.running else 'completed'} (task {st.task_id})"

    return action, done


def _migration_text(st: gp.MigrationStatus) -> str:
    return (f"{st.kind}: {st.lookups} scanned, {st.files} moved ({format_bytes(st.size)}), {st.skipped} skipped, "
            f"{st.failures} failed, {st.runtime:g} s; " + "; ".join(f"{n.name} {n.status_str}" for n in st.nodes))


async def _watch(s: ChangeStep, ctx: Context, ex: Executor, kind: str, bricks=()) -> gp.MigrationStatus:
    """Poll until every node reports the migration finished; the last status."""
    started, last_log, refused = time.monotonic(), 0.0, 0
    while True:
        try:
            st = await rd.migration_status(ex, ctx.volume, kind, bricks, ctx.names)
        except ExecutorError as exc:
            # glusterd answers a status read with an error now and then while the migration's
            # processes start or end (seen on the sandbox: "Brick ops failed on node2. Glusterd
            # Syncop Mgmt brick op 'Rebalance' failed"); reading changes nothing, so read again
            refused += 1
            if refused > STATUS_RETRIES:
                raise
            ctx.log(f"{kind} status could not be read ({exc}); reading it again ({refused} of {STATUS_RETRIES})")
            await asyncio.sleep(STATUS_RETRY_PAUSE)
            continue
        refused = 0
        if st is None:
            raise ExecutorError(ex.host, f"no {kind} runs on {ctx.volume} (it was stopped or never started); "
                                         "run the change again with --resume to start it again")
        expected = s.predicted.expected if s.predicted else 0.0
        fraction = min(st.runtime / expected, 0.99) if expected > 0 else 0.0
        ctx.progress(s.key, fraction, _migration_text(st), st)
        if time.monotonic() - last_log > 30:
            last_log = time.monotonic()
            ctx.log(_migration_text(st))
        if not st.running and st.nodes:
            ctx.measured(s.key, {"files": st.files, "bytes": st.size, "lookups": st.lookups, "failures": st.failures,
                                 "skipped": st.skipped, "runtime": st.runtime, "nodes": len(st.nodes),
                                 "node_lines": st.node_lines()})
            return st
        await asyncio.sleep(poll_delay(time.monotonic() - started))


async def _failure_causes(ex: Executor, ctx: Context, bad: list[gp.MigrationNode]) -> dict[str, list[str] | str]:
    """Each failed node's cause from its rebalance log: its error lines, or why they could not
    be read (a string). The node is reached by the name its bricks carry in the volume."""
    try:
        hosts = {b.host_uuid: b.ref.node for b in (await rd.volume_info(ex, ctx.volume)).bricks if b.host_uuid}
    except ExecutorError:
        hosts = {}
    out: dict[str, list[str] | str] = {}
    for n in bad:
        host = hosts.get(n.uuid, n.name)
        try:
            out[n.name] = await rd.rebalance_log_cause(ctx.executor(host), ctx.volume)
        except (ExecutorError, KeyError, ValueError) as exc:
            out[n.name] = f"its log could not be read: {exc}"
    return out


def _cause_text(causes: dict[str, list[str] | str], log: str) -> str:
    parts = []
    for name, lines in causes.items():
        if isinstance(lines, str):
            parts.append(f"{name}: {lines}")
        elif lines:
            parts.append(f"{name}'s {log} ends: " + " | ".join(lines))
        else:
            parts.append(f"{name}'s {log} names no error (the process may have been killed)")
    return "; ".join(parts)


def _restartable(bad: list[gp.MigrationNode], causes: dict[str, list[str] | str]) -> bool:
    """Started again by the runner: every bad node failed (none was stopped: that was someone's
    decision) for a transient cause (a subvolume down or not reachable), or for none its log
    names: no error line at all (a killed process), or only warnings such as a hard link
    skipped (seen on the sandbox: glusterd marked a node failed as its rebalance process ended,
    its log saying "Rebalance is completed … failures: 0" — rebalancelog.names_an_error)."""
    return all(n.failed for n in bad) and all(
        not isinstance(c, str) and (not c or rebalancelog.transient(c) or not rebalancelog.names_an_error(c))
        for c in causes.values())


def _rebalance_wait(s: ChangeStep, ctx: Context, start: ChangeStep | None = None):
    start_argv = list(start.commands[0]) if start is not None and start.commands else cli.rebalance_argv(ctx.volume,
                                                                                                        "start")
    start_key = start.key if start is not None else "rebalance-start"
    log = rd.rebalance_log_path(ctx.volume)

    async def action(ex: Executor) -> str:
        restarts: list[dict] = []
        while True:
            st = await _watch(s, ctx, ex, gp.REBALANCE)
            bad = [n for n in st.nodes if n.failed or n.stopped]
            if not bad:
                if st.failures and len(restarts) < REBALANCE_RESTARTS:
                    # files (or directories, for the layout) that failed to move stay where they
                    # were; a new rebalance tries them again, as an admin would (seen on the sandbox:
                    # a fix-layout lookup of a directory another node's rebalance was creating on a
                    # new brick failed with "No data available")
                    said = "; ".join(st.node_lines())
                    ctx.log(f"the rebalance completed with {st.failures} failure(s) ({said}): starting it again "
                            f"({len(restarts) + 1} of at most {REBALANCE_RESTARTS})")
                    task, waited = await _start_rebalance(ex, ctx, start_argv, start_key)
                    restarts.append({"failed": said, "cause": f"{st.failures} file(s) failed to move", "task": task,
                                     "waited": waited})
                    ctx.measured(s.key, {**ctx.measured_of(s.key), "restarts": restarts})
                    continue
                break
            causes = await _failure_causes(ex, ctx, bad)
            said = ", ".join(f"{n.name} ({n.status_str})" for n in bad)
            why = _cause_text(causes, log)
            if len(restarts) < REBALANCE_RESTARTS and _restartable(bad, causes):
                ctx.log(f"the rebalance failed on {said}: {why}. A transient cause: starting it again once every "
                        f"brick is online ({len(restarts) + 1} of at most {REBALANCE_RESTARTS})")
                try:
                    task, waited = await _start_rebalance(ex, ctx, start_argv, start_key)
                except ExecutorError as exc:
                    raise ExecutorError(ex.host, f"the rebalance did not complete on {said}: {why}. Starting it "
                                                 f"again: {exc}") from exc
                restarts.append({"failed": said, "cause": why, "task": task, "waited": waited})
                ctx.measured(s.key, {**ctx.measured_of(s.key), "restarts": restarts})
                continue
            tried = (f" It was started again {len(restarts)} time(s) (each after a transient failure: "
                     + "; ".join(r["cause"] for r in restarts) + ") and failed again." if restarts else "")
            if restarts:
                ctx.measured(s.key, {**ctx.measured_of(s.key), "restarts": restarts})
            raise ExecutorError(ex.host, f"the rebalance did not complete on {said}: {why}.{tried} "
                                         "--resume starts it again")
        if restarts:
            ctx.measured(s.key, {**ctx.measured_of(s.key), "restarts": restarts})
        again = (f"; started again {len(restarts)} time(s) after it failed on "
                 + "; ".join(f"{r['failed']} ({r['cause']})" for r in restarts)) if restarts else ""
        if st.failures:
            raise ExecutorError(ex.host, f"{st.failures} file(s) failed to move (they stay where they were and stay "
                                         f"readable): {'; '.join(st.node_lines())}; the names are in "
                                         f"/var/log/glusterfs/{ctx.volume}-rebalance.log on those nodes. "
                                         "--resume runs the rebalance again" + again)
        return _migration_text(st) + again

    return action, None


def _remove_start(s: ChangeStep, ctx: Context):
    bricks = s.bricks

    async def action(ex: Executor) -> str:
        st = await rd.migration_status(ex, ctx.volume, gp.REMOVE_BRICK, bricks, ctx.names)
        if st is not None and st.running:
            ctx.task_started(s.key, st.task_id)
            return f"running already (task {st.task_id})"
        if st is not None:       # finished with failures, or failed: stop it and start again
            accepted(await rd.gluster(ex, cli.remove_brick_argv(ctx.volume, bricks, "stop")), ex.host,
                     "remove-brick stop")
            ctx.log(f"the earlier remove-brick ({_migration_text(st)}) was stopped to start it again")
        root = accepted(await rd.gluster(ex, s.commands[0]), ex.host, "remove-brick start")
        task = (root.findtext("volRemoveBrick/task-id") or "").strip()
        ctx.task_started(s.key, task)
        return f"started (task {task})" if task else "started"

    async def done(ex: Executor) -> str | None:
        st = await rd.migration_status(ex, ctx.volume, gp.REMOVE_BRICK, bricks, ctx.names)
        if st is None or not (st.running or st.clean):
            return None
        if not st.running:
            # gluster said completed with no failure, yet a data file may be left on a retiring
            # brick (seen on the sandbox: a hard link's other name on another set): then it is
            # not done, and the action stops it and starts it again, as the wait's error says
            for b in bricks:
                if await rd.leftover_files(ctx.executor(b.node), b):
                    return None
        ctx.task_started(s.key, st.task_id)
        return f"the remove-brick of these bricks is {'running' if st.running else 'completed'} (task {st.task_id})"

    return action, done


async def _clean_or_raise(ctx: Context, ex: Executor, bricks: tuple[BrickRef, ...],
                          st: gp.MigrationStatus | None, key: str = "") -> str:
    """The remove-brick is clean and nothing is left on the retiring bricks, or ExecutorError
    naming what stops the commit."""
    if st is None:
        raise ExecutorError(ex.host, "no remove-brick runs for these bricks (stopped?): not committing; "
                                     "--resume starts the migration again")
    if not st.completed:
        raise ExecutorError(ex.host, f"not committing: the migration is not completed on every node "
                                     f"({'; '.join(st.node_lines())})")
    left: list[str] = []
    for b in bricks:
        left += [f"{b.node}:{p}" for p in await rd.leftover_files(ctx.executor(b.node), b)]
    if key and (left or st.failures or st.skipped):   # named in the history, for a view or a script
        ctx.measured(key, {**ctx.measured_of(key), "left_on_bricks": left})
    if st.failures or st.skipped or left:
        named = (f"; files still on the retiring bricks: {', '.join(left[:20])}"
                 + (f" and {len(left) - 20} more" if len(left) > 20 else "")) if left else ""
        raise ExecutorError(ex.host, (
            f"the migration finished with {st.failures} failure(s) and {st.skipped} skipped file(s){named}. Brickyard "
            "did not commit: a commit now would drop those files from the volume (glusterfs #2350). Free space or "
            "fix what the rebalance log names (/var/log/glusterfs/" + ctx.volume + "-rebalance.log on "
            + ", ".join(sorted({n.name for n in st.nodes if n.failures or n.skipped} or {n.name for n in st.nodes}))
            + "), then --resume (it stops and starts the migration again), or --rollback to keep the bricks"))
    return f"completed on {len(st.nodes)} node(s) with 0 failures and 0 skipped; no data file left on the bricks"


def _remove_wait(s: ChangeStep, ctx: Context):
    async def action(ex: Executor) -> str:
        st = await _watch(s, ctx, ex, gp.REMOVE_BRICK, s.bricks)
        return await _clean_or_raise(ctx, ex, s.bricks, st, s.key) + f" ({_migration_text(st)})"

    return action, None


def _remove_commit(s: ChangeStep, ctx: Context):
    async def action(ex: Executor) -> str:
        # read back right before the commit (kept in the change's outputs)
        st = await rd.migration_status(ex, ctx.volume, gp.REMOVE_BRICK, s.bricks, ctx.names)
        why = await _clean_or_raise(ctx, ex, s.bricks, st)
        accepted(await rd.gluster(ex, s.commands[-1]), ex.host, "remove-brick commit")
        return f"committed after reading: {why}"

    return action, _in_volume(s.bricks, ctx, False, "the bricks have left the volume already")


def _stop(s: ChangeStep, ctx: Context):
    kind = gp.REBALANCE if s.key == "rebalance-stop" else gp.REMOVE_BRICK

    async def action(ex: Executor) -> str:
        result = await rd.gluster(ex, s.commands[0])
        try:
            gx.parse(result.stdout)
        except gx.GlusterCommandError as exc:
            if gp.not_started(exc):
                return "nothing was running"
            raise ExecutorError(ex.host, f"gluster refused {kind} stop: {exc.op_errstr}") from exc
        return "stopped"

    async def done(ex: Executor) -> str | None:
        st = await rd.migration_status(ex, ctx.volume, kind, s.bricks, ctx.names)
        if st is None or (kind == gp.REBALANCE and not st.running):
            return f"no {kind} runs"
        return None

    return action, done


# ---- replace and heal -----------------------------------------------------------------------
def _replace(s: ChangeStep, ctx: Context):
    old, new = s.bricks

    async def action(ex: Executor) -> str:
        heal = await rd.heal_summary(ex, ctx.volume)
        dead = next((h for h in heal if h.ref == old and not h.connected), None)
        # entries the other bricks of its set hold for a dead brick are what its replacement heals
        exempt = set(ctx.set_of(old)) if dead is not None else {old}
        busy = [h for h in heal if h.ref not in exempt and not h.clean]
        if busy:
            raise ExecutorError(ex.host, "heal is not finished, so no brick is touched (glusterfs #895): " + "; ".join(
                f"{h.ref} {h.total if h.total is not None else '?'} pending"
                + ("" if h.connected else f" ({h.status[:60]})") for h in busy))
        accepted(await rd.gluster(ex, s.commands[-1]), ex.host, f"replace-brick {old} {new}")
        info = await rd.volume_info(ex, ctx.volume)
        have = [b.ref for b in info.bricks]
        if new not in have or old in have:
            raise ExecutorError(ex.host, f"replace-brick said yes but volume info lists {', '.join(map(str, have))}")
        return f"{new} serves in place of {old}"

    async def done(ex: Executor) -> str | None:
        info = await rd.volume_info(ex, ctx.volume)
        have = {b.ref for b in info.bricks}
        return f"{new} has replaced {old} already" if new in have and old not in have else None

    return action, done


HEAL_UNCONFIRMED = 0.99   # the indices are empty, heal info has not said so yet


def heal_fraction(pending: int, most: int, unknown: bool = False) -> float:
    """How far a heal has come: the share of the most entries seen waiting at once that no
    longer wait (an add-brick's heal finds entries as it crawls, so the most seen can grow and
    the fraction fall back). Below 1 until heal info confirms; 0 while a brick cannot be counted."""
    if unknown:
        return 0.0
    if pending <= 0:
        return HEAL_UNCONFIRMED
    return min(max(1.0 - pending / most, 0.0), HEAL_UNCONFIRMED) if most > 0 else 0.0


def _heal_wait(s: ChangeStep, ctx: Context):
    async def launch(ex: Executor, pending: int) -> None:
        result = await ex.run(list(s.commands[0]), sudo=True, timeout=120)
        said = (result.stdout + result.stderr).decode(errors="replace").strip().splitlines()
        ctx.log(f"heal: {pending} entries waiting; launched an index heal: {said[0] if said else result.exit_status}")

    async def indices(bricks: list[BrickRef]) -> tuple[dict[str, int], list[str]]:
        """Entries in each brick's heal index, and the bricks that could not be counted."""
        async def one(b: BrickRef):
            try:
                return await rd.index_pending(ctx.executor(b.node), b)
            except ExecutorError as exc:
                return exc
        counts = await asyncio.gather(*(one(b) for b in bricks))
        unknown = [f"{b} ({c})" for b, c in zip(bricks, counts) if isinstance(c, Exception)]
        return {str(b): c for b, c in zip(bricks, counts) if isinstance(c, int)}, unknown

    async def action(ex: Executor) -> str:
        bricks = [b.ref for b in (await rd.volume_info(ex, ctx.volume)).bricks]
        started, clean_reads, last_clean, since_down, last_log = time.monotonic(), 0, 0.0, None, 0.0
        stall, most = HealStall(), 0
        while True:
            per_brick, unknown = await indices(bricks)
            pending = sum(per_brick.values())
            most = max(most, pending)
            if unknown:
                since_down = since_down or time.monotonic()
                if time.monotonic() - since_down > DISCONNECTED_LIMIT:
                    raise ExecutorError(ex.host, "heal cannot be watched: " + "; ".join(unknown))
            else:
                since_down = None
            ctx.progress(s.key, heal_fraction(pending, most, bool(unknown)),
                         f"heal: {pending} entries in the heal indices of {len(bricks)} bricks",
                         {"pending": pending, "most": most, "bricks": per_brick, "unknown": unknown})
            if pending == 0 and not unknown:
                if clean_reads == 0 or time.monotonic() - last_clean >= HEAL_RECHECK:
                    clean_reads += 1
                    last_clean = time.monotonic()
                if clean_reads >= HEAL_CLEAN_READS:
                    # gluster's own word last: heal info summary, every brick connected, nothing pending
                    heal = await rd.heal_summary(ex, ctx.volume)
                    if all(h.clean for h in heal):
                        ctx.measured(s.key, {"bricks": len(heal)})
                        return (f"nothing in any heal index (read {clean_reads} times), and heal info: nothing "
                                f"pending on any of the {len(heal)} bricks")
                    ctx.progress(s.key, HEAL_UNCONFIRMED, "heal info: " + "; ".join(
                        f"{h.ref} {h.total if h.total is not None else '?'} ({h.status[:40]})"
                        for h in heal if not h.clean), heal)
                    clean_reads = 0
                else:
                    await asyncio.sleep(HEAL_RECHECK)
                    continue
            else:
                clean_reads = 0
            # entries wait and their number does not fall: the self-heal daemon may not crawl
            # before its next timeout (10 min), so launch an index heal, as an admin would
            if stall.launch(pending, time.monotonic()):
                await launch(ex, pending)
            if time.monotonic() - last_log > 30:
                last_log = time.monotonic()
                ctx.log(f"heal: {pending} entries pending")
            await asyncio.sleep(poll_delay(time.monotonic() - started))

    return action, None


class HealStall:
    """When a heal wait launches an index heal: at the first read with entries waiting, then
    whenever their number has not fallen below the lowest count read since the last launch for
    HEAL_STALL seconds. The lowest since the last launch, not the lowest ever: entries added
    while the heal runs (the count rose) and now falling are progress, and relaunching every
    HEAL_STALL seconds while they fall only adds crawls."""

    def __init__(self) -> None:
        self.best: int | None = None
        self.best_at = 0.0
        self.launched_at: float | None = None

    def launch(self, pending: int, now: float) -> bool:
        if self.best is None or pending < self.best:
            self.best, self.best_at = pending, now
        if not pending:
            return False
        if self.launched_at is None or now - max(self.best_at, self.launched_at) > HEAL_STALL:
            self.launched_at, self.best, self.best_at = now, pending, now
            return True
        return False


# ---- heal and migration threads ---------------------------------------------------------------
def options_of(s: ChangeStep) -> dict[str, str]:
    """What an options step leaves in effect on the volume: {option: value}, gluster's default
    for an option it resets."""
    wanted: dict[str, str] = {}
    for argv in s.commands:
        # [gluster, --mode=script, --xml, volume, set|reset, NAME, …]: the verb by its place, so a
        # volume named "set" or "reset" is not taken for it
        verb = argv[len(cli.CHANGE) + 1]
        if verb == "set":
            pairs = list(argv[len(cli.CHANGE) + 3:])
            wanted.update(zip(pairs[::2], pairs[1::2]))
        elif verb == "reset":
            wanted[argv[-1]] = str(GLUSTER_DEFAULTS[argv[-1]])
    return wanted


async def options_now(ex: Executor, volume: str, keys) -> dict[str, str]:
    """The values in effect (``volume get``) of these options."""
    now = {}
    for key in keys:
        root = accepted(await rd.gluster(ex, cli.volume_get_argv(volume, key)), ex.host, f"volume get {key}")
        for opt in root.iter("Opt"):
            if (opt.findtext("Option") or "").strip() == key:
                value = (opt.findtext("Value") or "").strip()       # an unset one: "1 (DEFAULT)"
                now[key] = value.removesuffix("(DEFAULT)").strip()
    return now


def _shown(values: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in values.items())


async def set_options(ex: Executor, volume: str, s: ChangeStep) -> str:
    """Run an options step's commands and read the values in effect back."""
    wanted = options_of(s)
    for argv in s.commands:
        accepted(await rd.gluster(ex, argv), ex.host, cli.render(argv[3:]))
    now = await options_now(ex, volume, wanted)
    off = [f"{k} is {now.get(k, '?')}" for k, v in wanted.items() if now.get(k) != v]
    if off:
        raise ExecutorError(ex.host, f"gluster said yes but volume get shows {', '.join(off)}")
    return f"{volume}: {_shown(wanted)}"


def _options(s: ChangeStep, ctx: Context):
    wanted = options_of(s)

    async def action(ex: Executor) -> str:
        return await set_options(ex, ctx.volume, s)

    async def done(ex: Executor) -> str | None:
        now = await options_now(ex, ctx.volume, wanted)
        return f"{_shown(wanted)} already" if now == wanted else None

    return action, done


# ---- read back ----------------------------------------------------------------------------------
def _read_back(s: ChangeStep, ctx: Context):
    wanted = list(s.bricks)

    async def action(ex: Executor) -> str:
        info = await rd.volume_info(ex, ctx.volume)
        have = [b.ref for b in info.bricks]
        if have != wanted:
            raise ExecutorError(ex.host, f"volume info lists {', '.join(map(str, have))}; the plan ends with "
                                         f"{', '.join(map(str, wanted))}")
        status = gx.parse_volume_status((await rd.gluster(ex, s.commands[1])).stdout).get(ctx.volume, [])
        online = {b.ref for b in status if b.online}
        down = [str(b) for b in wanted if b not in online]
        if down:
            raise ExecutorError(ex.host, f"offline after the change: {', '.join(down)}")
        return f"{info.type_str}, {len(have)} bricks in the planned order, all online"

    return action, None

"""`brickyard change FILE --volume NAME [--dry-run] [--yes] [--resume] [--rollback]`: change a
live volume to what the drawing shows (expand, rebalance, shrink, replace, raise redundancy).

The live state is read over SSH from the topology's first node; the plan (``core.change``) is
printed with every command; ``--dry-run`` stops there. Otherwise the change pre-flight runs,
then (with ``--yes``) the steps, their state kept in the history database: Ctrl-C cancels
(a running rebalance or remove-brick is stopped, the volume stays consistent), ``--resume``
goes on with the volume's unfinished change, ``--rollback`` undoes it.

Exit codes: 0 done (or the dry run printed), 1 refused, pre-flight failed, a step failed or
--yes missing, 2 bad input, 130 cancelled with Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .command import Outcome, Refused, UsageError
from .remote_common import RemoteCommand, make_pool


class ChangeCommand(RemoteCommand):
    description = ("Change a live volume to what the topology file draws: add sets (and rebalance), remove sets "
                   "(migrating their files first), replace bricks (healing after each), or raise the replica "
                   "count. Reads the volume over SSH, prints the plan with every command (--dry-run stops there), "
                   "checks the hosts and the volume, and with --yes runs it; --resume and --rollback act on the "
                   "volume's unfinished change.")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        from .inputs import TOPOLOGY_FILE_HELP

        p.add_argument("file", nargs="?", help=TOPOLOGY_FILE_HELP + "; the drawing of the volume as it should be")
        p.add_argument("--volume", metavar="NAME", help="the volume to change (default: the file's only volume)")
        p.add_argument("--dry-run", action="store_true", help="print the plan and every command, run nothing")
        p.add_argument("--yes", action="store_true", help="run the change (it moves data on a live volume)")
        p.add_argument("--resume", action="store_true", help="go on with this volume's unfinished change")
        p.add_argument("--rollback", action="store_true",
                       help="undo this volume's unfinished change (plan back to the volume before it)")
        p.add_argument("--fix-layout", action="store_true",
                       help="after an expand only fix the layout: existing files stay where they are")
        p.add_argument("--list", action="store_true",
                       help="list the changes kept in the history (of --volume, or all), with each step's time "
                            "against its prediction, and exit")
        p.add_argument("--db", metavar="URL", help="history database (default as `brickyard history`)")

    def run(self, args: argparse.Namespace) -> Outcome:
        from .inputs import load_topology, pick_volume

        if args.list:
            return _list(args)
        if args.file is None:
            raise UsageError("give the topology file (or --list)")
        if args.resume and args.rollback:
            raise UsageError("--resume and --rollback exclude each other")
        topo = load_topology(args.file)
        volume = pick_volume(topo, args.volume).name
        from .history import _open as open_store

        store = open_store(args)
        try:
            record = None
            unfinished = store.changes.list(volume=volume, unfinished=True)
            if args.resume or args.rollback:
                if not unfinished:
                    raise Refused(f"no unfinished change of {volume} in the history ({store.describe()})")
                record = unfinished[0]
                if store.changes.owner_alive(record):
                    raise Refused(f"change {record.change_id[:12]} of {volume} is running now in process "
                                  f"{record.owner_pid}")
            elif unfinished and not args.dry_run:
                r = unfinished[0]
                alive = store.changes.owner_alive(r)
                raise Refused(f"change {r.change_id[:12]} of {volume} ({r.kinds}) is {r.status}"
                              + (f" in process {r.owner_pid}" if alive else
                                 ": --resume goes on with it, --rollback undoes it"))
            return _drive(args, store, topo, volume, record)
        finally:
            store.close()


COMMAND = ChangeCommand()


def _list(args) -> Outcome:
    """Every change kept in the history, newest first: what it did, each step's time against its
    prediction, predicted and measured in total."""
    import time

    from ..core.changemodel import Range, span
    from .history import _open as open_store

    store = open_store(args)
    try:
        records = store.changes.list(volume=args.volume or None)
        alive = {r.change_id: store.changes.owner_alive(r) for r in records if r.status == "running"}
    finally:
        store.close()
    docs, lines = [], []
    for r in records:
        status = r.status if r.status != "running" or alive.get(r.change_id) else "stopped"
        steps = []
        for s in r.plan.get("steps", []):
            st = r.state.get("steps", {}).get(s["key"], {})
            steps.append({"key": s["key"], "title": s["title"], "status": st.get("status", "pending"),
                          "seconds": st.get("seconds"), "predicted_seconds": s.get("predicted_seconds")})
        docs.append({"change_id": r.change_id, "volume": r.volume, "kinds": r.kinds, "status": status,
                     "message": r.state.get("message", ""), "created_at": r.created_at, "source": r.source,
                     "predicted_seconds": r.predicted_seconds, "measured_seconds": r.measured_seconds,
                     "measured": r.state.get("measured", {}), "steps": steps})
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
        total = (f"took {span(r.measured_seconds)}, predicted ~{span(r.predicted_seconds)}"
                 if r.measured_seconds is not None and r.predicted_seconds is not None else "")
        lines.append(f"{r.change_id[:12]}  {when}  {status:<11}  {r.volume}: {r.kinds}  {total}")
        if status == "stopped":
            lines.append("    its process is gone (killed, or the machine went down): --resume goes on, --rollback "
                         "undoes it")
        for s in steps:
            predicted = s["predicted_seconds"]
            guess = f" (predicted {Range(**predicted).text()})" if predicted else ""
            took = span(s["seconds"]) if s["seconds"] is not None else "-"
            lines.append(f"    {s['status']:8} {took:>9}  {s['title']}{guess}")
    return Outcome(0, doc=docs, text=lines or ["no change kept in the history"], indent=1)


def _drive(args, store, topo, volume: str, record) -> Outcome:
    """Read, plan, check and run on one loop thread; Ctrl-C cancels the change."""
    from ..remote.hosts import TopologyHosts
    from ..remote.loop import AsyncLoopThread

    holder: list[Any] = []
    printer = _Printer(args.json)
    pool = make_pool(args)

    async def main() -> dict:
        try:
            hosts = TopologyHosts(topo, pool)
            return await _session(args, store, topo, volume, record, hosts, holder, printer)
        finally:
            await pool.close()

    interrupted = False

    def on_interrupt() -> None:
        nonlocal interrupted
        interrupted = True
        if not holder:
            raise KeyboardInterrupt
        holder[0].cancel()
        print("\ncancelling: the running step is stopped and any rebalance or remove-brick with it; "
              "--resume goes on later", file=sys.stderr, flush=True)

    with AsyncLoopThread("brickyard-change") as loop:
        result = loop.run_through_interrupts(main(), on_interrupt)
    return _outcome(args, result, interrupted)


async def _session(args, store, topo, volume, record, hosts, holder, printer) -> dict:
    from ..core.change import plan_change
    from ..remote.change import ChangeError, ChangeRunner, measured_rates
    from ..remote.changeflight import change_preflight
    from ..remote.changeread import read_live_state
    from ..remote.executor import ExecutorError

    origin = topo.pool_origin(topo.require_volume(volume))
    try:
        live = await read_live_state(hosts(origin), volume)
    except ExecutorError as exc:
        raise Refused(f"cannot read {volume} from {origin}: {exc}") from None
    try:
        if record is not None and args.resume:
            runner = ChangeRunner.resume(record, store, hosts, on_event=printer)
        elif record is not None:
            runner = ChangeRunner.rollback(record, live, store, hosts, on_event=printer)
        else:
            rates = measured_rates(store)
            plan = plan_change(topo, volume, live, fix_layout=args.fix_layout, rates=rates)
            if args.dry_run or not plan.ok or plan.nothing_to_do:
                return {"plan": plan, "dry_run": True}
            if not args.yes:
                return {"plan": plan, "needs_yes": True}
            runner = None
    except ChangeError as exc:
        raise Refused(str(exc)) from None
    plan = runner.plan if runner is not None else plan
    own = runner.own_tasks() if runner is not None else set()
    printer.plan(plan)
    flight = await change_preflight(plan, live, topo, hosts, own_tasks=own,
                                    resuming=record is not None and args.resume)
    if not flight.ok:
        return {"plan": plan, "preflight": flight, "change_id": runner.change_id if runner else None}
    if runner is None:
        try:
            runner = ChangeRunner.start(topo, volume, live, store, hosts, fix_layout=args.fix_layout,
                                        source=os.path.abspath(args.file), rates=measured_rates(store),
                                        on_event=printer)
        except ChangeError as exc:
            raise Refused(str(exc)) from None
    holder.append(runner)
    printer.start(runner)
    report = await runner.run()
    return {"plan": runner.plan, "preflight": flight, "report": report, "change_id": runner.change_id,
            "record": store.changes.get(runner.change_id)}


def _outcome(args, result: dict, interrupted: bool) -> Outcome:
    from ..remote.commandline import ssh_line, script_lines

    plan = result["plan"]
    doc: dict[str, Any] = {"volume": plan.volume, "plan": plan.to_json()}
    lines = [*plan.summary()]
    if plan.refusals:
        for r in plan.refusals:
            lines += [f"  what works instead:"] * bool(r.route) + [f"    - {step}" for step in r.route]
        return Outcome(1, doc={**doc, "ok": False, "exit": 1, "refused": True,
                               "error": "; ".join(r.message for r in plan.refusals)}, text=lines)
    if plan.nothing_to_do:
        return Outcome(0, doc={**doc, "ok": True, "exit": 0, "nothing_to_do": True}, text=lines)
    scripts: dict[str, str] = {}
    lines += [f"  {n}" for n in plan.notes]
    for i, s in enumerate(plan.steps, 1):
        when = f" [{s.predicted.text()}]" if s.predicted else ""
        lines.append(f"{i:2}. {s.host}: {s.title}{when}")
        lines.append(f"      why: {s.reason}")
        lines += [f"      {ssh_line(s.host, list(c), scripts)}" for c in s.commands]
        if s.watch:
            lines.append(f"      watch: {ssh_line(s.host, list(s.watch), scripts)} (until done)")
    lines += script_lines(scripts)
    if result.get("dry_run"):
        return Outcome(0, doc={**doc, "ok": True, "exit": 0, "dry_run": True},
                       text=["# dry run: nothing was run", *lines])
    if result.get("needs_yes"):
        return Outcome(1, doc={**doc, "ok": False, "exit": 1, "error": "run again with --yes to apply the change"},
                       text=[*lines, "", "Nothing was run. Run again with --yes to apply the change."])
    flight = result.get("preflight")
    if flight is not None:
        doc["preflight"] = flight.to_json()
    if "report" not in result:
        return Outcome(1, doc={**doc, "ok": False, "exit": 1, "error": "pre-flight failed: nothing was run"},
                       text=[*lines, "", flight.text(), "", "pre-flight failed: nothing was run"])
    report, record = result["report"], result["record"]
    code = 130 if interrupted else 0 if report.ok else 1
    state = record.state
    doc.update(ok=report.ok, exit=code, change_id=record.change_id, status=record.status,
               message=state.get("message", ""), report=report.to_json(), measured=state.get("measured", {}),
               predicted_seconds=record.predicted_seconds, measured_seconds=record.measured_seconds,
               steps=[{"key": s.key, "title": s.title, **state.get("steps", {}).get(s.key, {})} for s in plan.steps])
    if interrupted:
        doc["interrupted"] = True
    out = [f"change {record.change_id[:12]} of {plan.volume}: {record.status}: {state.get('message', '')}"]
    for s in plan.steps:
        st = state.get("steps", {}).get(s.key, {})
        took = f"{st['seconds']:.1f} s" if st.get("seconds") is not None else "-"
        predicted = f" (predicted {s.predicted.text()})" if s.predicted and st.get("status") == "done" else ""
        out.append(f"  {st.get('status', 'pending'):8} {took:>8}  {s.title}{predicted}")
    out += report.summary()[:1] if not report.ok else []
    out += report.notes
    return Outcome(code, doc=doc, text=out)


class _Printer:
    """Change events as lines on stderr (stdout keeps the result or the JSON). A terminal that
    went away (EPIPE) ends the printing, never the change."""

    def __init__(self, as_json: bool):
        self.quiet = os.environ.get("BRICKYARD_QUIET") == "1"
        self.index: dict[str, int] = {}
        self.total = 0

    def say(self, line: str) -> None:
        if self.quiet:
            return
        try:
            print(line, file=sys.stderr, flush=True)
        except OSError:
            self.quiet = True

    def plan(self, plan) -> None:
        self.index = {s.key: i + 1 for i, s in enumerate(plan.steps)}
        self.total = len(plan.steps)
        for line in plan.summary():
            self.say(line)

    def start(self, runner) -> None:
        self.say(f"change {runner.change_id[:12]} of {runner.volume}: {self.total} steps")

    def __call__(self, ev) -> None:
        if ev.kind == "step" and ev.status == "running":   # its end is a log line of the step machinery
            self.say(f"[{self.index.get(ev.step, 0)}/{self.total}] {ev.detail.step.host}: {ev.detail.step.title} ...")
        elif ev.kind == "log":
            self.say(f"    {ev.message}")

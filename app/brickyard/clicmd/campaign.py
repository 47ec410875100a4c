"""`brickyard campaign FILE`: the same benchmarks on several layouts of the same bricks, headless.

    brickyard campaign seed004.campaign.json --dry-run          # every step and command, nothing run
    brickyard campaign seed004.campaign.json --yes              # run it (accepting gluster's questions)
    brickyard campaign seed004.campaign.json --resume           # go on where it stopped
    brickyard campaign seed004.campaign.json --abandon          # tear down what it left, close it
    brickyard campaign seed004.campaign.json --interleave dt8   # dt8 three times, between the others
    brickyard campaign --list

For each layout: pre-flight, provision, each workload (its repeats inside one run), teardown;
baselines once. Every run goes to the history database tagged with the campaign and its cell;
the campaign's state is saved after every step, so Ctrl-C, SIGKILL, a lost host or a closed
window leaves it resumable. At the end the decision table is printed.

Exit codes: 0 every step done, 1 a step failed or was skipped for a failure (or the campaign
is busy/unfinished), 2 bad input (a bad campaign file names the field), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from .command import Outcome, Refused, UsageError
from .inputs import load_topology
from .remote_common import RemoteCommand, make_pool


class CampaignCommand(RemoteCommand):
    description = ("Pre-flight, provision, benchmark and tear down each layout of a campaign file in turn, then "
                   "print the decision table.")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("file", nargs="?", help="a campaign file (*.campaign.json)")
        p.add_argument("--topology", metavar="FILE", help="plan on this topology instead of the file's \"topology\"")
        p.add_argument("--dry-run", action="store_true",
                       help="print every step and command of every layout; run nothing")
        p.add_argument("--yes", action="store_true", help="accept the questions gluster would ask for each layout")
        p.add_argument("--resume", action="store_true", help="go on with the unfinished campaign of FILE")
        p.add_argument("--abandon", action="store_true",
                       help="tear down what the unfinished campaign of FILE provisioned and close it")
        p.add_argument("--no-wait", action="store_true", help="refuse instead of waiting when a host is busy")
        p.add_argument("--interleave", metavar="LAYOUT",
                       help="run LAYOUT --times times, spread between the other layouts (copies named LAYOUT-2, "
                            "LAYOUT-3 …): what a calibration that spreads or misses its own figures asks for")
        p.add_argument("--times", type=int, default=3, metavar="N",
                       help="with --interleave: how often LAYOUT runs in all (2–10, default 3)")
        p.add_argument("--list", action="store_true", help="list stored campaigns and exit")
        p.add_argument("--db", metavar="URL", help="history database (default as `brickyard history`)")

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..campaign import CampaignFileError

        if args.list:
            return _list(args)
        if not args.file:
            raise UsageError("give a campaign FILE (or --list)")
        if sum(map(bool, (args.resume, args.abandon, args.dry_run))) > 1:
            raise UsageError("--resume, --abandon and --dry-run exclude each other")
        topology = load_topology(args.topology) if args.topology else None
        if args.resume or args.abandon:
            return _continue(args, topology)
        if args.times != 3 and not args.interleave:
            raise UsageError("--times goes with --interleave LAYOUT")
        try:
            spec = _load(args, topology)
        except CampaignFileError as exc:
            raise UsageError(str(exc), exc.problems) from None
        if args.dry_run:
            return _dry_run(spec)
        from ..campaign.dryrun import questions

        asked = questions(spec)
        if asked and not args.yes:
            lines = [f"gluster would ask before creating {name}: {q}" for name, qs in asked.items() for q in qs]
            raise Refused("\n".join(lines + ["Run again with --yes to accept these and start the campaign."]),
                          questions=asked)
        store = _open(args)
        try:
            unfinished = [r for r in store.campaigns.list(source=spec.source, unfinished=True)]
            if unfinished:
                r = unfinished[0]
                raise Refused(f"campaign {r.campaign_id[:12]} of {args.file} is {r.status} "
                              f"({r.state.get('message') or 'not finished'}): --resume finishes it, --abandon tears "
                              "down what it provisioned and closes it")
            from ..campaign import CampaignRunner

            return _drive(args, store, lambda ex, on_event: CampaignRunner.start(
                spec, store, ex, on_event=on_event, wait_for_hosts=not args.no_wait))
        finally:
            store.close()


COMMAND = CampaignCommand()


def _load(args: argparse.Namespace, topology):
    """The campaign of ``args.file``, with ``--interleave LAYOUT`` applied (``specwrite.interleave``)."""
    from ..campaign import load
    from ..campaign.spec import from_data, read_file
    from ..campaign.specwrite import interleave

    if not args.interleave:
        return load(args.file, topology=topology)
    data, problems, _sha = read_file(args.file)
    try:
        data = interleave(data, args.interleave, args.times)
    except ValueError as exc:
        raise UsageError(f"--interleave {args.interleave}: {exc}") from None
    return from_data(data, source=os.path.abspath(args.file), topology=topology,
                     base_dir=Path(args.file).resolve().parent, problems=problems)


def _continue(args: argparse.Namespace, topology) -> Outcome:
    from ..campaign import CampaignFileError, CampaignRunner

    source = os.path.abspath(args.file)
    store = _open(args)
    try:
        records = store.campaigns.list(source=source, unfinished=True)
        if not records:
            done = store.campaigns.list(source=source)
            tail = f" (the last one, {done[0].campaign_id[:12]}, is {done[0].status})" if done else ""
            raise Refused(f"no unfinished campaign of {args.file} to {'resume' if args.resume else 'abandon'}{tail}")
        record = records[0]
        if store.campaigns.owner_alive(record):
            raise Refused(f"campaign {record.campaign_id[:12]} is running now in process {record.owner_pid}")
        try:
            CampaignRunner.resume(record, None, lambda h: None)  # type: ignore[arg-type,return-value]
        except CampaignFileError as exc:
            raise UsageError(f"stored campaign {record.campaign_id[:12]}: {exc}", exc.problems) from None
        if args.abandon:
            return _abandon(args, store, record)
        try:
            if _load(args, topology).sha256 != record.spec_sha256:
                print(f"note: {args.file} changed since campaign {record.campaign_id[:12]} started; it resumes "
                      "as it was started", file=sys.stderr)
        except (CampaignFileError, UsageError):
            pass
        return _drive(args, store, lambda ex, on_event: CampaignRunner.resume(
            record, store, ex, on_event=on_event, wait_for_hosts=not args.no_wait))
    finally:
        store.close()


def _abandon(args, store, record) -> Outcome:
    from ..campaign import CampaignRunner
    from ..campaign.state import C_ABANDONED

    def build(ex, on_event):
        runner = CampaignRunner.resume(record, store, ex, on_event=on_event, wait_for_hosts=not args.no_wait)
        runner.cancel(teardown=True)
        return runner

    outcome = _drive(args, store, build, final=False)
    rec = store.campaigns.get(record.campaign_id)
    if rec.status == "cancelled":
        state = dict(rec.state, status=C_ABANDONED, message="abandoned: " + str(rec.state.get("message", "")))
        store.campaigns.save_state(rec.campaign_id, state, C_ABANDONED)
        outcome.code = 0
        outcome.notes = [*outcome.notes, f"campaign {rec.campaign_id[:12]} abandoned; nothing it provisioned is left"]
    else:
        outcome.code = outcome.code or 1
    return outcome


def _drive(args, store, build, final: bool = True) -> Outcome:
    """Run a campaign runner on a loop thread; Ctrl-C interrupts it (resumable)."""
    from ..campaign import CampaignError
    from ..bench.request import executor_lookup
    from ..remote.hostkeys import UnknownHostKey
    from ..remote.hosts import TopologyHosts
    from ..remote.loop import AsyncLoopThread

    interrupted = False
    accepted: set[str] = set()
    printer = _Printer(args.json)
    while True:
        pool = make_pool(args)
        holder: list[Any] = []

        async def main():
            try:
                lookup = None

                def ex(host):
                    return lookup(host)

                runner = build(ex, printer)
                holder.append(runner)
                hosts = TopologyHosts(runner.spec.topology, pool)
                lookup = executor_lookup(hosts, runner.spec.topology, lambda h: pool.executor(h))
                printer.start(runner)
                return await runner.run()
            finally:
                await pool.close()

        try:
            def on_interrupt() -> None:
                nonlocal interrupted
                interrupted = True
                if holder:
                    holder[0].cancel(teardown=False)
                    print("\ninterrupting: the running step is stopped; --resume goes on from it", file=sys.stderr)

            with AsyncLoopThread("brickyard-campaign") as loop:
                state = loop.run_through_interrupts(main(), on_interrupt)
        except CampaignError as exc:   # a busy host (--no-wait), or Ctrl-C while waiting for one
            if interrupted:
                raise Refused(f"interrupted: {exc}", code=130, line=f"brickyard campaign: interrupted: {exc}") from None
            raise Refused(str(exc)) from None
        except UnknownHostKey as exc:
            if args.json or not sys.stdin.isatty() or exc.fingerprint in accepted:
                raise
            print(f"{exc.host}: the host key of {exc.lookup} is not known yet:\n  {exc.algorithm} {exc.fingerprint}",
                  file=sys.stderr)
            if input("Type 'yes' to trust it and remember it in Brickyard's known_hosts: ").strip() != "yes":
                raise
            accepted.add(exc.fingerprint)
            exc.accept()
            runner = holder[0]
            record = store.campaigns.get(runner.state.campaign_id)
            from ..campaign import CampaignRunner

            build = (lambda ex, on_event, record=record: CampaignRunner.resume(
                record, store, ex, on_event=on_event, wait_for_hosts=not args.no_wait))
            continue
        break
    runner = holder[0]
    return _finish(args, store, runner, state, interrupted, final)


def _finish(args, store, runner, state, interrupted: bool, final: bool) -> Outcome:
    from ..campaign.results import campaign_table
    from ..campaign.state import C_COMPLETE, FAILED, SKIPPED
    from .decision import render

    failed = [s for s in runner.steps if state.step(s.key).status == FAILED]
    code = 130 if interrupted else 0 if state.status == C_COMPLETE and not failed else 1
    table = campaign_table(runner.spec, state, store, model_check=True) if final else None
    if args.json:
        doc = {"ok": code == 0, "exit": code, "campaign_id": state.campaign_id, "status": state.status,
               "message": state.message, "provisioned": state.provisioned,
               "steps": [{"key": s.key, "title": s.title, **state.step(s.key).to_json()} for s in runner.steps],
               "decision_table": table.to_json() if table else None}
        if interrupted:
            doc["interrupted"] = True
        return Outcome(code, doc=doc, indent=1)
    lines = [f"campaign {runner.spec.name} ({state.campaign_id[:12]}): {state.status}: {state.message}"]
    for s in runner.steps:
        st = state.step(s.key)
        if st.status in (FAILED, SKIPPED):
            lines.append(f"  {st.status}: {s.title}: {st.message}")
    if table is not None and any(r.run_ids for r in table.rows):
        lines += ["", *render(table), f"\n(as CSV: brickyard decision --campaign {state.campaign_id[:12]} --format csv)"]
    return Outcome(code, text=lines)


class _Printer:
    """Campaign events as lines on stderr (stdout stays for the result / JSON)."""

    def __init__(self, as_json: bool):
        self.quiet = os.environ.get("BRICKYARD_QUIET") == "1"
        self.as_json = as_json
        self.total = 0
        self.index: dict[str, int] = {}

    def start(self, runner) -> None:
        self.total = len(runner.steps)
        self.index = {s.key: i + 1 for i, s in enumerate(runner.steps)}
        if not self.quiet:
            print(f"campaign {runner.spec.name} ({runner.state.campaign_id[:12]}): {self.total} steps",
                  file=sys.stderr, flush=True)

    def __call__(self, ev) -> None:
        if self.quiet or ev.kind in ("run-progress", "run-step"):
            return
        if ev.kind == "log":
            if ev.step is None or ev.step.kind in ("provision", "teardown"):
                print(f"    {ev.message}", file=sys.stderr, flush=True)
            return
        if ev.kind == "step" and ev.step is not None:
            n = self.index.get(ev.step.key, 0)
            eta = f", about {_dur(ev.remaining)} left" if ev.remaining is not None and ev.status != "running" else ""
            msg = f": {ev.message}" if ev.message else ""
            print(f"[{n}/{self.total}] {ev.step.title}: {ev.status}{msg} "
                  f"({ev.fraction * 100:.0f} % after {_dur(ev.elapsed)}{eta})", file=sys.stderr, flush=True)
        elif ev.kind in ("waiting", "finished"):
            print(ev.message, file=sys.stderr, flush=True)


def _dur(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(round(seconds))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def _dry_run(spec) -> Outcome:
    from ..campaign.dryrun import describe, dry_run_text

    return Outcome(0, doc={"ok": True, "exit": 0, **describe(spec)}, indent=1, text=dry_run_text(spec))


def _list(args) -> Outcome:
    store = _open(args, reading=True)
    try:
        records = store.campaigns.list()
        alive = {r.campaign_id: store.campaigns.owner_alive(r) for r in records if r.status == "running"}
    finally:
        store.close()
    if args.json:
        return Outcome(0, doc=[{"campaign_id": r.campaign_id, "name": r.name, "source": r.source,
                                "status": r.status, "running_now": bool(alive.get(r.campaign_id)),
                                "message": r.state.get("message", ""), "created_at": r.created_at,
                                "updated_at": r.updated_at} for r in records], indent=1)
    lines = []
    for r in records:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
        status = r.status if r.status != "running" or alive.get(r.campaign_id) else "stopped"
        lines.append(f"{r.campaign_id[:12]}  {when}  {status:<11}  {r.name}  {r.source}")
        if status == "stopped":
            lines.append("    its process is gone (killed, or the machine went down): --resume goes on")
        if r.state.get("message"):
            lines.append(f"    {r.state['message']}")
    return Outcome(0, text=lines)


def _open(args, reading: bool = False):
    from .history import _open as open_store

    return open_store(args, reading=reading)

"""`brickyard report`: the PDF (or HTML) an admin hands to a manager.

    brickyard report --campaign 3fa2c1 --out decision.pdf
    brickyard report --runs 9b07de,41aa0c --topology lab.brickyard.json --paper letter --out runs.pdf
    brickyard report --topology cluster.brickyard.json --volume gv0 --fail node2 --out plan.html

The decision first (capacity, failures survived, measured speed per layout, one sentence
each), then the topology drawing and each layout with its exact commands, the charts, the
history comparison, run hygiene, the environment, and every step's raw numbers. The same
content as the app's File ▸ Export PDF…. Exit 2 with one line for bad input.
"""

from __future__ import annotations

import argparse

from .command import Command, Outcome, UsageError
from .inputs import load_topology, pick_volume

TEXT_LIMIT = 200


class ReportCommand(Command):
    description = ("The decision table first, then topology, layouts, charts, history comparison, run hygiene, "
                   "environment and raw numbers, as PDF (A4/Letter) or HTML.")
    json_help = "say what was written as JSON"

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--runs", metavar="ID,ID…", help="stored runs (unique id prefixes do), comma-separated")
        p.add_argument("--campaign", metavar="ID", help="a stored campaign (its completed cells and planned layouts)")
        p.add_argument("--topology", metavar="FILE",
                       help="a topology file: with --volume, the planner's report of that volume; with --runs, the "
                            "topology the runs were made on")
        p.add_argument("--volume", metavar="NAME", help="the volume of --topology to report on (default: its only one)")
        p.add_argument("--fail", metavar="SPEC", default="",
                       help="a failure scenario to draw and plan (with --topology): node2, site:Helsinki, "
                            "brick:node2:/data/b1, comma-separated")
        p.add_argument("--title", metavar="TEXT", help="the report's title")
        p.add_argument("--author", metavar="TEXT", help="who made it (default: your user name)")
        p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size of the PDF (default a4)")
        p.add_argument("--out", metavar="FILE", help="FILE.pdf or FILE.html (needed)")
        p.add_argument("--db", metavar="URL", help="history database (default as `brickyard history`)")
        # the app's writer process (report/worker.py): JSON requests on stdin, JSON lines on stdout
        p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..report import ReportInputError, export_report, report_format, write_error_words

        if args.worker:         # the app's File ▸ Export PDF…: requests on stdin, progress on stdout
            from ..report.worker import main

            return Outcome(main())
        if not args.out:
            raise UsageError("--out FILE.pdf or FILE.html is needed")
        kind = check_sources(args)
        title, author = _text(args.title, "--title"), _text(args.author, "--author")
        from pathlib import Path

        out = Path(args.out)
        if out.is_dir():
            raise UsageError(f"--out {args.out} is a folder; give a file name ending in .pdf or .html")
        try:
            report_format(args.out)
        except ReportInputError as exc:
            raise UsageError(str(exc)) from None
        if not out.resolve().parent.is_dir():
            raise UsageError(f"--out {args.out}: the folder {out.resolve().parent} does not exist")
        content = _content(kind, args, title, author)
        try:
            result = export_report(content, out, args.paper)
        except ReportInputError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(write_error_words(args.out, exc)) from None
        if args.json:
            doc = {"ok": True, **result.to_json(), "kind": content.kind, "title": content.title,
                   "author": content.author, "runs": list(content.run_ids),
                   "decision_table": content.table.to_json()}
            if kind == "campaign":
                doc["campaign"] = args.campaign
            return Outcome(0, doc=doc, indent=1)
        paper = "A4" if args.paper == "a4" else "Letter"
        pages = f"{result.pages} page{'s' if result.pages != 1 else ''}, {paper}, " if result.pages is not None else ""
        return Outcome(0, text=f"report: {result.path} ({pages}{result.bytes / 1000:.0f} kB)")


COMMAND = ReportCommand()


def _text(value: str | None, flag: str) -> str:
    if value is None:
        return ""
    if len(value) > TEXT_LIMIT:
        raise UsageError(f"{flag}: at most {TEXT_LIMIT} characters (this one has {len(value)})")
    if any(ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0 or 0xd800 <= ord(ch) <= 0xdfff for ch in value):
        raise UsageError(f"{flag}: control characters are not allowed")
    return value.strip()


def _run_ids(text: str) -> list[str]:
    ids = [part.strip() for part in text.split(",")]
    if not any(ids):
        raise UsageError("--runs: give run ids separated by commas (see `brickyard history list`)")
    if not all(ids):
        raise UsageError(f"--runs {text!r}: an empty run id between commas")
    return list(dict.fromkeys(ids))


def check_sources(args: argparse.Namespace) -> str:
    """Which report is asked for: 'campaign', 'runs' or 'plan'; UsageError when the flags
    do not say one thing."""
    if args.runs is not None and args.campaign:
        raise UsageError("give --runs or --campaign, not both")
    if args.campaign:
        if args.topology or args.volume or args.fail:
            raise UsageError("--campaign reports on the campaign's own topology and layouts: "
                             "drop --topology/--volume/--fail")
        return "campaign"
    if args.runs is not None:
        if args.volume or args.fail:
            raise UsageError("with --runs the layouts come from the runs: --volume and --fail go with "
                             "--topology alone (the planner's report)")
        return "runs"
    if args.topology:
        return "plan"
    if args.volume or args.fail:
        raise UsageError("--volume and --fail need --topology FILE")
    raise UsageError("give --campaign ID, --runs ID,ID… or --topology FILE [--volume NAME]")


def _content(kind: str, args: argparse.Namespace, title: str, author: str):
    from ..core.failures import FailureSpecError
    from ..report import ReportInputError, content_from_campaign, content_from_plan, content_from_runs
    if kind == "plan":
        topo = load_topology(args.topology)
        volume = pick_volume(topo, args.volume)
        failures = [s.strip() for s in args.fail.split(",") if s.strip()]
        try:
            return content_from_plan(topo, volume, failures, title=title, author=author)
        except FailureSpecError as exc:
            raise UsageError(str(exc)) from None
    from ..campaign import CampaignFileError
    from ..store import StoreError
    from .history import _open, resolve

    topo = load_topology(args.topology) if args.topology else None
    ids = _run_ids(args.runs) if kind == "runs" else []
    store = _open(args)
    try:
        if kind == "campaign":
            try:
                return content_from_campaign(store, args.campaign, title=title, author=author)
            except StoreError as exc:
                raise UsageError(str(exc)) from None
            except CampaignFileError as exc:
                raise UsageError(f"campaign {args.campaign}: {exc}", exc.problems) from None
        full = [resolve(store, i) for i in ids]
        try:
            return content_from_runs(store, full, topo, title=title, author=author)
        except (StoreError, ReportInputError) as exc:
            raise UsageError(str(exc)) from None
    finally:
        store.close()


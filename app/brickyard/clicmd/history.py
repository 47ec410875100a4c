"""`brickyard history list|show|compare|export|import`: the benchmark history from a terminal.

    brickyard history list --gluster-version 6.0 --since 2026-01-01
    brickyard history show 3fa2c1 --json
    brickyard history compare 3fa2c1 9b07de --metric throughput
    brickyard history export 3fa2c1 9b07de --format csv -o runs.csv
    brickyard history import runs.json --db postgresql://lab/brickyard

The database is ``--db URL``, else ``BRICKYARD_DB``, else the settings file, else the
SQLite file in the user data directory. Run ids may be shortened to a unique prefix.
"""

from __future__ import annotations

import argparse
import calendar
import sys
import time
from typing import Any

from .command import Command, Group, Outcome, UsageError
from ..core.compare import (
    compare_runs,
    describe_layout,
    describe_point,
    headline_metrics,
    point_of,
    provenance_diff,
    run_labels,
)
from ..core.atomicfile import write_error_words
from ..core.units import format_quantity
from ..core.results import RunResult, RunStatus
from ..store import DatabaseError, HistoryStore, RunFilter, SettingsError, StoreError
from ..store.codec import run_to_dict
from ..core.units import format_utc


class HistoryList(Command):
    def add_arguments(self, ls: argparse.ArgumentParser) -> None:
        for flag, dest, what in (("--volume", "volume", "volume name"), ("--layout", "layout", "layout label or type"),
                                 ("--workload", "workload", "workload name"), ("--host", "host", "server host"),
                                 ("--gluster-version", "gluster_version", "gluster version on any host"),
                                 ("--option", "option", "volume option NAME or NAME=VALUE"),
                                 ("--status", "status", "running, complete, partial, failed, interrupted or cancelled")):
            ls.add_argument(flag, dest=dest, default="", help=what)
        ls.add_argument("--since", metavar="DATE", help="started on or after (YYYY-MM-DD or ISO time, UTC)")
        ls.add_argument("--until", metavar="DATE", help="started before (YYYY-MM-DD or ISO time, UTC)")
        ls.add_argument("--limit", type=int, metavar="N")

    def run(self, args: argparse.Namespace) -> Outcome:
        filters = RunFilter(volume=args.volume, layout=args.layout, workload=args.workload, host=args.host,
                            gluster_version=args.gluster_version, option=args.option, status=args.status,
                            since=parse_date(args.since, "--since") if args.since else None,
                            until=parse_date(args.until, "--until") if args.until else None, limit=args.limit)
        if args.limit is not None and args.limit < 1:
            raise UsageError(f"--limit must be at least 1, not {args.limit}")
        statuses = [s.value for s in RunStatus]
        if args.status and args.status not in statuses:
            raise UsageError(f"--status {args.status!r}: use {', '.join(statuses[:-1])} or {statuses[-1]}")
        with _open(args) as store:
            runs = store.list_runs(filters)
        if args.json:
            return Outcome(0, doc=[{**s.__dict__, "status": s.status.value} for s in runs], indent=1)
        if not runs:
            return Outcome(0, notes=["no runs match"])
        return Outcome(0, text=_table(
            [[_when(s.started_at), s.run_id[:12], s.status.value, s.workload, s.volume, s.layout,
              s.gluster_versions, s.hosts, str(s.step_count)] for s in runs],
            ["started (UTC)", "run", "status", "workload", "volume", "layout", "gluster", "hosts", "steps"]))


class HistoryShow(Command):
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("run_id")

    def run(self, args: argparse.Namespace) -> Outcome:
        with _open(args) as store:
            try:
                run = store.load_run(resolve(store, args.run_id))
            except StoreError as exc:
                raise UsageError(str(exc)) from None
        if args.json:
            return Outcome(0, doc=run_to_dict(run), indent=1)
        p = run.provenance
        lines = [f"run {run.run_id}  {run.workload}  {run.status.value}  {_when(run.started_at)} → "
                 f"{_when(run.ended_at)} UTC"]
        if run.error:
            lines.append(f"  {run.error}")
        lines.append(f"  target {p.target} ({p.target_kind})  volume {p.volume_name or '-'}  {describe_layout(p.layout)}")
        for host, info in sorted(p.hosts.items()):
            lines.append(f"  {host}: " + ", ".join(f"{k} {v}" for k, v in info.items()))
        for name, value in sorted(p.volume_options.items()):
            lines.append(f"  option {name} = {value}")
        rows = []
        for step in run.steps:
            for m in step.metrics:
                rows.append([str(step.index), str(step.repeat), describe_point(point_of(step)), m.name, _fmt(m.value, m.unit),
                             "" if step.valid else "invalid " + step.note])
        return Outcome(0, text=[*lines, *_table(rows, ["step", "rep", "point", "metric", "value", "note"])])


class HistoryCompare(Command):
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="the first is the baseline")
        p.add_argument("--metric", action="append", default=[],
                       help="metric name (repeatable; default: the workload's headline: throughput for dd and "
                            "fio, tps and init_seconds for pgbench, files_per_s for randread, …)")

    def run(self, args: argparse.Namespace) -> Outcome:
        if len(args.run_ids) < 2:
            raise UsageError("compare needs at least two run ids (the first is the baseline)")
        with _open(args) as store:
            runs = store.load_runs([resolve(store, r) for r in args.run_ids])
        data = comparison_data(runs, args.metric or None)
        if args.json:
            return Outcome(0, doc=data, indent=1)
        return Outcome(0, text=comparison_lines(data, headline=not args.metric))


class HistoryExport(Command):
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="runs to export (default: all)")
        p.add_argument("--format", choices=("json", "csv"), default="json")
        p.add_argument("-o", "--output", default="-", help="file to write ('-': standard output)")

    def run(self, args: argparse.Namespace) -> Outcome:
        if args.json and args.output == "-" and args.format == "csv":
            raise UsageError("--format csv --json: CSV is not JSON; write it to a file with -o FILE "
                             "(the JSON then says what was written)")
        with _open(args) as store:
            ids = [resolve(store, r) for r in args.run_ids]
            out = sys.stdout if args.output == "-" else args.output
            try:
                report = store.export_json(ids, out) if args.format == "json" else store.export_csv(ids, out)
            except OSError as exc:
                raise UsageError(write_error_words(args.output, exc)) from None
        notes = [f"brickyard history export: left out run {run_id}: its stored data would not import again: "
                 f"{'; '.join(reasons[:3])}{' …' if len(reasons) > 3 else ''}" for run_id, reasons in report.left_out]
        if args.output == "-":     # the export itself is on stdout
            return Outcome(0, notes=notes)
        notes.append(f"exported {report.written} runs to {args.output}")
        return Outcome(0, doc={"ok": True, "file": args.output, "format": args.format, "runs": report.written,
                               "left_out": [{"run_id": r, "problems": p[:10], "problem_count": len(p)}
                                            for r, p in report.left_out]}, notes=notes)


class HistoryImport(Command):
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("file")

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..store.exchange import ExchangeError

        with _open(args, reading=False) as store:
            try:
                report = store.import_json(args.file)
            except ExchangeError as exc:
                raise UsageError(f"nothing imported: {exc}", exc.problems) from None
        return Outcome(0, doc={"ok": True, "added": report.added, "skipped": report.skipped}, indent=None,
                       text=f"imported {len(report.added)} runs; {len(report.skipped)} were already in the history")


class HistoryCommand(Group):
    actions = (("list", "stored runs, newest first", HistoryList()),
               ("show", "one run: provenance and per-step metrics", HistoryShow()),
               ("compare", "what differs between runs, then each metric's change", HistoryCompare()),
               ("export", "write runs to JSON (importable) or CSV", HistoryExport()),
               ("import", "add the runs of a JSON export that are not stored yet", HistoryImport()))

    def shared_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--db", metavar="URL", help="history database (SQLAlchemy URL); default: BRICKYARD_DB, "
                                                   "settings, then the SQLite file in the user data dir")
        p.add_argument("--json", action="store_true", help="machine-readable output")


COMMAND = HistoryCommand()


def parse_date(text: str, flag: str) -> float:
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"):
        try:
            return float(calendar.timegm(time.strptime(text.removesuffix("Z"), fmt)))
        except ValueError:
            continue
    raise UsageError(f"{flag} {text!r}: write a date as YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)")


def _open(args: argparse.Namespace, reading: bool = True) -> HistoryStore:
    """The history for a command: read-only when the database cannot be written and the
    command only reads; every stored row a reader leaves out is said on stderr."""
    try:
        store = HistoryStore.open(args.db, reading=reading)
    except (DatabaseError, SettingsError) as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # a driver's connection error: say which database, in one line
        raise UsageError(f"cannot open the history database: {type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    command = " ".join(filter(None, (getattr(args, "command", ""), getattr(args, "history_command", ""))))
    store.on_unreadable = lambda note: print(f"brickyard {command}: {note}", file=sys.stderr)
    return store


def resolve(store: HistoryStore, prefix: str) -> str:
    matches = [s.run_id for s in store.list_runs() if s.run_id.startswith(prefix)]
    if not matches:
        raise UsageError(f"no stored run id starts with {prefix!r} (see `brickyard history list`)")
    if len(matches) > 1:
        raise UsageError(f"{prefix!r} matches {len(matches)} runs: {', '.join(m[:12] for m in matches[:5])}…")
    return matches[0]


def _when(ts: float | None) -> str:
    return format_utc(ts)


def _table(rows: list[list[str]], head: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]


def _fmt(value: float, unit: str) -> str:
    return format_quantity(value, unit)


def comparison_data(runs: list[RunResult], metrics: list[str] | None = None) -> dict[str, Any]:
    labels = run_labels(runs)
    base = runs[0]
    chosen = metrics or headline_metrics(runs)
    out: dict[str, Any] = {
        "runs": [{"run_id": r.run_id, "label": label} for r, label in zip(runs, labels)],
        "differences": [{"field": d.field, "values": list(d.values)} for d in provenance_diff(runs)],
        "metric_names": chosen,
        "metrics": [],
    }
    for other, label in zip(runs[1:], labels[1:]):
        for c in compare_runs(base, other, chosen):
            out["metrics"].append({
                "baseline": base.run_id, "other": other.run_id, "other_label": label, "metric": c.metric,
                "unit": c.unit, "point": dict(c.point), "point_label": describe_point(c.point),
                "baseline_median": c.baseline.median, "other_median": c.other.median,
                "baseline_n": c.baseline.n, "other_n": c.other.n, "ratio": c.ratio, "ratio_low": c.low,
                "ratio_high": c.high, "p_value": None if c.p_value != c.p_value else c.p_value,
                "noise": None if c.noise != c.noise else c.noise, "paired": c.paired,
                "significant": c.significant, "sentence": c.sentence(labels[0], label), "certainty": c.certainty()})
    return out


def comparison_lines(data: dict[str, Any], headline: bool) -> list[str]:
    """``history compare`` for a terminal: what differs, then one table per run against the
    baseline, each named."""
    lines = ["What differs:"]
    if not data["differences"]:
        lines.append("  nothing recorded differs")
    labels = [r["label"] for r in data["runs"]]
    for d in data["differences"]:
        lines.append(f"  {d['field']}: " + "  |  ".join(f"{v}" for v in d["values"]))
    lines.append("\nRuns: " + ",  ".join(f"{r['label']} = {r['run_id'][:12]}" for r in data["runs"]))
    lines.append(f"Metric: {', '.join(data['metric_names'])}" + (" (the workload's headline)" if headline else ""))
    if not data["metrics"]:
        lines.append(f"\nno sweep point was measured by both runs for {', '.join(data['metric_names'])}")
        return lines
    for other in data["runs"][1:]:
        rows = [m for m in data["metrics"] if m["other"] == other["run_id"]]
        lines.append(f"\n{other['label']} ({other['run_id'][:12]}) against the baseline {labels[0]} "
                     f"({data['runs'][0]['run_id'][:12]}):")
        if not rows:
            lines.append("  no sweep point was measured by both runs")
            continue
        lines += _table([[m["point_label"], m["metric"], _fmt(m["baseline_median"], m["unit"]),
                          _fmt(m["other_median"], m["unit"]), f"{m['ratio'] - 1:+.1%}", m["sentence"],
                          m["certainty"]] for m in rows],
                        ["point", "metric", f"{labels[0]} (median)", f"{other['label']} (median)", "change", "",
                         "how sure"])
    return lines


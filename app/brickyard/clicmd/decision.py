"""`brickyard decision`: the decision table of a campaign or of any stored runs.

    brickyard decision --campaign 3fa2c1                 # layouts side by side, as a table
    brickyard decision 9b07de 41aa0c --topology lab.brickyard.json --format csv -o table.csv
    brickyard decision --campaign 3fa2c1 --json

Per layout: usable capacity (TB and TiB), node and site failures survived (from the planner),
measured throughput per direction, file count and block size (median over repeats with its
spread) and scaling efficiency; every figure says whether it was measured, estimated or
planned. Without a topology, runs' capacity is unknown (their bricks' sizes are not in
the history); failures are still worked out from the bricks' nodes.
"""

from __future__ import annotations

import argparse
import json

from ..core.decision import build_table
from ..core.decisiontable import DecisionTable
from ..core.units import UnitError, parse_block_size
from .command import Command, Outcome, UsageError, json_safe
from .inputs import load_topology


class DecisionCommand(Command):
    json_help = "same as --format json"

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="stored runs (unique prefixes do)")
        p.add_argument("--campaign", metavar="ID", help="a campaign's table (its completed cells)")
        p.add_argument("--topology", metavar="FILE", help="the topology the runs were made on (brick sizes, sites)")
        p.add_argument("--workload", metavar="NAME", help="which workload's throughput (default: dd if any)")
        p.add_argument("--block-size", action="append", default=[], metavar="SIZE",
                       help="block sizes to show (repeatable; default: those of 2M and more, at most three)")
        p.add_argument("--sort", metavar="COLUMN", help="order the layouts by this column key (best first)")
        p.add_argument("--all-columns", action="store_true", help="also raw size and best-case failures")
        p.add_argument("--calibrate", action="append", default=[], metavar="RUN_ID|FILE.json",
                       help="predict every layout with the throughput model calibrated on these (probe runs, runs "
                            "of a layout, calibration files); default: each layout from the other layouts' runs")
        p.add_argument("--no-model-check", action="store_true",
                       help="leave out the model's predicted and error columns")
        p.add_argument("--format", choices=("table", "csv", "json"), default="table")
        p.add_argument("-o", "--output", default="-", help="file to write ('-': standard output)")
        p.add_argument("--db", metavar="URL", help="history database (default as `brickyard history`)")

    def run(self, args: argparse.Namespace) -> Outcome:
        from .history import _open

        if not args.campaign and not args.run_ids:
            raise UsageError("give --campaign ID or one or more RUN_IDs")
        try:
            sizes = [parse_block_size(s) for s in args.block_size]
        except UnitError as exc:
            raise UsageError(f"--block-size: {exc}") from None
        options = {"workload": args.workload, "block_sizes": sizes or None}
        store = _open(args)
        try:
            if args.campaign:
                entries, topo = campaign_entries(store, args.campaign)
            else:
                entries, topo = runs_entries(store, args)
            options.update(model_options(store, entries, topo, args))
            table = build_table(entries, **{k: v for k, v in options.items() if v is not None})
        finally:
            store.close()
        if args.sort:
            try:
                table = table.sorted_by(args.sort)
            except KeyError as exc:
                raise UsageError(f"--sort: {exc.args[0]}") from None
        fmt = "json" if args.json else args.format
        text = (json.dumps(json_safe(table.to_json()), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
                if fmt == "json" else table.to_csv() if fmt == "csv"
                else "\n".join(render(table, all_columns=args.all_columns)) + "\n")
        if args.output == "-":
            return Outcome(0, text=text) if not args.json else Outcome(0, doc=table.to_json(), indent=1)
        from ..core.atomicfile import write_atomic, write_error_words

        try:
            write_atomic(args.output, text)
        except OSError as exc:
            raise UsageError(write_error_words(args.output, exc)) from None
        return Outcome(0)


COMMAND = DecisionCommand()


def campaign_entries(store, campaign_id: str):
    """(entries, topology) of a campaign's table."""
    from ..campaign import CampaignFileError
    from ..campaign.results import campaign_entries as entries_of, counted_stored_runs, stored_campaign
    from ..store import StoreError

    try:
        _, spec, state = stored_campaign(store, campaign_id)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    except CampaignFileError as exc:
        raise UsageError(f"campaign {campaign_id}: {exc}", exc.problems) from None
    return entries_of(spec, state, counted_stored_runs(spec, state, store)), spec.topology


def runs_entries(store, args: argparse.Namespace):
    """(entries, topology or None) of a table of stored runs."""
    from ..core.decision_runs import entries_from_runs
    from ..core import topofile
    from .history import resolve

    runs = store.load_runs([resolve(store, r) for r in args.run_ids])
    if args.topology:
        topo = load_topology(args.topology)
        return entries_from_runs(runs, topo), topo

    def topo_of(run):   # the topology each run was saved with, where it was
        text = store.topology_snapshot(run.run_id)
        try:
            return topofile.loads(text) if text else None
        except topofile.TopologyFileError:
            return None
    return entries_from_runs(runs, topo_of), None


def model_options(store, entries, topo, args: argparse.Namespace) -> dict:
    """build_table's model-check options: off, leave-one-out, or one model calibrated on
    ``--calibrate`` (files realised on the first layout's bricks of ``topo``)."""
    if args.no_model_check:
        return {"model_check": False}
    if not args.calibrate:
        return {"model_check": True}
    from ..core import calibration
    from ..store.calibrate import CalibrationSourceError, load_inputs

    first = next((e for e in entries if e.plan is not None and e.plan.estimate is not None
                  and e.plan.estimate.model is not None), None)
    if first is None:
        raise UsageError("--calibrate: no layout in the table to predict")
    files = [c for c in args.calibrate if c.endswith(".json")]
    if files and topo is None:
        raise UsageError(f"--calibrate {files[0]}: a calibration file needs --topology (its layout is put on "
                         "the bricks of the table's first layout)")
    try:
        inputs = load_inputs(args.calibrate, topo, first.plan.volume.bricks, store=store)
    except CalibrationSourceError as exc:
        raise UsageError(str(exc), exc.problems) from None
    model = calibration.fit_params(first.plan.estimate.model.params, inputs)
    return {"model_check": True, "model": model}


def render(table: DecisionTable, all_columns: bool = False) -> list[str]:
    """Layouts side by side (one column each), one line per figure: the write-up's table,
    readable in a terminal however many block sizes there are."""
    cols = [c for c in table.columns if all_columns or c.primary]
    head = ["", *(r.label for r in table.rows)]
    body = [[c.title, *(table.text(r, c.key) for r in table.rows)] for c in cols]
    body.insert(0, ["volume", *(r.volume or r.kind for r in table.rows)])
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [head, *body]]
    lines.append("")
    lines.append("measured: median over repeats, ±half the min–max range; ≈…(est.): the planner's estimate, "
                 "not measured; (pred.): the calibrated model's prediction; model error: predicted ÷ measured − 1; "
                 "capacity and failures: planned from the topology")
    lines.extend(table.notes)
    for r in table.rows:
        lines.extend(f"{r.label}: {n}" for n in r.notes)
    return lines

"""`brickyard plan FILE`: validate a layout, place it, size it, fail it, print the commands.

Exit codes: 0 gluster would create the volume (with ``force`` where it needs it and
``--force`` or the file's ``force`` says so), 1 it would not, 2 bad input.
"""

from __future__ import annotations

import argparse
import gc
from dataclasses import replace

from ..core.failures import FailureSpecError
from ..core.gluster_cli import command_lines
from ..core.layout import TYPE_NAMES, resolve
from ..core.plan import PlanResult, plan_volume
from ..core.planmodel import SEVERITIES
from ..core.topology import BrickRef, Layout, Topology, Volume, VolumeType
from ..core.units import describe_size, format_rate
from .command import Command, Outcome, UsageError
from .inputs import add_topology_arguments, load_topology, pick_volume

TYPES = [t.value for t in VolumeType]


class PlanCommand(Command):
    description = ("Check a volume layout as gluster 10 would; show sets, capacity (TB and TiB), failures "
                   "survived, the exact commands and a throughput estimate.")
    json_help = "print the plan as JSON"

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        add_topology_arguments(p, "the volume to plan (default: the file's only volume)")
        p.add_argument("--type", choices=TYPES, help="what-if: another volume type")
        p.add_argument("--replica", type=int, metavar="N", help="what-if: replica count")
        p.add_argument("--arbiter", type=int, metavar="N", help="what-if: arbiter count (1)")
        p.add_argument("--disperse", type=int, metavar="N", help="what-if: disperse count")
        p.add_argument("--redundancy", type=int, metavar="N", help="what-if: redundancy count")
        p.add_argument("--disperse-data", type=int, metavar="D",
                       help="what-if: data bricks per disperse set (gluster derives the rest)")
        p.add_argument("--thin-arbiter", metavar="NODE:/PATH",
                       help="what-if: replica 2 thin-arbiter 1 with this brick of the topology as its thin-arbiter")
        p.add_argument("--auto-place", action="store_true",
                       help="reorder the bricks so no set has two bricks on one node")
        p.add_argument("--fail", metavar="SPEC", default="",
                       help="comma-separated failures: node2, site:Helsinki, brick:node2:/data/b1")
        p.add_argument("--force", action="store_true", help="plan as with 'force' at the end of volume create")
        p.add_argument("--calibrate", action="append", default=[], metavar="RUN_ID|FILE.json",
                       help="predict throughput with the model calibrated on stored runs (a dd/fio run on a "
                            "layout, a probe run) or a calibration file; repeatable")
        p.add_argument("--db", metavar="URL",
                       help="history database for --calibrate RUN_ID (default as `brickyard history`)")
        p.add_argument("--concurrency", type=int, metavar="N",
                       help="the throughput figures for N files at once (default 8, beside one file)")
        p.add_argument("--block-size", action="append", default=[], metavar="SIZE",
                       help="the throughput figures at these block sizes (4K, 64K, 1M, 4M …; repeatable or "
                            "comma-separated; default 4K,64K,1M)")

    def run(self, args: argparse.Namespace) -> Outcome:
        topo = load_topology(args.file)
        # what was read lives until the command ends: the collector's full passes during the
        # plan need not walk it again (24,000 bricks: ~10 % of the command's CPU). Nor need it
        # look for cycles among what the plan builds (sets, findings, lines: tens of thousands
        # of objects that live until the answer is printed): it runs after the command.
        # Both given back at the end, for a caller that goes on (a test calling main()).
        gc.freeze()
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._plan(topo, args)
        finally:
            if collecting:
                gc.enable()
            gc.unfreeze()

    def _plan(self, topo: Topology, args: argparse.Namespace) -> Outcome:
        volume = pick_volume(topo, args.volume)
        volume = replace(volume, layout=what_if_layout(volume.layout, args),
                         force=volume.force or args.force)
        if args.thin_arbiter:
            try:
                volume = replace(volume, thin_arbiter_brick=BrickRef.parse(args.thin_arbiter))
            except ValueError as exc:
                raise UsageError(f"--thin-arbiter: {exc}") from None
        elif args.type and not volume.layout.thin_arbiter:
            volume = replace(volume, thin_arbiter_brick=None)  # another type: no thin-arbiter
        failures = [s for s in args.fail.split(",") if s.strip()]
        question = throughput_question(args)
        model = calibrated_model(topo, volume, args.calibrate, args) if args.calibrate else None
        try:
            result = plan_volume(topo, volume, failures, auto_place=args.auto_place, model=model,
                                 question=question)
        except FailureSpecError as exc:
            raise UsageError(str(exc)) from None
        code = 0 if result.valid else 1
        if args.json:
            return Outcome(code, doc=result.to_json())
        return Outcome(code, text=format_plan(result, failures))


COMMAND = PlanCommand()


def what_if_layout(base: Layout, args: argparse.Namespace) -> Layout:
    """The volume's layout with the what-if flags applied; contradictory flags: UsageError."""
    for flag in ("replica", "arbiter", "disperse", "redundancy", "disperse_data"):
        value = getattr(args, flag, None)
        if value is not None and value < (0 if flag == "arbiter" else 1):
            raise UsageError(f"--{flag.replace('_', '-')} must be a positive number, not {value}")
    kind = VolumeType(args.type) if args.type else base.type
    replica_flags = [f for f in ("replica", "arbiter", "thin_arbiter") if getattr(args, f, None) is not None]
    disperse_flags = [f for f in ("disperse", "redundancy", "disperse_data") if getattr(args, f, None) is not None]
    replica_flags = [f.replace("_", "-") for f in replica_flags]
    disperse_flags = [f.replace("_", "-") for f in disperse_flags]
    if replica_flags and disperse_flags:
        raise UsageError(f"--{replica_flags[0]} and --{disperse_flags[0]} cannot be combined: "
                         "gluster has no replicated-dispersed volumes")
    if replica_flags and not kind.is_replicated:
        raise UsageError(f"--{replica_flags[0]} needs --type replicate or distributed-replicate "
                         f"(the type is {kind.value})")
    if disperse_flags and not kind.is_dispersed:
        raise UsageError(f"--{disperse_flags[0]} needs --type disperse or distributed-disperse "
                         f"(the type is {kind.value})")
    if args.type and kind is not base.type:
        base = Layout(kind)  # a new type starts without the old counts
    return Layout(
        type=kind,
        replica=args.replica if args.replica is not None else base.replica,
        arbiter=args.arbiter if args.arbiter is not None else base.arbiter,
        disperse=args.disperse if args.disperse is not None else base.disperse,
        redundancy=args.redundancy if args.redundancy is not None else base.redundancy,
        thin_arbiter=1 if getattr(args, "thin_arbiter", None) else (0 if args.arbiter else base.thin_arbiter),
        disperse_data=(args.disperse_data if getattr(args, "disperse_data", None) is not None
                       else base.disperse_data),
    )


def throughput_question(args: argparse.Namespace):
    """``--concurrency`` and ``--block-size`` as the estimate's question; bad values: UsageError."""
    from ..core.estimate import SMALL_BLOCKS, Question
    from ..core.throughput import DEFAULT_FILES
    from ..core.units import UnitError, parse_block_size

    blocks: list[int] = []
    for text in getattr(args, "block_size", None) or []:
        for part in text.split(","):
            if not part.strip():
                continue
            try:
                blocks.append(parse_block_size(part.strip()))
            except UnitError as exc:
                raise UsageError(f"--block-size {part.strip()}: {exc}") from None
    concurrency = getattr(args, "concurrency", None)
    try:
        return Question(concurrency if concurrency is not None else DEFAULT_FILES, tuple(blocks) or SMALL_BLOCKS)
    except ValueError as exc:
        flag = "--concurrency" if "files" in str(exc) else "--block-size"
        raise UsageError(f"{flag}: {exc}") from None


def calibrated_model(topo: Topology, volume: Volume, specs: list[str], args: argparse.Namespace):
    """The model calibrated on ``--calibrate`` sources (files on this volume's bricks, runs)."""
    from ..core import calibration
    from ..store.calibrate import CalibrationSourceError, load_inputs
    from .history import _open

    try:
        inputs = load_inputs(specs, topo, volume.bricks, lambda: _open(args))
    except CalibrationSourceError as exc:
        raise UsageError(str(exc), exc.problems) from None
    return calibration.fit(topo, inputs)


def format_estimate(e) -> list[str]:
    """The throughput lines of a plan: each figure with its bound and interval, then what the
    model rests on (the same words in the window's layout panel)."""
    fmt = lambda x: "unknown" if x is None else format_rate(x)  # noqa: E731
    lines = [f"Throughput {e.label.upper()}:"]
    for p in e.predictions:
        who = "one file" if p.concurrency == 1 else f"{p.concurrency} files"
        lines.append(f"  {p.direction:<5} {who:<8} {fmt(p.bps):>11}  ({fmt(p.low)} … {fmt(p.high)})  "
                     f"bound: {p.bound} — {p.why}")
    from ..core.units import format_block_size

    for block, preds in e.per_block_size():
        parts = [f"{p.direction} {'1 file' if p.concurrency == 1 else f'{p.concurrency} files'} {fmt(p.bps)}"
                 for p in preds]
        lines.append(f"  at {format_block_size(block)} blocks: " + ", ".join(parts))
    if e.model is not None:
        from ..core.calibration import describe_sources

        lines.append(f"  parameters: {describe_sources(e.model)}")
        for w in e.model.warnings:
            lines.append(f"  WARNING: {w}")
        for n in e.model.notes:
            lines.append(f"  note: {n}")
        for r in e.model.residuals:
            lines.append(f"  fit: {r.describe()}")
    if e.missing:
        lines.append(f"  unknown: {'; '.join(e.missing)}")
    return lines


def format_plan(r: PlanResult, failures: list[str]) -> str:
    v = r.volume
    if r.refused:
        lines = [f"Volume {v.name}: {v.layout.type.value}, {len(v.bricks)} bricks  [REFUSED]"]
        if r.placement_note:
            lines.append(f"Placement: {r.placement_note}")
        lines += ["", "gluster refuses to create this volume:"]
        lines += [f"{f.severity.upper():<11} {f.message}" for f in sorted(r.findings, key=_severity_rank)]
        lines += ["", "No sets, capacity, failures tolerated, state, estimate or commands: "
                      "gluster would not create this volume."]
        return "\n".join(lines)
    res, _ = resolve(v.layout, len(v.bricks))
    verdict = "VALID" if r.valid else ("NEEDS FORCE" if r.needs_force and not r.errors else "INVALID")
    lines = [f"Volume {v.name}: {TYPE_NAMES[r.gluster_type]} {res.describe()}  [{verdict}]"]
    if r.placement_note:
        lines.append(f"Placement: {r.placement_note}")
    if r.needs_force and not v.force:
        lines.append("(gluster creates it only with force: the figures below are for the volume force would create)")
    lines.append("")
    lines.append(f"{'Set':>4}  {'Usable':<26} Bricks")
    usable: dict[int, str] = {}          # 8,000 sets of one size: one text
    for s in r.sets:
        size = usable.get(s.usable_bytes) or usable.setdefault(s.usable_bytes, describe_size(s.usable_bytes))
        arbiter = s.gluster_arbiter     # a thin-arbiter is not a member: it gets its own line below
        if arbiter is None:   # str(BrickRef) written out: 24,000 str() calls cost 5 ms
            bricks = " ".join([f"{b.node}:{b.path}" for b in s.gluster_bricks])
        else:
            bricks = " ".join(f"{b}{' (arbiter)' if b == arbiter else ''}" for b in s.gluster_bricks)
        lines.append(f"{s.index + 1:>4}  {size:<26} {bricks}")
    ta = r.thin_arbiter_json()
    if ta is not None:
        lines.append(f"Thin-arbiter  {ta['brick']} (serves every replica pair"
                     + (")" if ta["reachable"] else f"; NOT USABLE: {ta['note']})"))
    c = r.capacity
    lines += [
        "",
        f"Raw       {describe_size(c.raw_bytes)}",
        f"Usable    {describe_size(c.usable_bytes)}  ({c.efficiency:.0%} of raw) when empty: the client's df size",
        f"Free now  {free_now_text(c)}",
        f"Overhead  {describe_size(c.overhead_bytes)}"
        + (f"  (arbiter bricks: {describe_size(c.arbiter_bytes)}, metadata only)" if c.arbiter_bytes else ""),
    ]
    t = r.tolerance
    at_least = "" if t.best_exact else "at least "
    sites = ("n/a (one site)" if t.sites_worst is None
             else f"worst {t.sites_worst}, best {at_least}{t.sites_best}")
    lines += ["", f"Survives node failures: worst {t.nodes_worst}, best {at_least}{t.nodes_best}",
              f"Survives site failures: {sites}"]
    if failures:
        st = r.state
        lines.append(f"With {', '.join(failures)} failed: {st.state}, "
                     f"{'reads' if st.readable else 'does NOT read'}, "
                     f"{'writes' if st.writable else 'does NOT write'}")
        for s in st.sets:
            if s.failed:
                lines.append(f"  set {s.index + 1}: {s.state} (lost {', '.join(map(str, s.failed))})"
                             f"{'' if s.writable else ', read-only' if s.readable else ''}")
    if r.findings:
        lines.append("")
        for f in sorted(r.findings, key=_severity_rank):
            lines.append(f"{f.severity.upper():<11} {f.message}")
    if r.commands:
        lines += ["", "Commands:"] + [f"  {line}" for line in command_lines(r.shown_commands)]
    elif r.errors:
        lines += ["", "Commands: none while gluster refuses a step (see ERROR above)."]
    lines += ["", *format_estimate(r.estimate)]
    small = r.small_files()
    if small is not None:
        ex, ls = small["extract"], small["lstat"]
        on = small.get("calibrated_on") or []
        lines += ["", f"Small files ({small['kind']}, RTT {small['rtt_source']}"
                      + (f"; calibrated on {', '.join(on)}" if on else "") + "): the write-up's extract of "
                      f"{ex['objects']:,} objects {ex['seconds']:.0f} s, {ex['per_object_ms']:.2f} ms per object "
                      f"({ex['low_ms']:.2f} … {ex['high_ms']:.2f}) = {ex['local_ms']:.2f} ms + "
                      f"{ex['round_trips']:.3g} round trips × {ex['rtt_ms']:.3g} ms ({ex['source']}); uncached lstat "
                      f"{ls['per_object_ms']:.3g} ms = {ls['local_ms']:.3g} ms + {ls['round_trips']:.3g} round "
                      f"trips × {ls['rtt_ms']:.3g} ms ({ls['source']})"]
        if on:
            lines += [f"  small files: {op} on {small['kind']}: {small[op]['note']}" for op in ("extract", "lstat")]
    return "\n".join(lines)


def free_now_text(c) -> str:
    """What the client's df will show as available now, or why that is unknown."""
    if c.free_now_bytes is None:
        return "unknown: the bricks' free space was not measured (brickyard preflight FILE --record, or import)"
    when = f" (measured {c.free_measured})" if c.free_measured else ""
    return f"{describe_size(c.free_now_bytes)}{when}: what the client's df will show available"


def _severity_rank(f) -> int:
    return SEVERITIES.index(f.severity) if f.severity in SEVERITIES else len(SEVERITIES)

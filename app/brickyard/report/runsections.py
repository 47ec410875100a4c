"""The sections of a report about measured runs: charts, the history comparison, run
hygiene, the environment, and the appendix with every step's raw numbers. Each reads the
``ReportContent`` (result objects and what core made of them) and returns blocks."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from ..bench.context import FLAG_MEANINGS
from ..core.compare import POINT_KEYS_FIRST, describe_layout, describe_point, point_of
from ..core.decisiontable import BASELINE, ESTIMATED, MANY
from ..core.results import CACHE_SUSPECT_FLAGS, RunResult, RunStatus, StepResult
from ..core.series import sweep_by_block_size
from ..core.units import format_block_size, format_quantity, format_rate, format_utc
from .blocks import Block, Cell, Col, Figure, Heading, PageBreak, Paragraph, Table
from .charts import (Bar, BarChart, BarGroup, Curve, SweepChart, TrendChart, TrendLine, bar_height, draw_bars,
                     draw_sweep, draw_trend, sweep_height, trend_height)
from .content import ReportContent, RunEntry
from .sentences import headline_columns
from .typeset import FAILED, MUTED

CURVES_PER_RUN_UP_TO = 8      # more runs of a workload: one curve per layout (all its runs' repeats)

#: flags workloads set themselves (the engine's are in bench.context.FLAG_MEANINGS)
WORKLOAD_FLAGS = {
    "short-step": "shorter than the workload's minimum step time: timing noise and process start-up dominate",
    "corpus-exhausted": "a reader ran out of files it had not read yet and stopped early",
    "attribute-cache": "metadata may have come from the client's attribute cache",
}


# ---------------------------------------------------------------------------- charts


def _sweep_directions(runs: Sequence[RunResult]) -> list[str]:
    found = {str(s.params.get("direction", "")) for r in runs for s in r.steps
             if isinstance(s.params.get("block_size"), int)}
    return sorted(found, key=lambda d: (d != "write", d != "read", d))


def _merged(runs: Sequence[RunResult]) -> RunResult:
    if len(runs) == 1:
        return runs[0]
    return replace(runs[0], steps=[s for r in runs for s in r.steps])


def sweep_charts(content: ReportContent) -> list[Block]:
    """Per workload and direction: the layouts on one chart, baselines (a local disk is often
    ten times faster and would flatten every gluster curve) on their own."""
    baselines = {r.key for r in content.table.rows if r.kind == BASELINE}
    blocks: list[Block] = []
    workloads = list(dict.fromkeys(e.run.workload for e in content.runs))
    for workload in workloads:
        entries = [e for e in content.runs if e.run.workload == workload]
        layouts = [e for e in entries if e.row_key not in baselines]
        bases = [e for e in entries if e.row_key in baselines]
        for part, what in ((layouts, "the layouts" if bases else ""), (bases, "baselines")):
            if part:
                blocks += _sweep_charts(workload, part, what)
    return blocks


def _sweep_charts(workload: str, entries: list[RunEntry], what: str) -> list[Block]:
    blocks: list[Block] = []
    directions = _sweep_directions([e.run for e in entries])
    per_row: dict[str, list[RunEntry]] = {}
    for e in entries:
        per_row.setdefault(e.row_key or e.label, []).append(e)
    if len(entries) <= CURVES_PER_RUN_UP_TO:
        groups = [(e.label, [e.run]) for e in entries]
        how = "one curve per run and file count"
    else:
        groups = [(es[0].label.split(" · ")[0], [e.run for e in es]) for es in per_row.values()]
        how = f"{len(entries)} runs: one curve per layout and file count, over all its runs' repeats"
    for d in directions:
        curves = []
        for si, (label, runs) in enumerate(groups):
            for conc, pts in sweep_by_block_size(_merged(runs), "throughput", d).items():
                words = "1 file" if conc == 1 else f"{conc} files"
                curves.append(Curve(f"{label} · {words}", si, conc > 1, tuple(pts)))
        if not curves:
            continue
        chart = SweepChart(f"{workload} {d}: throughput vs block size" + (f" — {what}" if what else ""),
                           tuple(curves))
        blocks.append(Figure(lambda p, ts, r, c=chart: draw_sweep(p, ts, r, c),
                             lambda ts, w, c=chart: sweep_height(ts, w, c),
                             caption=f"{how}; one file solid, N files at once dashed; bars: min–max over the "
                                     "repeats (median marked)", title=chart.title))
    return blocks


def bar_charts(content: ReportContent) -> list[Block]:
    table = content.table
    blocks: list[Block] = []
    single, many = headline_columns(table)
    if single is None and many is None:
        return blocks
    bs = (single or many).params["block_size"]
    for d in dict.fromkeys(c.params["direction"] for c in table.columns if c.group == "throughput"):
        cols = [c for c in table.columns if c.group == "throughput" and c.params["direction"] == d
                and c.params["block_size"] == bs]
        cols.sort(key=lambda c: (c.params["concurrency"] == MANY, c.params["concurrency"]))
        groups = []
        for row in table.rows:
            bars = []
            for c in cols:
                f = row.figure(c.key)
                if not f.known:
                    bars.append(None)
                    continue
                v = float(f.value)  # type: ignore[arg-type]
                bars.append(Bar(v, f.low if f.low is not None else v, f.high if f.high is not None else v,
                                f.source == ESTIMATED, format_rate(v)))
            if any(bars):
                groups.append(BarGroup(row.key if row.kind != BASELINE else row.label, tuple(bars)))
        if not groups:
            continue
        size = "large blocks" if not bs else f"{format_block_size(bs)} blocks"
        series = tuple("many files" if c.params["concurrency"] == MANY else
                       ("1 file" if c.params["concurrency"] == 1 else f"{c.params['concurrency']} files")
                       for c in cols)
        chart = BarChart(f"{d}, {size}: the layouts side by side", series, tuple(groups))
        blocks.append(Figure(lambda p, ts, r, c=chart: draw_bars(p, ts, r, c),
                             lambda ts, w, c=chart: bar_height(ts, w, c),
                             caption="the decision table's figures: median bars, min–max whiskers", title=chart.title))
    return blocks


def trend_chart(content: ReportContent) -> list[Block]:
    trend = content.trend
    if trend is None:
        return []
    chart = TrendChart(f"{trend.title}: every stored run of each volume",
                       tuple(TrendLine(s.name, tuple((t, v) for t, _, v in s.points)) for s in trend.series))
    return [Figure(lambda p, ts, r, c=chart: draw_trend(p, ts, r, c), lambda ts, w, c=chart: trend_height(ts, w, c),
                   caption="history trend: the median over each run's valid repeats at this point", title=chart.title)]


def charts_section(content: ReportContent, number: int) -> list[Block]:
    blocks: list[Block] = [Heading(f"{number}  Charts", 1, "charts")]
    body = sweep_charts(content) + bar_charts(content) + trend_chart(content)
    if not body:
        body = [Paragraph.of("No run measured a block-size sweep: the figures are in the tables.", "small")]
    return blocks + body


# ---------------------------------------------------------------------------- comparison


def comparison_section(content: ReportContent, number: int) -> list[Block]:
    blocks: list[Block] = [Heading(f"{number}  History comparison", 1, "comparison")]
    if not content.comparisons:
        blocks.append(Paragraph.of("One run per workload: nothing to compare it with in this report.", "small"))
        return blocks
    blocks.append(Paragraph.of(
        "Each run against the first of its workload, as `brickyard history compare` shows it: first what "
        "differs between the two (layout, options, versions, hosts, parameters), then each figure's change with "
        "its 95 % bootstrap interval and how sure that change is.", "small", colour=MUTED))
    for c in content.comparisons:
        a, b = c.reference, c.other
        blocks.append(Heading(f"{_name(b)} against {_name(a)}", 3))
        if c.differences:
            rows = [[Cell(d.field, "table-bold"), Cell(d.values[0]), Cell(d.values[1])] for d in c.differences]
            blocks.append(Table([Col("what differs", wrap=True, max_width=150.0), Col(_name(a)), Col(_name(b))],
                                rows, space_before=3.0))
        else:
            blocks.append(Paragraph.of("Nothing recorded differs between the two runs.", "small"))
        if c.metrics:
            rows = []
            for m in c.metrics:
                rows.append([Cell(_point_words(m.point)), Cell(m.metric),
                             Cell(f"{format_quantity(m.baseline.median, m.unit)} (n={m.baseline.n})"),
                             Cell(f"{format_quantity(m.other.median, m.unit)} (n={m.other.n})"),
                             Cell(f"{m.change:+.1%}" if not math.isnan(m.ratio) else "—", "table-bold"),
                             Cell(m.certainty())])
            blocks.append(Table([Col("point", wrap=False), Col("metric", wrap=False),
                                 Col(_name(a), align="r", wrap=False), Col(_name(b), align="r", wrap=False),
                                 Col("change", align="r", wrap=False), Col("how sure")], rows, space_before=4.0))
        else:
            blocks.append(Paragraph.of("No sweep point was measured by both runs.", "small"))
        if c.points_left_out:
            blocks.append(Paragraph.of(f"{c.points_left_out} more points outside the decision table's block sizes: "
                                       f"brickyard history compare {a.run.run_id[:12]} {b.run.run_id[:12]}",
                                       "small", colour=MUTED, space=1.5))
    return blocks


def _point_words(point) -> str:
    """'write bs 4M ×8': the sweep point without the workload's own per-step numbers."""
    sweep = tuple((k, v) for k, v in point if k in POINT_KEYS_FIRST)
    return describe_point(sweep or point)


def _name(e: RunEntry) -> str:
    return e.label or e.run.run_id[:12]


# ---------------------------------------------------------------------------- hygiene


def _end_state(run: RunResult) -> tuple[str, str]:
    stalled = any("stall" in s.flags for s in run.steps)
    if run.status is RunStatus.PARTIAL:
        word = "stalled" if stalled else "partial"
        if run.failed_host:
            word += f" ({run.failed_host})"
    else:
        word = run.status.value
    return word, run.error


def hygiene_row(e: RunEntry) -> list[Cell]:
    run = e.run
    measured = [s for s in run.steps if s.workers]
    invalid = sum(1 for s in run.steps if not s.valid)
    suspect = sum(1 for s in measured if s.suspect)
    steps = f"{len(measured)} measured"
    if invalid:
        steps += f", {invalid} invalid"
    if suspect:
        steps += f", {suspect} cache-suspect"
    skews = [s.start_skew.get("p99", math.nan) for s in measured if s.start_skew]
    skews = [x for x in skews if not math.isnan(x)]
    shares = []
    for s in measured:
        elapsed = s.metric("elapsed")
        p99 = s.start_skew.get("p99") if s.start_skew else None
        if elapsed is not None and elapsed.value > 0 and p99 is not None and not math.isnan(p99):
            shares.append(p99 / elapsed.value)
    skew = "not measured" if not skews else f"p99 ≤ {format_quantity(max(skews), 's')}"
    if shares:
        skew += f" ({max(shares):.1%} of its step at most)"
    clocks = [s.start_skew["uncertainty"] for s in measured if isinstance(s.start_skew.get("uncertainty"), float)]
    if clocks:
        skew += f"; host clocks ±{format_quantity(max(clocks), 's')} at most"
    reads = [s for s in measured if s.params.get("direction") == "read"]
    client = sum(1 for s in reads if "caches-not-dropped" in s.flags)
    server = sum(1 for s in reads if "server-caches-not-dropped" in s.flags)
    if not reads:
        caches = "no reads"
    elif not client and not server:
        caches = f"dropped before all {len(reads)} reads (client and bricks)"
    else:
        parts = []
        if client:
            parts.append(f"client's not dropped before {client} of {len(reads)} reads")
        if server:
            parts.append(f"bricks' not dropped before {server} of {len(reads)} reads")
        caches = "; ".join(parts)
    counts: dict[str, int] = {}
    for s in run.steps:
        for f in s.flags:
            if f not in ("caches-not-dropped", "server-caches-not-dropped"):
                counts[f] = counts.get(f, 0) + 1
    flags = ", ".join(f"{f} ×{n}" for f, n in counts.items()) or "none"
    state, error = _end_state(run)
    bad = run.status is not RunStatus.COMPLETE
    return [Cell(f"{e.label}\n{run.run_id[:12]}", "table"),
            Cell(state + (f"\n{error}" if error else ""), "table-bold" if bad else "table", FAILED if bad else ""),
            Cell(steps), Cell(skew), Cell(caches, colour=FAILED if (client or server) else ""), Cell(flags)]


def hygiene_section(content: ReportContent, number: int) -> list[Block]:
    blocks: list[Block] = [Heading(f"{number}  Run hygiene", 1, "hygiene")]
    blocks.append(Paragraph.of(
        "Whether each run's figures can be trusted: how it ended, how far apart its workers started (start skew), "
        "whether page caches were dropped before reads, and what its steps were flagged with. Invalid steps are "
        "left out of every figure; cache-suspect steps are shown but never the headline.", "small", colour=MUTED))
    rows = [hygiene_row(e) for e in content.runs]
    blocks.append(Table([Col("run", max_width=130.0), Col("end state", max_width=110.0), Col("steps", max_width=80.0),
                         Col("start skew", max_width=90.0), Col("caches", max_width=110.0), Col("flags")], rows,
                        stretch=True))
    seen = {f for e in content.runs for s in e.run.steps for f in s.flags}
    meanings = {**FLAG_MEANINGS, **WORKLOAD_FLAGS}
    for flag in sorted(seen):
        meaning = meanings.get(flag, "set by the workload (see the step's note in the appendix)")
        suspect = " (cache-suspect)" if flag in CACHE_SUSPECT_FLAGS else ""
        blocks.append(Paragraph([(f"{flag}{suspect}: ", "small-bold"), (meaning, "small")], bullet="•", indent=10.0,
                                space=1.2))
    return blocks


# ---------------------------------------------------------------------------- environment


def environment_section(content: ReportContent, number: int) -> list[Block]:
    blocks: list[Block] = [Heading(f"{number}  Environment", 1, "environment")]
    hosts: dict[str, dict[str, list[str]]] = {}
    keys: list[str] = []
    for e in content.runs:
        for host, info in e.run.provenance.hosts.items():
            facts = hosts.setdefault(host, {})
            for k, v in info.items():
                if k not in keys:
                    keys.append(k)
                values = facts.setdefault(k, [])
                if v and v not in values:
                    values.append(v)
    order = [k for k in ("os", "kernel", "gluster", "cpus", "hostname") if k in keys] + \
        [k for k in keys if k not in ("os", "kernel", "gluster", "cpus", "hostname")]
    if hosts:
        blocks.append(Heading("Hosts (as each run found them)", 3))
        rows = [[Cell(h, "table-bold")] + [Cell(" / ".join(hosts[h].get(k, [])) or "—") for k in order]
                for h in sorted(hosts)]
        blocks.append(Table([Col("host", wrap=False)] + [Col(k) for k in order], rows, space_before=3.0))
    blocks.append(Heading("Volumes and targets", 3))
    rows = []
    for row in content.table.rows:
        runs = [e.run for e in content.runs if e.row_key == row.key]
        if not runs:
            continue
        targets = list(dict.fromkeys(r.provenance.target for r in runs))
        options = list(dict.fromkeys("\n".join(f"{k} = {v}" for k, v in sorted(r.provenance.volume_options.items()))
                                     for r in runs))
        mounts = list(dict.fromkeys(r.provenance.mount_options for r in runs if r.provenance.mount_options))
        what = row.label if row.kind == BASELINE else (f"{row.key}: {row.extra_label}" if row.extra_label
                                                        else row.key)
        rows.append([Cell(what, "table-bold"), Cell("\n".join(targets)),
                     Cell("\n—\n".join(o for o in options if o) or "—"), Cell("\n".join(mounts) or "—")])
    blocks.append(Table([Col("layout", max_width=120.0), Col("target", max_width=110.0), Col("volume options"),
                         Col("mount options")], rows, space_before=3.0, stretch=True))
    blocks.append(Heading("Runs", 3))
    rows = []
    for e in content.runs:
        p = e.run.provenance
        params = ", ".join(f"{k}={v}" for k, v in p.parameters.items()) or "—"
        rows.append([Cell(f"{e.label}\n{e.run.run_id[:12]}"), Cell(e.run.workload), Cell(params),
                     Cell(f"{format_utc(e.run.started_at)}\n{format_utc(e.run.ended_at) or '—'}"),
                     Cell(p.brickyard_version)])
    blocks.append(Table([Col("run", max_width=120.0), Col("workload", wrap=False), Col("parameters"),
                         Col("started / ended (UTC)", wrap=False), Col("Brickyard", wrap=False)], rows,
                        space_before=3.0, stretch=True))
    return blocks


# ---------------------------------------------------------------------------- appendix

FIRST_METRICS = ("throughput", "stonewall_throughput", "sum_of_rates", "elapsed", "bytes", "start_skew_p99",
                 "clock_uncertainty")


def _metric_names(run: RunResult) -> list[str]:
    names = list(dict.fromkeys(m.name for s in run.steps for m in s.metrics))
    return [n for n in FIRST_METRICS if n in names] + [n for n in names if n not in FIRST_METRICS]


def step_rows(step: StepResult, columns: Sequence[str], width: int) -> list[list[Cell]]:
    """A step's main figures on one row (flags in the last cell) and, across the table under
    it, every other figure it reported and its note."""
    values = {m.name: m for m in step.metrics}
    cells = [Cell(str(step.index)), Cell(_point_words(point_of(step)) or "—"), Cell(str(step.repeat))]
    for name in columns:
        m = values.get(name)
        cells.append(Cell(format_quantity(m.value, m.unit) if m is not None else ""))
    flags = ", ".join(step.flags)
    if not step.valid:
        flags = "INVALID" + (f": {flags}" if flags else "")
    cells.append(Cell(flags, "tiny-bold" if not step.valid else "tiny", FAILED if not step.valid else ""))
    rows = [[Cell(c.text, c.style if c.style.startswith("tiny") else "tiny", c.colour) for c in cells]]
    detail = "; ".join(f"{m.name.replace('_', ' ')} {format_quantity(m.value, m.unit)}" for m in step.metrics
                       if m.name not in columns)
    if step.note:
        detail = f"{detail}  —  {step.note}" if detail else step.note
    if detail:
        rows.append([Cell(detail, "tiny", MUTED, fill="#f8f9fa", span=width)])
    return rows


def appendix(content: ReportContent) -> list[Block]:
    blocks: list[Block] = [PageBreak(), Heading("Appendix: every step's raw numbers", 1, "appendix")]
    blocks.append(Paragraph.of("Each run's steps as measured: the sweep point, the repeat and its main figures, then "
                               "(grey, under it) every other figure the step reported and its note; units as "
                               "everywhere else in Brickyard. The exact stored values: brickyard history export RUN.",
                               "small", colour=MUTED))
    for e in content.runs:
        run = e.run
        blocks.append(Heading(f"{e.label} — run {run.run_id[:12]}, {run.workload}, {run.status.value}, "
                              f"{format_utc(run.started_at)} UTC, {len(run.steps)} steps", 3))
        if not run.steps:
            blocks.append(Paragraph.of("No step was measured." + (f" {run.error}" if run.error else ""), "small"))
            continue
        shown = _metric_names(run)[:7]
        cols = [Col("#", align="r", wrap=False), Col("point", wrap=False), Col("rep", align="r", wrap=False)]
        cols += [Col(n.replace("_", " "), align="r", wrap=False) for n in shown]
        cols.append(Col("flags"))
        rows = [row for s in run.steps for row in step_rows(s, shown, len(cols))]
        blocks.append(Table(cols, rows, space_before=3.0, header_style="tiny-bold", zebra=False, stretch=True))
    return blocks

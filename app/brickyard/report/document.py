"""The report as a list of blocks, in the issue's order: the title block, the decision (page
1), the model check (predicted vs measured, when there is one), the topology and each layout, the charts, the history comparison, run hygiene, the
environment, and an appendix with every step's raw numbers.

``build_document(content, ts, width)`` reads only the ``ReportContent``; both the PDF and the
HTML writer call it, so the two carry the same words and numbers.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.decisiontable import BASELINE, ESTIMATED, MEASURED, PLANNED, PREDICTED, Column, DecisionTable
from ..core.topology import Client, VolumeType
from ..core.gluster_cli import HostCommand, command_lines, mount_commands
from ..core.layout import TYPE_NAMES, resolve
from ..core.units import describe_size, format_rate, format_utc
from .blocks import Block, Cell, Code, Col, Figure, Heading, Paragraph, Table
from .content import LayoutPlan, ReportContent
from .sentences import layout_sentence, reading
from .topodraw import TopologyDrawing, layout_mounts
from .typeset import ACCENT, ESTIMATE, FAILED, MUTED, PREDICT, Typeset

COLUMN_GAP = 10.0      # between layouts in the decision table: no two figures run together
SEVERITY_WORDS = {"error": "gluster refuses", "needs-force": "needs force", "warning": "gluster asks"}


def build_document(content: ReportContent, ts: Typeset, width: float) -> list[Block]:
    from . import runsections
    from .modelsection import model_check_section

    blocks: list[Block] = []
    blocks += title_block(content)
    number = iter(range(1, 20))
    blocks += decision_section(content, ts, width, next(number))
    if content.model_check is not None:
        blocks += model_check_section(content, next(number))
    blocks += layout_sections(content, next(number))
    if content.runs:
        blocks += runsections.charts_section(content, next(number))
        blocks += runsections.comparison_section(content, next(number))
        blocks += runsections.hygiene_section(content, next(number))
        blocks += runsections.environment_section(content, next(number))
        blocks += runsections.appendix(content)
    return blocks


# ---------------------------------------------------------------------------- title block


def title_block(content: ReportContent) -> list[Block]:
    made = f"{format_utc(content.created_at)} UTC by {content.author} with Brickyard {content.version}"
    facts = [*content.facts, ("made", made)]
    rows: list[list[Cell]] = []
    short: list[tuple[str, str]] = []
    for k, v in facts:               # short facts two to a line, so the decision keeps page 1
        if len(v) > 44:
            rows.append([Cell(k, "small-bold"), Cell(v, "small", span=3)])
        else:
            short.append((k, v))
    pairs = [short[i:i + 2] for i in range(0, len(short), 2)]
    rows = [[c for k, v in pair for c in (Cell(k, "small-bold"), Cell(v, "small"))] +
            ([Cell(""), Cell("")] if len(pair) == 1 else []) for pair in pairs] + rows
    return [
        Paragraph.of(content.title, "title", space=0.0),
        Paragraph.of(content.subject, "subtitle", colour=MUTED, space=3.0),
        Table([Col("", wrap=False), Col("", wrap=True, max_width=230.0), Col("", wrap=False, gap=12.0),
               Col("", wrap=True)], rows, header=False, zebra=False, space_before=6.0),
    ]


# ---------------------------------------------------------------------------- the decision

GROUP_TITLES = {
    "capacity": "capacity — planned from the topology (TB and TiB)",
    "failures": "failures survived — planned from the topology",
    "throughput": "throughput — measured: median of the repeats, ± half their range",
    "scaling": "scaling — N files ÷ (N × one file)",
}


def decision_columns(table: DecisionTable) -> list[Column]:
    """The table's columns a report prints: all of them, except site failures when no layout
    has two sites (said in a note instead)."""
    cols = []
    for c in table.columns:
        if c.key in ("sites_worst", "sites_best") and not any(r.figure(c.key).known for r in table.rows):
            continue
        cols.append(c)
    return cols


def cell_style(source: str, base: str = "table") -> tuple[str, str]:
    """(text style, colour) of a figure: estimates grey italics, planned dark blue, predicted
    purple italics; the text itself also says it ('≈ … (est.)', '(pred.)'), for greyscale."""
    if source == ESTIMATED:
        return f"{base}-italic", ESTIMATE
    if source == PREDICTED:
        return f"{base}-italic", PREDICT
    if source == PLANNED:
        return base, ACCENT
    return base, ""


def _gap(base: str) -> float:
    return COLUMN_GAP if base == "table" else COLUMN_GAP - 4


def _chunks(table: DecisionTable, columns: list[Column], ts: Typeset, width: float, base: str) -> list[list[int]]:
    label_w = max(ts.advance(c.title, f"{base}-bold") for c in columns) + 2 * Table.PAD_X + 2
    chunks: list[list[int]] = [[]]
    used = label_w
    for i, row in enumerate(table.rows):
        cells = [ts.advance(table.text(row, c.key), cell_style(row.figure(c.key).source, base)[0]) for c in columns]
        head = [ts.advance(w, "table-bold") for w in _head(row).split()]
        w = max(cells + head) + 2 * Table.PAD_X + _gap(base) + 1
        if chunks[-1] and used + w > width:
            chunks.append([])
            used = label_w
        chunks[-1].append(i)
        used += w
    return chunks


def decision_tables(table: DecisionTable, ts: Typeset, width: float) -> list[Table]:
    """The decision table with layouts side by side (one column each) and one line per
    figure, as the write-up laid out its own: in a slightly smaller type when that fits it
    on one width, else in as many tables as it takes. No cell is broken over two lines."""
    columns = decision_columns(table)
    if not table.rows:
        return []
    base, chunks = "table", _chunks(table, columns, ts, width, "table")
    for smaller in ("table-s", "table-xs"):
        if len(chunks) == 1:
            break
        fewer = _chunks(table, columns, ts, width, smaller)
        if len(fewer) < len(chunks):
            base, chunks = smaller, fewer
    measured = any(r.figure(c.key).source == MEASURED for r in table.rows for c in columns if c.group == "throughput")
    out = []
    for n, chunk in enumerate(chunks):
        rows_of = [table.rows[i] for i in chunk]
        cols = [Col("figure", wrap=False)] + [Col(_head(r), align="r", wrap=False, gap=_gap(base)) for r in rows_of]
        body: list[list[Cell]] = []
        if any(r.volume and r.volume != r.key for r in rows_of):
            body.append([Cell("volume", f"{base}-bold")] + [Cell(r.volume or "", base) for r in rows_of])
        group = ""
        for c in columns:
            if c.group != group:
                group = c.group
                title = GROUP_TITLES.get(group, group)
                if group == "throughput" and not measured:
                    title = "throughput — the planner's estimate: nothing is measured yet"
                body.append([Cell(title, f"{base}-italic", colour=MUTED, fill="#eef1f4", span=len(cols),
                              heads=True)])
            line = [Cell(c.title, f"{base}-bold")]
            for r in rows_of:
                style, colour = cell_style(r.figure(c.key).source, base)
                line.append(Cell(table.text(r, c.key), style, colour))
            body.append(line)
        caption = "" if len(chunks) == 1 else f"layouts {chunk[0] + 1}–{chunk[-1] + 1} of {len(table.rows)}"
        out.append(Table(cols, body, zebra=True, caption=caption, space_before=6.0 if n == 0 else 10.0))
    return out


def _head(row) -> str:
    if row.kind == BASELINE:
        return row.label
    return f"{row.key} {row.extra_label}" if row.extra_label else row.key


def decision_section(content: ReportContent, ts: Typeset, width: float, number: int) -> list[Block]:
    table = content.table
    blocks: list[Block] = [Heading(f"{number}  The decision", 1, "decision")]
    blocks += decision_tables(table, ts, width)
    legend = [("measured: ", "small-bold"), ("median over the repeats, ± half the min–max range (a ratio: its range); ",
                                             "small"),
              ("≈ … (est.): ", "small-bold"), ("the planner's estimate, not measured; ", "small"),
              ("capacity and failures: ", "small-bold"), ("planned, exact from the topology; ", "small"),
              ("failures: ", "small-bold"), ("any this many servers may fail and every file stays readable and "
                                             "writable (best case: when the right ones fail).", "small")]
    if any(f.source == PREDICTED for r in table.rows for f in r.figures.values()):
        legend.append((" (pred.): a calibrated model's prediction.", "small"))
    if any(f.block_size is not None for r in table.rows for f in r.figures.values()):
        legend.append((" at 16M: ", "small-bold"))
        legend.append(("a baseline measured at another block size than its column's (the layouts' runs decide "
                       "the block sizes).", "small"))
    blocks.append(Paragraph(legend, colour=MUTED, space=4.0))
    notes = list(table.notes)
    if len(decision_columns(table)) < len(table.columns):
        notes.append("site failures: n/a — the bricks are not in two or more named sites")
    notes += list(content.notes)
    for note in notes:
        blocks.append(Paragraph.of(note, "small", colour=MUTED, space=1.5))
    lines = reading(table)
    if lines:
        blocks.append(Heading("Reading the table", 3))
        for line in lines:
            blocks.append(Paragraph.of(line, "body", bullet="•", indent=10.0, space=2.0))
    if table.rows:
        blocks.append(Heading("Each layout in one sentence", 3))
        for row in table.rows:
            text = layout_sentence(table, row)
            head, _, rest = text.partition(": ")
            blocks.append(Paragraph([(head + ": ", "bold"), (rest, "body")], bullet="•", indent=10.0, space=2.0))
    return blocks


# ---------------------------------------------------------------------------- the layouts


def layout_sections(content: ReportContent, number: int) -> list[Block]:
    if not content.layouts:
        return []
    title = "The topology and the layout" if len(content.layouts) == 1 else "The topology and each layout"
    blocks: list[Block] = [Heading(f"{number}  {title}", 1, "layouts")]
    for i, layout in enumerate(content.layouts):
        blocks += layout_section(layout, f"{number}.{i + 1}")
    return blocks


def layout_headline(layout: LayoutPlan) -> str:
    plan = layout.plan
    res, _ = resolve(plan.volume.layout, len(plan.volume.bricks))
    verdict = "valid" if plan.valid else ("needs force" if plan.needs_force and not plan.errors else
                                          "refused" if plan.refused else "has errors")
    return f"{plan.volume.name}: {TYPE_NAMES[plan.gluster_type]} {res.describe()} ({verdict})"


def layout_section(layout: LayoutPlan, number: str) -> list[Block]:
    plan = layout.plan
    drawing = TopologyDrawing(layout)
    caption = (f"Volume {plan.volume.name} on {layout.topology.name or 'its servers'}: each brick coloured and "
               f"numbered by its set, #n its place in the brick order; under each site's servers, the clients "
               f"that mount it and where")
    if layout.failures:
        caption += f"; failure scenario: {', '.join(layout.failures)} (crossed out)"
    blocks: list[Block] = [
        Heading(f"{number}  {layout_headline(layout)}", 2, f"layout-{plan.volume.name}"),
        Figure(lambda p, ts, r, d=drawing: d.paint(p, ts, r), lambda ts, w, d=drawing: d.natural_height(ts, w),
               caption=caption, title=f"topology {plan.volume.name}"),
    ]
    if plan.refused:
        blocks.append(Table([Col("", wrap=False), Col("", wrap=True)],
                            [[Cell("type", "table-bold"), Cell(f"{TYPE_NAMES[plan.gluster_type]}: gluster would refuse "
                                                                f"to create it, so it has no sets, capacity or "
                                                                f"failures to show", colour=FAILED)]],
                            header=False, space_before=6.0))
        blocks += _findings_and_commands(layout)
        return blocks
    c, t = plan.capacity, plan.tolerance
    sized = c.raw_bytes > 0
    facts = [("type", _type_words(plan))]
    if sized:
        facts += [("raw", describe_size(c.raw_bytes)),
                  ("usable", f"{describe_size(c.usable_bytes)} — {c.efficiency:.0%} of raw"),
                  ("overhead", describe_size(c.overhead_bytes) + (f" (arbiter bricks {describe_size(c.arbiter_bytes)}, "
                                                                   "metadata only)" if c.arbiter_bytes else ""))]
        df = describe_size(c.df_bytes) + ("" if c.df_bytes == c.usable_bytes else
                                          " — not the usable size: bricks sharing a filesystem are counted once each")
        facts.append(("client df shows", df))
    else:
        facts.append(("capacity", "unknown: brick sizes are not known (give the topology the runs were made on)"))
    at_least = "" if t.best_exact else "at least "
    facts.append(("node failures survived", f"any {t.nodes_worst}; best case {at_least}{t.nodes_best}"))
    facts.append(("site failures survived", "n/a (the bricks are in fewer than two sites)" if t.sites_worst is None
                  else f"any {t.sites_worst}; best case {at_least}{t.sites_best}"))
    if layout.failures:
        st = plan.state
        facts.append(("with " + ", ".join(layout.failures) + " failed",
                      f"{st.state}: {'reads' if st.readable else 'does NOT read'}, "
                      f"{'writes' if st.writable else 'does NOT write'}"))
    if plan.volume.options:
        facts.append(("options", "; ".join(f"{k} = {v}" for k, v in plan.volume.options.items())))
    e = plan.estimate
    rate = lambda x: "unknown" if x is None else format_rate(x)  # noqa: E731
    facts.append((f"throughput {e.label}", f"one file: write {rate(e.single_write_bps)}, read {rate(e.single_read_bps)}; "
                                           f"many files: write {rate(e.concurrent_write_bps)}, read "
                                           f"{rate(e.concurrent_read_bps)} ({e.formula})"))
    blocks.append(Table([Col("", wrap=False), Col("", wrap=True)],
                        [[Cell(k, "table-bold"), Cell(v)] for k, v in facts], header=False, space_before=6.0))
    if plan.gluster_type is not VolumeType.DISTRIBUTE:      # plain distribute: every brick is its own "set"
        blocks.append(set_table(layout))
    return blocks + _findings_and_commands(layout)


def _mount_commands(layout: LayoutPlan) -> tuple[HostCommand, ...]:
    """Each client's mount the drawing shows (``layout_mounts``: the runs' targets, else the
    volume's own), as provisioning runs it."""
    mounts = layout_mounts(layout)
    known = {c.name for c in layout.topology.clients}
    topo = replace(layout.topology, clients=[*layout.topology.clients,
                                             *(Client(n) for n in dict.fromkeys(m.client for m in mounts)
                                               if n not in known)])
    return mount_commands(topo, replace(layout.plan.volume, mounts=list(mounts)))


def _findings_and_commands(layout: LayoutPlan) -> list[Block]:
    plan = layout.plan
    blocks: list[Block] = []
    if plan.placement_note:
        blocks.append(Paragraph.of(f"Placement: {plan.placement_note}", "small", space=3.0))
    for note in layout.notes:
        blocks.append(Paragraph.of(note, "small", colour=MUTED, space=2.0))
    if plan.findings:
        blocks.append(Heading("What gluster would say", 3))
        for f in plan.findings:
            colour = FAILED if f.severity == "error" else ""
            blocks.append(Paragraph([(SEVERITY_WORDS.get(f.severity, f.severity) + ": ", "small-bold"),
                                     (f.message, "small")], colour=colour, bullet="•", indent=10.0, space=1.5))
    blocks.append(Heading("The commands (each on the machine named)", 3))
    if plan.commands:
        blocks.append(Code(command_lines(plan.commands + _mount_commands(layout))))
    else:
        blocks.append(Paragraph.of("None: Brickyard offers no commands while the plan has an error (see above).",
                                   "small"))
    return blocks


def _type_words(plan) -> str:
    n = len(plan.volume.bricks)
    if plan.gluster_type is VolumeType.DISTRIBUTE:
        return f"Distribute: each file whole on one of {n} bricks, no second copy"
    if not plan.sets:
        return TYPE_NAMES[plan.gluster_type]
    s = plan.sets[0]
    if plan.gluster_type.is_dispersed:
        what = f"each file cut into {s.data_bricks} data + {s.redundancy} redundancy fragments"
    elif s.thin_arbiter:       # replica 2 thin-arbiter 1: one thin-arbiter brick serves every set
        n = len(s.gluster_bricks)
        sets = f"{len(plan.sets)} sets of {n} bricks" if len(plan.sets) > 1 else f"one set of {n} bricks"
        ta = plan.volume.thin_arbiter_brick
        serves = ("serves every set" if len(plan.sets) > 1 else "serves the set") if plan.thin_arbiter_reachable else \
            "is on a server of the pool, where the thin-arbiter process cannot run: each pair needs both bricks"
        return (f"{TYPE_NAMES[plan.gluster_type]} {plan.number_of_bricks}: {sets}, each file as {n} copies; "
                f"the thin-arbiter {ta} (metadata only, not a member of a set) {serves}")
    else:
        copies = s.size - (1 if s.arbiter else 0)
        what = f"each file as {copies} copies" + (" and an arbiter (metadata only)" if s.arbiter else "")
    sets = f"{len(plan.sets)} sets of {s.size} bricks" if len(plan.sets) > 1 else f"one set of {s.size} bricks"
    return f"{TYPE_NAMES[plan.gluster_type]}: {sets}, {what}"


def set_table(layout: LayoutPlan) -> Table:
    plan = layout.plan
    states = {s.index: s for s in plan.state.sets}
    show_state = bool(layout.failures)
    cols = [Col("set", align="r", wrap=False), Col("usable", align="r", wrap=False), Col("bricks (in volume order)")]
    if show_state:
        cols.append(Col("state", wrap=False))
    rows = []
    for s in plan.sets:
        bricks = ", ".join(f"{b}{' (arbiter)' if b == s.gluster_arbiter else ''}" for b in s.gluster_bricks)
        usable = describe_size(s.usable_bytes) if plan.capacity.raw_bytes else "—"
        row = [Cell(str(s.index + 1), "table-bold"), Cell(usable), Cell(bricks)]
        if show_state:
            st = states.get(s.index)
            word = st.state if st else ""
            row.append(Cell(word, "table-bold" if word != "UP" else "table", FAILED if word == "DOWN" else ""))
        rows.append(row)
    ta = plan.thin_arbiter_json()
    if ta is not None:   # not a member of a set (gluster: Thin-arbiter-path), so a row of its own
        what = "serves every set" if ta["reachable"] else "not usable: on a server of the pool"
        row = [Cell("TA", "table-bold"), Cell("—"), Cell(f"{ta['brick']} (thin-arbiter: {what})")]
        if show_state:
            failed = any(ta["brick"] == str(b) for st in plan.state.sets for b in st.failed)
            row.append(Cell("FAILED" if failed else "", "table-bold", FAILED if failed else ""))
        rows.append(row)
    return Table(cols, rows, space_before=5.0)


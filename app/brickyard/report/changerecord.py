"""The change record: one change to a live volume on paper, for a manager to file.

    content = content_from_change(store, change_id)        # read once; no store after that
    export_report(content, "change-gv0.pdf")                # as every report (report/__init__.py)

In the order a reader asks: what changed and whether it worked (the verdict, before → after
capacity and failures survived, the bricks added, retired and replaced); each step with its
prediction and how long it took; the data that moved, predicted and as gluster counted it;
the volume before and after, drawn as the planner draws it; then, as the appendix, every
gluster command the change ran with what gluster answered (a commit can be seen to follow a
status that said completed with no failures). The figures and words are
``core.changewords``' (the window's Change tab and change history say the same).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from .. import __version__
from ..core import changewords as cw
from ..core.units import format_bytes, format_utc
from .blocks import Block, Cell, Code, Col, Figure, Heading, Paragraph, Table
from .content import LayoutPlan, ReportInputError, os_user
from .typeset import ACCENT, FAILED, MUTED, PREDICT, Typeset

OUTPUT_LINES = 14          # of each gluster answer in the appendix (the history keeps all of it)
STATUS_COLOURS = {"done": "#1b5e20", "skipped": "#00695c", "failed": FAILED, "pending": MUTED, "running": ACCENT}
VERDICTS = {"complete": "completed: every step done and read back",
            "interrupted": "interrupted: cancelled part-way; the volume was left consistent",
            "failed": "stopped at a failed step; the volume was left consistent",
            "cancelled": "cancelled before anything changed", "rolled-back": "rolled back",
            "running": "still running when this record was made", "new": "not started"}


@dataclass(frozen=True)
class KeptCommand:
    at: float
    step: str
    host: str
    argv: tuple[str, ...]
    exit_status: int
    output: str


@dataclass(frozen=True)
class ChangeRecordContent:
    title: str
    subject: str
    author: str
    created_at: float
    change_id: str
    volume: str
    status: str
    message: str
    plan: dict[str, Any]
    state: dict[str, Any]
    started_at: float
    updated_at: float
    source: str = ""
    commands: tuple[KeptCommand, ...] = ()
    before: LayoutPlan | None = None
    after: LayoutPlan | None = None
    facts: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    kind: str = "change"
    version: str = __version__
    run_ids: tuple[str, ...] = field(default=())


def content_from_change(store: Any, change_id: str, *, title: str = "", author: str = "",
                        created_at: float | None = None) -> ChangeRecordContent:
    """The record of the change ``change_id`` (or a unique start of it) in ``store``'s history.
    Raises ``ReportInputError`` when there is none."""
    try:
        record = store.changes.get(change_id)
    except Exception as exc:  # noqa: BLE001 - StoreError: no such change, or an ambiguous id
        raise ReportInputError(str(exc)) from None
    outputs = store.changes.outputs(record.change_id)
    commands = tuple(KeptCommand(o.at, o.step_key, o.host, tuple(o.argv), o.exit_status,
                                 (o.stdout + ("\n" + o.stderr if o.stderr.strip() else "")).strip())
                     for o in outputs)
    before, after, drawn_notes = _drawings(record)
    sessions = record.state.get("sessions") or []
    ended = max((s.get("ended_at") or 0.0 for s in sessions), default=0.0) or record.updated_at
    facts = [("volume", record.volume), ("change", record.change_id),
             ("what", cw.kinds_text(record.kinds)), ("status", record.status),
             ("started", f"{format_utc(record.created_at, '%Y-%m-%d %H:%M:%S')} UTC"),
             ("ended", f"{format_utc(ended, '%Y-%m-%d %H:%M:%S')} UTC" if record.finished or sessions else "–"),
             ("runs", f"{len(sessions)} session{'s' if len(sessions) != 1 else ''}"
                      + (" (resumed)" if len(sessions) > 1 else ""))]
    if record.source:
        facts.append(("drawing", record.source))
    if record.options.get("rollback_of"):
        facts.append(("rolls back", record.options["rollback_of"]))
    return ChangeRecordContent(
        title=title or f"Change record: {record.volume}, {cw.kinds_text(record.kinds)}",
        subject=f"{record.topology.get('name') or 'cluster'} · volume {record.volume} · change {record.change_id[:12]}",
        author=author or os_user(), created_at=time.time() if created_at is None else created_at,
        change_id=record.change_id, volume=record.volume, status=record.status,
        message=record.state.get("message") or "", plan=record.plan, state=record.state,
        started_at=record.created_at, updated_at=ended, source=record.source, commands=commands,
        before=before, after=after, facts=tuple(facts), notes=tuple(drawn_notes))


def _drawings(record: Any) -> tuple[LayoutPlan | None, LayoutPlan | None, list[str]]:
    """The volume before and after, planned again from what the change stored (pure: the
    drawing and gluster's own XML of the live volume; ``core.change.planned_again``), for the
    planner's drawing of each."""
    from ..core.change import planned_again, planning_topology
    from ..core.plan import plan_volume

    try:
        again = planned_again(record, rates=False)       # the drawings do not need its times
        plan = again.plan
        ptopo = planning_topology(again.topo, again.live)
        before = LayoutPlan(f"{record.volume} before", plan_volume(ptopo, plan.current), ptopo)
        after = LayoutPlan(f"{record.volume} after", plan_volume(ptopo, plan.result), ptopo) if plan.ok else None
        return before, after, []
    except Exception as exc:  # noqa: BLE001 - a record from another version: the tables still say it all
        return None, None, [f"the drawings could not be made from the stored change ({exc})"]


# ---------------------------------------------------------------------------- the document


def build_change_document(content: ChangeRecordContent, ts: Typeset, width: float) -> list[Block]:
    from .document import title_block

    blocks: list[Block] = [*title_block(content)]
    plan, state = content.plan, content.state
    rows = cw.step_rows(plan, state)
    predicted, measured = cw.totals(rows)
    whole = plan.get("movement", {}).get("predicted_seconds")
    verdict = VERDICTS.get(content.status, content.status)
    colour = "" if content.status == "complete" else FAILED
    blocks += [Heading("1  What changed", 1, "what")]
    words = f"{content.volume}: {cw.kinds_text(plan.get('kinds') or [])} — {verdict}."
    if content.message and content.message not in verdict:
        words += f" {content.message[0].upper()}{content.message[1:]}."
    blocks.append(Paragraph.of(words, "bold", colour=colour))
    timing = (f"The steps that ran took {cw.span(measured)}; the plan predicted {cw.span(predicted)} for them "
              f"({cw.range_text(whole)} for the whole change).") if measured else \
        f"The plan predicted {cw.range_text(whole)} for the whole change; no step has run yet."
    blocks.append(Paragraph.of(timing))
    figures = cw.figure_rows(plan)
    if figures:
        blocks.append(Table([Col("", wrap=False), Col("before", wrap=True), Col("after", wrap=True)],
                            [[Cell(w, "table-bold"), Cell(a), Cell(b, "table-bold" if a != b else "table")]
                             for w, a, b in figures], space_before=6.0))
    for word, items in cw.brick_lines(plan):
        blocks.append(Paragraph([(f"Bricks {word}: ", "bold"), (", ".join(items), "body")], space=3.0))
    blocks += _steps_section(rows)
    blocks += _data_section(content)
    blocks += _drawing_section(content)
    notes = [*(plan.get("notes") or []), *content.notes]
    if notes:
        blocks.append(Heading("5  Notes", 1, "notes"))
        blocks += [Paragraph.of(n, "small", bullet="•", indent=10.0, space=2.0) for n in notes]
    blocks += _appendix(content)
    return blocks


def _steps_section(rows: Sequence[cw.StepRow]) -> list[Block]:
    table = []
    for r in rows:
        ratio = f"{r.ratio:.1f} ×" if r.ratio is not None and r.measured and r.measured >= 1 else ""
        table.append([Cell(str(r.number)), Cell(r.title), Cell(r.host),
                      Cell(r.status_words, "table-bold", colour=STATUS_COLOURS.get(r.status, "")),
                      Cell(r.predicted, colour=PREDICT), Cell(r.measured_text), Cell(ratio),
                      Cell(r.started)])
    blocks: list[Block] = [
        Heading("2  Steps", 1, "steps"),
        Paragraph.of("In the order they ran; the prediction is the planner's (purple), the time is what the step "
                     "took (a wait step lasts until gluster reports it done); measured ÷ predicted for steps of a "
                     "second or more.", "small", colour=MUTED),
        Table([Col("#", "r", wrap=False), Col("step", wrap=True), Col("host", wrap=False), Col("status", wrap=False),
               Col("predicted", wrap=False), Col("took", "r", wrap=False), Col("÷", "r", wrap=False),
               Col("started (UTC)", wrap=False)], table, space_before=4.0)]
    said = [r for r in rows if r.message and r.status in ("done", "failed")]
    if said:
        blocks.append(Heading("What each step read back", 2, "said"))
        blocks += [Paragraph([(f"{r.number}. ", "small-bold"), (r.message, "small")],
                             colour=FAILED if r.status == "failed" else "", space=2.0) for r in said]
    return blocks


def _data_section(content: ChangeRecordContent) -> list[Block]:
    movement = content.plan.get("movement") or {}
    measured = content.state.get("measured") or {}
    rows = []
    for key, m in measured.items():
        if "files" not in m:
            continue
        rows.append([Cell(key.replace("-wait", "")), Cell(f"{m.get('lookups', 0):,}", ), Cell(f"{m.get('files', 0):,}"),
                     Cell(format_bytes(m.get("bytes", 0))), Cell(f"{m.get('skipped', 0):,}"),
                     Cell(f"{m.get('failures', 0):,}", colour=FAILED if m.get("failures") else ""),
                     Cell(cw.span(m.get("runtime")))])
    blocks: list[Block] = [Heading("3  Data moved", 1, "data"),
                           Paragraph.of(f"Predicted: {cw.movement_text(content.plan)}", colour=PREDICT)]
    if rows:
        blocks.append(Paragraph.of("Measured: as gluster counted it on every node, when the step ended.", space=6.0))
        blocks.append(Table([Col("migration", wrap=False), Col("scanned", "r", wrap=False),
                             Col("files moved", "r", wrap=False), Col("data moved", "r", wrap=False),
                             Col("skipped", "r", wrap=False), Col("failures", "r", wrap=False),
                             Col("run time", "r", wrap=False)], rows, space_before=3.0))
        for key, m in measured.items():
            lines = m.get("node_lines") or []
            if lines:
                blocks.append(Paragraph.of(f"{key}, per node:", "small-bold", space=4.0))
                blocks += [Paragraph.of(line, "small", indent=10.0, bullet="•", space=1.0) for line in lines]
    heals = [k for k in measured if k.startswith("heal:")]
    if heals:
        blocks.append(Paragraph.of(f"Heal: nothing pending on any brick after {', '.join(heals)} (read twice).",
                                   space=5.0))
    elif not rows and movement.get("bytes"):
        blocks.append(Paragraph.of("Measured: nothing yet (no migration or heal has finished).", colour=MUTED))
    return blocks


def _drawing_section(content: ChangeRecordContent) -> list[Block]:
    from .topodraw import TopologyDrawing

    blocks: list[Block] = []
    pairs = [(content.before, "before the change: as gluster reported it when the change was planned"),
             (content.after, "after the change: as planned, and read back by the change's last step")]
    pairs = [(lp, words) for lp, words in pairs if lp is not None]
    if not pairs:
        return blocks
    blocks.append(Heading("4  The volume before and after", 1, "drawings"))
    for layout, words in pairs:
        drawing = TopologyDrawing(layout)
        blocks.append(Figure(lambda p, ts, r, d=drawing: d.paint(p, ts, r),
                             lambda ts, w, d=drawing: d.natural_height(ts, w),
                             caption=f"{content.volume} {words}; each brick coloured and numbered by its set",
                             title=f"{content.volume} {words.split(':')[0]}"))
    return blocks


CHANGING = ("probe", "add-brick", "start", "stop", "commit", "replace-brick")
WRAP = 118                 # characters of a mono-small line across an A4 or Letter page


def _changes_something(argv: Sequence[str]) -> bool:
    return argv[:1] == ("sh",) or any(word in argv for word in CHANGING)


def _decisive(commands: Sequence[KeptCommand], i: int) -> bool:
    """A read a step acted on: the status read right before a commit (or a replace), or the
    last read of a step (what made a wait step done)."""
    nxt = commands[i + 1] if i + 1 < len(commands) else None
    if nxt is None or nxt.step != commands[i].step:
        return True
    return "commit" in nxt.argv or "replace-brick" in nxt.argv


def _wrapped(lines: Sequence[str]) -> list[str]:
    out = []
    for line in lines:
        while len(line) > WRAP:
            out.append(line[:WRAP])
            line = "    " + line[WRAP:]
        out.append(line)
    return out


def _appendix(content: ChangeRecordContent) -> list[Block]:
    from ..remote.commandline import display_command, script_lines

    if not content.commands:
        return []
    blocks: list[Block] = [
        Heading("Appendix: every command the change ran", 1, "commands"),
        Paragraph.of(f"In order. Gluster's answer is shown for each command that changed something and for each "
                     f"read a step acted on: the status read right before a commit or a replace, and the last read "
                     f"of each step (the first {OUTPUT_LINES} lines); every answer is kept whole in the history "
                     f"(change {content.change_id[:12]}). A done-check that exits 1 (test -d) means: not done yet.",
                     "small", colour=MUTED)]
    scripts: dict[str, str] = {}
    commands = content.commands
    for i, c in enumerate(commands):
        line = display_command(list(c.argv), scripts)
        head = f"{format_utc(c.at, '%H:%M:%S')} {c.host} [{c.step or 'read'}] exit {c.exit_status}: "
        shown: list[str] = []
        lines = c.output.splitlines()
        refused = bool(c.exit_status) and c.argv[:1] == ("gluster",)
        if _changes_something(c.argv) or _decisive(commands, i) or refused:
            shown = lines[:OUTPUT_LINES] + ([f"# … {len(lines) - OUTPUT_LINES} more lines"]
                                            if len(lines) > OUTPUT_LINES else [])
        elif lines:
            line += f"   ({len(lines)} lines of answer kept)"
        blocks.append(Paragraph([(head, "small-bold"), (line, "mono-small")], space=3.0,
                                colour=FAILED if refused else ""))
        if shown:
            blocks.append(Code(_wrapped(shown), "mono-small", space_before=1.0))
    if scripts:
        blocks.append(Code(script_lines(scripts), "mono-small", space_before=6.0))
    return blocks

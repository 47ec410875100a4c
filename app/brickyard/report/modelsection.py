"""The report's "Model check: predicted vs measured" section: every measured throughput figure
of the decision table beside what the throughput model, calibrated on the *other* layouts'
runs, predicted for it, and the error (``core.modelcheck.check_table``).

Its own section, after the decision: page 1 keeps the decision table and its sentences as
they are. Absent when the content holds no check (``content.model_check`` is None: runs of
one layout with no model figure shown); one sentence when a check is not possible but the
table shows the model's figures.
"""

from __future__ import annotations

from ..core.decisiontable import Column, Figure, format_figure
from ..core.modelcheck import ERR_GROUP, TOLERANCE, ModelCheck, TablePoint
from ..core.units import format_rate
from .blocks import Block, Cell, Col, Heading, Paragraph, Table
from .content import ReportContent
from .typeset import FAILED, MUTED, PREDICT

ERROR = Column("model-error", "model error", "error", ERR_GROUP, higher_is_better=False)


def error_text(error: float) -> str:
    """'+37 %': the decision table's own words for a model error."""
    return format_figure(ERROR, Figure(error))


def percent(ratio: float) -> str:
    """'19 %': written as the decision table writes its percentages."""
    return f"{ratio * 100:.0f} %"


def _names(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def model_check_section(content: ReportContent, number: int) -> list[Block]:
    check = content.model_check
    if check is None:
        return []
    blocks: list[Block] = [Heading(f"{number}  Model check: predicted vs measured", 1, "model-check")]
    if check.why_not:
        blocks.append(Paragraph.of(check.why_not, "body"))
        return blocks
    blocks.append(Paragraph.of(_calibration_words(check), "body"))
    blocks.append(Paragraph(_summary_spans(check, content), space=5.0))
    blocks.append(point_table(check, content))
    blocks.append(Paragraph(
        [("measured: ", "small-bold"), ("the decision table's figure: median over the repeats, ± half the min–max "
                                        "range; ", "small"),
         ("range: ", "small-bold"), ("the prediction with every model parameter at its pessimistic, then optimistic "
                                     "end; ", "small"),
         ("error: ", "small-bold"), (f"predicted ÷ measured − 1, red when further off than {percent(TOLERANCE)}; ",
                                     "small"),
         ("bound: ", "small-bold"), ("the limit that sets the predicted figure.", "small")],
        colour=MUTED, space=4.0))
    return blocks


def _calibration_words(check: ModelCheck) -> str:
    model = ("Brickyard's throughput model (brick disks, node and client links, the client's single-stream "
             "ceiling, erasure-coding cost, how files spread over sets)")
    if len(check.layouts) < 2:       # one layout and probe runs: calibrated on the probes alone
        return (f"{model} was calibrated on {_names(check.probes)} (what the bricks' filesystems and the links "
                f"measured on their own), not on any layout's runs, so each error below tests a prediction made "
                f"without the layout's own figures.")
    also = f", and on {_names(check.probes)}" if check.probes else ""
    return (f"{model} was calibrated on the measured runs of {_names(check.layouts)}{also}. Each layout is "
            f"predicted from the other layouts' runs{' and the probe runs' if check.probes else ''} only, never "
            f"from its own, so each error below tests the model's prediction, not how well it fits numbers it has "
            f"seen.")


def _summary_spans(check: ModelCheck, content: ReportContent):
    tested = check.tested
    worst = check.worst
    spans = [("Error: ", "bold"),
             (f"{percent(check.median_error)} median, {percent(abs(worst.error))} worst over {len(tested)} "   # type: ignore[arg-type,union-attr]
              f"measured figure{'s' if len(tested) != 1 else ''}; {check.within} of {len(tested)} within "
              f"{percent(TOLERANCE)}. ",
              "body")]
    if worst is not None:
        spans += [("Furthest off: ", "bold"),
                  (f"{_row_name(worst, content)}, {worst.column.title}: predicted {format_rate(worst.prediction.bps)}, "
                   f"measured {format_rate(float(worst.measured.value))} ({error_text(worst.error)}).", "body")]   # type: ignore[arg-type]
    return spans


def _row_name(point: TablePoint, content: ReportContent) -> str:
    row = next((r for r in content.table.rows if r.key == point.row), None)
    return point.row if row is None or not row.extra_label else f"{point.row} ({row.extra_label})"


def point_table(check: ModelCheck, content: ReportContent) -> Table:
    """One line per measured figure, grouped by layout under a row naming what predicted it."""
    cols = [Col("figure", wrap=False), Col("measured", align="r", wrap=False, gap=6.0),
            Col("predicted", align="r", wrap=False, gap=6.0), Col("range", align="r", wrap=False, gap=6.0),
            Col("error", align="r", wrap=False, gap=6.0), Col("bound", gap=6.0)]
    body: list[list[Cell]] = []
    order = [r.key for r in content.table.rows]
    points = sorted(check.points, key=lambda p: order.index(p.row) if p.row in order else len(order))
    layout = None
    for p in points:
        if p.row != layout:
            layout = p.row
            model = p.model.model
            source = (f"predicted from {_names(model.calibrated_on)}" if model.calibrated else
                      "uncalibrated estimate: nothing else to calibrate on (not counted in the error)")
            body.append([Cell(f"{_row_name(p, content)} — {source}", "table-italic", colour=MUTED, fill="#eef1f4",
                              span=len(cols), heads=True)])
        lo, hi = p.prediction.low, p.prediction.high
        err_colour = FAILED if p.tested and abs(p.error) > TOLERANCE else ""
        body.append([Cell(p.column.title, "table-bold"),
                     Cell(format_figure(p.column, p.measured)),
                     Cell(format_rate(p.prediction.bps), "table-italic", PREDICT),
                     Cell(f"{format_rate(lo)} … {format_rate(hi)}", "table", MUTED),
                     Cell(error_text(p.error), "table-bold" if err_colour else "table", err_colour),
                     Cell(p.prediction.why or p.prediction.bound)])
    return Table(cols, body, zebra=True, space_before=4.0)

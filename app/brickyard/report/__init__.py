"""Reports a storage admin hands to a manager: the decision first, then everything needed to
trust it, as a PDF (A4 or Letter) or one self-contained HTML file.

    content = content_from_campaign(store, campaign_id)          # or content_from_runs / _plan
    content = dataclasses.replace(content, title="Which volume for the render farm", author="Ana")
    result = export_report(content, "decision.pdf", paper="a4")

``content`` (``ReportContent``) is built from core result objects and the planner only
(``content.py``); ``export_report`` lays it out (``document.py``) and writes it (``pdf.py``,
``html.py``). The record of a change to a live volume (``changerecord.content_from_change``)
is written the same way, from its own blocks (``changerecord.build_change_document``). The app's File ▸ Export PDF… and ``brickyard report`` call exactly these.
Qt painting lives here; a ``QGuiApplication`` is made (offscreen) if the process has none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core.atomicfile import write_error_words
from ..core.units import format_utc
from ..remote.loop import Cancelled, Progress
from .app import ensure_app
from .content import (Comparison, LayoutPlan, ReportContent, ReportInputError, RunEntry, Trend, TrendSeries,
                      content_from_campaign, content_from_plan, content_from_runs, os_user)

FORMATS = {".pdf": "pdf", ".html": "html", ".htm": "html"}
PAPERS = ("a4", "letter")


@dataclass(frozen=True)
class ExportResult:
    path: str
    format: str               # "pdf" | "html"
    paper: str
    pages: int | None         # PDF pages (None for HTML)
    bytes: int

    def to_json(self) -> dict:
        return {"file": self.path, "format": self.format, "paper": self.paper, "pages": self.pages,
                "bytes": self.bytes}


def report_format(path: str | os.PathLike) -> str:
    """'pdf' or 'html' from the file name; ``ReportInputError`` for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ReportInputError(f"{path}: the report is written as .pdf or .html "
                               f"({f'not {suffix}' if suffix else 'this name has no extension'})")
    return FORMATS[suffix]


def export_report(content: ReportContent, path: str | os.PathLike, paper: str = "a4",
                  progress: Progress | None = None) -> ExportResult:
    """Write ``content`` to ``path`` (.pdf or .html) on ``paper`` ('a4' or 'letter'). Raises
    ``ReportInputError`` for a bad name or paper and ``OSError`` when the file cannot be
    written (a full disk, a folder you cannot write to); a failed or cancelled export leaves
    ``path`` as it was and no temporary file. ``progress`` (``remote.loop.Progress``) hears
    each page; its ``cancel()`` stops the export with ``Cancelled``."""
    fmt = report_format(path)
    paper = paper.lower()
    if paper not in PAPERS:
        raise ReportInputError(f"paper {paper!r}: use a4 or letter")
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise ReportInputError(f"{path}: the folder {folder} does not exist")
    from .document import build_document
    from .html import write_html
    from .changerecord import ChangeRecordContent, build_change_document
    from .pdf import PageMeta, write_pdf

    made = f"{format_utc(content.created_at)} UTC"
    meta = PageMeta(title=content.title, header_right=f"{content.subject} · {made}",
                    footer_left=f"Brickyard {content.version} · {made} · {content.author}",
                    author=content.author, creator=f"Brickyard {content.version}")

    def build(ts, width):
        if isinstance(content, ChangeRecordContent):
            return build_change_document(content, ts, width)
        return build_document(content, ts, width)

    if fmt == "pdf":
        pages = write_pdf(build, path, paper, meta, progress)
        return ExportResult(str(path), fmt, paper, pages, Path(path).stat().st_size)
    size = write_html(build, path, meta, progress)
    return ExportResult(str(path), fmt, paper, None, size)


__all__ = ["Cancelled", "Comparison", "ExportResult", "LayoutPlan", "PAPERS", "Progress", "ReportContent",
           "ReportInputError", "RunEntry",
           "Trend", "TrendSeries", "content_from_campaign", "content_from_plan", "content_from_runs",
           "ensure_app", "export_report", "os_user", "report_format", "write_error_words"]

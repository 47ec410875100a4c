"""Pages: the blocks flowed onto A4 or Letter and painted into a PDF with ``QPdfWriter``.

The writer runs at 720 dpi with the painter scaled to points (see ``typeset``). Everything is
painted as vector: text with the DejaVu fonts Qt embeds, lines, paths — no bitmap anywhere.
Every page but the first has a running header (the title, and what the report is about);
every page a footer with the Brickyard version, when and by whom, and "page N of M".
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QPointF
from PySide6.QtGui import QColor, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen

from ..core.atomicfile import write_atomic
from ..core.units import format_bytes
from ..remote.loop import Progress
from .app import ensure_app
from .blocks import Block, PageBreak
from .typeset import DPI, MUTED, RULE, SCALE, Typeset

PAPERS = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}
MARGIN_X = 40.0
MARGIN_TOP = 50.0
MARGIN_BOTTOM = 46.0


@dataclass(frozen=True)
class PageMeta:
    title: str
    header_right: str
    footer_left: str
    author: str = ""
    creator: str = "Brickyard"


def page_size(paper: str) -> tuple[float, float]:
    size = QPageSize(PAPERS[paper]).size(QPageSize.Unit.Point)
    return size.width(), size.height()


def content_box(paper: str) -> tuple[float, float]:
    """(width, height) in points that blocks may fill on one page."""
    w, h = page_size(paper)
    return w - 2 * MARGIN_X, h - MARGIN_TOP - MARGIN_BOTTOM


Placed = tuple[Block, float]


def paginate(blocks: Sequence[Block], ts: Typeset, width: float, height: float,
             check: Callable[[], None] | None = None) -> list[list[Placed]]:
    """Each page's blocks and their top (from the content box's top). A block that does not
    fit is split between lines or rows where it can be, else moved to the next page; a
    heading always moves with the start of what follows it. ``check`` is called before
    each block (a progress's ``check``, which raises to stop)."""
    pages: list[list[Placed]] = [[]]
    y = 0.0
    queue: deque[Block] = deque(blocks)

    def new_page() -> None:
        nonlocal y
        pages.append([])
        y = 0.0

    while queue:
        if check is not None:
            check()
        b = queue.popleft()
        if isinstance(b, PageBreak):
            if pages[-1]:
                new_page()
            continue
        gap = b.space_before if pages[-1] else 0.0
        h = b.height(ts, width)
        need = h
        if b.keep_with_next:
            need += _lead(queue, ts, width, height)
        if y + gap + need <= height + 0.01 or (not pages[-1] and need > height and h <= height):
            pages[-1].append((b, y + gap))
            y += gap + h
            continue
        if not b.keep_with_next and b.splittable:
            head, rest = b.split(ts, width, height - y - gap)
            if head is not None and rest is not None:
                pages[-1].append((head, y + gap))
                new_page()
                queue.appendleft(rest)
                continue
        if pages[-1]:
            new_page()
            queue.appendleft(b)
            continue
        # alone on a fresh page and still too tall: split anywhere, or let it run over
        head, rest = b.split(ts, width, height) if b.splittable else (None, None)
        if head is not None and rest is not None:
            pages[-1].append((head, 0.0))
            new_page()
            queue.appendleft(rest)
        else:
            pages[-1].append((b, 0.0))
            new_page()
    if not pages[-1] and len(pages) > 1:
        pages.pop()
    return pages


def _lead(queue: deque[Block], ts: Typeset, width: float, height: float) -> float:
    """What must share the page with a heading: the headings right after it and the start of
    the first thing that is not a heading (all of it when it cannot be split: a figure)."""
    need = 0.0
    for nxt in queue:
        if isinstance(nxt, PageBreak):
            break
        nh = nxt.height(ts, width)
        if nxt.keep_with_next:
            need += nxt.space_before + nh
            continue
        need += nxt.space_before + min(nxt.lead_height(ts, width), height)
        break
    return need


def write_pdf(build: Callable[[Typeset, float], Sequence[Block]], path: str | os.PathLike, paper: str,
              meta: PageMeta, progress: Progress | None = None) -> int:
    """Write the PDF; returns the number of pages. The pages are painted into memory and the
    file written in one go (``core.atomicfile.write_atomic``: a temporary file beside ``path``,
    fsync, rename), so a full disk or an unwritable folder is an ``OSError`` naming it and
    leaves ``path`` as it was (Qt's PDF writer says nothing when a write to its file fails: a
    full disk left a cut-off PDF and "written"). ``progress`` hears each page; its
    ``cancel()`` stops the work with ``Cancelled`` and nothing is written."""
    ensure_app()
    progress = progress or Progress()
    path = Path(path)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(DPI)
    writer.setPageLayout(QPageLayout(QPageSize(PAPERS[paper]), QPageLayout.Orientation.Portrait,
                                     QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Point))
    writer.setTitle(meta.title)
    writer.setCreator(meta.creator)
    if meta.author:
        writer.setAuthor(meta.author)
    ts = Typeset(writer)
    pw, ph = page_size(paper)
    width, height = content_box(paper)
    progress.set_progress(0.0, "laying out the report")
    blocks = build(ts, width)
    progress.check()
    progress.set_progress(0.1, "breaking it into pages")
    pages = paginate(blocks, ts, width, height, progress.check)
    progress.check()
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"cannot write {path}: Qt's PDF writer did not start")
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.scale(SCALE, SCALE)                       # from here on, one unit is one point
        for n, page in enumerate(pages, start=1):
            progress.check()
            progress.set_progress(0.2 + 0.75 * (n - 1) / len(pages), f"painting page {n} of {len(pages)}")
            if n > 1:
                writer.newPage()
            _frame(painter, ts, meta, n, len(pages), pw, ph)
            for block, top in page:
                painter.save()
                block.paint(ts, painter, MARGIN_X, MARGIN_TOP + top, width)
                painter.restore()
    finally:
        ended = painter.end()
    del painter, writer
    buffer.close()
    if not ended or data.size() == 0:
        raise OSError(f"cannot write {path}: Qt's PDF writer could not finish the document")
    progress.check()
    progress.set_progress(0.95, f"saving {path.name} ({format_bytes(data.size(), digits=1)})")
    write_atomic(path, bytes(data.data()))
    progress.set_progress(1.0, f"saved {path.name}")
    return len(pages)


def _frame(painter: QPainter, ts: Typeset, meta: PageMeta, n: int, total: int, pw: float, ph: float) -> None:
    left, right = MARGIN_X, pw - MARGIN_X
    if n > 1:
        base = MARGIN_TOP - 18.0
        half = (right - left) / 2 - 6
        ts.draw_text(painter, ts.elide(meta.title, "header", half), "header", left, base, MUTED)
        ts.draw_text(painter, ts.elide(meta.header_right, "header", half), "header", right, base, MUTED, "r")
        painter.setPen(QPen(QColor(RULE), 0.5))
        painter.drawLine(QPointF(left, base + 4), QPointF(right, base + 4))
    base = ph - MARGIN_BOTTOM + 24.0
    painter.setPen(QPen(QColor(RULE), 0.5))
    painter.drawLine(QPointF(left, base - 10), QPointF(right, base - 10))
    page = f"page {n} of {total}"
    room = right - left - ts.advance(page, "header") - 12
    ts.draw_text(painter, ts.elide(meta.footer_left, "header", room), "header", left, base, MUTED)
    ts.draw_text(painter, page, "header", right, base, MUTED, "r")

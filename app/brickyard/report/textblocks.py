"""The text blocks of a report: headings, paragraphs (split between lines), command lines
(wrapped with a shell continuation so they still paste) and figures (a vector drawing with a
caption)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from .blockbase import Block, esc, span_html
from .typeset import FILL, INK, MUTED, RULE, Line, Span, Typeset


@dataclass
class Heading(Block):
    text: str
    level: int = 1               # 1 section, 2 subsection, 3 minor
    anchor: str = ""

    keep_with_next = True

    def __post_init__(self) -> None:
        self.space_before = {1: 16.0, 2: 11.0, 3: 8.0}.get(self.level, 8.0)
        self.style = {1: "h1", 2: "h2", 3: "h3"}.get(self.level, "h3")

    def _lines(self, ts: Typeset, width: float) -> list[Line]:
        return ts.wrap([(self.text, self.style)], width)

    def height(self, ts: Typeset, width: float) -> float:
        return ts.lines_height(self._lines(ts, width)) + (4.0 if self.level == 1 else 1.5)

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        lines = self._lines(ts, width)
        used = ts.draw_lines(painter, lines, x, y)
        if self.level == 1:
            painter.setPen(QPen(QColor(RULE), 0.6))
            painter.drawLine(QPointF(x, y + used + 1.5), QPointF(x + width, y + used + 1.5))

    def html(self) -> str:
        tag = f"h{self.level + 1}"
        anchor = f' id="{esc(self.anchor)}"' if self.anchor else ""
        return f"<{tag}{anchor}>{esc(self.text)}</{tag}>\n"


@dataclass
class Paragraph(Block):
    """Text in one or more styles (``spans``), wrapped; splits between lines."""

    spans: Sequence[Span]
    colour: str = ""
    indent: float = 0.0
    bullet: str = ""
    space: float = 4.0
    _cache: dict = field(default_factory=dict, repr=False)

    splittable = True

    def __post_init__(self) -> None:
        self.space_before = self.space

    @classmethod
    def of(cls, text: str, style: str = "body", **kw) -> "Paragraph":
        return cls([(text, style)], **kw)

    def _lines(self, ts: Typeset, width: float) -> list[Line]:
        lines = self._cache.get(width)
        if lines is None:
            lines = self._cache[width] = ts.wrap(self.spans, width - self.indent, self.colour)
        return lines

    def height(self, ts: Typeset, width: float) -> float:
        return ts.lines_height(self._lines(ts, width))

    def split(self, ts: Typeset, width: float, avail: float):
        lines = self._lines(ts, width)
        used, k = 0.0, 0
        while k < len(lines) and used + lines[k].height <= avail:
            used += lines[k].height
            k += 1
        if k < 2 or len(lines) - k < 2:        # no lone first or last line
            return None, self
        return _Lines(lines[:k], self.indent, self.bullet, self.colour), \
            _Lines(lines[k:], self.indent, "", self.colour, space=0.0)

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        lines = self._lines(ts, width)
        if self.bullet:
            style = self.spans[0][1] if self.spans else "body"
            ts.draw_text(painter, self.bullet, style, x + self.indent - 8.0, y + lines[0].ascent,
                         self.colour or INK)
        ts.draw_lines(painter, lines, x + self.indent, y, colour=self.colour or INK)

    def html(self) -> str:
        first = self.spans[0][1] if self.spans else ""
        if first == "title":
            return f"<h1>{esc(''.join(t for t, _ in self.spans))}</h1>\n"
        if first == "subtitle":
            return f'<p class="meta">{esc("".join(t for t, _ in self.spans))}</p>\n'
        inner = "".join(span_html(text, style) for text, style in self.spans)
        style = f' style="color:{self.colour}"' if self.colour else ""
        if self.bullet:
            return f"<ul><li{style}>{inner}</li></ul>\n"
        return f"<p{style}>{inner}</p>\n"


class _Lines(Block):
    """Part of a paragraph after a page break (already broken into lines)."""

    def __init__(self, lines: list[Line], indent: float, bullet: str, colour: str, space: float = 4.0):
        self.lines, self.indent, self.bullet, self.colour = lines, indent, bullet, colour
        self.space_before = space

    def height(self, ts: Typeset, width: float) -> float:
        return ts.lines_height(self.lines)

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        if self.bullet and self.lines and self.lines[0].pieces:
            p = self.lines[0].pieces[0]
            ts.draw_text(painter, self.bullet, p.style, x + self.indent - 8.0, y + self.lines[0].ascent,
                         self.colour or INK)
        ts.draw_lines(painter, self.lines, x + self.indent, y, colour=self.colour or INK)

    def html(self) -> str:
        return ""


@dataclass
class Code(Block):
    """Command lines in a monospace font on a light ground; a line wider than the page
    continues on the next with a shell continuation ('\\'), so it still pastes."""

    lines: Sequence[str]
    style: str = "mono"
    space_before: float = 5.0
    _cache: dict = field(default_factory=dict, repr=False)

    PAD = 4.0
    splittable = True

    def _rows(self, ts: Typeset, width: float) -> list[str]:
        rows = self._cache.get(width)
        if rows is not None:
            return rows
        inner = width - 2 * self.PAD
        rows = []
        for line in self.lines:
            rows.extend(_shell_wrap(ts, line, self.style, inner))
        self._cache[width] = rows
        return rows

    def height(self, ts: Typeset, width: float) -> float:
        return len(self._rows(ts, width)) * ts.line_height(self.style) + 2 * self.PAD

    def split(self, ts: Typeset, width: float, avail: float):
        rows = self._rows(ts, width)
        lh = ts.line_height(self.style)
        k = int((avail - 2 * self.PAD) // lh)
        if k < 2 or len(rows) - k < 1:
            return None, self
        head, tail = Code(rows[:k], self.style), Code(rows[k:], self.style, space_before=0.0)
        head._cache[width], tail._cache[width] = rows[:k], rows[k:]
        return head, tail

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        rows = self._rows(ts, width)
        h = self.height(ts, width)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(QColor(FILL)))
        painter.drawRect(QRectF(x, y, width, h))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        lh = ts.line_height(self.style)
        asc = ts.ascent(self.style)
        for i, row in enumerate(rows):
            colour = MUTED if row.startswith("#") else INK
            ts.draw_text(painter, row, self.style, x + self.PAD, y + self.PAD + i * lh + asc, colour)

    def html(self) -> str:
        return "<pre>" + esc("\n".join(self.lines)) + "</pre>\n"


def _shell_wrap(ts: Typeset, line: str, style: str, width: float) -> list[str]:
    if ts.advance(line, style) <= width:
        return [line]
    out, current = [], ""
    indent = "    "
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if ts.advance(candidate + " \\", style) <= width or not current:
            current = candidate
        else:
            out.append(current + " \\")
            current = indent + word
    out.append(current)
    return out


@dataclass
class Figure(Block):
    """A vector drawing (chart, topology): ``draw(painter, ts, rect)`` paints it into a rect of
    the width given and ``natural(ts, width)`` tall; ``caption`` under it."""

    draw: Callable[[QPainter, Typeset, QRectF], None]
    natural: Callable[[Typeset, float], float]
    caption: str = ""
    title: str = ""
    space_before: float = 8.0
    svg: Callable[[], str] | None = None     # set by the HTML writer's helper

    def _caption_lines(self, ts: Typeset, width: float) -> list[Line]:
        return ts.wrap([(self.caption, "small-italic")], width) if self.caption else []

    def height(self, ts: Typeset, width: float) -> float:
        return self.natural(ts, width) + (ts.lines_height(self._caption_lines(ts, width)) + 3.0
                                          if self.caption else 0.0)

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        h = self.natural(ts, width)
        painter.save()
        self.draw(painter, ts, QRectF(x, y, width, h))
        painter.restore()
        if self.caption:
            ts.draw_lines(painter, self._caption_lines(ts, width), x, y + h + 3.0, colour=MUTED)

    def html(self) -> str:
        from .svg import figure_svg   # QtSvg only when an HTML report is written

        cap = f"<figcaption>{esc(self.caption)}</figcaption>" if self.caption else ""
        return f'<figure>{figure_svg(self)}{cap}</figure>\n'

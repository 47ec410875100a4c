"""The pieces a report is made of — headings, paragraphs, tables, code, figures — each able to
say how tall it is at a width, split itself across a page break, paint itself (PDF) and
write itself as HTML. ``document.py`` builds the list; ``pdf.py`` pages and paints it;
``html.py`` writes it. The blocks hold text and numbers the document made from the content
object, never widgets."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from .typeset import FILL, INK, MUTED, RULE, Line, Span, Typeset


def esc(text: str) -> str:
    return html.escape(text, quote=True)


class Block:
    """Something on a page. ``space_before`` is dropped at the top of a page; a block with
    ``keep_with_next`` never ends a page (a heading stays with what it introduces)."""

    space_before: float = 4.0
    keep_with_next: bool = False
    splittable: bool = False

    def height(self, ts: Typeset, width: float) -> float:
        raise NotImplementedError

    def split(self, ts: Typeset, width: float, avail: float) -> tuple["Block | None", "Block | None"]:
        """(part that fits in ``avail``, the rest); (None, self) when nothing sensible fits."""
        return None, self

    def lead_height(self, ts: Typeset, width: float) -> float:
        """The least of it that must follow a heading on the same page: all of a block that
        cannot split; the first lines or rows of one that can."""
        h = self.height(ts, width)
        return min(h, 48.0) if self.splittable else h

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        raise NotImplementedError

    def html(self) -> str:
        raise NotImplementedError


class PageBreak(Block):
    space_before = 0.0

    def height(self, ts: Typeset, width: float) -> float:
        return 0.0

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        pass

    def html(self) -> str:
        return ""


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
        inner = "".join(_span_html(text, style) for text, style in self.spans)
        style = f' style="color:{self.colour}"' if self.colour else ""
        if self.bullet:
            return f"<ul><li{style}>{inner}</li></ul>\n"
        return f"<p{style}>{inner}</p>\n"


def _span_html(text: str, style: str) -> str:
    out = esc(text).replace("\n", "<br>")
    if "bold" in style or style in ("h1", "h2", "h3"):
        out = f"<b>{out}</b>"
    if "italic" in style:
        out = f"<i>{out}</i>"
    if style.startswith(("small", "tiny")):
        out = f'<span class="small">{out}</span>'
    if style.startswith("mono"):
        out = f"<code>{out}</code>"
    return out


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


# ---------------------------------------------------------------------------- tables


@dataclass
class Cell:
    text: str
    style: str = "table"
    colour: str = ""
    fill: str = ""
    span: int = 1                  # a cell across this many columns (a group row)
    heads: bool = False            # a title of the rows under it: a table never ends a page on it


@dataclass
class Col:
    title: str
    align: str = "l"               # l, r, c
    wrap: bool = True              # may this column's cells break into lines
    max_width: float = 0.0         # a wrapping column never wider than this (0: no limit)
    gap: float = 0.0               # extra room on its left, so neighbours never read as one


@dataclass
class _TableLayout:
    widths: list[float]
    heights: list[float]           # per row
    header: float
    cells: list[list[list[Line]]]  # per row, per cell: lines
    head_cells: list[list[Line]]


class Table(Block):
    """Rows of cells under a header repeated on every page; columns sized to their content,
    wrapping columns shrunk to fit the width. Split between rows."""

    PAD_X = 3.0
    PAD_Y = 1.8
    WORD_MAX = 100.0
    splittable = True

    def __init__(self, columns: Sequence[Col], rows: Sequence[Sequence[Cell | str]], *, header: bool = True,
                 zebra: bool = True, caption: str = "", space_before: float = 5.0, stretch: bool = False,
                 header_style: str = "table-bold"):
        self.columns = list(columns)
        self.rows = [[c if isinstance(c, Cell) else Cell(str(c)) for c in row] for row in rows]
        self.header = header
        self.zebra = zebra
        self.caption = caption
        self.space_before = space_before
        self.stretch = stretch
        self.header_style = header_style
        self._layouts: dict[float, _TableLayout] = {}
        self._start, self._end = 0, len(self.rows)
        self._root: Table = self

    # ---- sizing --------------------------------------------------------------------
    def _layout(self, ts: Typeset, width: float) -> _TableLayout:
        root = self._root
        lay = root._layouts.get(width)
        if lay is None:
            lay = root._layouts[width] = root._compute(ts, width)
        return lay

    def _natural(self, ts: Typeset) -> tuple[list[float], list[float]]:
        """(natural, smallest) width of each column: its widest line, and its longest word
        (a header is never broken inside a word; a wrapping cell only inside a word longer
        than ``WORD_MAX``)."""
        n = len(self.columns)
        nat, small = [0.0] * n, [0.0] * n
        for i, col in enumerate(self.columns):
            if self.header:
                words = col.title.split() or [""]
                nat[i] = small[i] = max(ts.advance(w, self.header_style) for w in words)
        for row in self.rows:
            i = 0
            for cell in row:
                if cell.span == 1 and i < n:
                    lines = cell.text.split("\n")
                    nat[i] = max(nat[i], max((ts.advance(part, cell.style) for part in lines), default=0.0))
                    if self.columns[i].wrap:
                        longest = max((ts.advance(w, cell.style) for part in lines for w in part.split()), default=0.0)
                        small[i] = max(small[i], min(longest, self.WORD_MAX))
                i += cell.span
        pad = [2 * self.PAD_X + c.gap for c in self.columns]
        return [w + p for w, p in zip(nat, pad)], [min(w, m) + p for w, m, p in zip(small, nat, pad)]

    def _compute(self, ts: Typeset, width: float) -> _TableLayout:
        nat, small = self._natural(ts)
        wrap = [i for i, c in enumerate(self.columns) if c.wrap]
        widths = list(nat)
        for i in wrap:
            if self.columns[i].max_width:
                widths[i] = max(small[i], min(widths[i], self.columns[i].max_width))
        total = sum(widths)
        if total > width:
            fixed = sum(w for i, w in enumerate(widths) if i not in wrap)
            filled = _water_fill([widths[i] for i in wrap], [small[i] for i in wrap], width - fixed)
            for i, w in zip(wrap, filled):
                widths[i] = w
            if sum(widths) > width:            # even the smallest widths do not fit: shrink all
                scale = width / sum(widths)
                widths = [w * scale for w in widths]
        elif self.stretch and total < width:
            grow = wrap or [len(widths) - 1]
            extra = (width - total) / len(grow)
            for i in grow:
                widths[i] += extra
        head_cells = [ts.wrap([(c.title, self.header_style)], widths[i] - 2 * self.PAD_X)
                      for i, c in enumerate(self.columns)] if self.header else []
        header_h = (max(ts.lines_height(ls) for ls in head_cells) + 2 * self.PAD_Y) if self.header else 0.0
        cells, heights = [], []
        for row in self.rows:
            i, row_lines, h = 0, [], 0.0
            for cell in row:
                w = sum(widths[i:i + cell.span]) - 2 * self.PAD_X
                col = self.columns[min(i, len(self.columns) - 1)]
                if col.wrap or cell.span > 1:
                    lines = ts.wrap([(cell.text, cell.style)], w, cell.colour)
                else:
                    lines = [ts.wrap([(part, cell.style)], 1e9, cell.colour)[0] for part in cell.text.split("\n")]
                row_lines.append(lines)
                h = max(h, ts.lines_height(lines))
                i += cell.span
            cells.append(row_lines)
            heights.append(h + 2 * self.PAD_Y)
        return _TableLayout(widths, heights, header_h, cells, head_cells)

    def height(self, ts: Typeset, width: float) -> float:
        lay = self._layout(ts, width)
        return lay.header + sum(lay.heights[self._start:self._end])

    def lead_height(self, ts: Typeset, width: float) -> float:
        lay = self._layout(ts, width)
        return lay.header + sum(lay.heights[self._start:self._start + 2])

    def split(self, ts: Typeset, width: float, avail: float):
        lay = self._layout(ts, width)
        used, k = lay.header, self._start
        while k < self._end and used + lay.heights[k] <= avail:
            used += lay.heights[k]
            k += 1
        while k > self._start and k < self._end and self._group_row(k - 1):   # a group's title stays with it
            k -= 1
        if k == self._start or k == self._end:
            return None, self
        return self._part(self._start, k, self.space_before), self._part(k, self._end, 0.0)

    def _group_row(self, r: int) -> bool:
        """A row that titles the rows under it (its first cell ``heads``)."""
        return bool(self.rows[r]) and self.rows[r][0].heads

    def _part(self, start: int, end: int, space: float) -> "Table":
        part = object.__new__(Table)
        part.__dict__.update(self.__dict__)
        part._start, part._end, part.space_before = start, end, space
        return part

    # ---- painting ------------------------------------------------------------------
    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        lay = self._layout(ts, width)
        total_w = sum(lay.widths)
        if self.header:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(QColor("#e3e6ea")))
            painter.drawRect(QRectF(x, y, total_w, lay.header))
            cx = x
            for i, lines in enumerate(lay.head_cells):
                col = self.columns[i]
                ts.draw_lines(painter, lines, cx + self.PAD_X, y + self.PAD_Y, lay.widths[i] - 2 * self.PAD_X,
                              col.align)
                cx += lay.widths[i]
            y += lay.header
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for r in range(self._start, self._end):
            row, h = self.rows[r], lay.heights[r]
            if self.zebra and (r - self._start) % 2 == 1:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QBrush(QColor("#f6f7f8")))
                painter.drawRect(QRectF(x, y, total_w, h))
                painter.setBrush(Qt.BrushStyle.NoBrush)
            cx, i = x, 0
            for cell, lines in zip(row, lay.cells[r]):
                w = sum(lay.widths[i:i + cell.span])
                if cell.fill:
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(QBrush(QColor(cell.fill)))
                    painter.drawRect(QRectF(cx, y, w, h))
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                align = "l" if cell.span > 1 else self.columns[i].align
                ts.draw_lines(painter, lines, cx + self.PAD_X, y + self.PAD_Y, w - 2 * self.PAD_X, align,
                              cell.colour or INK)
                cx += w
                i += cell.span
            y += h
            painter.setPen(QPen(QColor("#dadce0"), 0.4))
            painter.drawLine(QPointF(x, y), QPointF(x + total_w, y))

    def html(self) -> str:
        if self._root is not self:
            return ""
        out = ['<table>']
        if self.caption:
            out.append(f"<caption>{esc(self.caption)}</caption>")
        if self.header:
            out.append("<thead><tr>" + "".join(
                f'<th class="{c.align}">{esc(c.title)}</th>' for c in self.columns) + "</tr></thead>")
        out.append("<tbody>")
        for row in self.rows:
            cells, i = [], 0
            for cell in row:
                cls = "g" if cell.span > 1 else self.columns[min(i, len(self.columns) - 1)].align
                attrs = f' colspan="{cell.span}"' if cell.span > 1 else ""
                style = []
                if cell.colour:
                    style.append(f"color:{cell.colour}")
                if cell.fill:
                    style.append(f"background:{cell.fill}")
                if style:
                    attrs += f' style="{";".join(style)}"'
                cells.append(f'<td class="{cls}"{attrs}>{_span_html(cell.text, cell.style)}</td>')
                i += cell.span
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>\n")
        return "".join(out)


@dataclass
class Spacer(Block):
    amount: float = 6.0
    space_before: float = 0.0

    def height(self, ts: Typeset, width: float) -> float:
        return self.amount

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        pass

    def html(self) -> str:
        return ""


def _water_fill(targets: Sequence[float], mins: Sequence[float], room: float) -> list[float]:
    """Share ``room`` between columns: each gets at least its minimum, then equal shares of
    what is left, never more than its target (so narrow columns are not starved by a wide one)."""
    alloc = list(mins)
    left = room - sum(alloc)
    if left <= 0:
        return alloc
    active = [i for i in range(len(alloc)) if alloc[i] < targets[i]]
    while active and left > 0.01:
        share = left / len(active)
        for i in list(active):
            give = min(share, targets[i] - alloc[i])
            alloc[i] += give
            left -= give
            if alloc[i] >= targets[i] - 0.01:
                active.remove(i)
    return alloc

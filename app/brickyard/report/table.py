"""A report's table: rows of cells under a header repeated on every page, columns sized to their
content and wrapping columns shrunk to fit the width (``water_fill``), split between rows and
never right after a row that titles the rows under it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from .blockbase import Block, esc, span_html
from .typeset import INK, Line, Typeset, segments


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
                        # the longest piece a word may break into (after ',', '=' …): never
                        # narrower, so a mount option string breaks at its separators only
                        longest = max((ts.advance(seg, cell.style) for part in lines for w in part.split()
                                       for seg in segments(w)), default=0.0)
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
            filled = water_fill([widths[i] for i in wrap], [small[i] for i in wrap], width - fixed)
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
                cells.append(f'<td class="{cls}"{attrs}>{span_html(cell.text, cell.style)}</td>')
                i += cell.span
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>\n")
        return "".join(out)


def water_fill(targets: Sequence[float], mins: Sequence[float], room: float) -> list[float]:
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

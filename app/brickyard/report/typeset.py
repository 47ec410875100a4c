"""Fonts, colours and line breaking for the report's pages (Qt painting).

Every length is in PostScript points. The PDF and SVG devices run at ``DPI`` (720) and the
painter is scaled by ``SCALE`` so that one unit is one point; text alone is drawn unscaled in
device pixels, with fonts sized in points for that device. (At 72 dpi Qt rounds a font to
whole pixels — 6.6 pt and 7.2 pt came out the same — and a font drawn through a scaled painter
is scaled twice: the "text 3× too large" of a 300 dpi writer.) Fonts are DejaVu Sans and
DejaVu Sans Mono (Debian's fonts-dejavu-core): every glyph the report prints (≈ ± × ₂ – …) is
in them, and Qt embeds them in the PDF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintDevice, QPen

DPI = 720
SCALE = DPI / 72.0          # device pixels per point

_WORDS = re.compile(r" +|[^ ]+")      # words, and the runs of spaces between them
# where a word wider than its line may break: after a separator, never inside a number or a
# name ("rsize=131072,volfile-id=gv0-dt8" breaks after ',' or '=', not as "13107 / 2")
BREAK_AFTER = ",;=:/"
_SEGMENTS = re.compile(r"[^,;=:/]*[,;=:/]+|[^,;=:/]+")


def _break_at(word: str, cut: int) -> int:
    """Where to break ``word`` whose first ``cut`` characters fit: after the last ',' or ';'
    if that fills most of the line (an option stays whole: "max_read=131072,"), else after
    the last separator; 0 if none fits."""
    ends = [i + 1 for i in range(min(cut, len(word) - 1)) if word[i] in BREAK_AFTER]
    lists = [i for i in ends if word[i - 1] in ",;"]
    if lists and lists[-1] >= 0.6 * cut:
        return lists[-1]
    return ends[-1] if ends else 0


def segments(word: str) -> list[str]:
    """``word`` in the pieces it may break into (each ends at a separator)."""
    return _SEGMENTS.findall(word) or [word]

SANS = "DejaVu Sans"
MONO = "DejaVu Sans Mono"

# style name -> (family, point size, bold, italic)
STYLES: dict[str, tuple[str, float, bool, bool]] = {
    "title": (SANS, 19.0, True, False),
    "subtitle": (SANS, 10.5, False, False),
    "h1": (SANS, 13.5, True, False),
    "h2": (SANS, 10.5, True, False),
    "h3": (SANS, 9.0, True, False),
    "body": (SANS, 8.6, False, False),
    "bold": (SANS, 8.6, True, False),
    "italic": (SANS, 8.6, False, True),
    "small": (SANS, 7.4, False, False),
    "small-bold": (SANS, 7.4, True, False),
    "small-italic": (SANS, 7.4, False, True),
    "table": (SANS, 7.2, False, False),
    "table-bold": (SANS, 7.2, True, False),
    "table-italic": (SANS, 7.2, False, True),
    "table-s": (SANS, 6.6, False, False),         # a decision table that fits one width this way
    "table-s-bold": (SANS, 6.6, True, False),
    "table-s-italic": (SANS, 6.6, False, True),
    "table-xs": (SANS, 6.1, False, False),
    "table-xs-bold": (SANS, 6.1, True, False),
    "table-xs-italic": (SANS, 6.1, False, True),
    "tiny": (SANS, 6.3, False, False),
    "tiny-bold": (SANS, 6.3, True, False),
    "tiny-italic": (SANS, 6.3, False, True),
    "mono": (MONO, 7.0, False, False),
    "mono-small": (MONO, 6.3, False, False),
    "header": (SANS, 7.0, False, False),
}

INK = "#1a1a1a"
MUTED = "#5f6368"
RULE = "#9aa0a6"
FILL = "#f1f3f4"
ACCENT = "#0d47a1"        # planned figures (exact from the topology)
ESTIMATE = "#616161"      # the planner's estimates: grey italics, and "≈ … (est.)" in the text
PREDICT = "#6a1b9a"
FAILED = "#b71c1c"

# The canvas's set colours (ui/widgets/style.SET_COLOURS: a set looks the same on screen and paper).
SET_COLOURS = (
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
    "#ff9da7", "#9c755f", "#e15759", "#8cd17d", "#a0cbe8", "#d4a6c8",
)
# Series of a chart: hues far apart that also differ in lightness, so a greyscale print keeps
# them apart together with their marker shapes.
SERIES_COLOURS = ("#1f4e99", "#d1495b", "#2e7d32", "#f0a202", "#6a1b9a", "#00838f", "#8d6e63", "#c2185b",
                  "#455a64", "#9e9d24")


def set_colour(index: int) -> QColor:
    return QColor(SET_COLOURS[index % len(SET_COLOURS)])


def series_colour(index: int) -> QColor:
    return QColor(SERIES_COLOURS[index % len(SERIES_COLOURS)])


@dataclass(frozen=True)
class Piece:
    """A run of text in one style on a line, ``x`` from the line's left edge."""

    x: float
    text: str
    style: str
    colour: str = ""


@dataclass(frozen=True)
class Line:
    pieces: tuple[Piece, ...]
    width: float
    height: float
    ascent: float


Span = tuple[str, str]      # (text, style)


class Typeset:
    """Fonts and metrics for one paint device (the PDF writer, or an SVG generator)."""

    def __init__(self, device: QPaintDevice):
        self.device = device
        self.k = device.logicalDpiX() / 72.0     # device pixels per point
        self._fonts: dict[str, QFont] = {}
        self._metrics: dict[str, QFontMetricsF] = {}
        self._advance: dict[tuple[str, str], float] = {}
        self._ascent: dict[str, float] = {}
        self._height: dict[str, float] = {}

    def font(self, style: str) -> QFont:
        font = self._fonts.get(style)
        if font is None:
            family, size, bold, italic = STYLES[style]
            font = QFont(family)
            font.setPointSizeF(size)
            font.setBold(bold)
            font.setItalic(italic)
            font.setKerning(True)
            font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
            # no "fi"/"fl" ligatures: text copied out of the PDF (or searched) reads "file", not "ﬁle"
            for tag in ("liga", "clig", "dlig"):
                font.setFeature(QFont.Tag(tag), 0)
            self._fonts[style] = font
        return font

    def metrics(self, style: str) -> QFontMetricsF:
        m = self._metrics.get(style)
        if m is None:
            m = self._metrics[style] = QFontMetricsF(self.font(style), self.device)
        return m

    def advance(self, text: str, style: str) -> float:
        key = (text, style)
        value = self._advance.get(key)
        if value is None:
            value = self.metrics(style).horizontalAdvance(text) / self.k
            if len(self._advance) < 200_000:
                self._advance[key] = value
        return value

    def ascent(self, style: str) -> float:
        value = self._ascent.get(style)
        if value is None:
            value = self._ascent[style] = self.metrics(style).ascent() / self.k
        return value

    def line_height(self, style: str) -> float:
        value = self._height.get(style)
        if value is None:
            m = self.metrics(style)
            value = self._height[style] = ((m.ascent() + m.descent()) / self.k
                                           + max(m.leading() / self.k, STYLES[style][1] * 0.18))
        return value

    # ---- line breaking ----------------------------------------------------------------
    def wrap(self, spans: Sequence[Span], width: float, colour: str = "") -> list[Line]:
        """Break ``spans`` into lines no wider than ``width`` (at spaces; a word wider than a
        line breaks after a separator of ``BREAK_AFTER``, between characters only where none
        fits). Explicit newlines start a new line."""
        if len(spans) == 1 and "\n" not in spans[0][0]:      # the usual case: it fits on one line
            text, style = spans[0]
            w = self.advance(text, style) if len(text) < 400 else width + 1
            if w <= width + 0.01:
                stripped = text.rstrip()
                piece = (Piece(0.0, text, style, colour),) if text else ()
                return [Line(piece, w if stripped == text else self.advance(stripped, style),
                             self.line_height(style), self.ascent(style))]
        lines: list[Line] = []
        pieces: list[Piece] = []
        run: list[str] = []                 # words of the piece being built (one style)
        state = {"style": "", "x0": 0.0, "x": 0.0, "h": 0.0, "a": 0.0}
        first = spans[0][1] if spans else "body"

        def close_run() -> None:
            if run:
                pieces.append(Piece(state["x0"], "".join(run), state["style"], colour))
                run.clear()

        def flush() -> None:
            close_run()
            lines.append(Line(tuple(pieces), state["x"], state["h"] or self.line_height(first),
                              state["a"] or self.ascent(first)))
            pieces.clear()
            state.update(style="", x0=0.0, x=0.0, h=0.0, a=0.0)

        def add(word: str, w: float, style: str, lh: float, asc: float) -> None:
            if style != state["style"]:
                close_run()
                state["style"], state["x0"] = style, state["x"]
            run.append(word)
            state["x"] += w
            if lh > state["h"]:
                state["h"] = lh
            if asc > state["a"]:
                state["a"] = asc

        advance = self.advance
        limit = width + 0.01
        for text, style in spans:
            lh, asc = self.line_height(style), self.ascent(style)
            for n, para in enumerate(text.split("\n")):
                if n:
                    flush()
                for word in _WORDS.findall(para):
                    w = advance(word, style)
                    x = state["x"]
                    if x + w > limit and x > 0:
                        if word[0] == " ":
                            continue
                        flush()
                    elif x == 0 and word[0] == " ":
                        continue
                    while w > limit and len(word) > 1:      # one word wider than the line
                        cut = self._fit(word, style, width - state["x"])
                        # at the last separator that fits; between characters only if none does
                        at = _break_at(word, cut)
                        if at == 0 and state["x"] > 0:
                            flush()
                            continue
                        cut = max(at or cut, 1)
                        add(word[:cut], advance(word[:cut], style), style, lh, asc)
                        flush()
                        word = word[cut:]
                        w = advance(word, style)
                    add(word, w, style, lh, asc)
        if run or pieces or not lines:
            flush()
        # trailing spaces do not count towards a line's width
        return [Line(ln.pieces, self._trimmed(ln), ln.height, ln.ascent) for ln in lines]

    def _trimmed(self, line: Line) -> float:
        if not line.pieces:
            return 0.0
        last = line.pieces[-1]
        stripped = last.text.rstrip()
        return last.x + self.advance(stripped, last.style)

    def _fit(self, word: str, style: str, width: float) -> int:
        lo, hi = 0, len(word)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.advance(word[:mid], style) <= width:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def lines_height(self, lines: Iterable[Line]) -> float:
        return sum(ln.height for ln in lines)

    # ---- painting ---------------------------------------------------------------------
    def draw_lines(self, painter: QPainter, lines: Sequence[Line], x: float, y: float, width: float = 0.0,
                   align: str = "l", colour: str = INK) -> float:
        """Paint ``lines`` from the top-left (x, y); returns the height used."""
        top = y
        for ln in lines:
            dx = 0.0
            if align == "r" and width:
                dx = width - ln.width
            elif align == "c" and width:
                dx = (width - ln.width) / 2
            for piece in ln.pieces:
                self._text(painter, piece.text, piece.style, x + dx + piece.x, y + ln.ascent, piece.colour or colour)
            y += ln.height
        return y - top

    def draw_text(self, painter: QPainter, text: str, style: str, x: float, y: float, colour: str = INK,
                  align: str = "l") -> None:
        """One line of text with its baseline at ``y``; ``align`` relative to ``x``."""
        if align != "l":
            w = self.advance(text, style)
            x -= w if align == "r" else w / 2
        self._text(painter, text, style, x, y, colour)

    def _text(self, painter: QPainter, text: str, style: str, x: float, y: float, colour: str) -> None:
        """Text at its true size: drawn in device pixels (the painter is in points)."""
        painter.save()
        painter.translate(x, y)
        painter.scale(1 / self.k, 1 / self.k)
        painter.setFont(self.font(style))
        painter.setPen(QColor(colour))
        painter.drawText(QPointF(0, 0), text)
        painter.restore()

    def elide(self, text: str, style: str, width: float) -> str:
        if self.advance(text, style) <= width:
            return text
        cut = self._fit(text, style, max(0.0, width - self.advance("…", style)))
        return text[:cut] + "…"


def rect(x: float, y: float, w: float, h: float) -> QRectF:
    return QRectF(x, y, w, h)


def hatch(painter: QPainter, box: QRectF, colour: QColor, step: float = 3.2, width: float = 0.5) -> None:
    """Diagonal lines across ``box``, drawn as lines (a pattern brush would not survive the
    SVG of the HTML report): how arbiters and estimates are hatched."""
    painter.save()
    painter.setClipRect(box, Qt.ClipOperation.IntersectClip)
    painter.setPen(QPen(colour, width))
    x = box.left() - box.height()
    while x < box.right():
        painter.drawLine(QPointF(x, box.bottom()), QPointF(x + box.height(), box.top()))
        x += step
    painter.restore()


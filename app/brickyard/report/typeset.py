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

from dataclasses import dataclass
from typing import Iterable, Sequence

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintDevice

DPI = 720
SCALE = DPI / 72.0          # device pixels per point

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

# The canvas's set colours (ui/style.SET_COLOURS: a set looks the same on screen and paper).
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
        return self.metrics(style).ascent() / self.k

    def line_height(self, style: str) -> float:
        m = self.metrics(style)
        return (m.ascent() + m.descent()) / self.k + max(m.leading() / self.k, STYLES[style][1] * 0.18)

    # ---- line breaking ----------------------------------------------------------------
    def wrap(self, spans: Sequence[Span], width: float, colour: str = "") -> list[Line]:
        """Break ``spans`` into lines no wider than ``width`` (at spaces; a word wider than a
        line is cut between characters). Explicit newlines start a new line."""
        lines: list[Line] = []
        current: list[Piece] = []
        x = 0.0
        height = ascent = 0.0

        def flush() -> None:
            nonlocal current, x, height, ascent
            if not height:
                style = spans[0][1] if spans else "body"
                height, ascent = self.line_height(style), self.ascent(style)
            lines.append(Line(tuple(current), x, height, ascent))
            current, x, height, ascent = [], 0.0, 0.0, 0.0

        for text, style in spans:
            paragraphs = text.split("\n")
            for n, para in enumerate(paragraphs):
                if n:
                    flush()
                for word in _words(para):
                    w = self.advance(word, style)
                    if x + w > width + 0.01 and x > 0:
                        if word.isspace():
                            continue
                        flush()
                    if not current and word.isspace():
                        continue
                    while w > width + 0.01 and len(word) > 1:      # one word wider than the line
                        cut = self._fit(word, style, width - x)
                        if cut == 0 and x > 0:
                            flush()
                            continue
                        cut = max(cut, 1)
                        self._add(current, x, word[:cut], style, colour)
                        x += self.advance(word[:cut], style)
                        height, ascent = self._grow(style, height, ascent)
                        flush()
                        word = word[cut:]
                        w = self.advance(word, style)
                    self._add(current, x, word, style, colour)
                    x += w
                    height, ascent = self._grow(style, height, ascent)
        if current or not lines:
            flush()
        # trailing spaces do not count towards a line's width
        return [Line(ln.pieces, self._trimmed(ln), ln.height, ln.ascent) for ln in lines]

    def _trimmed(self, line: Line) -> float:
        if not line.pieces:
            return 0.0
        last = line.pieces[-1]
        stripped = last.text.rstrip()
        return last.x + self.advance(stripped, last.style)

    def _grow(self, style: str, height: float, ascent: float) -> tuple[float, float]:
        return max(height, self.line_height(style)), max(ascent, self.ascent(style))

    @staticmethod
    def _add(current: list[Piece], x: float, text: str, style: str, colour: str) -> None:
        if current and current[-1].style == style and current[-1].colour == colour:
            last = current[-1]
            current[-1] = Piece(last.x, last.text + text, style, colour)
        else:
            current.append(Piece(x, text, style, colour))

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


def _words(text: str) -> list[str]:
    """Words with the spaces between them as their own items ('a  b' → ['a', '  ', 'b'])."""
    out: list[str] = []
    word = ""
    for ch in text:
        if (ch == " ") != (word[:1] == " ") and word:
            out.append(word)
            word = ""
        word += ch
    if word:
        out.append(word)
    return out


def rect(x: float, y: float, w: float, h: float) -> QRectF:
    return QRectF(x, y, w, h)

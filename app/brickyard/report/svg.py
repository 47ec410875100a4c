"""A report figure as inline SVG, painted by the very code that paints it into the PDF: the
HTML report's charts and drawings (``textblocks.Figure.html``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator

from .app import ensure_app
from .typeset import DPI, SCALE, Typeset

if TYPE_CHECKING:
    from .textblocks import Figure

FIGURE_WIDTH = 700.0


def svg_device(width: float, height: float, buffer: QBuffer | None = None) -> QSvgGenerator:
    """An SVG of ``width`` × ``height`` points, at the PDF's resolution (see ``typeset``)."""
    gen = QSvgGenerator()
    gen.setResolution(DPI)
    w, h = max(1, round(width * SCALE)), max(1, round(height * SCALE))
    gen.setSize(QSize(w, h))
    gen.setViewBox(QRectF(0, 0, w, h))
    if buffer is not None:
        gen.setOutputDevice(buffer)
    return gen


def figure_svg(fig: Figure, width: float = FIGURE_WIDTH) -> str:
    """The figure as inline SVG (vector), painted at ``width`` points."""
    ensure_app()
    probe = Typeset(svg_device(width, 100))
    height = fig.natural(probe, width)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = svg_device(width, height, buffer)
    gen.setTitle(fig.title)
    ts = Typeset(gen)
    painter = QPainter(gen)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.scale(SCALE, SCALE)
    fig.draw(painter, ts, QRectF(0, 0, width, height))
    painter.end()
    buffer.close()
    text = bytes(data.data()).decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text

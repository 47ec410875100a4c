"""A bar of the raw capacity split into usable, overhead and arbiter space (from core.capacity)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ....core.planmodel import Capacity
from ....core.units import describe_size

USABLE = QColor("#2e7d32")
OVERHEAD = QColor("#90a4ae")
ARBITER = QColor("#ce93d8")


class CapacityBar(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.capacity: Capacity | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(26)

    def sizeHint(self) -> QSize:
        return QSize(260, 26)

    def set_capacity(self, capacity: Capacity | None) -> None:
        self.capacity = capacity
        if capacity is None:
            self.setToolTip("")
        else:
            self.setToolTip(
                f"raw {describe_size(capacity.raw_bytes)}\nusable {describe_size(capacity.usable_bytes)}\n"
                f"overhead {describe_size(capacity.overhead_bytes)} (of which arbiter bricks "
                f"{describe_size(capacity.arbiter_bytes)})\nclient df shows {describe_size(capacity.df_bytes)}"
                + ("" if capacity.free_now_bytes is None else
                   f", {describe_size(capacity.free_now_bytes)} available now"))
        self.update()

    def fractions(self) -> tuple[float, float, float]:
        """(usable, overhead without arbiters, arbiter) as shares of raw."""
        cap = self.capacity
        if cap is None or not cap.raw_bytes:
            return 0.0, 0.0, 0.0
        raw = cap.raw_bytes
        return (cap.usable_bytes / raw, max(cap.overhead_bytes - cap.arbiter_bytes, 0) / raw,
                cap.arbiter_bytes / raw)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        rect = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        painter.setPen(QPen(QColor("#607d8b")))
        painter.setBrush(QColor("#eceff1"))
        painter.drawRect(rect)
        x = rect.left()
        usable, overhead, arbiter = self.fractions()
        for share, colour in ((usable, USABLE), (overhead, OVERHEAD), (arbiter, ARBITER)):
            width = rect.width() * share
            if width > 0:
                painter.fillRect(QRectF(x, rect.top() + 1, width, rect.height() - 1), colour)
                x += width
        if self.capacity is not None and self.capacity.raw_bytes:
            painter.setPen(QColor("white" if usable > 0.35 else "#263238"))
            painter.drawText(rect.adjusted(6, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter,
                             f"usable {usable:.0%} of raw")
        painter.end()

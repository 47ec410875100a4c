"""The Change tab's canvas scene: the drawing with the live volume over it.

``ChangeScene`` is the planner's ``TopologyScene`` (it mirrors the session's model the same
way) plus a ``ChangePlan``: each brick chip gets a mark saying what the change does to it,
each server card a tag, and each replaced brick an arrow to its replacement.

- new brick: green frame, "NEW"; replacement: green frame, "REPLACES node:/path";
- retiring brick: struck through, "RETIRES"; replaced brick: struck through, "REPLACED";
- a brick of the live volume that is offline now: "OFFLINE" (and crossed, as a failure);
- under every brick whose data changes: a bar of its filesystem — what stays, what leaves
  (red) and what arrives (green) — with the bytes in its tag;
- a server that joins the pool: "NEW SERVER"; one that leaves the volume: "LEAVES".

The chips' set colours and numbers follow the plan's result (the sets gluster will have),
retiring and replaced bricks keep their set of today. With no plan (no live state read
yet) it draws exactly what the planner's canvas draws.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from ...core import changemodel as cm
from ...core.brick_looks import BrickLook, FailedParts, VolumeLooks
from ...core.changemodel import BrickChange, ChangePlan
from ...core.plan import PlanResult
from ...core.units import format_bytes
from ..planner.canvas.items import CARD_W, CHIP_H, PAD, BrickItem, NodeItem
from ..planner.canvas.scene import TopologyScene

GREEN, RED, BLUE, GREY = "#2e7d32", "#c62828", "#1565c0", "#90a4ae"
_TAG = QFont("DejaVu Sans", 7, QFont.Weight.Bold)
BAR_H = 3.0


def chip_tag(change: BrickChange | None, offline: bool) -> tuple[str, str]:
    """(the tag's words, its colour) for a brick; ('', '') when the change leaves it alone."""
    if change is None:
        return ("OFFLINE", RED) if offline else ("", "")
    role = change.role
    if role == cm.NEW:
        return (f"NEW +{format_bytes(change.bytes_in, digits=1)}" if change.bytes_in else "NEW", GREEN)
    if role == cm.REPLACEMENT:
        return f"REPLACES {change.partner}", GREEN
    if role == cm.RETIRING:
        return ("RETIRES" + (f" −{format_bytes(change.bytes_out, digits=1)}" if change.bytes_out else ""),
                RED if change.online is not False else RED)
    if role == cm.REPLACED:
        return ("REPLACED, OFFLINE" if change.online is False else "REPLACED", RED)
    if change.online is False:
        return "OFFLINE", RED
    parts = []
    if change.bytes_out:
        parts.append(f"−{format_bytes(change.bytes_out, digits=1)}")
    if change.bytes_in:
        parts.append(f"+{format_bytes(change.bytes_in, digits=1)}")
    return (" ".join(parts), BLUE) if parts else ("", "")


def mark_key(change: BrickChange | None, offline: bool, size: int) -> tuple:
    """What a chip's mark shows of a brick's change (its set may move with every edit; the
    mark does not show it)."""
    if change is None:
        return (offline, size)
    return (offline, size, change.role, change.partner, change.online, change.used_bytes, change.bytes_in,
            change.bytes_out)


class ChipMark(QGraphicsItem):
    """Drawn over one brick chip: its tag, a strike for a brick that leaves, a frame for one
    that joins, and the bar of what its filesystem holds before and after."""

    def __init__(self, chip: BrickItem):
        super().__init__(chip)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)   # clicks go to the chip
        self.setZValue(2)
        self.change: BrickChange | None = None
        self.offline = False
        self.size = 0
        self.key: tuple | None = None
        self._tag: tuple[str, str] | None = ("", "")

    def set_change(self, change: BrickChange | None, offline: bool, size: int) -> None:
        key = mark_key(change, offline, size)
        if key != self.key:
            self.key = key
            self.change, self.offline, self.size = change, offline, size
            self._tag = None                 # worded when it is painted: most chips are off screen
            # shown when it has a tag (chip_tag's cases) or a frame or strike
            self.setVisible(offline if change is None else change.role != cm.KEPT or change.online is False
                            or bool(change.bytes_in or change.bytes_out))
            self.update()

    @property
    def tag(self) -> str:
        return self._tagged()[0]

    @property
    def colour(self) -> str:
        return self._tagged()[1]

    def _tagged(self) -> tuple[str, str]:
        if self._tag is None:
            self._tag = chip_tag(self.change, self.offline)
        return self._tag

    @property
    def role(self) -> str:
        return self.change.role if self.change is not None else ""

    def boundingRect(self) -> QRectF:
        return QRectF(-3, -3, CARD_W - 2 * PAD + 6, CHIP_H + 6)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        w = CARD_W - 2 * PAD
        role = self.role
        if role in (cm.NEW, cm.REPLACEMENT):
            painter.setPen(QPen(QColor(GREEN), 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(-1, -1, w + 2, CHIP_H + 2))
        if role in (cm.RETIRING, cm.REPLACED):
            painter.setPen(QPen(QColor(RED), 2))
            painter.drawLine(QPointF(0, CHIP_H / 2), QPointF(w, CHIP_H / 2))
        self._paint_bar(painter, w)
        if option.levelOfDetailFromTransform(painter.worldTransform()) < 0.45:
            return
        tag, colour = self._tagged()
        if not tag:
            return
        metrics = QFontMetricsF(_TAG)
        text = metrics.elidedText(tag, Qt.TextElideMode.ElideMiddle, w * 0.62)
        width = metrics.horizontalAdvance(text) + 8
        pill = QRectF(w - width - 2, 2, width, CHIP_H - 4 - BAR_H)
        painter.setPen(QPen(QColor(colour), 1))
        painter.setBrush(QBrush(QColor("#ffffff")))
        painter.drawRoundedRect(pill, 3, 3)
        painter.setFont(_TAG)
        painter.setPen(QColor(colour))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_bar(self, painter: QPainter, w: float) -> None:
        """Along the chip's foot: what stays (grey), what leaves (red), what arrives (green),
        as shares of its filesystem."""
        change = self.change
        if change is None or not self.size or not (change.bytes_in or change.bytes_out):
            return
        used = change.used_bytes or 0
        stays = max(used - change.bytes_out, 0)
        y = CHIP_H - BAR_H
        x = 0.0
        painter.setPen(Qt.PenStyle.NoPen)
        for amount, colour in ((stays, GREY), (min(change.bytes_out, used), RED), (change.bytes_in, GREEN)):
            width = min(w - x, w * amount / self.size)
            if width > 0:
                painter.setBrush(QColor(colour))
                painter.drawRect(QRectF(x, y, width, BAR_H))
                x += width


class NodeMark(QGraphicsItem):
    """A tag at the right of a server card's header: NEW SERVER or LEAVES."""

    def __init__(self, card: NodeItem):
        super().__init__(card)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(2)
        self.text, self.colour = "", ""

    def set_text(self, text: str, colour: str) -> None:
        if (text, colour) != (self.text, self.colour):
            self.text, self.colour = text, colour
            self.setVisible(bool(text))
            self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(CARD_W - 120, 2, 116, 16)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self.text:
            return
        rect = self.boundingRect()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(self.colour))
        painter.drawRoundedRect(rect, 4, 4)
        painter.setFont(_TAG)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.text)


class ChangeScene(TopologyScene):
    def __init__(self, session, parent=None):
        self.change: ChangePlan | None = None
        self.pool: set[str] = set()
        self._offline: set = set()
        self._now_nodes: set[str] = set()
        self._after_nodes: set[str] = set()
        self._arrows: list[QGraphicsPathItem] = []
        self._looks: dict[tuple[str, str], BrickLook] = {}
        self._by_key: dict[tuple[str, str], BrickChange] = {}
        self._change_key: tuple | None = None
        # each chip's mark by (node, path): (chip, what it shows (mark_key), mark)
        self._marked: dict[tuple[str, str], tuple] = {}
        super().__init__(session, parent)

    # ---- the change -------------------------------------------------------------------
    def set_change(self, change: ChangePlan | None, pool: set[str] | None = None,
                   offline: set | None = None, looks: dict | None = None) -> None:
        """Draw ``change`` over the drawing (None: the drawing alone). ``pool``: the servers in
        the trusted pool now; ``offline``: bricks of the live volume that are offline;
        ``looks``: ``change_looks(change, offline)`` when the caller made it already."""
        self.change = change
        self.pool = set(pool or ())
        self._offline = set(offline or ())
        self._now_nodes = {b.node for b in change.current.bricks} if change is not None else set()
        self._after_nodes = {b.node for b in change.result.bricks} if change is not None else set()
        if looks is None:
            looks = change_looks(change, self._offline) if change is not None and change.bricks else {}
        self._looks = looks if change is not None else {}
        self._by_key = {(b.ref.node, b.ref.path): b for b in change.bricks} if change is not None else {}
        self._change_key = None
        self._plan_key = None            # the session plan's looks are walked again when the change goes
        self.apply_plan(self.session.plan)

    def apply_plan(self, plan: PlanResult | None) -> None:
        """With a change shown, its looks are the chips' (the planner's verdict on the drawing
        would only paint them over until the change plan follows): the chips are walked again
        only when the change, the items or the simulated failures differ, and each chip is
        repainted only when its look does."""
        if not self._looks:
            super().apply_plan(plan)
            self._mark()
            return
        self._caption(plan)
        key = (id(self.change), self._generation, tuple(self.session.failures))
        if key == self._change_key:
            return
        self._change_key = key
        self.paint_looks(VolumeLooks(self._looks, FailedParts.from_specs(self.session.failures)))
        self._mark()

    def relayout(self) -> None:
        super().relayout()
        if hasattr(self, "_arrows"):
            self._draw_arrows()

    def _mark(self) -> None:
        """Each chip's mark and each card's tag as the change has them; only the chips whose
        change, state or size differs from the last time are touched (a 4,800-brick volume has
        a few hundred that an edit changes)."""
        change, by_key = self.change, self._by_key
        offline = {(r.node, r.path) for r in self._offline} if change is not None else set()
        marked, seen = self._marked, {}
        drawn = {n.name: n for n in self.session.topo.nodes}
        for name, item in self.nodes.items():
            node = drawn.get(name)
            sizes = {b.path: b.size_bytes for b in node.bricks} if node is not None else {}
            for chip in item.bricks:
                key = (name, chip.path)
                bc = by_key.get(key)
                down = key in offline
                size = sizes.get(chip.path) or ((bc.used_bytes or 0) + bc.bytes_in if bc is not None else 0)
                shown = mark_key(bc, down, size)
                last = marked.get(key)
                if last is not None and last[0] is chip and last[1] == shown:
                    if last[2].change is not bc:
                        last[2].change = bc         # the same looks; the tests read the change
                    seen[key] = last
                    continue
                if last is None or last[0] is not chip:
                    if bc is None and not down:
                        continue
                    mark = ChipMark(chip)
                else:
                    mark = last[2]
                mark.set_change(bc, down, size)
                seen[key] = (chip, shown, mark)
            tag = next((c for c in item.childItems() if isinstance(c, NodeMark)), None)
            text, colour = self._node_tag(name) if change is not None else ("", "")
            if tag is None and text:
                tag = NodeMark(item)
            if tag is not None:
                tag.set_text(text, colour)
        self._marked = seen
        self._draw_arrows()

    def _node_tag(self, name: str) -> tuple[str, str]:
        now, after = self._now_nodes, self._after_nodes
        if name in after and name not in now:
            return ("NEW SERVER" if name not in self.pool else "JOINS THE VOLUME"), GREEN
        if name in now and name not in after:
            return "LEAVES THE VOLUME", RED
        return "", ""

    def _draw_arrows(self) -> None:
        """One arrow from each replaced brick to its replacement."""
        for arrow in self._arrows:
            self.removeItem(arrow)
        self._arrows = []
        change = self.change
        if change is None:
            return
        for b in change.bricks:
            if b.role != cm.REPLACED or b.partner is None:
                continue
            a, z = self.brick_item(b.ref), self.brick_item(b.partner)
            if a is None or z is None or not a.isVisible() or not z.isVisible():
                continue
            arrow = QGraphicsPathItem(_arrow_path(a.sceneBoundingRect(), z.sceneBoundingRect()))
            arrow.setPen(QPen(QColor(GREEN), 2.2, Qt.PenStyle.DashLine))
            arrow.setZValue(50)
            arrow.setToolTip(f"{b.partner} takes the place of {b.ref} in its set; self-heal fills it")
            arrow.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self.addItem(arrow)
            self._arrows.append(arrow)

    def marks(self) -> dict[str, ChipMark]:
        """Every shown chip mark by 'node:/path' (for tests and the walk's checks)."""
        out = {}
        for item in self.nodes.values():
            for chip in item.bricks:
                mark = next((c for c in chip.childItems() if isinstance(c, ChipMark)), None)
                if mark is not None and mark.isVisible():
                    out[str(chip.ref)] = mark
        return out

    def node_tags(self) -> dict[str, str]:
        out = {}
        for name, item in self.nodes.items():
            tag = next((c for c in item.childItems() if isinstance(c, NodeMark)), None)
            if tag is not None and tag.text:
                out[name] = tag.text
        return out

    @property
    def arrows(self) -> list[QGraphicsPathItem]:
        return list(self._arrows)


def change_looks(change: ChangePlan, offline: set) -> dict[tuple[str, str], BrickLook]:
    """The looks of the bricks a change plan names: the result's sets and places for bricks that
    stay or join, today's set and place for bricks that leave."""
    # keyed by (node, path): tuples hash in C, BrickRefs in Python (5,000 bricks notice it)
    after = {(r.node, r.path): i + 1 for i, r in enumerate(change.result.bricks)}
    now = {(r.node, r.path): i + 1 for i, r in enumerate(change.current.bricks)}
    down = {(r.node, r.path) for r in offline}
    looks = {}
    for b in change.bricks:
        key = (b.ref.node, b.ref.path)
        leaving = b.role in (cm.RETIRING, cm.REPLACED)
        looks[key] = BrickLook(b.set_before if leaving else b.set_after, now.get(key) if leaving else after.get(key),
                               b.arbiter, key in down or b.online is False)
    return looks


def _arrow_path(a: QRectF, z: QRectF) -> QPainterPath:
    """A curved arrow from the right edge of ``a`` to the left edge of ``z`` (or between their
    nearer sides; for chips one above the other, from the bottom of one to the top of the
    other), with its head at ``z``."""
    if abs(a.center().x() - z.center().x()) < a.width() / 2:
        down = z.center().y() > a.center().y()
        start = QPointF(a.left() + 24, a.bottom() if down else a.top())
        end = QPointF(z.left() + 24, z.top() if down else z.bottom())
        sign = 1 if down else -1
        path = QPainterPath(start)
        path.cubicTo(QPointF(start.x() - 30, start.y() + sign * 20), QPointF(end.x() - 30, end.y() - sign * 20), end)
        path.moveTo(QPointF(end.x() - 6, end.y() - sign * 10))
        path.lineTo(end)
        path.lineTo(QPointF(end.x() + 6, end.y() - sign * 10))
        return path
    start = QPointF(a.right() - 4, a.center().y()) if a.center().x() <= z.center().x() else \
        QPointF(a.left() + 4, a.center().y())
    end = QPointF(z.left() + 4, z.center().y()) if a.center().x() <= z.center().x() else \
        QPointF(z.right() - 4, z.center().y())
    path = QPainterPath(start)
    bend = max(40.0, abs(end.x() - start.x()) / 3)
    sign = 1 if end.x() >= start.x() else -1
    path.cubicTo(QPointF(start.x() + sign * bend, start.y() - 30), QPointF(end.x() - sign * bend, end.y() - 30), end)
    # the head
    back = QPointF(end.x() - sign * 10, end.y() - 6)
    path.moveTo(back)
    path.lineTo(end)
    path.lineTo(QPointF(end.x() - sign * 10, end.y() + 6))
    return path

"""What the canvas draws: sites as labelled regions, nodes as cards, bricks as chips.

Items hold only what they paint; the scene sets it from the model and the plan. Painting
is plain ``drawRect``/``drawText`` with a level-of-detail cut, so 5,000 chips stay cheap.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ....core.brick_looks import BrickLook
from ....core.topology import Brick, BrickRef, Client, Node, Site
from ....core.units import format_bytes, format_link_speed
from ...widgets import style

CARD_W = 290.0
BADGE_W = 66.0
HEADER_H = 36.0
CHIP_H = 20.0
CHIP_GAP = 2.0
PAD = 6.0
SITE_TITLE_H = 34.0
SITE_PAD = 16.0
CLIENT_W = 270.0
CLIENT_H = 26.0
MOUNT_LINE_H = 15.0
VOLUME_TITLE_H = 28.0

_FONT = QFont("DejaVu Sans", 8)
_BOLD = QFont("DejaVu Sans", 9, QFont.Weight.Bold)
_TITLE = QFont("DejaVu Sans", 12, QFont.Weight.Bold)


def _lod(option: QStyleOptionGraphicsItem, painter: QPainter) -> float:
    return option.levelOfDetailFromTransform(painter.worldTransform())


class SiteItem(QGraphicsItem):
    """A site: a rounded region with its name; nodes sit on top of it, not inside it."""

    def __init__(self, site: Site | None):
        super().__init__()
        self.name = site.name if site else ""
        self.description = site.description if site else ""
        self.rect = QRectF(0, 0, 300, 200)
        self.failed = False
        self.setZValue(-10)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, site is not None)
        # the region is canvas background (a drag on it draws a selection band); the view
        # selects the site on a click in its title strip
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    @property
    def kind(self) -> str:
        return "site"

    def in_title(self, scene_point) -> bool:
        return self.rect.contains(scene_point) and scene_point.y() < self.rect.top() + SITE_TITLE_H

    def set_rect(self, rect: QRectF) -> None:
        if rect != self.rect:
            self.prepareGeometryChange()
            self.rect = rect

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        border = QColor(style.SELECTED if self.isSelected() else style.FAILED if self.failed else style.SITE_BORDER)
        painter.setPen(QPen(border, 3 if self.isSelected() or self.failed else 1.5,
                            Qt.PenStyle.SolidLine if self.name else Qt.PenStyle.DashLine))
        painter.setBrush(QBrush(QColor("#fbeaea" if self.failed else style.SITE_FILL)))
        painter.drawRoundedRect(self.rect, 10, 10)
        painter.setFont(_TITLE)
        painter.setPen(QColor("#263238"))
        title = self.name or "(no site)"
        if self.failed:
            title += "   FAILED"
        painter.drawText(self.rect.adjusted(SITE_PAD, 6, -SITE_PAD, 0), Qt.AlignmentFlag.AlignLeft, title)


class NodeItem(QGraphicsItem):
    """A node card: header (name, site, NIC) and its brick chips as children."""

    def __init__(self, node: Node):
        super().__init__()
        self.name = node.name
        self.header = ""
        self.failed = False
        self.bricks: list[BrickItem] = []
        self.slot = None  # where the layout put it; a drag that ends elsewhere snaps back
        self.compact = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.sync(node)

    @property
    def kind(self) -> str:
        return "node"

    def sync(self, node: Node) -> None:
        """Take name, header text and bricks from the model (chips reused by path)."""
        self.name = node.name
        nic = f" · {format_link_speed(node.nic_gbps * 1e9 / 8)}" if node.nic_gbps else ""
        total = format_bytes(sum(b.size_bytes for b in node.bricks), digits=1)
        self.header = f"{len(node.bricks)} brick(s) · {total}{nic}"
        old = {b.path: b for b in self.bricks}
        self.prepareGeometryChange()
        chips = []
        for i, brick in enumerate(node.bricks):
            chip = old.pop(brick.path, None) or BrickItem(self, brick)
            chip.sync(brick)
            chip.setVisible(not self.compact)
            chip.setPos(PAD, HEADER_H + i * (CHIP_H + CHIP_GAP))
            chips.append(chip)
        for chip in old.values():
            chip.setParentItem(None)
            if chip.scene():
                chip.scene().removeItem(chip)
        self.bricks = chips
        self.update()

    def set_compact(self, compact: bool) -> None:
        """Far out, one paint call per card instead of one per chip (5,000 chips → 200 calls)."""
        if compact != self.compact:
            self.compact = compact
            for chip in self.bricks:
                chip.setVisible(not compact)
            # far out a card is a few pixels: keep its picture until it changes
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache if compact
                              else QGraphicsItem.CacheMode.NoCache)
            self.update()

    def _paint_chip_bars(self, painter: QPainter) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        for i, chip in enumerate(self.bricks):
            look = chip.look
            colour = QColor(style.FAILED) if look.failed else (
                style.set_colour(look.set_index) if look.set_index is not None else QColor("#e0e0e0"))
            painter.setBrush(colour)
            painter.drawRect(QRectF(PAD, HEADER_H + i * (CHIP_H + CHIP_GAP), CARD_W - 2 * PAD, CHIP_H))

    def height(self) -> float:
        return HEADER_H + len(self.bricks) * (CHIP_H + CHIP_GAP) + PAD

    def boundingRect(self) -> QRectF:
        return QRectF(-2, -2, CARD_W + 4, self.height() + 4)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        selected = self.isSelected()
        border = QColor(style.SELECTED if selected else style.FAILED if self.failed else style.NODE_BORDER)
        painter.setPen(QPen(border, 3 if selected or self.failed else 1))
        painter.setBrush(QBrush(QColor("#fdecea" if self.failed else style.NODE_FILL)))
        painter.drawRoundedRect(QRectF(0, 0, CARD_W, self.height()), 6, 6)
        if self.compact:  # zoomed far out: the chips are hidden and drawn here as bars
            self._paint_chip_bars(painter)
        if _lod(option, painter) < 0.35:
            return
        painter.setFont(_BOLD)
        painter.setPen(QColor(style.FAILED if self.failed else "#263238"))
        name = self.name + ("  ✕ FAILED" if self.failed else "")
        painter.drawText(QRectF(PAD, 3, CARD_W - 2 * PAD, 16), Qt.AlignmentFlag.AlignLeft, name)
        painter.setFont(_FONT)
        painter.setPen(QColor("#546e7a"))
        painter.drawText(QRectF(PAD, 18, CARD_W - 2 * PAD, 14), Qt.AlignmentFlag.AlignLeft, self.header)


class BrickItem(QGraphicsItem):
    """A brick chip: set colour, its number in the volume, path, size and disk kind."""

    def __init__(self, node: NodeItem, brick: Brick):
        super().__init__(node)
        self.node_item = node
        self.path = brick.path
        self.ref = BrickRef(node.name, brick.path)
        self.text = ""
        self.tail = ""
        self.look = BrickLook()
        self.drop_hint = False  # a dragged brick would take this one's place
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        # a chip's picture changes only with its look, text, selection or a drop hint (each calls
        # update()): a repaint after an edit draws the one chip that changed and copies the rest
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    @property
    def kind(self) -> str:
        return "brick"

    def sync(self, brick: Brick) -> None:
        self.path = brick.path
        self.ref = BrickRef(self.node_item.name, brick.path)
        parts = [brick.path, format_bytes(brick.size_bytes, digits=1)]
        if brick.disk_kind:
            parts.append(brick.disk_kind)
        metrics = QFontMetricsF(_FONT)
        room = CARD_W - 2 * PAD - BADGE_W - 16
        tail = " · ".join(parts[1:])
        # the path keeps at least half the room; a long disk kind is what gets cut
        drawn = (self.text, self.tail)
        self.tail = metrics.elidedText(tail, Qt.TextElideMode.ElideRight,
                                       max(room - metrics.horizontalAdvance(brick.path), room / 2))
        self.text = metrics.elidedText(brick.path, Qt.TextElideMode.ElideMiddle,
                                       room - metrics.horizontalAdvance(self.tail))
        self.setToolTip(f"{BrickRef(self.node_item.name, brick.path)}\n{' · '.join(parts)}\n"
                        f"filesystem {brick.filesystem or '(its own)'}")
        if (self.text, self.tail) != drawn:
            self.update()   # its cached picture is redrawn only when what it shows changed

    def set_look(self, look: BrickLook) -> None:
        if look != self.look:
            self.look = look
            self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(-1, -1, CARD_W - 2 * PAD + 2, CHIP_H + 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        look = self.look
        w = CARD_W - 2 * PAD
        in_volume = look.set_index is not None
        colour = style.set_colour(look.set_index) if in_volume else QColor(style.UNUSED)
        fill = QColor(colour)
        fill.setAlpha(70 if look.arbiter else 150)
        pen = QPen(QColor(style.SELECTED), 2.5) if self.isSelected() else QPen(colour.darker(130), 1)
        if not in_volume:
            pen.setStyle(Qt.PenStyle.DashLine)
            fill = QColor("#f5f5f5")
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRect(QRectF(0, 0, w, CHIP_H))
        if look.arbiter:
            painter.setBrush(QBrush(colour.darker(120), Qt.BrushStyle.BDiagPattern))
            painter.drawRect(QRectF(0, 0, w, CHIP_H))
        if _lod(option, painter) >= 0.45:
            painter.setFont(_FONT)
            painter.setPen(QColor("#102027"))
            if look.thin_arbiter:  # every pair's, no place in the order
                badge = "thin-arb"
            elif in_volume:
                badge = f"#{look.position} S{look.set_index + 1}"
            else:  # in a volume gluster refuses (no sets), or in no volume
                badge = f"#{look.position} no set" if look.position else "unused"
            if look.arbiter and not look.thin_arbiter:
                badge += " ARB"
            painter.drawText(QRectF(4, 0, BADGE_W, CHIP_H), Qt.AlignmentFlag.AlignVCenter, badge)
            text_rect = QRectF(BADGE_W + 6, 0, w - BADGE_W - 10, CHIP_H)
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter, self.text)
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, self.tail)
        if self.drop_hint:
            painter.setPen(QPen(QColor(style.SELECTED), 3, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(0, 0, w, CHIP_H))
        if look.failed:
            painter.setPen(QPen(QColor(style.FAILED), 2))
            painter.drawLine(0, 0, w, CHIP_H)
            painter.drawLine(0, CHIP_H, w, 0)


class ClientItem(QGraphicsItem):
    """A client that mounts volumes: a small card below its site's nodes, one line per mount."""

    def __init__(self, client: Client, mounts: list[str] = ()):
        super().__init__()
        self.name = client.name
        self.mounts: list[str] = []
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.set_mounts(list(mounts))

    @property
    def kind(self) -> str:
        return "client"

    def set_mounts(self, mounts: list[str]) -> None:
        """The lines under the name: 'gv0 at /mnt/gv0 (noatime) · fstab', one per mount."""
        if mounts != self.mounts:
            self.prepareGeometryChange()
            self.mounts = mounts
            self.setToolTip(f"client {self.name}\n" + ("\n".join(f"mounts {m}" for m in mounts)
                                                         or "mounts nothing yet (Edit > Add mount…)"))
            self.update()

    def height(self) -> float:
        return CLIENT_H + len(self.mounts) * MOUNT_LINE_H + (PAD if self.mounts else 0)

    def boundingRect(self) -> QRectF:
        return QRectF(-2, -2, CLIENT_W + 4, self.height() + 4)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setPen(QPen(QColor(style.SELECTED if self.isSelected() else "#78909c"), 2 if self.isSelected() else 1))
        painter.setBrush(QBrush(QColor("#e8eaf6")))
        painter.drawRoundedRect(QRectF(0, 0, CLIENT_W, self.height()), 10, 10)
        if _lod(option, painter) < 0.35:
            return
        painter.setFont(_BOLD)
        painter.setPen(QColor("#263238"))
        painter.drawText(QRectF(PAD, 0, CLIENT_W - 2 * PAD, CLIENT_H), Qt.AlignmentFlag.AlignVCenter,
                         f"client {self.name}")
        painter.setFont(_FONT)
        painter.setPen(QColor("#37474f") if self.mounts else QColor("#78909c"))
        metrics = QFontMetricsF(_FONT)
        for i, line in enumerate(self.mounts):
            text = metrics.elidedText(f"▸ {line}", Qt.TextElideMode.ElideRight, CLIENT_W - 2 * PAD)
            painter.drawText(QRectF(PAD, CLIENT_H - 4 + i * MOUNT_LINE_H, CLIENT_W - 2 * PAD, MOUNT_LINE_H),
                             Qt.AlignmentFlag.AlignVCenter, text)


class VolumeItem(QGraphicsItem):
    """The current volume's caption above the sites: its name, type, options and mounts."""

    def __init__(self):
        super().__init__()
        self.lines: list[tuple[str, bool]] = []  # (text, is a problem)
        self.width = 600.0
        self.setZValue(-5)

    @property
    def kind(self) -> str:
        return "volume"

    def set_lines(self, lines: list[tuple[str, bool]], tooltip: str) -> None:
        if lines != self.lines:
            self.prepareGeometryChange()
            self.lines = lines
            self.update()
        self.setToolTip(tooltip)

    def set_width(self, width: float) -> None:
        if width != self.width:
            self.prepareGeometryChange()
            self.width = width

    def height(self) -> float:
        return VOLUME_TITLE_H + max(0, len(self.lines) - 1) * MOUNT_LINE_H + PAD if self.lines else 0.0

    def boundingRect(self) -> QRectF:
        return QRectF(-2, -2, self.width + 4, self.height() + 4)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self.lines:
            return
        painter.setPen(QPen(QColor("#90a4ae"), 1))
        painter.setBrush(QBrush(QColor("#fffdf5")))
        painter.drawRoundedRect(QRectF(0, 0, self.width, self.height()), 8, 8)
        if _lod(option, painter) < 0.3:
            return
        metrics_bold, metrics = QFontMetricsF(_TITLE), QFontMetricsF(_FONT)
        title, _ = self.lines[0]
        painter.setFont(_TITLE)
        painter.setPen(QColor("#263238"))
        painter.drawText(QRectF(SITE_PAD, 2, self.width - 2 * SITE_PAD, VOLUME_TITLE_H),
                         Qt.AlignmentFlag.AlignVCenter,
                         metrics_bold.elidedText(title, Qt.TextElideMode.ElideRight, self.width - 2 * SITE_PAD))
        painter.setFont(_FONT)
        for i, (line, problem) in enumerate(self.lines[1:]):
            painter.setPen(QColor(style.FAILED if problem else "#37474f"))
            painter.drawText(QRectF(SITE_PAD, VOLUME_TITLE_H - 2 + i * MOUNT_LINE_H, self.width - 2 * SITE_PAD,
                                    MOUNT_LINE_H), Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(line, Qt.TextElideMode.ElideRight, self.width - 2 * SITE_PAD))

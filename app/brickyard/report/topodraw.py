"""The topology drawing of one planned layout, as vector paths and text: sites as labelled
regions, nodes as cards, each brick a chip coloured by its replica/disperse set with the set
number on it and its place in the volume's brick order, arbiters hatched, failed parts
crossed out and marked FAILED (so a greyscale print still says it), and the clients that
mount the volume as rounded cards under their site's nodes, each mount point on a line.

What each brick is (set, number, arbiter, thin-arbiter, failed) comes from
``core.brick_looks``, which the canvas asks too; this module only chooses how it looks on
paper. The geometry depends only on the plan, the topology and the width, so the height a
page reserves is the height painted. A large cluster switches to compact chips (the set
number only) and, if it still does not fit the page, is scaled down as a whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from ..core.brick_looks import BrickLook, volume_looks
from ..core.mounts import describe_mount
from ..core.topology import Mount
from ..core.units import format_bytes, format_link_speed
from .content import LayoutPlan
from .typeset import FAILED, INK, MUTED, Typeset, hatch, set_colour

SITE_PAD = 6.0
SITE_TITLE = 14.0
GAP = 6.0
CARD_HEAD = 15.0
CHIP_H = 11.0
CHIP_GAP = 1.5
COMPACT_W = 17.0
MOUNT_LINE = 9.0
CLIENT_MIN_W = 150.0
MAX_NODES = 64             # more than this: only the volume's nodes are drawn
MAX_HEIGHT = 600.0         # points: scaled down beyond this, so it fits a page with its caption
CLIENT_FILL = "#eceff7"
CLIENT_BORDER = "#5c6b7a"


def _outline(painter: QPainter, failed: bool, colour: str, width: float, failed_width: float) -> None:
    """The pen of a site's or a node's outline: dashed, red and heavier when it failed."""
    pen = QPen(QColor(FAILED if failed else colour), failed_width if failed else width)
    if failed:
        pen.setStyle(Qt.PenStyle.DashLine)
    painter.setPen(pen)


@dataclass
class _Card:
    node: str
    site: str
    bricks: list[tuple[str, int, BrickLook]]   # path, size, look
    failed: bool
    info: str
    rect: QRectF = field(default_factory=QRectF)


@dataclass
class _ClientCard:
    name: str
    site: str
    mounts: list[str]          # core.mounts.describe_mount lines, as the canvas lists them
    info: str
    rect: QRectF = field(default_factory=QRectF)


@dataclass
class _Site:
    name: str
    failed: bool
    cards: list[_Card]
    clients: list[_ClientCard] = field(default_factory=list)
    rect: QRectF = field(default_factory=QRectF)


def layout_mounts(layout: LayoutPlan) -> tuple[Mount, ...]:
    """The clients' mounts of the layout's volume: the ones the report found (the runs'
    targets), else the volume's own."""
    return layout.mounts or tuple(layout.plan.volume.mounts)


class TopologyDrawing:
    def __init__(self, layout: LayoutPlan):
        self.layout = layout
        topo, plan = layout.topology, layout.plan
        self.looks = looks = volume_looks(plan, layout.failures)
        failed = looks.failed
        in_volume = {r.node for r in plan.volume.bricks}
        if plan.volume.thin_arbiter_brick is not None:
            in_volume.add(plan.volume.thin_arbiter_brick.node)
        nodes = [n for n in topo.nodes]
        self.hidden = 0
        if len(nodes) > MAX_NODES:
            kept = [n for n in nodes if n.name in in_volume]
            self.hidden = len(nodes) - len(kept)
            nodes = kept
        known = {n.name for n in topo.nodes}
        cards_by_site: dict[str, list[_Card]] = {}
        for node in nodes:
            bricks = [(b.path, b.size_bytes, looks.look(node.name, b.path, node.site)) for b in node.bricks]
            info = format_link_speed(node.nic_gbps * 1e9 / 8) if node.nic_gbps else ""
            cards_by_site.setdefault(node.site, []).append(
                _Card(node.name, node.site, bricks, failed.node_failed(node.name, node.site), info))
        # bricks of the volume on nodes the topology does not know (a plan from run provenance)
        extra = list(plan.volume.bricks)
        if plan.volume.thin_arbiter_brick is not None:
            extra.append(plan.volume.thin_arbiter_brick)
        for ref in extra:
            if ref.node not in known:
                card = next((c for cs in cards_by_site.values() for c in cs if c.node == ref.node), None)
                if card is None:
                    card = _Card(ref.node, "", [], failed.node_failed(ref.node), "")
                    cards_by_site.setdefault("", []).append(card)
                card.bricks.append((ref.path, 0, looks.look(ref.node, ref.path)))
        self.mounts = layout_mounts(layout)
        clients_by_site: dict[str, list[_ClientCard]] = {}
        by_client: dict[str, list[Mount]] = {}
        for m in self.mounts:
            by_client.setdefault(m.client, []).append(m)
        for name, mounts in by_client.items():
            client = topo.client(name)
            site = client.site if client is not None else ""
            info = format_link_speed(client.nic_gbps * 1e9 / 8) if client is not None and client.nic_gbps else ""
            lines = [describe_mount(plan.volume.name, m.path, m.options, m.fstab) for m in mounts]
            clients_by_site.setdefault(site, []).append(_ClientCard(name, site, lines, info))
        topo_sites = [s.name for s in topo.sites]
        order = topo_sites + [s for s in [*cards_by_site, *clients_by_site] if s not in topo_sites]
        order = [s for s in dict.fromkeys(order) if s]
        if "" in cards_by_site or "" in clients_by_site:
            order.append("")
        self.sites = [_Site(name, failed.site_failed(name) if name else False, cards_by_site.get(name, []),
                            clients_by_site.get(name, []))
                      for name in order if name in cards_by_site or name in clients_by_site]
        self.compact = sum(len(c.bricks) for s in self.sites for c in s.cards) > 48
        self.set_count = looks.set_count
        self.has_arbiter = any(look.arbiter and not look.thin_arbiter for look in looks.looks.values())
        self.has_thin_arbiter = any(look.thin_arbiter for look in looks.looks.values())
        self.any_failed = looks.any_failed
        self.unused = any(not look.in_volume for s in self.sites for c in s.cards for _, _, look in c.bricks)
        self.no_set = any(look.position is not None and look.set_index is None
                          for s in self.sites for c in s.cards for _, _, look in c.bricks)

    # ---- geometry --------------------------------------------------------------------
    def _card_height(self, card: _Card, cw: float) -> float:
        n = len(card.bricks)
        if self.compact:
            per_row = max(1, int((cw - 6) // (COMPACT_W + 1.5)))
            rows = math.ceil(n / per_row) if n else 0
            return CARD_HEAD + rows * (CHIP_H + CHIP_GAP) + 4.0
        return CARD_HEAD + n * (CHIP_H + CHIP_GAP) + 3.0

    def _client_height(self, client: _ClientCard, cw: float) -> float:
        return CARD_HEAD + len(client.mounts) * MOUNT_LINE + 3.0

    def _layout(self, ts: Typeset, width: float) -> float:
        """Place sites, node cards and client cards for ``width``; returns the height
        (drawing and legend). In each site the nodes come first in a grid, then its clients."""
        titled = any(s.name for s in self.sites) or len(self.sites) > 1
        y = 0.0
        for site in self.sites:
            inner = width - (2 * SITE_PAD if titled else 0.0)
            x0 = SITE_PAD if titled else 0.0
            top = y + (SITE_TITLE if titled else 0.0) + (SITE_PAD if titled else 0.0)
            bottom = top
            cw_min = 92.0 if self.compact else 150.0
            cols = max(1, int((inner + GAP) // (cw_min + GAP)))
            cw = min(200.0 if not self.compact else 160.0, (inner - (cols - 1) * GAP) / cols)
            if site.cards:
                cols = min(cols, len(site.cards))
                cw = min(200.0 if not self.compact else 160.0, (inner - (cols - 1) * GAP) / cols)
                bottom = self._grid(site.cards, self._card_height, cw, cols, x0, top)
            if site.clients:      # on the nodes' columns, a client spanning as many as its lines need
                top = bottom + (GAP if site.cards else 0.0)
                span = max(1, math.ceil((CLIENT_MIN_W + GAP) / (cw + GAP)))
                full = max(1, int((inner + GAP) // (cw + GAP)))
                ccols = max(1, min(len(site.clients), full // span))
                bottom = self._grid(site.clients, self._client_height, span * cw + (span - 1) * GAP, ccols, x0, top)
            bottom += SITE_PAD if titled else 0.0
            site.rect = QRectF(0, y, width, bottom - y) if titled else QRectF()
            y = bottom + GAP
        return y + self._legend_height(ts, width)

    @staticmethod
    def _grid(items: list, height_of, cw: float, cols: int, x0: float, top: float) -> float:
        """Put ``items`` (cards with a ``rect``) in rows of ``cols``; returns the bottom."""
        row_top, row_h = top, 0.0
        for i, item in enumerate(items):
            col = i % cols
            if col == 0 and i:
                row_top += row_h + GAP
                row_h = 0.0
            h = height_of(item, cw)
            item.rect = QRectF(x0 + col * (cw + GAP), row_top, cw, h)
            row_h = max(row_h, h)
        return row_top + row_h

    def _legend_items(self) -> list[tuple[str, str]]:
        items = []
        shown = min(self.set_count, 12)
        for i in range(shown):
            items.append(("set", f"set {i + 1}"))
        if self.set_count > 12:
            items.append(("note", f"… {self.set_count} sets (colours repeat; the number is the set)"))
        if self.has_arbiter:
            items.append(("arbiter", "arbiter (metadata only)"))
        if self.has_thin_arbiter:
            items.append(("thin-arbiter", "thin-arbiter (every pair's)"))
        if self.any_failed:
            items.append(("failed", "failed"))
        if self.no_set:
            items.append(("unused", "no set: gluster refuses the layout"))
        if self.unused:
            items.append(("unused", "not in this volume"))
        if not self.mounts:
            items.append(("note", f"no client mounts {self.layout.plan.volume.name} yet"))
        return items

    def _legend_height(self, ts: Typeset, width: float) -> float:
        rows, x = 1, 0.0
        for _, text in self._legend_items():
            w = ts.advance(text, "tiny") + 22.0
            if x + w > width and x:
                rows += 1
                x = 0.0
            x += w
        note = 10.0 if self.hidden else 0.0
        return rows * 11.0 + 4.0 + note + 10.0

    def natural_height(self, ts: Typeset, width: float) -> float:
        h = self._layout(ts, width)
        if h <= MAX_HEIGHT:
            return h
        scale = self._scale(ts, width)
        return self._layout(ts, width / scale) * scale

    def _scale(self, ts: Typeset, width: float) -> float:
        scale = 1.0
        for _ in range(8):
            h = self._layout(ts, width / scale) * scale
            if h <= MAX_HEIGHT:
                break
            scale *= max(0.5, math.sqrt(MAX_HEIGHT / h))
        return scale

    # ---- painting --------------------------------------------------------------------
    def paint(self, painter: QPainter, ts: Typeset, rect: QRectF) -> None:
        scale = 1.0
        if self._layout(ts, rect.width()) > MAX_HEIGHT:
            scale = self._scale(ts, rect.width())
        width = rect.width() / scale
        height = self._layout(ts, width)
        painter.save()
        painter.translate(rect.topLeft())
        painter.scale(scale, scale)
        for site in self.sites:
            if not site.rect.isNull():
                self._paint_site(painter, ts, site)
            for card in site.cards:
                self._paint_card(painter, ts, card)
            for client in site.clients:
                self._paint_client(painter, ts, client)
        self._paint_legend(painter, ts, width, height - self._legend_height(ts, width) + 8.0)
        painter.restore()

    def _paint_site(self, painter: QPainter, ts: Typeset, site: _Site) -> None:
        r = site.rect
        _outline(painter, site.failed, "#b0b8c4", 0.8, 1.4)
        painter.setBrush(QBrush(QColor("#f6f7f9")))
        painter.drawRoundedRect(r, 5, 5)
        title = site.name or "no site"
        if site.failed:
            title += " — FAILED"
        ts.draw_text(painter, title, "small-bold", r.left() + SITE_PAD, r.top() + 11.0,
                     FAILED if site.failed else INK)

    def _paint_card(self, painter: QPainter, ts: Typeset, card: _Card) -> None:
        r = card.rect
        _outline(painter, card.failed, "#6b7785", 0.7, 1.6)
        painter.setBrush(QBrush(QColor("#fdecea" if card.failed else "#ffffff")))
        painter.drawRoundedRect(r, 3, 3)
        name = card.node + ("  FAILED" if card.failed else "")
        ts.draw_text(painter, ts.elide(name, "tiny-bold", r.width() - 8 - ts.advance(card.info, "tiny")),
                     "tiny-bold", r.left() + 4, r.top() + 10.0, FAILED if card.failed else INK)
        if card.info:
            ts.draw_text(painter, card.info, "tiny", r.right() - 4, r.top() + 10.0, MUTED, "r")
        if self.compact:
            per_row = max(1, int((r.width() - 6) // (COMPACT_W + 1.5)))
            for i, (path, size, look) in enumerate(card.bricks):
                cx = r.left() + 3 + (i % per_row) * (COMPACT_W + 1.5)
                cy = r.top() + CARD_HEAD + (i // per_row) * (CHIP_H + CHIP_GAP)
                self._chip(painter, ts, QRectF(cx, cy, COMPACT_W, CHIP_H), look, "", "")
            return
        for i, (path, size, look) in enumerate(card.bricks):
            cy = r.top() + CARD_HEAD + i * (CHIP_H + CHIP_GAP)
            size_text = format_bytes(size, digits=1) if size else ""
            self._chip(painter, ts, QRectF(r.left() + 3, cy, r.width() - 6, CHIP_H), look, path, size_text)

    def _paint_client(self, painter: QPainter, ts: Typeset, client: _ClientCard) -> None:
        """A client as the canvas draws one: a rounded card, its name, one line per mount of
        this volume ('gv0 at /mnt/gv0 (noatime) · fstab')."""
        r = client.rect
        painter.setPen(QPen(QColor(CLIENT_BORDER), 0.7))
        painter.setBrush(QBrush(QColor(CLIENT_FILL)))
        painter.drawRoundedRect(r, 6, 6)
        room = r.width() - 10 - (ts.advance(client.info, "tiny") + 4 if client.info else 0)
        ts.draw_text(painter, ts.elide(f"client {client.name}", "tiny-bold", room), "tiny-bold",
                     r.left() + 5, r.top() + 10.0, INK)
        if client.info:
            ts.draw_text(painter, client.info, "tiny", r.right() - 5, r.top() + 10.0, MUTED, "r")
        for i, line in enumerate(client.mounts):
            ts.draw_text(painter, ts.elide(f"\u25b8 {line}", "tiny", r.width() - 10), "tiny",
                         r.left() + 5, r.top() + CARD_HEAD + 6.3 + i * MOUNT_LINE, INK)

    def _chip(self, painter: QPainter, ts: Typeset, box: QRectF, look: BrickLook, path: str, size: str) -> None:
        in_set = look.set_index is not None
        base = set_colour(look.set_index) if in_set else QColor("#9e9e9e")
        light = _mix(base, QColor("#ffffff"), 0.62 if in_set else 0.8)
        painter.setPen(QPen(base.darker(135), 0.6))
        painter.setBrush(QBrush(light))
        painter.drawRect(box)
        badge_w = COMPACT_W if not path else 15.0
        badge = QRectF(box.left(), box.top(), badge_w, box.height())
        if in_set:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(base))
            painter.drawRect(badge)
            text_colour = "#ffffff" if _luma(base) < 150 else INK
            mark = "TA" if look.thin_arbiter else str(look.set_index + 1)
            ts.draw_text(painter, mark, "tiny-bold", badge.center().x(), badge.top() + 8.3, text_colour, "c")
        if look.arbiter:      # light enough that the path and size printed over it stay readable
            hatch(painter, box.adjusted(badge_w, 0, 0, 0) if path else box,
                  _mix(base.darker(150), QColor("#ffffff"), 0.35) if path else base.darker(150), 3.6, 0.45)
        if path:
            right = box.right() - 3
            if look.position is not None:
                pos = f"#{look.position}"
                ts.draw_text(painter, pos, "tiny", right, box.top() + 8.3, INK, "r")
                right -= ts.advance(pos, "tiny") + 4
            if size:
                ts.draw_text(painter, size, "tiny", right, box.top() + 8.3, MUTED, "r")
                right -= ts.advance(size, "tiny") + 4
            label = path + (" (thin-arbiter)" if look.thin_arbiter else " (arbiter)" if look.arbiter else
                            " (no set)" if look.position is not None and not in_set else "")
            ts.draw_text(painter, ts.elide(label, "tiny", right - badge.right() - 3), "tiny",
                         badge.right() + 2.5, box.top() + 8.3, INK)
        if look.failed:
            painter.setPen(QPen(QColor(FAILED), 0.9))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(box)
            painter.drawLine(box.topLeft(), box.bottomRight())
            painter.drawLine(box.bottomLeft(), box.topRight())

    def _paint_legend(self, painter: QPainter, ts: Typeset, width: float, y: float) -> None:
        x = 0.0
        for kind, text in self._legend_items():
            w = ts.advance(text, "tiny") + 22.0
            if x + w > width and x:
                x = 0.0
                y += 11.0
            box = QRectF(x, y, 14, 8)
            if kind == "set":
                index = int(text.split()[1]) - 1
                colour = set_colour(index)
                painter.setPen(QPen(colour.darker(135), 0.6))
                painter.setBrush(QBrush(colour))
                painter.drawRect(box)
                ts.draw_text(painter, str(index + 1), "tiny-bold", box.center().x(), box.top() + 6.6,
                             "#ffffff" if _luma(colour) < 150 else INK, "c")
            elif kind in ("arbiter", "thin-arbiter"):
                painter.setPen(QPen(QColor("#6b7785"), 0.6))
                painter.setBrush(QBrush(QColor("#ffffff")))
                painter.drawRect(box)
                hatch(painter, box, QColor("#37474f"), 3.0, 0.6)
                if kind == "thin-arbiter":
                    ts.draw_text(painter, "TA", "tiny-bold", box.center().x(), box.top() + 6.6, INK, "c")
            elif kind == "failed":
                painter.setPen(QPen(QColor(FAILED), 1.2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(box)
                painter.drawLine(box.topLeft(), box.bottomRight())
                painter.drawLine(box.bottomLeft(), box.topRight())
            elif kind == "unused":
                painter.setPen(QPen(QColor("#9e9e9e"), 0.6))
                painter.setBrush(QBrush(QColor("#e0e0e0")))
                painter.drawRect(box)
            else:
                w -= 18.0
                ts.draw_text(painter, text, "tiny", x, y + 7.0, MUTED)
                x += w
                continue
            ts.draw_text(painter, text, "tiny", x + 17.0, y + 7.0, INK)
            x += w
        if self.hidden:
            ts.draw_text(painter, f"{self.hidden} nodes without a brick of this volume are not drawn", "tiny",
                         0, y + 18.0, MUTED)


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(round(a.red() * (1 - t) + b.red() * t), round(a.green() * (1 - t) + b.green() * t),
                  round(a.blue() * (1 - t) + b.blue() * t))


def _luma(c: QColor) -> float:
    return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue()


"""The topology drawing of one planned layout, as vector paths and text: sites as labelled
regions, nodes as cards, each brick a chip coloured by its replica/disperse set with the set
number on it and its place in the volume's brick order, arbiters hatched, failed parts
crossed out and marked FAILED (so a greyscale print still says it).

The geometry depends only on the plan, the topology and the width, so the height a page
reserves is the height painted. A large cluster switches to compact chips (the set number
only) and, if it still does not fit the page, is scaled down as a whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from ..core.topology import BrickRef
from ..core.units import format_bytes
from .content import LayoutPlan
from .typeset import FAILED, INK, MUTED, Typeset, hatch, set_colour

SITE_PAD = 6.0
SITE_TITLE = 14.0
GAP = 6.0
CARD_HEAD = 15.0
CHIP_H = 11.0
CHIP_GAP = 1.5
COMPACT_W = 17.0
MAX_NODES = 64             # more than this: only the volume's nodes are drawn
MAX_HEIGHT = 600.0         # points: scaled down beyond this, so it fits a page with its caption


@dataclass(frozen=True)
class BrickLook:
    set_index: int | None = None    # None: not in this volume
    position: int | None = None     # 1-based place in the volume's brick order
    arbiter: bool = False
    failed: bool = False


@dataclass
class _Card:
    node: str
    site: str
    bricks: list[tuple[str, int, BrickLook]]   # path, size, look
    failed: bool
    info: str
    rect: QRectF = field(default_factory=QRectF)


@dataclass
class _Site:
    name: str
    failed: bool
    cards: list[_Card]
    rect: QRectF = field(default_factory=QRectF)


def failed_parts(failures: tuple[str, ...]) -> tuple[set[str], set[str], set[str]]:
    """(sites, nodes, bricks 'node:/path') a failure scenario names, in ``core.failures``'
    words: 'site:X', 'brick:node:/path', else a node ('node2' or 'node:node2')."""
    sites, nodes, bricks = set(), set(), set()
    for spec in failures:
        if spec.startswith("site:"):
            sites.add(spec[5:])
        elif spec.startswith("brick:"):
            bricks.add(spec[6:])
        else:
            nodes.add(spec.removeprefix("node:"))
    return sites, nodes, bricks


def brick_looks(layout: LayoutPlan) -> dict[BrickRef, BrickLook]:
    plan = layout.plan
    positions = {ref: i + 1 for i, ref in enumerate(plan.volume.bricks)}
    states = {s.index: s for s in plan.state.sets} if plan.state is not None else {}
    out: dict[BrickRef, BrickLook] = {}
    for bset in plan.sets:
        state = states.get(bset.index)
        failed = set(state.failed) if state else set()
        for ref in bset.bricks:
            out[ref] = BrickLook(bset.index, positions.get(ref), ref == bset.arbiter, ref in failed)
    return out


class TopologyDrawing:
    def __init__(self, layout: LayoutPlan):
        self.layout = layout
        topo, plan = layout.topology, layout.plan
        looks = brick_looks(layout)
        f_sites, f_nodes, f_bricks = failed_parts(layout.failures)
        in_volume = {r.node for r in plan.volume.bricks}
        nodes = [n for n in topo.nodes]
        self.hidden = 0
        if len(nodes) > MAX_NODES:
            kept = [n for n in nodes if n.name in in_volume]
            self.hidden = len(nodes) - len(kept)
            nodes = kept
        known = {n.name for n in topo.nodes}
        cards_by_site: dict[str, list[_Card]] = {}
        for node in nodes:
            node_failed = node.name in f_nodes or node.site in f_sites
            bricks = []
            for b in node.bricks:
                ref = BrickRef(node.name, b.path)
                look = looks.get(ref) or BrickLook(failed=node_failed or str(ref) in f_bricks)
                bricks.append((b.path, b.size_bytes, look))
            info = f"{node.nic_gbps:g} Gbit/s" if node.nic_gbps else ""
            cards_by_site.setdefault(node.site, []).append(_Card(node.name, node.site, bricks, node_failed, info))
        # bricks of the volume on nodes the topology does not know (a plan from run provenance)
        for ref in plan.volume.bricks:
            if ref.node not in known:
                card = next((c for cs in cards_by_site.values() for c in cs if c.node == ref.node), None)
                if card is None:
                    card = _Card(ref.node, "", [], ref.node in f_nodes, "")
                    cards_by_site.setdefault("", []).append(card)
                card.bricks.append((ref.path, 0, looks.get(ref, BrickLook())))
        order = [s.name for s in topo.sites] + [s for s in cards_by_site if s not in {x.name for x in topo.sites}]
        self.sites = [_Site(name, name in f_sites, cards_by_site[name]) for name in order if name in cards_by_site]
        self.compact = sum(len(c.bricks) for s in self.sites for c in s.cards) > 48
        self.set_count = len(plan.sets)
        self.has_arbiter = any(s.arbiter for s in plan.sets)
        self.any_failed = any(look.failed for look in looks.values()) or bool(layout.failures)
        self.unused = any(look.set_index is None for s in self.sites for c in s.cards for _, _, look in c.bricks)
        self._geometry: dict[float, float] = {}

    # ---- geometry --------------------------------------------------------------------
    def _card_height(self, card: _Card, cw: float) -> float:
        n = len(card.bricks)
        if self.compact:
            per_row = max(1, int((cw - 6) // (COMPACT_W + 1.5)))
            rows = math.ceil(n / per_row) if n else 0
            return CARD_HEAD + rows * (CHIP_H + CHIP_GAP) + 4.0
        return CARD_HEAD + n * (CHIP_H + CHIP_GAP) + 3.0

    def _layout(self, ts: Typeset, width: float) -> float:
        """Place sites and cards for ``width``; returns the height (drawing and legend)."""
        titled = any(s.name for s in self.sites) or len(self.sites) > 1
        y = 0.0
        for site in self.sites:
            inner = width - (2 * SITE_PAD if titled else 0.0)
            cw_min = 92.0 if self.compact else 150.0
            cols = max(1, int((inner + GAP) // (cw_min + GAP)))
            cols = min(cols, max(1, len(site.cards)))
            cw = min(200.0 if not self.compact else 160.0, (inner - (cols - 1) * GAP) / cols)
            x0 = SITE_PAD if titled else 0.0
            top = y + (SITE_TITLE if titled else 0.0) + (SITE_PAD if titled else 0.0)
            row_top, row_h = top, 0.0
            for i, card in enumerate(site.cards):
                col = i % cols
                if col == 0 and i:
                    row_top += row_h + GAP
                    row_h = 0.0
                h = self._card_height(card, cw)
                card.rect = QRectF(x0 + col * (cw + GAP), row_top, cw, h)
                row_h = max(row_h, h)
            bottom = row_top + row_h + (SITE_PAD if titled else 0.0)
            site.rect = QRectF(0, y, width, bottom - y) if titled else QRectF()
            y = bottom + GAP
        return y + self._legend_height(ts, width)

    def _legend_items(self) -> list[tuple[str, str]]:
        items = []
        shown = min(self.set_count, 12)
        for i in range(shown):
            items.append(("set", f"set {i + 1}"))
        if self.set_count > 12:
            items.append(("note", f"… {self.set_count} sets (colours repeat; the number is the set)"))
        if self.has_arbiter:
            items.append(("arbiter", "arbiter (metadata only)"))
        if self.any_failed:
            items.append(("failed", "failed"))
        if self.unused:
            items.append(("unused", "not in this volume"))
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
        self._paint_legend(painter, ts, width, height - self._legend_height(ts, width) + 8.0)
        painter.restore()

    def _paint_site(self, painter: QPainter, ts: Typeset, site: _Site) -> None:
        r = site.rect
        pen = QPen(QColor(FAILED if site.failed else "#b0b8c4"), 1.4 if site.failed else 0.8)
        if site.failed:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(QBrush(QColor("#f6f7f9")))
        painter.drawRoundedRect(r, 5, 5)
        title = site.name or "no site"
        if site.failed:
            title += " — FAILED"
        ts.draw_text(painter, title, "small-bold", r.left() + SITE_PAD, r.top() + 11.0,
                     FAILED if site.failed else INK)

    def _paint_card(self, painter: QPainter, ts: Typeset, card: _Card) -> None:
        r = card.rect
        pen = QPen(QColor(FAILED if card.failed else "#6b7785"), 1.6 if card.failed else 0.7)
        if card.failed:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
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

    def _chip(self, painter: QPainter, ts: Typeset, box: QRectF, look: BrickLook, path: str, size: str) -> None:
        in_volume = look.set_index is not None
        base = set_colour(look.set_index) if in_volume else QColor("#9e9e9e")
        fill = QColor(base)
        fill.setAlphaF(1.0)
        light = _mix(base, QColor("#ffffff"), 0.62 if in_volume else 0.8)
        painter.setPen(QPen(base.darker(135), 0.6))
        painter.setBrush(QBrush(light))
        painter.drawRect(box)
        badge_w = COMPACT_W if not path else 15.0
        badge = QRectF(box.left(), box.top(), badge_w, box.height())
        if in_volume:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(base))
            painter.drawRect(badge)
            text_colour = "#ffffff" if _luma(base) < 150 else INK
            ts.draw_text(painter, str(look.set_index + 1), "tiny-bold", badge.center().x(), badge.top() + 8.3,
                         text_colour, "c")
        if look.arbiter:
            hatch(painter, box.adjusted(badge_w, 0, 0, 0) if path else box, base.darker(150), 3.0, 0.6)
        if path:
            right = box.right() - 3
            if look.position is not None:
                pos = f"#{look.position}"
                ts.draw_text(painter, pos, "tiny", right, box.top() + 8.3, INK, "r")
                right -= ts.advance(pos, "tiny") + 4
            if size:
                ts.draw_text(painter, size, "tiny", right, box.top() + 8.3, MUTED, "r")
                right -= ts.advance(size, "tiny") + 4
            label = path + (" (arbiter)" if look.arbiter else "")
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
            elif kind == "arbiter":
                painter.setPen(QPen(QColor("#6b7785"), 0.6))
                painter.setBrush(QBrush(QColor("#ffffff")))
                painter.drawRect(box)
                hatch(painter, box, QColor("#37474f"), 3.0, 0.6)
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


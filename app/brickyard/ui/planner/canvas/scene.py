"""The canvas scene: mirrors the session's model change by change, colours by the plan.

A ``Change`` batch touches only the items it names (a new node gets a card, a renamed
brick its chip); positions are then recomputed, which moves items but creates none. A new
``PlanResult`` recolours chips whose look changed. Nothing here is rebuilt per edit.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsScene

from ....core.brick_looks import VolumeLooks, volume_looks
from ....core.events import Change
from ....core.mounts import describe_mount
from ....core.plan import PlanResult
from ....core.topology import BrickRef
from ...frame.session import Session
from .items import (CARD_W, CLIENT_W, SITE_PAD, SITE_TITLE_H, BrickItem, ClientItem, NodeItem,
                    SiteItem, VolumeItem)

NODE_GAP = 14.0
SITE_GAP = 40.0
ROW_WIDTH = 1300.0  # sites wrap into a new row past this, so a fitted canvas is not a thin strip
_NODE_KINDS = {"node-added", "node-removed", "node-renamed", "node-moved", "node-changed"}
_BRICK_KINDS = {"brick-added", "brick-removed", "brick-renamed", "brick-changed"}
# changes after which every chip keeps its look unless the plan says otherwise
_LOOK_NEUTRAL = {"brick-changed", "node-changed", "site-changed", "client-added", "client-removed",
                 "client-changed", "client-renamed", "latency-changed", "volume-changed", "mount-added",
                 "mount-removed", "mount-changed"}
# changes after which a client card's mount lines may read differently
_MOUNT_KINDS = {"mount-added", "mount-removed", "mount-changed", "volume-changed", "volume-added",
                "volume-removed"}


class TopologyScene(QGraphicsScene):
    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.sites: dict[str, SiteItem] = {}
        self.nodes: dict[str, NodeItem] = {}
        self.clients: dict[str, ClientItem] = {}
        self.volume_item: VolumeItem | None = None
        self.compact = False  # the view's level of detail; new cards follow it
        self._generation = 0  # counts item changes, so apply_plan knows when chips are new
        self._plan_key: tuple | None = None
        session.sig_model_changed.connect(self.on_changes)
        session.sig_plan_checked.connect(self.apply_plan)   # drawn before the panels settle
        session.sig_topology_replaced.connect(self.rebuild)
        self.rebuild()
        self.apply_plan(session.plan)

    # ---- mirroring the model --------------------------------------------------------
    def rebuild(self) -> None:
        """Every item from scratch: only when a different topology is loaded."""
        self.clear()
        self._generation += 1
        self.sites, self.nodes, self.clients = {}, {}, {}
        self.volume_item = VolumeItem()
        self.addItem(self.volume_item)
        topo = self.session.topo
        for site in topo.sites:
            self._add_site(site.name)
        for node in topo.nodes:
            self._add_node(node.name)
        for client in topo.clients:
            self._add_client(client.name)
        self.relayout()

    def _add_site(self, name: str) -> None:
        item = SiteItem(self.session.topo.site(name))
        self.sites[name] = item
        self.addItem(item)

    def _add_node(self, name: str) -> None:
        item = NodeItem(self.session.topo.require_node(name))
        item.set_compact(self.compact)
        self.nodes[name] = item
        self.addItem(item)

    def _add_client(self, name: str) -> None:
        client = self.session.topo.client(name)
        if client is not None:
            item = ClientItem(client, self._mount_lines(name))
            self.clients[name] = item
            self.addItem(item)

    def _mount_lines(self, client: str) -> list[str]:
        return [describe_mount(volume, m.path, m.options, m.fstab) for volume, m in self.session.topo.mounts_of(client)]

    def _drop(self, table: dict, name: str) -> None:
        item = table.pop(name, None)
        if item is not None:
            self.removeItem(item)

    def on_changes(self, changes: list[Change]) -> None:
        if any(ch.kind not in _LOOK_NEUTRAL for ch in changes):
            self._generation += 1
        topo = self.session.topo
        for ch in changes:
            kind, name = ch.kind, ch.subject
            if kind == "site-added":
                self._add_site(name)
            elif kind == "site-removed":
                self._drop(self.sites, name)
            elif kind == "site-renamed":
                item = self.sites.pop(ch.detail["old"])
                item.name = name
                self.sites[name] = item
                item.update()
            elif kind == "site-changed" and name in self.sites:
                site = topo.site(name)
                self.sites[name].description = site.description if site else ""
            elif kind == "node-added":
                self._add_node(name)
            elif kind == "node-removed":
                self._drop(self.nodes, name)
            elif kind == "node-renamed":
                self.nodes[name] = self.nodes.pop(ch.detail["old"])
                self.nodes[name].sync(topo.require_node(name))
            elif kind in _NODE_KINDS and name in self.nodes and topo.node(name):
                self.nodes[name].sync(topo.require_node(name))
            elif kind in _BRICK_KINDS:
                node = BrickRef.parse(name).node
                if node in self.nodes and topo.node(node):
                    self.nodes[node].sync(topo.require_node(node))
            elif kind == "client-added":
                self._add_client(name)
            elif kind == "client-removed":
                self._drop(self.clients, name)
            elif kind == "client-renamed":
                item = self.clients.pop(ch.detail["old"])
                item.name = name
                self.clients[name] = item
                item.update()
        if any(ch.kind in _MOUNT_KINDS for ch in changes):
            for name, item in self.clients.items():
                item.set_mounts(self._mount_lines(name))
        self.relayout()

    # ---- positions ------------------------------------------------------------------
    def relayout(self) -> None:
        """Sites left to right; each site's nodes in a grid, then its clients. Nodes and
        clients without a known site go in a "(no site)" region after the named ones.

        Positions depend only on the topology and the items' sizes, never on what was laid
        out before, so a live update lands exactly where a fresh open of the file would."""
        topo = self.session.topo
        named = [s.name for s in topo.sites if s.name and s.name in self.sites]
        groups: dict[str, list[NodeItem]] = {name: [] for name in [*named, ""]}
        clients: dict[str, list[ClientItem]] = {name: [] for name in groups}
        for node in topo.nodes:
            item = self.nodes.get(node.name)
            if item is not None:
                groups[node.site if node.site in groups else ""].append(item)
        for client in topo.clients:
            item = self.clients.get(client.name)
            if item is not None:
                clients[client.site if client.site in groups else ""].append(item)
        order = list(named)
        if groups[""] or clients[""]:
            if "" not in self.sites:
                self.sites[""] = SiteItem(None)
                self.addItem(self.sites[""])
            order.append("")
        elif "" in self.sites:
            self._drop(self.sites, "")
        x = y = row_height = 0.0
        for name in order:
            width, height = self._measure(groups[name], clients[name])
            if x > 0 and x + width > ROW_WIDTH:
                x, y, row_height = 0.0, y + row_height + SITE_GAP, 0.0
            self._place_group(groups[name], clients[name], x, y)
            self.sites[name].set_rect(QRectF(x, y, width, height))
            x += width + SITE_GAP
            row_height = max(row_height, height)
        self._fit_scene_rect()

    def _fit_scene_rect(self) -> None:
        """The volume caption above the sites, and a scene rect around everything."""
        bounds = QRectF()
        for item in self.sites.values():
            bounds = bounds.united(item.rect)
        caption = self.volume_item
        if caption is not None and caption.lines:
            caption.set_width(max(bounds.width(), 600.0))
            caption.setPos(bounds.left(), bounds.top() - caption.height() - SITE_GAP / 2)
            bounds = bounds.united(caption.sceneBoundingRect())
        self.setSceneRect(bounds.adjusted(-40, -40, 40, 40))

    def _caption(self, plan: PlanResult | None) -> None:
        """What the caption says: the volume, its options (refused ones in red) and its mounts."""
        caption = self.volume_item
        volume = self.session.volume
        if caption is None:
            return
        before = caption.height()
        if volume is None or plan is None:
            caption.set_lines([], "")
            if before:
                self._fit_scene_rect()
            return
        title = (f"Volume {volume.name} · refused by gluster" if plan.refused
                 else f"Volume {volume.name} · {plan.gluster_type.value} · {len(plan.sets)} set(s)")
        said = [f.message for f in plan.findings if f.code == "volume-option"]
        refused = {k for k in volume.options if any(m.startswith(f"volume set {volume.name} {k} ") for m in said)}
        lines: list[tuple[str, bool]] = [(title, False)]
        if volume.options:
            lines.append(("options: " + ", ".join(f"{k}={v}" for k, v in volume.options.items()
                                                  if k not in refused), False))
            lines += [(f"refused: {k}={volume.options[k]}", True) for k in volume.options if k in refused]
        else:
            lines.append(("options: none set (gluster's defaults)", False))
        mounts = [f"{m.client}:{m.path}" + (" (fstab)" if m.fstab else "") for m in volume.mounts]
        lines.append(("mounted by " + (", ".join(mounts) if mounts else "no client yet (Edit ▸ Add mount…)"),
                      False))
        lines = [(text, bad) for text, bad in lines if text != "options: "]  # every option refused
        tooltip = "\n".join([title] + [f"{k} = {v}" for k, v in volume.options.items()]
                            + [f"mounted by {m}" for m in mounts])
        caption.set_lines(lines, tooltip)
        if caption.height() != before:
            self._fit_scene_rect()

    @staticmethod
    def _columns(nodes: list[NodeItem]) -> int:
        return max(1, min(len(nodes), math.ceil(math.sqrt(len(nodes) * 1.6))))

    def _measure(self, nodes: list[NodeItem], clients: list[ClientItem]) -> tuple[float, float]:
        return self._place_group(nodes, clients, 0.0, 0.0, move=False)

    def _place_group(self, nodes: list[NodeItem], clients: list[ClientItem], x0: float, y0: float,
                     move: bool = True) -> tuple[float, float]:
        """Put a site's nodes in a grid and its clients below; returns the site's size."""
        cols = self._columns(nodes)
        y = y0 + SITE_TITLE_H
        for row in range(0, len(nodes), cols):
            items = nodes[row:row + cols]
            if move:
                for i, item in enumerate(items):
                    slot = QPointF(x0 + SITE_PAD + i * (CARD_W + NODE_GAP), y)
                    item.slot = slot
                    if item.pos() != slot:
                        item.setPos(slot)
            y += max(i.height() for i in items) + NODE_GAP
        width = 2 * SITE_PAD + cols * CARD_W + (cols - 1) * NODE_GAP
        if not nodes:  # a site of clients only is as wide as its clients need
            width = max(width, 2 * SITE_PAD + min(len(clients), 2) * (CLIENT_W + NODE_GAP) - NODE_GAP)
        per_row = max(1, int((width - 2 * SITE_PAD + NODE_GAP) // (CLIENT_W + NODE_GAP)))
        for start in range(0, len(clients), per_row):
            row_items = clients[start:start + per_row]
            if move:
                for i, item in enumerate(row_items):
                    item.setPos(x0 + SITE_PAD + i * (CLIENT_W + NODE_GAP), y)
            y += max(item.height() for item in row_items) + NODE_GAP
        return width, max(y - y0 + SITE_PAD - NODE_GAP, SITE_TITLE_H + 60)

    def site_at(self, point: QPointF) -> str | None:
        """The site whose region holds ``point`` ('' for the no-site region), or None."""
        for name, item in self.sites.items():
            if item.rect.contains(point):
                return name
        return None

    # ---- the plan -------------------------------------------------------------------
    def apply_plan(self, plan: PlanResult | None) -> None:
        self._caption(plan)
        # what the colours depend on; an edit that changes none of it (a brick's size) skips the walk
        key = (self._generation, tuple(self.session.failures), None if plan is None else (
            tuple(plan.volume.bricks), tuple((s.index, s.bricks, s.arbiter) for s in plan.sets),
            plan.state.sets if plan.state else ()))
        if key == self._plan_key:
            return
        self._plan_key = key
        self.paint_looks(volume_looks(plan, self.session.failures))   # the report's drawing asks the same

    def paint_looks(self, looks: VolumeLooks) -> None:
        """Every chip, card and site as ``looks`` has them (items whose look is unchanged are not
        repainted)."""
        failed = looks.failed
        site_of = {n.name: n.site for n in self.session.topo.nodes}
        for name, item in self.nodes.items():
            site = site_of.get(name)
            node_failed = failed.node_failed(name, site)
            if item.failed != node_failed:
                item.failed = node_failed
                item.update()
            for chip in item.bricks:
                chip.set_look(looks.look(name, chip.path, site))
        for name, item in self.sites.items():
            if item.failed != failed.site_failed(name):
                item.failed = failed.site_failed(name)
                item.update()

    # ---- selection ------------------------------------------------------------------
    def selected_names(self) -> tuple[list[str], list[str], list[BrickRef], list[str]]:
        """(sites, nodes, bricks, clients) currently selected."""
        sites, nodes, bricks, clients = [], [], [], []
        for item in self.selectedItems():
            kind = getattr(item, "kind", "")
            if kind == "site" and item.name:
                sites.append(item.name)
            elif kind == "node":
                nodes.append(item.name)
            elif kind == "brick":
                bricks.append(item.ref)
            elif kind == "client":
                clients.append(item.name)
        return sites, nodes, bricks, clients

    def brick_item(self, ref: BrickRef) -> BrickItem | None:
        node = self.nodes.get(ref.node)
        return next((b for b in node.bricks if b.path == ref.path), None) if node else None

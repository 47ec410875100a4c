"""The canvas view: zoom, pan, drags and the canvas's keyboard actions.

``CanvasView(topology)`` is complete on its own (tests build it that way); the main window
passes its ``Session`` instead and puts the same actions in its menus. Dragging a node card
onto another site moves the node there; dragging a brick chip onto another chip gives it
that chip's place in the volume's brick order. Every edit goes through ``Session.push``.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence, QMouseEvent, QPainter, QPen, QWheelEvent
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QGraphicsView, QMenu, QWidget
from shiboken6 import isValid

from ....core import editing, edits
from ....core.topology import Brick, BrickRef, Node, Site, Topology
from ...frame.session import Session
from .items import BrickItem, NodeItem, SiteItem
from .scene import TopologyScene

DEFAULT_BRICK_BYTES = 10**12
COMPACT_BELOW = 0.3
# keys every widget has a meaning for: they act on the canvas only while it has the focus, so
# Ctrl+A in a table selects its rows and Del in a list deletes from that list
FOCUS_ACTIONS = ("delete", "select_all")


class CanvasView(QGraphicsView):
    sig_rename_requested = Signal()
    """The user asked to rename the selected item (F2): the inspector takes the focus."""
    sig_quick_fill_requested = Signal()
    """The user asked for the quick-fill dialog."""
    scene_class = TopologyScene   # a view that draws more (the Change tab's) brings its own scene

    def __init__(self, model: Topology | Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = model if isinstance(model, Session) else Session(model, self)
        self.board = self.scene_class(self.session, self)
        self.setScene(self.board)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        # a drawing smaller than the view (after Fit, or a few nodes) starts at its top, as a
        # page does, instead of floating in the middle with empty space above it
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        # only what the band fully encloses: a band inside a site must not select the site
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.ContainsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAcceptDrops(False)  # files dropped on the canvas go to the window
        self._pan_from: QPoint | None = None
        self._brick_press: tuple[BrickItem, QPoint] | None = None
        self._ghost: QGraphicsRectItem | None = None
        self._drop_target: BrickItem | None = None
        self.actions_by_name: dict[str, QAction] = {}
        self._live = True
        self._make_actions()

    # ---- actions --------------------------------------------------------------------
    def _make_actions(self) -> None:
        stack = self.session.stack
        undo = stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self._register("undo", undo)
        self._register("redo", redo)
        for name, text, keys, slot in (
            ("add_site", "Add &site", "S", self.add_site),
            ("add_node", "Add &node", "N", self.add_node),
            ("add_brick", "Add &brick to node", "B", self.add_brick),
            ("add_client", "Add c&lient…", "C", self.add_client),
            ("add_mount", "Add &mount…", "M", self.add_mount),
            ("quick_fill", "&Quick fill…", "Ctrl+Shift+N", self.sig_quick_fill_requested.emit),
            ("duplicate", "D&uplicate node", "Ctrl+D", self.duplicate),
            ("delete", "&Delete", QKeySequence.StandardKey.Delete, self.delete_selection),
            ("rename", "&Rename…", "F2", self.sig_rename_requested.emit),
            ("add_to_volume", "Add brick to &volume", "V", self.add_to_volume),
            ("remove_from_volume", "Take brick out of volume", "Shift+V", self.remove_from_volume),
            ("fail", "Toggle &failure", "F", self.toggle_failure),
            ("clear_failures", "&Clear all failures", "Shift+F", self.session.clear_failures),
            ("select_all", "Select &all", QKeySequence.StandardKey.SelectAll, self.select_all),
            ("fit", "&Fit to view", "0", self.fit),
            ("zoom_in", "Zoom &in", QKeySequence.StandardKey.ZoomIn, lambda: self.zoom(1.25)),
            ("zoom_out", "Zoom &out", QKeySequence.StandardKey.ZoomOut, lambda: self.zoom(0.8)),
        ):
            action = QAction(text, self)
            action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _=False, s=slot: s())
            self._register(name, action)
        self.actions_by_name["delete"].setShortcuts([QKeySequence.StandardKey.Delete, QKeySequence("Backspace")])
        for name in FOCUS_ACTIONS:
            self.actions_by_name[name].setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        # after the stack's own connections: the stack enables Undo, the canvas may veto it
        self._can = {"undo": stack.canUndo(), "redo": stack.canRedo()}
        stack.canUndoChanged.connect(self._can_undo_changed)
        stack.canRedoChanged.connect(self._can_redo_changed)
        # Duplicate node, Delete and Rename act on the selection: off while it has nothing for them
        self.board.selectionChanged.connect(self._selection_changed)
        self._selection_changed()

    def _selection_changed(self) -> None:
        if not isValid(self.board):
            return
        sites, nodes, bricks, clients = self.board.selected_names()
        self._can["duplicate"] = bool(nodes)
        self._can["delete"] = bool(sites or nodes or bricks or clients)
        self._can["rename"] = len(sites) + len(nodes) + len(bricks) + len(clients) == 1
        self._enable_actions()

    def _register(self, name: str, action: QAction) -> None:
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.actions_by_name[name] = action
        self.addAction(action)

    def _can_undo_changed(self, can: bool) -> None:
        self._can["undo"] = can
        self._enable_actions()

    def _can_redo_changed(self, can: bool) -> None:
        self._can["redo"] = can
        self._enable_actions()

    def _enable_actions(self) -> None:
        for name, action in self.actions_by_name.items():
            if isValid(action):          # a stack outliving the canvas still signals as it goes
                action.setEnabled(self._live and self._can.get(name, True))

    def set_in_front(self, front: bool) -> None:
        """The canvas's actions work only while it is in front (the main window's Planner
        tab): they sit in the window's menus too, and a menu makes a shortcut window-wide, so
        N on History added a node and Del deleted one behind the user's back. A canvas on
        its own is always in front."""
        self._live = front
        self._enable_actions()

    # ---- edits ----------------------------------------------------------------------
    def _target_site(self) -> str:
        topo = self.session.topo
        sites, nodes, bricks, _ = self.board.selected_names()
        if sites:
            return sites[0]
        for name in nodes + [b.node for b in bricks]:
            return topo.site_of(name)
        return topo.sites[0].name if topo.sites else ""

    def add_site(self) -> None:
        taken = {s.name for s in self.session.topo.sites}
        name = editing.unique_name(taken, f"site{len(taken) + 1}")
        if self.session.push(edits.AddSite(Site(name))):
            self._select(self.board.sites.get(name))

    def add_node(self) -> None:
        topo = self.session.topo
        name = editing.unique_name({n.name for n in topo.nodes}, f"node{len(topo.nodes) + 1}")
        if self.session.push(edits.AddNode(Node(name, site=self._target_site()))):
            self._select(self.board.nodes.get(name))

    def add_client(self) -> None:
        """Ask for a new client (``ClientDialog``) and select it on the canvas."""
        from ..editors import run_client_dialog

        name = run_client_dialog(self.session, parent=self)
        if name:
            self._select(self.board.clients.get(name))

    def add_mount(self) -> None:
        """Mount the current volume on the selected client (or ask which one)."""
        from ..editors import run_mount_dialog

        _, _, _, clients = self.board.selected_names()
        run_mount_dialog(self.session, self, volume=self.session.volume_name, client=clients[0] if clients else "")

    def edit_client(self, name: str) -> None:
        from ..editors import run_client_dialog

        run_client_dialog(self.session, name, self)

    def add_brick(self) -> None:
        """One more brick on each selected node (or the node of a selected brick), sized as
        that node's last brick, and put at the end of the current volume."""
        topo = self.session.topo
        _, nodes, bricks, _ = self.board.selected_names()
        targets = list(dict.fromkeys(nodes + [b.node for b in bricks]))
        if not targets:
            self.session.sig_edit_refused.emit("select a node to add a brick to (or press N for a new node)")
            return
        parts: list[edits.Edit] = []
        for name in targets:
            node = topo.require_node(name)
            paths = {b.path for b in node.bricks}
            i = len(node.bricks) + 1
            while f"/data/brick{i}" in paths:
                i += 1
            last = node.bricks[-1] if node.bricks else next((b for _, b in topo.all_bricks()), None)
            brick = Brick(f"/data/brick{i}", last.size_bytes if last else DEFAULT_BRICK_BYTES,
                          disk_kind=last.disk_kind if last else "")
            parts.append(edits.AddBrick(name, brick, volume=self.session.volume_name))
        self.session.push(edits.Compound(f"add {len(parts)} brick(s)", parts))

    def duplicate(self) -> None:
        _, nodes, _, _ = self.board.selected_names()
        parts: list[edits.Edit] = []
        for name in nodes:
            edit = editing.duplicate_node(self.session.topo, name)
            edit.node.name = editing.unique_name({n.name for n in self.session.topo.nodes}
                                               | {p.node.name for p in parts}, name)
            parts.append(edit)
        if parts:
            self.session.push(edits.Compound(f"duplicate {len(parts)} node(s)", parts))

    def delete_selection(self) -> None:
        sites, nodes, bricks, clients = self.board.selected_names()
        if sites or nodes or bricks or clients:
            self.session.push(editing.delete_items(self.session.topo, sites, nodes, bricks, clients))

    def add_to_volume(self) -> None:
        volume = self.session.volume
        _, _, bricks, _ = self.board.selected_names()
        new = [b for b in bricks if volume is not None and b not in volume.bricks]
        if volume is not None and new:
            self.session.push(edits.SetVolumeBricks(volume.name, volume.bricks + new, text="add bricks to volume"))

    def remove_from_volume(self) -> None:
        volume = self.session.volume
        _, _, bricks, _ = self.board.selected_names()
        if volume is not None and any(b in volume.bricks for b in bricks):
            kept = [b for b in volume.bricks if b not in bricks]
            self.session.push(edits.SetVolumeBricks(volume.name, kept, text="take bricks out of volume"))

    def toggle_failure(self) -> None:
        sites, nodes, bricks, _ = self.board.selected_names()
        specs = [f"site:{s}" for s in sites] + nodes + [f"brick:{b}" for b in bricks]
        if specs:
            self.session.toggle_failures(specs)

    def select_all(self) -> None:
        for item in self.board.nodes.values():
            item.setSelected(True)

    def _select(self, item) -> None:
        if item is not None:
            self.board.clearSelection()
            item.setSelected(True)
            self.ensureVisible(item)

    # ---- zoom and pan ---------------------------------------------------------------
    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.05 <= scale <= 8:
            self.scale(factor, factor)
            self._update_detail()

    def set_zoom(self, scale: float) -> None:
        """Show the scene at ``scale`` (1.0: one scene unit per pixel)."""
        self.resetTransform()
        self.scale(scale, scale)
        self._update_detail()

    def fit(self) -> None:
        self.fitInView(self.board.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        self._update_detail()

    def _update_detail(self) -> None:
        """Below this scale chip text is unreadable anyway: cards draw their chips as bars."""
        compact = self.transform().m11() < COMPACT_BELOW
        for node in self.board.nodes.values():
            node.set_compact(compact)
        self.board.compact = compact

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(1.15 ** steps)
        event.accept()

    # ---- mouse: pan, brick drags, node drops, failure clicks ------------------------
    def _item_at(self, pos: QPoint):
        for item in self.items(pos):
            if isinstance(item, (BrickItem, NodeItem)) or getattr(item, "kind", "") in ("site", "client"):
                return item
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            return
        item = self._item_at(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and event.modifiers() & Qt.KeyboardModifier.AltModifier and item:
            self._select(item)
            self.toggle_failure()
            return
        if event.button() == Qt.MouseButton.LeftButton and isinstance(item, SiteItem) and item.name \
                and item.in_title(self.mapToScene(event.position().toPoint())):
            if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                item.setSelected(not item.isSelected())
            else:
                self._select(item)
            return
        if event.button() == Qt.MouseButton.LeftButton and isinstance(item, BrickItem):
            if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                item.setSelected(not item.isSelected())
            elif not item.isSelected():
                self.board.clearSelection()
                item.setSelected(True)
            self._brick_press = (item, event.position().toPoint())
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if self._pan_from is not None:
            delta = pos - self._pan_from
            self._pan_from = pos
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            return
        if self._brick_press is not None:
            chip, start = self._brick_press
            if self._ghost is None and (pos - start).manhattanLength() >= QApplication.startDragDistance():
                self._ghost = self.board.addRect(chip.boundingRect(), QPen(QColor("#1e88e5"), 2), QColor(30, 136, 229, 60))
                self._ghost.setZValue(100)
            if self._ghost is not None:
                self._ghost.setPos(self.mapToScene(pos) - QPointF(20, 10))
                target = self._item_at(pos)
                target = target if isinstance(target, BrickItem) and target is not chip else None
                if target is not self._drop_target:
                    for item in (self._drop_target, target):
                        if item is not None:
                            item.drop_hint = item is target
                            item.update()
                self._drop_target = target
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None and event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = None
            self.viewport().unsetCursor()
            return
        if self._brick_press is not None:
            chip, _ = self._brick_press
            target, ghost = self._drop_target, self._ghost
            self._brick_press, self._ghost, self._drop_target = None, None, None
            if target is not None:
                target.drop_hint = False
                target.update()
            if ghost is not None:
                self.board.removeItem(ghost)
            if target is not None and self.session.volume is not None:
                self.session.push(editing.move_brick_in_volume(self.session.topo, self.session.volume_name,
                                                              chip.ref, target.ref))
            return
        super().mouseReleaseEvent(event)
        self._drop_moved_nodes()

    def _drop_moved_nodes(self) -> None:
        """Nodes dragged away from their slot: into the site under their centre, or back."""
        moved = [n for n in self.board.nodes.values() if n.slot is not None and n.pos() != n.slot]
        if not moved:
            return
        parts: list[edits.Edit] = []
        for item in moved:
            site = self.board.site_at(item.sceneBoundingRect().center())
            if site is not None and site != self.session.topo.site_of(item.name):
                parts.append(edits.MoveNode(item.name, site))
        if not (parts and self.session.push(edits.Compound(f"move {len(parts)} node(s)", parts))):
            self.board.relayout()  # snap back

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self._item_at(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and getattr(item, "kind", "") == "client":
            self._select(item)
            self.edit_client(item.name)
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event) -> None:
        item = self._item_at(event.pos())
        if item is not None and not item.isSelected():
            self._select(item)
        menu = QMenu(self)
        for name in ("add_node", "add_brick", "add_site", "quick_fill", None, "add_client", "add_mount", None,
                     "add_to_volume", "remove_from_volume",
                     None, "fail", "clear_failures", None, "duplicate", "rename", "delete"):
            menu.addSeparator() if name is None else menu.addAction(self.actions_by_name[name])
        menu.exec(event.globalPos())

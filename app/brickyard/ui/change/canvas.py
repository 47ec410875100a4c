"""The Change tab's canvas: the planner's canvas over the same session, drawing a
``ChangeScene``, with the edits an admin makes to a live volume's drawing.

Besides the planner's own (add a brick: B, add it to the volume: V, delete, undo, zoom):

- Add server like… (Shift+N): a new server like the selected one of the volume (or the
  volume's last), its bricks joining the volume; a selected server outside the volume joins
  it with bricks like the volume's last server's;
- Retire (R): the selected bricks' sets, or every set with a brick on the selected servers,
  leave the volume;
- Replace with… (Shift+R): with one brick selected, click the brick or the server that takes
  its place (Esc stops);
- Add a copy (+) / Add arbiters (A): one more brick in every set, made on the selected
  servers (or taken from free drawn bricks);
- Draw as it is live: the volume as gluster has it (undoable, like everything here).

Every edit goes through ``Session.push`` (one undo stack with the planner); a refusal is one
sentence on ``session.sig_edit_refused``. The keys act while the canvas has the focus.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QMenu

from ...core import changeedits as ce
from ...core.edits import Edit
from ...core.topology import BrickRef, TopologyError
from ..planner.canvas.items import BrickItem, NodeItem
from ..planner.canvas.view import CanvasView
from .scene import ChangeScene

CHANGE_ACTIONS = (    # name, menu text, keys, what it does; SHORT: the toolbar's word
    ("add_server", "Add &server like…", "Shift+N",
     "A new server drawn like the selected server of the volume (or its last), its bricks joining the volume; "
     "with a server outside the volume selected, that server joins with bricks like the volume's last server's"),
    ("retire", "&Retire", "R", "Take the selected bricks' sets (or every set on the selected servers) out of the "
                               "volume; their files move to the sets that stay first"),
    ("replace", "Re&place with…", "Shift+R", "With one brick selected: click the brick or the server that takes its "
                                             "place (self-heal fills it; on plain distribute its files migrate)"),
    ("add_replica", "Add a &copy to every set", "+", "One more brick in every set (replica N → N+1), made on the "
                                                     "selected servers or taken from free drawn bricks"),
    ("add_arbiters", "Add &arbiters", "A", "replica 2 → replica 3 arbiter 1: one arbiter brick (metadata only) per "
                                           "set, on the selected servers"),
    ("match_live", "Draw as it is &live", "", "Undo every change to this volume's drawing: its bricks and layout as "
                                              "gluster has them now"),
)
SHORT = {"add_server": "+ Server", "retire": "Retire", "replace": "Replace…", "add_replica": "+ Copy",
         "add_arbiters": "+ Arbiters", "match_live": "As live", "undo": "Undo", "redo": "Redo", "fit": "Fit"}


class ChangeCanvas(CanvasView):
    sig_status = Signal(str)
    """One line for the status bar (pick mode, refusals)."""

    scene_class = ChangeScene

    def __init__(self, session, parent=None):
        self.volume_name: Callable[[], str] = lambda: self.session.volume_name
        self.live_volume: Callable[[], object] = lambda: None
        self.replacing: BrickRef | None = None
        self.editable = False              # a live volume is read and no change runs
        super().__init__(session, parent)
        self._enable_actions()
        self.session.sig_edit_refused.connect(self._refused)

    # ---- actions --------------------------------------------------------------------
    def _make_actions(self) -> None:
        super()._make_actions()
        for name, text, keys, tip in CHANGE_ACTIONS:
            action = QAction(text, self)
            if keys:
                action.setShortcut(QKeySequence(keys))
            action.setToolTip(f"{tip} ({keys})" if keys else tip)
            action.triggered.connect(lambda _=False, n=name: getattr(self, n)())
            self._register(name, action)
        for name, word in SHORT.items():
            self.actions_by_name[name].setIconText(word)
        self.actions_by_name["add_replica"].setShortcuts([QKeySequence("+"), QKeySequence("Shift++")])

    def _enable_actions(self) -> None:
        super()._enable_actions()
        for name, *_ in CHANGE_ACTIONS:
            action = self.actions_by_name.get(name)
            if action is not None and self.editable is False:
                action.setEnabled(False)

    def set_editable(self, editable: bool) -> None:
        """The change edits need a live volume read, and none while a change runs."""
        self.editable = editable
        self._enable_actions()

    def _register(self, name: str, action: QAction) -> None:
        # the planner's canvas has the same keys window-wide: these act only while this canvas has the focus
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.actions_by_name[name] = action
        self.addAction(action)

    def _push(self, build: Callable[[], Edit | None]) -> bool:
        try:
            edit = build()
        except TopologyError as exc:
            self._refused(str(exc))
            return False
        if edit is None:
            self.sig_status.emit("The drawing matches the live volume already")
            return False
        return self.session.push(edit)

    def _refused(self, text: str) -> None:
        if self.isVisible():
            self.sig_status.emit(text)

    # ---- the change edits -------------------------------------------------------------
    def add_server(self) -> bool:
        """A selected server of the volume: a new server like it. A selected server outside the
        volume: it joins with bricks like the volume's last server's. Nothing selected: a new
        server like the volume's last."""
        _, nodes, bricks, _ = self.board.selected_names()
        chosen = next(iter(nodes + [b.node for b in bricks]), "")
        volume = self.volume_name()
        if not volume or self.session.topo.volume(volume) is None:
            self.sig_status.emit("Pick a volume of the drawing first")
            return False
        inside = chosen and any(b.node == chosen for b in self.session.topo.require_volume(volume).bricks)
        like, onto = (chosen, "") if inside else ("", chosen)
        whole = self.shows_whole()
        done = self._push(lambda: ce.add_server(self.session.topo, volume, like=like, onto=onto))
        if done:
            if whole and not self.shows_whole():
                self.fit_again()
            self._select(self.board.nodes.get(onto or self.session.topo.nodes[-1].name))
        return done

    def shows_whole(self) -> bool:
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        return shown.contains(self.board.sceneRect().adjusted(40, 40, -40, -40))  # the scene keeps 40 around

    def fit_again(self) -> None:
        """A server added to a drawing shown whole can make it wider than the view: zoom out to
        show it whole again (never in), rather than scroll the volume's first servers away (a
        drawing zoomed into stays as it is)."""
        zoom = self.transform().m11()
        self.fit()
        if self.transform().m11() > zoom:
            self.set_zoom(zoom)

    def retire(self) -> bool:
        _, nodes, bricks, _ = self.board.selected_names()
        if not nodes and not bricks:
            self.sig_status.emit("Select the bricks or servers to retire first")
            return False
        return self._push(lambda: ce.retire(self.session.topo, self.volume_name(), bricks=bricks, servers=nodes))

    def replace(self) -> bool:
        """Start picking the replacement of the one selected brick."""
        _, _, bricks, _ = self.board.selected_names()
        volume = self.session.topo.volume(self.volume_name())
        if len(bricks) != 1 or volume is None or bricks[0] not in volume.bricks:
            self.sig_status.emit("Select the one brick of the volume to replace first")
            return False
        self.replacing = bricks[0]
        self.viewport().setCursor(Qt.CursorShape.CrossCursor)
        self.sig_status.emit(f"Click the brick or the server that takes the place of {bricks[0]} (Esc: stop)")
        return True

    def replace_with(self, new: BrickRef | None = None, server: str = "") -> bool:
        old, self.replacing = self.replacing, None
        self.viewport().unsetCursor()
        if old is None:
            return False
        return self._push(lambda: ce.replace_brick(self.session.topo, self.volume_name(), old, new, server))

    def stop_replacing(self) -> None:
        if self.replacing is not None:
            self.replacing = None
            self.viewport().unsetCursor()
            self.sig_status.emit("Replace stopped: nothing changed")

    def add_replica(self) -> bool:
        return self._raise(arbiter=False)

    def add_arbiters(self) -> bool:
        return self._raise(arbiter=True)

    def _raise(self, arbiter: bool) -> bool:
        _, nodes, bricks, _ = self.board.selected_names()
        volume = self.volume_name()
        servers = list(dict.fromkeys(nodes))
        return self._push(lambda: ce.raise_redundancy(self.session.topo, volume, arbiter=arbiter, servers=servers))

    def match_live(self) -> bool:
        live = self.live_volume()
        if live is None:
            self.sig_status.emit("Read the live volume first")
            return False
        return self._push(lambda: ce.match_live(self.session.topo, self.volume_name(), live))

    # ---- mouse and keys ------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.replacing is not None and event.button() == Qt.MouseButton.LeftButton:
            item = self._item_at(event.position().toPoint())
            if isinstance(item, BrickItem):
                if item.ref == self.replacing:
                    self.stop_replacing()
                else:
                    self.replace_with(new=item.ref)
            elif isinstance(item, NodeItem):
                self.replace_with(server=item.name)
            else:
                self.stop_replacing()
            event.accept()
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.replacing is not None:
            self.stop_replacing()
            event.accept()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event) -> None:
        item = self._item_at(event.pos())
        if item is not None and not item.isSelected():
            self._select(item)
        menu = QMenu(self)
        a = self.actions_by_name
        if isinstance(item, BrickItem):
            volume = self.session.topo.volume(self.volume_name())
            if volume is not None and item.ref in volume.bricks:
                menu.addAction(a["retire"])
                self._replace_menu(menu, item.ref)
        for name in ("add_server", None, "add_replica", "add_arbiters", None, "add_brick", "add_to_volume", None,
                     "match_live", "undo", "redo"):
            menu.addSeparator() if name is None else menu.addAction(a[name])
        if isinstance(item, NodeItem):
            menu.insertAction(menu.actions()[0], a["retire"])
        menu.exec(event.globalPos())

    def _replace_menu(self, menu: QMenu, old: BrickRef) -> None:
        sub = menu.addMenu(f"Replace {old} with")
        free, servers = ce.replacement_candidates(self.session.topo, self.volume_name(), old)
        for ref in free[:20]:
            sub.addAction(str(ref)).triggered.connect(lambda _=False, r=ref: self._replace_now(old, new=r))
        if free and servers:
            sub.addSeparator()
        for name in servers[:20]:
            sub.addAction(f"a new brick on {name}").triggered.connect(
                lambda _=False, n=name: self._replace_now(old, server=n))
        sub.setEnabled(bool(free or servers))

    def _replace_now(self, old: BrickRef, new: BrickRef | None = None, server: str = "") -> bool:
        self.replacing = old
        return self.replace_with(new, server)

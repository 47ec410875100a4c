"""Clients and their mounts as a tree: add, edit and delete them (every change undoable).

Each client row shows its site and address; under it, one row per mount, worded by
``core.mounts.describe_mount`` ("gv0 at /mnt/gv0 (noatime) · fstab"). Double-click or Enter edits the row, Delete removes it. The buttons open
the same ``ClientDialog`` and ``MountDialog`` the canvas and the Run view use.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
                               QWidget)

from ....core import edits
from ....core.mounts import describe_mount
from ...frame.session import Session
from .client_dialog import ClientDialog
from .mount_dialog import MountDialog

CLIENT_ROLE = Qt.ItemDataRole.UserRole
MOUNT_ROLE = Qt.ItemDataRole.UserRole + 1


class KeyClaim(QObject):
    """Keys a list widget handles itself while it has the focus, ahead of the window's
    shortcuts (the canvas's Delete would otherwise delete the canvas selection, or the two
    would cancel out as an ambiguous shortcut)."""

    def __init__(self, widget: QWidget, keys: dict):
        super().__init__(widget)
        self.keys = keys
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) \
                and event.modifiers() == Qt.KeyboardModifier.NoModifier and event.key() in self.keys:
            event.accept()
            if event.type() == QEvent.Type.KeyPress:
                self.keys[event.key()]()
            return True
        return False


def run_client_dialog(session: Session, name: str | None = None, parent: QWidget | None = None) -> str | None:
    """Add (``name`` None) or edit a client through the dialog; the client's name if done."""
    dialog = ClientDialog(session, name, parent)
    if not dialog.exec():
        return None
    edit = dialog.edit()
    client = dialog.client()
    if edit is not None and not session.push(edit):
        return None
    return client.name if client else None


def run_mount_dialog(session: Session, parent: QWidget | None = None, volume: str = "", client: str = "",
                     existing: tuple[str, str, str] | None = None) -> tuple[str, str, str] | None:
    """Add or edit a mount through the dialog; (volume, client, path) of the mount if done."""
    if not session.topo.volumes:
        session.sig_edit_refused.emit("add a volume first (Layout panel, New volume), then mount it")
        return None
    dialog = MountDialog(session, volume=volume, client=client, existing=existing, parent=parent)
    if not dialog.exec():
        return None
    chosen = dialog.mount()
    edit = dialog.edit()
    if chosen is None or (edit is not None and not session.push(edit)):
        return None
    return chosen[0], chosen[1].client, chosen[1].path


class ClientsPanel(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.tree = QTreeWidget()
        self.tree.setObjectName("clients.tree")
        self.tree.setHeaderLabels(["Client / mount", "Site", "SSH address"])
        self.tree.setRootIsDecorated(True)
        self.empty = QLabel("No clients yet. A client mounts a volume; provisioning mounts it there, and the "
                            "benchmarks run on it.")
        self.empty.setWordWrap(True)
        self.add_client = QPushButton("Add client…")
        self.add_mount = QPushButton("Add mount…")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Delete")
        row = QHBoxLayout()
        for button in (self.add_client, self.add_mount, self.edit_button, self.remove_button):
            row.addWidget(button)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.addWidget(self.empty)
        box.addWidget(self.tree, 1)
        box.addLayout(row)
        self.add_client.clicked.connect(lambda: run_client_dialog(self.session, parent=self))
        self.add_mount.clicked.connect(self._add_mount)
        self.edit_button.clicked.connect(self.edit_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.tree.itemDoubleClicked.connect(lambda *_: self.edit_selected())
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self._keys = KeyClaim(self.tree, {Qt.Key.Key_Delete: self.remove_selected,
                                          Qt.Key.Key_Backspace: self.remove_selected,
                                          Qt.Key.Key_Return: self.edit_selected, Qt.Key.Key_Enter: self.edit_selected})
        session.sig_model_changed.connect(lambda _changes: self.refresh())
        session.sig_topology_replaced.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        chosen = self.selected()
        self.tree.clear()
        topo = self.session.topo
        for client in topo.clients:
            top = QTreeWidgetItem([client.name, client.site or "(no site)", client.address or client.name])
            top.setData(0, CLIENT_ROLE, client.name)
            for volume, mount in topo.mounts_of(client.name):
                child = QTreeWidgetItem([describe_mount(volume, mount.path, mount.options, mount.fstab)])
                child.setData(0, MOUNT_ROLE, (volume, mount.client, mount.path))
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setExpanded(True)
            if chosen in ((client.name, None), *[(client.name, (v, m.client, m.path))
                                                  for v, m in topo.mounts_of(client.name)]):
                self._select(chosen)
        for col in range(3):
            self.tree.resizeColumnToContents(col)
        self.empty.setVisible(not topo.clients)
        self.add_mount.setEnabled(bool(topo.volumes))
        self._selection_changed()

    def selected(self) -> tuple[str, tuple[str, str, str] | None] | None:
        """(client, None) for a client row, (client, (volume, client, path)) for a mount row."""
        items = self.tree.selectedItems()
        if not items:
            return None
        item = items[0]
        mount = item.data(0, MOUNT_ROLE)
        if mount:
            return mount[1], tuple(mount)
        return item.data(0, CLIENT_ROLE), None

    def _select(self, chosen) -> None:
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for item in [top] + [top.child(j) for j in range(top.childCount())]:
                mount = item.data(0, MOUNT_ROLE)
                key = (mount[1], tuple(mount)) if mount else (item.data(0, CLIENT_ROLE), None)
                if key == chosen:
                    self.tree.setCurrentItem(item)
                    return

    def _selection_changed(self) -> None:
        chosen = self.selected()
        self.edit_button.setEnabled(chosen is not None)
        self.remove_button.setEnabled(chosen is not None)

    def _add_mount(self) -> None:
        chosen = self.selected()
        done = run_mount_dialog(self.session, self, client=chosen[0] if chosen else "")
        if done:
            self._select((done[1], done))

    def edit_selected(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        client, mount = chosen
        if mount is None:
            name = run_client_dialog(self.session, client, self)
            if name:
                self._select((name, None))
        else:
            done = run_mount_dialog(self.session, self, existing=mount)
            if done:
                self._select((done[1], done))

    def remove_selected(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        client, mount = chosen
        self.session.push(edits.RemoveClient(client) if mount is None else edits.RemoveMount(*mount))

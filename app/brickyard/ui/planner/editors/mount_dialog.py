"""Add or edit a client's mount of a volume: volume, client, mount point, options, fstab.

``MountDialog(session, volume="gv0")`` adds a mount (``client=`` preselects the client);
``MountDialog(session, existing=("gv0", "web1", "/mnt/gv0"))`` edits one. "New client…"
opens ``ClientDialog``; the new client and the mount then form one undoable step. The
dialog shows the exact mount command and fstab line provisioning will use (built by
``remote.provision``, the one place that builds them) and checks the options the way
``mount.glusterfs`` does (``core.mounts``).
"""

from __future__ import annotations

import shlex

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QCompleter, QDialog, QFormLayout, QPushButton, QWidget

from ....core import edits
from ....core.mounts import fstab_line, mount_argv, mount_options_problem, mount_point_problem, option_words
from ....core.topology import Client, Mount
from ...frame.session import Session
from ...widgets.make import form, hbox, ok_cancel, wrapped_label
from ..panels.fields import ValidatedField, checked_by
from .client_dialog import ClientDialog


class MountDialog(QDialog):
    def __init__(self, session: Session, volume: str = "", client: str = "",
                 existing: tuple[str, str, str] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        topo = session.topo
        self.existing = existing
        self.new_clients: list[Client] = []  # added with "New client…", pushed with the mount
        mount = None
        if existing is not None:
            vol, cl, path = existing
            mount = next((m for m in topo.require_volume(vol).mounts if m.client == cl and m.path == path), None)
            volume, client = vol, cl
        volume = volume or session.volume_name or (topo.volumes[0].name if topo.volumes else "")
        self.setWindowTitle("Edit mount" if mount else "Add mount")
        self.volume = QComboBox()
        self.volume.setObjectName("mount.volume")
        self.volume.addItems([v.name for v in topo.volumes])
        self.volume.setCurrentText(volume)
        self.client = QComboBox()
        self.client.setObjectName("mount.client")
        self.client.addItems([c.name for c in topo.clients])
        if client:
            self.client.setCurrentText(client)
        self.new_client = QPushButton("New client…")
        self.path = ValidatedField(checked_by(mount_point_problem))
        self.path.edit.setObjectName("mount.path")
        self.path.set_value(mount.path if mount else f"/mnt/{volume}" if volume else "/mnt/gluster")
        self.options = ValidatedField(checked_by(mount_options_problem))
        self.options.edit.setObjectName("mount.options")
        self.options.set_value(mount.options if mount else "")
        self.options.edit.setPlaceholderText("e.g. noatime,log-level=WARNING (optional)")
        completer = QCompleter(option_words(), self.options.edit)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.options.edit.setCompleter(completer)
        self.fstab = QCheckBox("also add an /etc/fstab line on the client (teardown removes it)")
        self.fstab.setObjectName("mount.fstab")
        self.fstab.setChecked(bool(mount and mount.fstab))
        self.preview = wrapped_label("", "mount.preview", selectable=True,
                                     style="font-family: 'DejaVu Sans Mono'; font-size: 8pt;")
        self.buttons = ok_cancel(self, self._accept)
        form(("Volume", self.volume), ("Client", hbox((self.client, 1), self.new_client)), ("Mount point", self.path),
             ("Options", self.options), ("", self.fstab), ("Will run", self.preview), self.buttons,
             layout=QFormLayout(self))
        self.new_client.clicked.connect(self.add_new_client)
        self.volume.currentTextChanged.connect(self._volume_changed)
        for signal in (self.volume.currentTextChanged, self.client.currentTextChanged, self.path.edit.textChanged,
                       self.options.edit.textChanged, self.fstab.toggled):
            signal.connect(self._show_preview)
        self._show_preview()
        self.setMinimumWidth(560)

    # ---- choices --------------------------------------------------------------------
    def add_new_client(self) -> bool:
        """Ask for a new client (pushed together with the mount); True if one was added."""
        dialog = ClientDialog(self.session, parent=self, taken={c.name for c in self.new_clients})
        if not dialog.exec():
            return False
        client = dialog.client()
        if client is None:
            return False
        self.new_clients.append(client)
        self.client.addItem(client.name)
        self.client.setCurrentText(client.name)
        return True

    def _volume_changed(self, name: str) -> None:
        # follow the volume in the suggested mount point while the user has not typed their own
        if self.existing is None and self.path.edit.text().startswith("/mnt/"):
            self.path.edit.setText(f"/mnt/{name}")

    def _show_preview(self, *_: object) -> None:
        volume = self.session.topo.volume(self.volume.currentText())
        path = self.path.edit.text().strip() or "MOUNTPOINT"
        extra = self.options.edit.text().strip()
        if volume is None or not volume.bricks:
            self.preview.setText("(the volume has no bricks yet: the mount source is its first server)")
            return
        lines = [shlex.join(mount_argv(volume, path, extra))]
        if self.fstab.isChecked():
            lines.append(f"/etc/fstab: {fstab_line(volume, path, extra)}")
        self.preview.setText("\n".join(lines))

    # ---- result ---------------------------------------------------------------------
    def mount(self) -> tuple[str, Mount] | None:
        """(volume, mount) from the fields, or None with the bad fields marked."""
        path, options = self.path.current(), self.options.current()
        volume, client = self.volume.currentText(), self.client.currentText()
        if path is None or options is None:
            return None
        if not volume:
            self.path.set_problem("add a volume first (Layout panel, New volume)")
            return None
        if not client:
            self.path.set_problem("add a client first (New client…)")
            return None
        for vol, other in self.session.topo.mounts_of(client):
            if other.path == path and (vol, other.client, other.path) != self.existing:
                self.path.set_problem(f"{client} mounts {vol} at {path} already")
                return None
        return volume, Mount(client, path, options, self.fstab.isChecked())

    def edit(self) -> edits.Edit | None:
        """The undoable change (new clients, then the mount), or None."""
        chosen = self.mount()
        if chosen is None:
            return None
        volume, mount = chosen
        parts: list[edits.Edit] = [edits.AddClient(c) for c in self.new_clients if c.name == mount.client]
        if self.existing is None:
            parts.append(edits.AddMount(volume, mount))
        else:
            old_volume, old_client, old_path = self.existing
            if old_volume != volume:
                parts += [edits.RemoveMount(old_volume, old_client, old_path), edits.AddMount(volume, mount)]
            else:
                current = next(m for m in self.session.topo.require_volume(volume).mounts
                               if m.client == old_client and m.path == old_path)
                changed = {k: getattr(mount, k) for k in ("client", "path", "options", "fstab")
                           if getattr(mount, k) != getattr(current, k)}
                if changed:
                    parts.append(edits.UpdateMount(volume, old_client, old_path, changed))
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        return edits.Compound(f"mount {volume} on {mount.client}:{mount.path}", parts)

    def _accept(self) -> None:
        if self.mount() is not None:
            self.accept()

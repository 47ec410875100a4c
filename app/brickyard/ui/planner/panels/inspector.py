"""The inspector: edit the selected site, node, brick or client with validated fields.

Each field parses its text (sizes through ``core.units``: "14 TB", "12.7 TiB", "500G");
bad input stays in the field, framed red with the reason, and nothing is pushed. Good
input becomes one undoable edit; if the model refuses it (a duplicate name) the field
is marked with the model's reason.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from ....core import edits
from ....core.mounts import describe_mount
from ....core.topology import BrickRef
from ....core.units import describe_size
from ...frame.session import Session
from ..editors.clients_panel import run_mount_dialog
from .fields import (ValidatedField, parse_address, parse_gbps, parse_host_name, parse_name, parse_path, parse_port,
                     parse_rate, parse_size_field, parse_text, parse_user, show_rate, show_size)

Selection = tuple[str, str | BrickRef] | None  # ("site"|"node"|"brick"|"client", name or ref)


class Inspector(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.selection: Selection = None
        self.title = QLabel("Nothing selected")
        self.title.setStyleSheet("font-weight: bold;")
        self.pages = QStackedWidget()
        hint = QLabel("Select a site, node, brick or client on the canvas to edit it.\n\n"
                      "N node · B brick · S site · C client · M mount · Del delete · Ctrl+D duplicate · F2 rename · "
                      "F fail/restore · Shift+F clear failures · V / Shift+V brick in/out of volume · "
                      "drag a chip onto another to reorder · 0 fit · wheel zoom · middle-drag pan")
        hint.setWordWrap(True)
        self.pages.addWidget(hint)
        self.fields: dict[str, dict[str, ValidatedField]] = {}
        self.site_combos: dict[str, QComboBox] = {}
        self._page("site", [("name", "Name", parse_name, str), ("description", "Description", parse_text, str)])
        self._page("node", [("name", "Host name", parse_host_name, str),
                            ("address", "SSH address", parse_address, str),
                            ("ssh_user", "SSH user", parse_user, str), ("ssh_port", "SSH port", parse_port, str),
                            ("nic_gbps", "NIC (Gbit/s)", parse_gbps, lambda v: f"{v:g}")], site=True)
        self._page("brick", [("path", "Path", parse_path, str), ("size_bytes", "Size", parse_size_field, show_size),
                             ("filesystem", "Filesystem", parse_text, str), ("mount", "Mount point", parse_text, str),
                             ("fs_type", "FS type", parse_text, str), ("disk_kind", "Disk kind", parse_text, str),
                             ("speed_bps", "Speed", parse_rate, show_rate)])
        self._page("client", [("name", "Name", parse_host_name, str),
                              ("address", "SSH address", parse_address, str),
                              ("ssh_user", "SSH user", parse_user, str),
                              ("ssh_port", "SSH port", parse_port, str),
                              ("nic_gbps", "NIC (Gbit/s)", parse_gbps, lambda v: f"{v:g}")], site=True)
        self.size_note = QLabel()
        self.fields["brick"]["size_bytes"].layout().addWidget(self.size_note)
        self.client_mounts = QLabel()
        self.client_mounts.setObjectName("client.mounts")
        self.client_mounts.setWordWrap(True)
        self.add_mount = QPushButton("Add mount…")
        self.add_mount.setObjectName("client.add_mount")
        self.add_mount.clicked.connect(self._add_mount)
        client_form = self.pages.widget(4).layout()
        client_form.addRow("Mounts", self.client_mounts)
        client_form.addRow("", self.add_mount)
        box = QVBoxLayout(self)
        box.addWidget(self.title)
        box.addWidget(self.pages)
        box.addStretch(1)
        session.sig_model_changed.connect(self._model_changed)
        session.sig_topology_replaced.connect(self.show_nothing)

    def _page(self, kind: str, specs: list[tuple[str, str, Callable, Callable]], site: bool = False) -> None:
        page = QWidget()
        form = QFormLayout(page)
        self.fields[kind] = {}
        for key, label, parse, show in specs:
            field = ValidatedField(parse, show)
            field.edit.setObjectName(f"{kind}.{key}")
            field.sig_value_entered.connect(lambda value, k=kind, f=key: self._commit(k, f, value))
            self.fields[kind][key] = field
            form.addRow(label, field)
        if site:
            combo = QComboBox()
            combo.setObjectName(f"{kind}.site")
            combo.activated.connect(lambda _i, k=kind: self._commit(k, "site", self.site_combos[k].currentData()))
            self.site_combos[kind] = combo
            form.insertRow(1 if kind == "node" else 0, "Site", combo)
        self.pages.addWidget(page)

    # ---- showing --------------------------------------------------------------------
    def show_item(self, selection: Selection) -> None:
        self.selection = selection
        self.refresh()

    def show_nothing(self) -> None:
        self.show_item(None)

    def field(self, kind: str, key: str) -> ValidatedField:
        return self.fields[kind][key]

    def refresh(self) -> None:
        topo = self.session.topo
        kind, key = self.selection if self.selection else ("", "")
        obj = None
        if kind == "site":
            obj = topo.site(key)
        elif kind == "node":
            obj = topo.node(key)
        elif kind == "brick":
            obj = topo.brick(key)
        elif kind == "client":
            obj = topo.client(key)
        if obj is None:
            self.selection = None
            self.title.setText("Nothing selected")
            self.pages.setCurrentIndex(0)
            return
        self.title.setText(f"{kind.capitalize()} {key}")
        self.pages.setCurrentIndex(["site", "node", "brick", "client"].index(kind) + 1)
        for name, field in self.fields[kind].items():
            field.set_value(getattr(obj, name))
        if kind in self.site_combos:
            combo = self.site_combos[kind]
            combo.clear()
            combo.addItem("(no site)", "")
            for site in topo.sites:
                combo.addItem(site.name, site.name)
            combo.setCurrentIndex(max(combo.findData(obj.site), 0))
        if kind == "brick":
            self.size_note.setText(describe_size(obj.size_bytes))
        if kind == "client":
            lines = [describe_mount(v, m.path, m.options, m.fstab) for v, m in topo.mounts_of(obj.name)]
            self.client_mounts.setText("\n".join(lines) or "none yet")
            self.add_mount.setEnabled(bool(topo.volumes))

    def _model_changed(self, changes: list) -> None:
        if self.selection is None:
            return
        kind, key = self.selection
        for ch in changes:  # follow renames of what is shown
            old = ch.detail.get("old")
            if ch.kind == f"{kind}-renamed" and old == str(key):
                self.selection = (kind, BrickRef.parse(ch.subject) if kind == "brick" else ch.subject)
            elif ch.kind == "node-renamed" and kind == "brick" and old == key.node:
                self.selection = (kind, BrickRef(ch.subject, key.path))
        self.refresh()

    # ---- editing --------------------------------------------------------------------
    def _add_mount(self) -> None:
        if self.selection is not None and self.selection[0] == "client":
            run_mount_dialog(self.session, self, client=str(self.selection[1]))

    def _commit(self, kind: str, key: str, value: object) -> None:
        if self.selection is None:
            return
        name = self.selection[1]
        edit: edits.Edit
        if kind == "site":
            edit = edits.RenameSite(name, value) if key == "name" else edits.UpdateSite(name, value)
        elif kind == "node":
            edit = (edits.RenameNode(name, value) if key == "name" else edits.MoveNode(name, value) if key == "site"
                    else edits.UpdateNode(name, {key: value}))
        elif kind == "brick":
            edit = edits.UpdateBrick(name, {key: value})
        else:
            edit = edits.RenameClient(name, value) if key == "name" else edits.UpdateClient(name, {key: value})
        done = self.session.push(edit)
        if done and key == "name":
            self.selection = (kind, value)
        if done:
            self.refresh()
        elif key in self.fields[kind]:
            self.fields[kind][key].set_problem(self.session.last_refusal)

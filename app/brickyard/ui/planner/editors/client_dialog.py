"""Add or edit a client host: its name, site, SSH address, user, port and NIC speed.

``ClientDialog(session)`` adds a client, ``ClientDialog(session, "web1")`` edits one; after
``exec()`` the dialog's ``edit()`` is the undoable change (``AddClient``, or a rename and an
update in one step). Nothing touches the model until the caller pushes it, so the Run view
can fold a new client into a larger edit (a client and its mount in one undo step).
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QFormLayout, QWidget

from ....core import edits
from ....core.mounts import client_name_problem
from ....core.topology import Client
from ...frame.session import Session
from ...widgets.make import form, ok_cancel, wrapped_label
from ..panels.fields import ValidatedField, parse_address, parse_gbps, parse_host_name, parse_port, parse_user


class ClientDialog(QDialog):
    def __init__(self, session: Session, name: str | None = None, parent: QWidget | None = None,
                 taken: set[str] = frozenset()):
        super().__init__(parent)
        self.session = session
        self.original = session.topo.client(name) if name else None
        self.taken = set(taken)  # names already used by edits not yet pushed
        self.setWindowTitle(f"Client {name}" if self.original else "Add client")
        client = self.original or Client(self._free_name())
        self.name = ValidatedField(parse_host_name)
        self.name.set_value(client.name)
        self.name.edit.setObjectName("client.name")
        self.site = QComboBox()
        self.site.setObjectName("client.site")
        self.site.addItem("(no site)", "")
        for site in session.topo.sites:
            self.site.addItem(site.name, site.name)
        self.site.setCurrentIndex(max(self.site.findData(client.site), 0))
        self.address = ValidatedField(parse_address)
        self.address.set_value(client.address)
        self.address.edit.setObjectName("client.address")
        self.address.edit.setPlaceholderText("IP or SSH alias (empty: the name)")
        self.user = ValidatedField(parse_user)
        self.user.set_value(client.ssh_user)
        self.port = ValidatedField(parse_port, str)
        self.port.set_value(client.ssh_port)
        self.nic = ValidatedField(parse_gbps, lambda v: f"{v:g}")
        self.nic.set_value(client.nic_gbps)
        self.nic.edit.setPlaceholderText("unknown")
        note = wrapped_label("A client mounts volumes (add its mounts after) and runs the benchmarks on them.")
        self.buttons = ok_cancel(self, self._accept)
        form(note, ("Host name", self.name), ("Site", self.site), ("SSH address", self.address), ("SSH user", self.user),
             ("SSH port", self.port), ("NIC (Gbit/s)", self.nic), self.buttons, layout=QFormLayout(self))
        self.setMinimumWidth(420)

    def _free_name(self) -> str:
        from ....core.editing import unique_name

        taken = {c.name for c in self.session.topo.clients} | set(getattr(self, "taken", ()))
        return unique_name(taken, f"client{len(self.session.topo.clients) + 1}")

    def client(self) -> Client | None:
        """The client the fields describe, or None (with the bad fields marked)."""
        fields = (self.name, self.address, self.user, self.port, self.nic)
        values = [f.current() for f in fields]
        if any(f.invalid for f in fields):  # (an empty NIC speed is None and valid: unknown)
            return None
        name, address, user, port, nic = values
        problem = client_name_problem(name)
        clash = self.session.topo.client(name) or name in self.taken
        if problem is None and clash and (self.original is None or name != self.original.name):
            problem = f"a client named {name!r} exists already"
        if problem is None and self.session.topo.node(name) is not None:
            problem = f"{name!r} is a server of this topology; a client needs its own name"
        if problem:
            self.name.set_problem(problem)
            return None
        return Client(name, site=self.site.currentData() or "", address=address, ssh_user=user, ssh_port=port,
                      nic_gbps=nic)

    def edit(self) -> edits.Edit | None:
        """The undoable change: add the client, or rename and update the one being edited
        (None when nothing changed or a field is wrong)."""
        client = self.client()
        if client is None:
            return None
        if self.original is None:
            return edits.AddClient(client)
        old = self.original
        parts: list[edits.Edit] = []
        if client.name != old.name:
            parts.append(edits.RenameClient(old.name, client.name))
        changed = {key: getattr(client, key) for key in ("site", "address", "ssh_user", "ssh_port", "nic_gbps")
                   if getattr(client, key) != getattr(old, key)}
        if changed:
            parts.append(edits.UpdateClient(client.name, changed))
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else edits.Compound(f"edit client {old.name}", parts)

    def _accept(self) -> None:
        if self.client() is not None:
            self.accept()

"""Quick fill: "add N nodes with M bricks of size S in site X" as one undoable edit."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QFormLayout, QSpinBox, QWidget

from ....core import editing, edits
from ....core.topology import Site
from ....core.units import UnitError
from ...frame.session import Session
from ...widgets.make import form, ok_cancel, wrapped_label
from .fields import ValidatedField, parse_host_name, parse_path, parse_size_field, parse_text, show_size


class QuickFillDialog(QDialog):
    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Quick fill")
        self.setMinimumWidth(520)
        self.session = session
        topo = session.topo
        self.count = QSpinBox()
        self.count.setRange(1, 1000)
        self.count.setValue(3)
        self.bricks = QSpinBox()
        self.bricks.setRange(0, 200)
        self.bricks.setValue(2)
        last = next((b for _, b in topo.all_bricks()), None)
        self.size = ValidatedField(parse_size_field, show_size)
        self.size.set_value(last.size_bytes if last else 10**12)
        self.site = QComboBox()
        self.site.setEditable(True)
        self.site.addItems([s.name for s in topo.sites])
        self.stem = ValidatedField(parse_host_name)
        self.stem.set_value("node")
        self.path_stem = ValidatedField(parse_path)
        self.path_stem.set_value("/data/brick")
        self.disk_kind = ValidatedField(parse_text)
        self.disk_kind.set_value(last.disk_kind if last else "")
        self.to_volume = QCheckBox(f"add the bricks to volume {session.volume_name}")
        self.to_volume.setChecked(bool(session.volume_name))
        self.to_volume.setEnabled(bool(session.volume_name))
        self.preview = wrapped_label("", "quickfill-preview")
        form(("Nodes", self.count), ("Bricks per node", self.bricks), ("Brick size", self.size),
                    ("Site (type a new name to add one)", self.site), ("Node names", self.stem),
                    ("Brick paths", self.path_stem), ("Disk kind", self.disk_kind), ("", self.to_volume),
                    ("Adds", self.preview), ok_cancel(self, self._accept), layout=QFormLayout(self))
        for spin in (self.count, self.bricks):
            spin.valueChanged.connect(lambda _v: self._show_preview())
        for field in (self.size, self.stem, self.path_stem):
            field.edit.textChanged.connect(lambda _t: self._show_preview())
        self.site.currentTextChanged.connect(lambda _t: self._show_preview())
        self._show_preview()

    def edit(self) -> edits.Edit | None:
        """The edit these fields describe, or None (with the bad fields marked)."""
        values = [f.current() for f in (self.size, self.stem, self.path_stem, self.disk_kind)]
        if any(v is None for v in values):
            return None
        size, stem, path_stem, disk_kind = values
        topo = self.session.topo
        site = self.site.currentText().strip()
        fill = editing.quick_fill(topo, self.count.value(), self.bricks.value(), size, site=site,
                                volume=self.session.volume_name if self.to_volume.isChecked() else "",
                                stem=stem, path_stem=path_stem, disk_kind=disk_kind)
        if site and topo.site(site) is None:
            return edits.Compound(fill.text + f" in new site {site}", [edits.AddSite(Site(site)), *fill.parts])
        return fill

    def _show_preview(self) -> None:
        """The names and paths the fill will make, as they will be used ('node4–node6, each with
        /data/brick1, /data/brick2 of 1 TB'), or nothing while a field is wrong."""
        try:
            size, stem, path_stem = (parse_size_field(self.size.edit.text()), parse_host_name(self.stem.edit.text()),
                                     parse_path(self.path_stem.edit.text()))
        except (ValueError, UnitError):
            self.preview.setText("")
            return
        fill = editing.quick_fill(self.session.topo, self.count.value(), self.bricks.value(), size, stem=stem,
                                  path_stem=path_stem)
        nodes = [p.node for p in fill.parts]
        names = nodes[0].name if len(nodes) == 1 else f"{nodes[0].name} … {nodes[-1].name}"
        paths = [b.path for b in nodes[0].bricks]
        shown = ", ".join(paths[:3]) + (f" … {paths[-1]}" if len(paths) > 3 else "")
        site = self.site.currentText().strip()
        self.preview.setText(f"{len(nodes)} node(s) {names}" + (f" in {site}" if site else "")
                             + (f", each with the bricks {shown} of {show_size(size)}" if paths else ", no bricks"))

    def _accept(self) -> None:
        if self.edit() is not None:
            self.accept()

"""Where a run measures: the client mounts of a topology volume, and baselines.

- **Volume mounts**: every client that mounts the chosen volume, with its mount path, as the
  topology says (ticked ones run together: one run, workers released at one instant).
- **Baselines**: any number of ``host:path`` targets beside gluster — a directory on this
  workstation (``local:/var/tmp/x``), a tmpfs (``client1:/dev/shm``), an NFS mount
  (``client1:/mnt/nfs``) or any ``host:path`` an SSH config alias reaches. Each ticked
  baseline is a run of its own after the volume's. The kind is only a label: the engine
  records what the path really is (``findmnt``) in the run's provenance.

Baselines are remembered between sessions (``settings``, a QSettings-like object).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ...bench.engine import TargetError, TargetSpec, parse_target
from ...bench.request import volume_targets
from ...core.topology import TopologyError
from ..frame.session import Session
from ..planner.panels.fields import mark_field
from ..widgets.make import button, combo_box

BASELINE_KINDS = (
    ("local directory", "local:/var/tmp/brickyard-baseline", "a directory on this workstation"),
    ("tmpfs", "{client}:/dev/shm", "RAM on a client: the ceiling no disk or network reaches"),
    ("NFS mount", "{client}:/mnt/nfs", "an NFS mount on a client, the write-ups' usual comparison"),
    ("host:path", "host:/path", "any directory on a host your SSH config reaches"),
)
SETTINGS_KEY = "run/baselines"
ROLE = Qt.ItemDataRole.UserRole


@dataclass(frozen=True)
class Baseline:
    kind: str
    spec: TargetSpec

    def label(self) -> str:
        return f"{self.kind}: {self.spec.text}"


class TargetsPanel(QWidget):
    """The volume's mounts and the baselines, each with a tick."""

    sig_changed = Signal()
    sig_add_mount_requested = Signal(str)
    """str: the volume a client mount should be added to (the window's mount editor opens)."""

    def __init__(self, session: Session, settings=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.settings = settings
        self.volume_box = combo_box("run-volume")
        self.mounts = QListWidget()
        self.mounts.setObjectName("run-mounts")
        self.mounts.setMaximumHeight(74)
        self.mount_note = QLabel()
        self.mount_note.setWordWrap(True)
        self.mount_note.setStyleSheet("color: #8a6d00;")
        self.add_mount_button = button("Add client mount…", "run-add-mount",
                                       "Mount the volume on a client (an undoable topology edit)")
        self.baselines = QListWidget()
        self.baselines.setObjectName("run-baselines")
        self.baselines.setMaximumHeight(74)
        self.kind_box = combo_box("baseline-kind")
        for kind, _example, tip in BASELINE_KINDS:
            self.kind_box.addItem(kind)
            self.kind_box.setItemData(self.kind_box.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.baseline_edit = QLineEdit()
        self.baseline_edit.setObjectName("baseline-target")
        self.baseline_error = QLabel()
        self.baseline_error.hide()
        self.add_baseline_button = button("Add", "baseline-add")
        self.remove_baseline_button = button("Remove", "baseline-remove")

        top = QHBoxLayout()
        top.addWidget(QLabel("Volume:"))
        top.addWidget(self.volume_box, 1)
        top.addWidget(self.add_mount_button)
        adder = QHBoxLayout()
        adder.addWidget(self.kind_box)
        adder.addWidget(self.baseline_edit, 1)
        adder.addWidget(self.add_baseline_button)
        adder.addWidget(self.remove_baseline_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(top)
        box.addWidget(self.mounts)
        box.addWidget(self.mount_note)
        box.addWidget(QLabel("Baselines (each a run of its own after the volume's):"))
        box.addWidget(self.baselines)
        box.addLayout(adder)
        box.addWidget(self.baseline_error)

        self.volume_box.currentIndexChanged.connect(lambda _i: self._fill_mounts())
        self.mounts.itemChanged.connect(lambda _i: self.sig_changed.emit())
        self.baselines.itemChanged.connect(lambda _i: self._baselines_changed())
        self.kind_box.currentIndexChanged.connect(lambda _i: self._kind_changed())
        self.baseline_edit.returnPressed.connect(self.add_baseline_from_field)
        self.baseline_edit.textEdited.connect(lambda _t: mark_field(self.baseline_edit, self.baseline_error, None))
        self.add_baseline_button.clicked.connect(self.add_baseline_from_field)
        self.remove_baseline_button.clicked.connect(self.remove_selected_baseline)
        self.add_mount_button.clicked.connect(lambda: self.sig_add_mount_requested.emit(self.volume()))
        session.sig_topology_replaced.connect(self.refresh)
        session.sig_model_changed.connect(lambda _c: self.refresh())
        self._kind_changed()
        self._load_baselines()
        self.refresh()

    # ---- the volume's mounts ----------------------------------------------------------
    def refresh(self) -> None:
        """Follow the topology: its volumes and their mounts (ticks kept where still there)."""
        wanted = self.volume() or self.session.volume_name
        names = [v.name for v in self.session.topo.volumes]
        if names != [self.volume_box.itemText(i) for i in range(self.volume_box.count())]:
            self.volume_box.blockSignals(True)
            self.volume_box.clear()
            self.volume_box.addItems(names)
            self.volume_box.setCurrentIndex(max(0, self.volume_box.findText(wanted)))
            self.volume_box.blockSignals(False)
        self._fill_mounts()
        self._kind_changed()

    def volume(self) -> str:
        return self.volume_box.currentText()

    def select_volume(self, name: str) -> None:
        index = self.volume_box.findText(name)
        if index >= 0:
            self.volume_box.setCurrentIndex(index)

    def _fill_mounts(self) -> None:
        unticked = {self.mounts.item(i).data(ROLE) for i in range(self.mounts.count())
                    if self.mounts.item(i).checkState() != Qt.CheckState.Checked}
        self.mounts.blockSignals(True)
        self.mounts.clear()
        volume = self.volume()
        try:
            specs = volume_targets(self.session.topo, volume) if volume else []
        except TopologyError:
            specs = []
        for spec in specs:
            item = QListWidgetItem(f"{spec.host} → {spec.path}  (gluster mount of {volume})")
            item.setData(ROLE, spec)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if spec in unticked else Qt.CheckState.Checked)
            self.mounts.addItem(item)
        self.mounts.blockSignals(False)
        if not volume:
            note = "The topology has no volume: plan one on the Planner tab, or measure baselines only."
        elif not specs:
            note = f"No client mounts {volume}: add a client mount to measure the volume."
        else:
            note = ""
        self.mount_note.setText(note)
        self.mount_note.setVisible(bool(note))
        self.add_mount_button.setEnabled(bool(volume))
        self.sig_changed.emit()

    def mount_targets(self) -> list[TargetSpec]:
        """The ticked client mounts of the volume."""
        return [self.mounts.item(i).data(ROLE) for i in range(self.mounts.count())
                if self.mounts.item(i).checkState() == Qt.CheckState.Checked]

    # ---- baselines --------------------------------------------------------------------
    def _kind_changed(self) -> None:
        kind, example, tip = BASELINE_KINDS[self.kind_box.currentIndex()]
        client = self.session.topo.clients[0].name if self.session.topo.clients else "client1"
        self.baseline_edit.setPlaceholderText(example.format(client=client))
        self.baseline_edit.setToolTip(f"{tip}: write HOST:PATH (local:PATH for this workstation)")

    def add_baseline_from_field(self) -> bool:
        text = self.baseline_edit.text().strip() or self.baseline_edit.placeholderText()
        kind = BASELINE_KINDS[self.kind_box.currentIndex()][0]
        try:
            spec = parse_target(text)
        except TargetError as exc:
            mark_field(self.baseline_edit, self.baseline_error, str(exc))
            return False
        if kind == "local directory" and not spec.is_local:
            mark_field(self.baseline_edit, self.baseline_error,
                       f"a local directory is written local:PATH, not {text!r} (or pick host:path)")
            return False
        if any(b.spec == spec for b in self.all_baselines()):
            mark_field(self.baseline_edit, self.baseline_error, f"{spec.text} is already a baseline")
            return False
        self.add_baseline(Baseline(kind, spec))
        self.baseline_edit.clear()
        return True

    def add_baseline(self, baseline: Baseline, ticked: bool = True) -> None:
        item = QListWidgetItem(baseline.label())
        item.setData(ROLE, baseline)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
        self.baselines.addItem(item)
        self._baselines_changed()

    def remove_selected_baseline(self) -> None:
        for item in self.baselines.selectedItems():
            self.baselines.takeItem(self.baselines.row(item))
        self._baselines_changed()

    def tick_only(self, baselines: list[Baseline]) -> None:
        """Tick exactly ``baselines`` (added when missing) and nothing else, no mount either."""
        for i in range(self.mounts.count()):
            self.mounts.item(i).setCheckState(Qt.CheckState.Unchecked)
        present = [b.spec for b in self.all_baselines()]
        self.baselines.blockSignals(True)
        for baseline in baselines:
            if baseline.spec not in present:
                self.add_baseline(baseline, ticked=True)
        wanted = {b.spec for b in baselines}
        for i in range(self.baselines.count()):
            item = self.baselines.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.data(ROLE).spec in wanted else Qt.CheckState.Unchecked)
        self.baselines.blockSignals(False)
        self._baselines_changed()

    def all_baselines(self) -> list[Baseline]:
        return [self.baselines.item(i).data(ROLE) for i in range(self.baselines.count())]

    def baseline_targets(self) -> list[Baseline]:
        """The ticked baselines, in list order."""
        return [self.baselines.item(i).data(ROLE) for i in range(self.baselines.count())
                if self.baselines.item(i).checkState() == Qt.CheckState.Checked]

    def _baselines_changed(self) -> None:
        if self.settings is not None:
            saved = [{"kind": b.kind, "target": b.spec.text,
                      "ticked": self.baselines.item(i).checkState() == Qt.CheckState.Checked}
                     for i, b in enumerate(self.all_baselines())]
            self.settings.setValue(SETTINGS_KEY, json.dumps(saved))
        self.sig_changed.emit()

    def _load_baselines(self) -> None:
        if self.settings is None:
            return
        try:
            saved = json.loads(str(self.settings.value(SETTINGS_KEY, "[]") or "[]"))
        except ValueError:
            return
        self.baselines.blockSignals(True)
        for entry in saved if isinstance(saved, list) else []:
            try:
                spec = parse_target(str(entry.get("target", "")))
            except (TargetError, AttributeError):
                continue
            self.add_baseline(Baseline(str(entry.get("kind", "host:path")), spec), bool(entry.get("ticked", False)))
        self.baselines.blockSignals(False)

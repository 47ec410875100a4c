"""A new campaign, put together in the window: the layouts ticked in the Compare layouts
table (each a volume on the same bricks as the planned volume), the workloads picked from the
registry with their generated parameter forms, repeats, baselines and the failure policy.

What it builds is a campaign *file* (``campaign.specwrite.document``) checked by the same reader
as ``brickyard campaign FILE`` (``campaign.spec.from_data``), so the window and the terminal
run exactly the same thing; "Save as file…" writes it for the terminal.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from ...bench import registry
from ...bench.engine import TargetError, parse_target
from ...campaign.spec import FAILURE_POLICIES, CampaignFileError, CampaignSpec, from_data
from ...campaign.specwrite import document
from ...core.atomicfile import write_atomic
from ...core.edits import describe_layout
from ...core.plan import candidate_layouts, plan_volume
from ...core.topology import Layout, Mount, Topology, Volume
from ..planner.panels.fields import mark_field
from ..run.param_form import ParamForm
from ..widgets.make import button, combo_box, wrapped_label

POLICY_WORDS = {"stop": "stop the campaign (tearing the layout down)", "skip": "skip the cell and go on",
                "retry": "retry the cell once, then skip it"}
ROLE = Qt.ItemDataRole.UserRole


def layout_code(layout: Layout, bricks: int) -> str:
    """A short volume-name part as the write-up names its layouts: dt8, dp8rd2, dt4rp2, rp3ar1."""
    if layout.type.is_replicated and layout.replica:
        sets = bricks // layout.replica
        code = (f"dt{sets}" if sets > 1 else "") + f"rp{layout.replica}"
        return code + (f"ar{layout.arbiter}" if layout.arbiter else "")
    if layout.type.is_dispersed and layout.disperse:
        sets = bricks // layout.disperse
        return (f"dt{sets}" if sets > 1 else "") + f"dp{layout.disperse}rd{layout.redundancy or 0}"
    return f"dt{bricks}"


class CampaignSetup(QWidget):
    """The form; ``spec()`` checks it and returns the campaign (raises CampaignFileError / ValueError)."""

    sig_changed = Signal()

    def __init__(self, entries: Callable[[], list] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.topology: Topology | None = None
        self.volume: Volume | None = None
        self.topology_path = ""
        self.entries = [e for e in (entries or registry.discover)() if e.ok]
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("campaign-name")
        self.layouts = QListWidget()
        self.layouts.setObjectName("campaign-layouts")
        self.layouts.setMaximumHeight(130)
        self.layout_box = combo_box("campaign-layout-choice")   # the other layouts gluster accepts for these bricks
        self.layout_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.layout_box.setMinimumContentsLength(10)
        self.add_layout_button = button("Add layout", "campaign-add-layout")
        self.remove_layout_button = button("Remove", "campaign-remove-layout",
                                           "Take the selected layouts out of the campaign")
        self.workload_box = combo_box("campaign-workload")
        self.workload_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.workload_box.setMinimumContentsLength(10)
        for e in self.entries:
            self.workload_box.addItem(f"{e.name} — {e.workload.title or e.name}", e.name)
        self.form = ParamForm(hidden=("repeats",))     # the campaign's Repeats sets it
        self.add_workload_button = button("Add workload", "campaign-add-workload")
        self.workloads = QListWidget()
        self.workloads.setObjectName("campaign-workloads")
        self.workloads.setMaximumHeight(90)
        self.remove_workload_button = QPushButton("Remove")
        self.repeats = QSpinBox()
        self.repeats.setObjectName("campaign-repeats")
        self.repeats.setRange(1, 100)
        self.repeats.setValue(3)
        self.repeats.setToolTip("Each workload's repeats (a median and a spread per point); a workload's own "
                                "'repeats' parameter wins")
        self.baselines = QLineEdit()
        self.baselines.setObjectName("campaign-baselines")
        self.baselines.setPlaceholderText("e.g. client1:/var/tmp, local:/var/tmp/base (optional)")
        self.baselines.setToolTip("Measured once per campaign, each its own row: host:path (local:PATH for this "
                                  "workstation), comma-separated")
        self.baseline_error = QLabel()
        self.baseline_error.hide()
        self.policy = combo_box("campaign-policy")
        for p in FAILURE_POLICIES:
            self.policy.addItem(POLICY_WORDS[p], p)
        self.policy.setCurrentIndex(list(FAILURE_POLICIES).index("retry"))
        self.problem = wrapped_label("", "campaign-problem")
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.hide()

        picker = QHBoxLayout()
        picker.addWidget(self.workload_box, 1)
        picker.addWidget(self.add_workload_button)
        chosen = QHBoxLayout()
        chosen.addWidget(self.workloads, 1)
        chosen.addWidget(self.remove_workload_button, 0, Qt.AlignmentFlag.AlignTop)
        wl_box = QGroupBox("Workloads (each is one cell per layout)")
        wl = QVBoxLayout(wl_box)
        wl.addLayout(picker)
        wl.addWidget(self.form)
        wl.addLayout(chosen)
        form = QFormLayout()
        form.addRow("Name:", self.name_edit)
        layout_column = QVBoxLayout()
        layout_column.setSpacing(2)
        layout_column.addWidget(self.layouts)
        layout_row = QHBoxLayout()
        layout_row.addWidget(self.layout_box, 1)
        layout_row.addWidget(self.add_layout_button)
        layout_row.addWidget(self.remove_layout_button)
        layout_column.addLayout(layout_row)
        form.addRow("Layouts (same bricks):", layout_column)
        baseline = QVBoxLayout()
        baseline.setSpacing(1)
        baseline.addWidget(self.baselines)
        baseline.addWidget(self.baseline_error)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(form)
        box.addWidget(wl_box)
        rest = QFormLayout()
        rest.addRow("Repeats:", self.repeats)
        rest.addRow("Baselines:", baseline)
        rest.addRow("When a cell fails:", self.policy)
        box.addLayout(rest)
        box.addWidget(self.problem)

        self.workload_box.currentIndexChanged.connect(lambda _i: self._workload_chosen())
        self.add_layout_button.clicked.connect(lambda: self.add_layout(self.layout_box.currentData()))
        self.remove_layout_button.clicked.connect(self.remove_selected_layouts)
        self.add_workload_button.clicked.connect(self.add_workload)
        self.remove_workload_button.clicked.connect(self._remove_workload)
        self.baselines.textEdited.connect(lambda _t: mark_field(self.baselines, self.baseline_error, None))
        for signal in (self.name_edit.textChanged, self.layouts.itemChanged, self.repeats.valueChanged,
                       self.baselines.textChanged, self.policy.currentIndexChanged):
            signal.connect(lambda *_: self.sig_changed.emit())
        self._workload_chosen()

    # ---- what it starts from -------------------------------------------------------------
    def set_layouts(self, topology: Topology, volume: Volume, layouts: list[Layout], topology_path: str = "") -> None:
        """The planned volume's bricks under each of ``layouts`` (ticked), named volume-code."""
        self.topology, self.volume, self.topology_path = topology, volume, topology_path
        self.name_edit.setText(f"{volume.name}-layouts")
        self.layouts.clear()
        for layout in layouts:
            self._layout_item(layout)
        self._fill_layout_choices()
        self.sig_changed.emit()

    def _layout_item(self, layout: Layout) -> QListWidgetItem:
        volume = self.volume
        used = {self.layouts.item(i).data(ROLE).name for i in range(self.layouts.count())}
        name = f"{volume.name}-{layout_code(layout, len(volume.bricks))}"[:64]
        while name in used:
            name += "b"
        item = QListWidgetItem(f"{name}: {describe_layout(layout)} ({len(volume.bricks)} bricks)")
        item.setData(ROLE, self._placed(Volume(name, layout, list(volume.bricks), dict(volume.options),
                                               force=volume.force)))
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked)
        self.layouts.addItem(item)
        return item

    def _placed(self, volume: Volume) -> Volume:
        """``volume`` with its bricks ordered for its own layout as Auto-place does (no set with
        two bricks on one node where the nodes allow it): the planned volume's order suits only
        its own layout (a replica-2 order put two bricks of each disperse-4 set on one node, and
        gluster refused that layout without force)."""
        if self.topology is None:
            return volume
        return plan_volume(self.topology, volume, auto_place=True).volume

    def _fill_layout_choices(self) -> None:
        """The layouts gluster accepts for these bricks that the campaign does not hold yet:
        with the bricks placed for each, and without force unless the planned volume has it
        (one gluster refuses, e.g. replica 8 on 4 servers, would stop the campaign at Start)."""
        self.layout_box.clear()
        if self.topology is None or self.volume is None:
            self.layout_box.setEnabled(False)
            self.add_layout_button.setEnabled(False)
            return
        held = [self.layouts.item(i).data(ROLE).layout for i in range(self.layouts.count())]
        for layout in candidate_layouts(self.topology, self.volume.bricks):
            if layout in held:
                continue
            trial = replace(self.volume, layout=layout)
            if not plan_volume(self.topology, trial, auto_place=True).valid:
                continue
            self.layout_box.addItem(describe_layout(layout), layout)
        self.layout_box.setEnabled(self.layout_box.count() > 0)
        self.add_layout_button.setEnabled(self.layout_box.count() > 0)

    def add_layout(self, layout: Layout | None) -> bool:
        """One more layout of the same bricks (from the list of those gluster accepts)."""
        if layout is None or self.volume is None:
            return False
        self._layout_item(layout)
        self._fill_layout_choices()
        self.sig_changed.emit()
        return True

    def remove_selected_layouts(self) -> int:
        """Take the selected layouts out of the campaign (they come back in the list to add)."""
        rows = sorted({self.layouts.row(i) for i in self.layouts.selectedItems()}, reverse=True)
        for row in rows:
            self.layouts.takeItem(row)
        if rows:
            self._fill_layout_choices()
            self.sig_changed.emit()
        return len(rows)

    def chosen_layouts(self) -> list[Volume]:
        return [self.layouts.item(i).data(ROLE) for i in range(self.layouts.count())
                if self.layouts.item(i).checkState() == Qt.CheckState.Checked]

    # ---- workloads --------------------------------------------------------------------------
    def _workload_chosen(self) -> None:
        name = self.workload_box.currentData()
        entry = next((e for e in self.entries if e.name == name), None)
        self.form.set_workload(entry.workload if entry else None)

    def select_workload(self, name: str) -> bool:
        index = self.workload_box.findData(name)
        if index >= 0:
            self.workload_box.setCurrentIndex(index)
        return index >= 0

    def add_workload(self) -> bool:
        """Add the form's workload with the parameters that differ from its defaults."""
        problems = self.form.problems()
        if problems or self.form.workload is None:
            self._say("; ".join(problems) or "choose a workload")
            return False
        name = self.form.workload.name
        params = self.form.changed_texts()
        item = QListWidgetItem(f"{name}: " + (" ".join(f"{k}={v}" for k, v in params.items()) or "defaults"))
        item.setData(ROLE, (name, params))
        self.workloads.addItem(item)
        self._say("")
        self.sig_changed.emit()
        return True

    def _remove_workload(self) -> None:
        for item in self.workloads.selectedItems():
            self.workloads.takeItem(self.workloads.row(item))
        self.sig_changed.emit()

    def chosen_workloads(self) -> list[tuple[str, dict[str, Any]]]:
        return [self.workloads.item(i).data(ROLE) for i in range(self.workloads.count())]

    # ---- the campaign -----------------------------------------------------------------------
    def baseline_targets(self) -> list[tuple[str, str]]:
        out = []
        for text in (t.strip() for t in self.baselines.text().split(",")):
            if not text:
                continue
            try:
                out.append((parse_target(text).text, ""))
            except TargetError as exc:
                mark_field(self.baselines, self.baseline_error, str(exc))
                raise ValueError(str(exc)) from None
        return out

    def document(self) -> dict[str, Any]:
        """The campaign file's JSON (raises ValueError for what is missing)."""
        if self.topology is None or self.volume is None:
            raise ValueError("tick layouts in the Compare layouts table (Planner tab), or open a campaign file")
        layouts = self.chosen_layouts()
        if not layouts:
            raise ValueError("tick at least one layout")
        workloads = self.chosen_workloads()
        if not workloads:
            raise ValueError("add at least one workload (pick it, set its parameters, Add workload)")
        mounts = [Mount(m.client, "/mnt/brickyard-{volume}", m.options) for m in self.volume.mounts]
        return document(self.name_edit.text().strip() or f"{self.volume.name}-layouts", layouts, workloads,
                        topology=self.topology_path, repeats=self.repeats.value(),
                        baselines=self.baseline_targets(), on_failure=self.policy.currentData(),
                        mounts=mounts or None,
                        description=f"layouts of {self.volume.name}'s {len(self.volume.bricks)} bricks, "
                                    "from the Compare layouts table")

    def spec(self) -> CampaignSpec:
        """Checked exactly as a campaign file is (CampaignFileError lists every problem)."""
        return from_data(self.document(), source="<campaign from the window>", topology=self.topology)

    def save(self, path: str | Path) -> None:
        doc = self.document()
        if not doc.get("topology"):
            raise ValueError("save the topology to a file first: a campaign file names the topology it runs on")
        self.spec()
        write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")

    def check(self) -> str:
        """'' when the campaign can start, else what is missing or wrong (also shown)."""
        try:
            self.spec()
        except CampaignFileError as exc:
            text = "; ".join(str(p) for p in exc.problems) or str(exc)
            self._say(text)
            return text
        except ValueError as exc:
            self._say(str(exc))
            return str(exc)
        self._say("")
        return ""

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

"""The Layout panel: which volume, its name, type and counts, auto-place and force.

Only counts gluster could accept for the current bricks are selectable; the others stay
in the list, disabled, with gluster's own reason (``core.layout.resolve``). Changing a
control pushes one ``SetVolumeLayout``/``UpdateVolume`` edit, so it can be undone.
"""

from __future__ import annotations

from dataclasses import replace
from operator import attrgetter

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from ....core import editing, edits
from ....core.layout import resolve, volname_problem
from ....core.plan import PlanResult, plan_volume
from ....core.topology import BrickRef, Layout, Volume, VolumeType
from ...frame.session import Session
from ...widgets.make import STRETCH, form, hbox
from .fields import mark_field

_NODE_AND_PATH = attrgetter("node", "path")
_NAME, _PATH = attrgetter("name"), attrgetter("path")

MAX_LISTED = 24  # refused counts listed after the smallest, so the list stays short on big volumes
MAX_VALID = 60   # accepted counts listed (a 4,800-brick volume accepts thousands of redundancies)


def _count_choices(valid: set[int], start: int, upto: int, brick_count: int,
                   layout_for) -> list[tuple[int, str | None]]:
    """(value, None) for a count gluster accepts, (value, gluster's reason) for one it
    refuses; refused counts are listed from ``start`` up to ``upto`` (capped)."""
    values = sorted(set(sorted(valid)[:MAX_VALID]) | set(range(start, min(upto, start + MAX_LISTED) + 1)))
    out = []
    for value in values:
        if value in valid:
            out.append((value, None))
            continue
        _, findings = resolve(layout_for(value), brick_count)
        errors = [f.message for f in findings if f.severity == "error"]
        out.append((value, errors[0] if errors else "not accepted for these bricks"))
    return out


class LayoutPanel(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self._syncing = False
        self.volume_box = QComboBox()
        self.new_volume = QPushButton("New volume")
        self.delete_volume = QPushButton("Delete")
        self.name = QLineEdit()
        self.name_error = QLabel()
        self.type = QComboBox()
        for kind in VolumeType:
            self.type.addItem(kind.value, kind.value)
        self.replica = QComboBox()
        self.arbiter = QCheckBox("arbiter (metadata only)")
        self.arbiter.setToolTip("replica 3 arbiter 1: the 3rd brick of each set holds metadata only")
        # replica 2 thin-arbiter 1: one brick outside the volume (on a host outside the pool)
        self.thin_arbiter = QComboBox()
        self._thin_arbiter_filled_for: tuple | None = None
        self.thin_arbiter.setToolTip("replica 2 thin-arbiter 1: a brick on a host outside the pool (usually in "
                                     "a third site) that each replica pair consults when one of its bricks is "
                                     "down. The host must run gluster's thin-arbiter process.")
        self.disperse = QComboBox()
        self.redundancy = QComboBox()
        for combo in (self.volume_box, self.type, self.replica, self.thin_arbiter, self.disperse, self.redundancy):
            # entries carry gluster's long reasons; the panel must still fit its dock
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
        self.force = QCheckBox("force (gluster's 'force' word)")
        self.auto_place = QPushButton("Auto-place bricks")
        self.auto_place.setToolTip("Reorder the volume's bricks so no set has two bricks on one node "
                                   "and sets span as many sites as they can")
        self.placement_note = QLabel()
        self.placement_note.setObjectName("placement-note")
        self.placement_note.setWordWrap(True)
        self._note_for: tuple | None = None  # the volume state the placement note speaks of
        self.summary = QLabel()
        self.summary.setWordWrap(True)

        # the buttons under the volume, not beside it, and a short arbiter label: the dock
        # must fit its form at 1280 px wide (beside, it needed 426 px in a 400 px viewport)
        box = QVBoxLayout(self)
        box.addLayout(form(("Volume", self.volume_box), ("", hbox(self.new_volume, self.delete_volume, STRETCH)),
                           ("Name", self.name), ("", self.name_error), ("Type", self.type), ("Replica", self.replica),
                           ("", self.arbiter), ("Thin-arbiter", self.thin_arbiter), ("Disperse", self.disperse),
                           ("Redundancy", self.redundancy), ("", self.force)))
        box.addWidget(self.auto_place)
        box.addWidget(self.placement_note)
        box.addWidget(self.summary)

        self.volume_box.activated.connect(lambda i: session.select_volume(self.volume_box.itemText(i)))
        self.new_volume.clicked.connect(self.add_volume)
        self.delete_volume.clicked.connect(self.remove_volume)
        self.name.editingFinished.connect(self._rename)
        self.name.textEdited.connect(self._name_edited)
        self.type.activated.connect(self._type_chosen)
        for combo in (self.replica, self.disperse, self.redundancy):
            combo.activated.connect(self._counts_chosen)
        self.arbiter.toggled.connect(self._counts_chosen)
        self.thin_arbiter.activated.connect(self._thin_arbiter_chosen)
        self.force.toggled.connect(self._force_toggled)
        self.auto_place.clicked.connect(self.place_automatically)
        session.sig_plan_changed.connect(self.sync)
        self.sync(session.plan)

    # ---- model -> widgets -----------------------------------------------------------
    def sync(self, plan: PlanResult | None = None) -> None:
        self._syncing = True
        try:
            self._sync()
        finally:
            self._syncing = False

    def _sync(self) -> None:
        topo, volume = self.session.topo, self.session.volume
        self.volume_box.clear()
        self.volume_box.addItems([v.name for v in topo.volumes])
        self.volume_box.setCurrentText(self.session.volume_name)
        for w in (self.name, self.type, self.replica, self.arbiter, self.thin_arbiter, self.disperse,
                  self.redundancy, self.force, self.auto_place, self.delete_volume):
            w.setEnabled(volume is not None)
        if self._note_for != self._placement_key():
            self.placement_note.clear()  # it described bricks and a layout that are gone
            self._note_for = None
        if volume is None:
            # nothing to edit: empty, not the last volume's values greyed out
            self.name.clear()
            mark_field(self.name, self.name_error, None)
            self.type.setCurrentIndex(-1)
            for combo in (self.replica, self.disperse, self.redundancy):
                combo.clear()
                combo.setProperty("filled_for", "")
            self.arbiter.setChecked(False)
            self.thin_arbiter.clear()
            self._thin_arbiter_filled_for = None
            self.force.setChecked(False)
            self.summary.setText(self.session.plan_problem)
            return
        if not self.name.hasFocus():
            self.name.setText(volume.name)
            mark_field(self.name, self.name_error, volname_problem(volume.name))
        layout = volume.layout
        self.type.setCurrentIndex(self.type.findData(layout.type.value))
        count = len(volume.bricks)
        valid = self.session.candidates()
        self._mark_types({l.type for l in valid}, count)
        replicas = {l.replica for l in valid if l.replica}
        disperses = {l.disperse for l in valid if l.disperse}
        d = layout.disperse or count
        redundancies = {l.redundancy for l in valid if l.disperse == d and l.redundancy}
        self._fill(self.replica, _count_choices(replicas, 2, count, count,
                                                lambda v: Layout(VolumeType.REPLICATE, replica=v)),
                   layout.replica, "all bricks (one set)" if layout.type is VolumeType.REPLICATE else None)
        self._fill(self.disperse, _count_choices(disperses, 3, count, count,
                                                 lambda v: Layout(VolumeType.DISPERSE, disperse=v, redundancy=1)),
                   layout.disperse, "all bricks (one set)" if layout.type is VolumeType.DISPERSE else None)
        d = layout.disperse or count
        self._fill(self.redundancy, _count_choices(redundancies, 1, d - 1, count,
                                                   lambda v: Layout(VolumeType.DISPERSE, disperse=d, redundancy=v)),
                   layout.redundancy, "gluster's choice")
        if not layout.type.is_replicated:
            self.replica.clear()
            self.replica.setProperty("filled_for", "")
        if not layout.type.is_dispersed:
            for combo in (self.disperse, self.redundancy):
                combo.clear()
                combo.setProperty("filled_for", "")
        self.arbiter.setChecked(bool(layout.arbiter))
        self._fill_thin_arbiter(volume)
        self.replica.setEnabled(layout.type.is_replicated)
        self.arbiter.setEnabled(layout.type.is_replicated)
        self.thin_arbiter.setEnabled(layout.type.is_replicated or volume.thin_arbiter_brick is not None)
        self.disperse.setEnabled(layout.type.is_dispersed)
        self.redundancy.setEnabled(layout.type.is_dispersed)
        self.force.setChecked(volume.force)
        plan = self.session.plan
        if plan is not None:
            if plan.refused:
                self.summary.setText(f"{count} bricks: gluster refuses this layout (see What gluster will say).")
            else:
                verdict = "gluster accepts this" if plan.valid else (
                    "gluster refuses this without force" if not plan.errors else "gluster refuses a step of this")
                text = (f"{count} bricks → {plan.gluster_type.value} {plan.number_of_bricks}, "
                        f"{len(plan.sets)} set(s): {verdict}.")
                ta = plan.thin_arbiter_json()
                if ta is not None:
                    text += f"\nThin-arbiter: {ta['brick']} " + (
                        "(every pair)" if ta["reachable"] else "(not usable: on a server of the pool)")
                self.summary.setText(text)

    def _mark_types(self, possible: set[VolumeType], count: int) -> None:
        """Types with no layout gluster accepts for these bricks stay listed, disabled, saying so."""
        model = self.type.model()
        for i in range(self.type.count()):
            kind = VolumeType(self.type.itemData(i))
            item = model.item(i) if isinstance(model, QStandardItemModel) else None
            if item is None:
                continue
            ok = kind in possible or kind.value == self.type.currentData()
            item.setEnabled(ok)
            reason = "" if kind in possible else f"no {kind.value} layout is possible with {count} brick(s)"
            item.setToolTip(reason)
            item.setText(kind.value if not reason else f"{kind.value} — {reason}")

    @staticmethod
    def _fill(combo: QComboBox, choices: list[tuple[int, str | None]], current: int | None, none_text: str | None) -> None:
        key = (tuple(choices), current, none_text)
        if combo.property("filled_for") == repr(key):
            return  # same entries as before: keep the widget as it is
        combo.setProperty("filled_for", repr(key))
        combo.clear()
        model = combo.model()
        if none_text:
            combo.addItem(none_text, None)
        for value, reason in choices:
            combo.addItem(str(value) if reason is None else f"{value} — {reason}", value)
            if reason is not None and isinstance(model, QStandardItemModel):
                item = model.item(combo.count() - 1)
                item.setEnabled(False)
                item.setToolTip(reason)
        if current is not None and combo.findData(current) < 0:
            combo.addItem(f"{current} (current)", current)
        combo.setCurrentIndex(max(combo.findData(current), 0))

    def _fill_thin_arbiter(self, volume: Volume) -> None:
        """"none", then every brick of the topology outside the volume. Runs after every edit, so
        it first compares what the list depends on, and builds it on (node, path) pairs (a
        BrickRef and its text per brick, and a repr of the list, were a tenth of an edit at
        4,800 bricks)."""
        current = volume.thin_arbiter_brick
        nodes = self.session.topo.nodes
        # what the list depends on, in C-speed copies: the bricks' names, the volume's bricks
        # (the same BrickRef objects after an edit that did not touch them), the current one
        key = (tuple(map(_NAME, nodes)), tuple(tuple(map(_PATH, node.bricks)) for node in nodes),
               list(volume.bricks), str(current))
        if self._thin_arbiter_filled_for == key:
            return
        self._thin_arbiter_filled_for = key
        used = set(map(_NODE_AND_PATH, volume.bricks))
        choices = [f"{node.name}:{brick.path}" for node in nodes for brick in node.bricks
                   if (node.name, brick.path) not in used]
        if current is not None and str(current) not in choices:
            choices.append(str(current))
        self.thin_arbiter.clear()
        self.thin_arbiter.addItem("none", "")
        for text in choices:
            self.thin_arbiter.addItem(text, text)
        self.thin_arbiter.setCurrentIndex(max(self.thin_arbiter.findData(str(current) if current else ""), 0))

    # ---- widgets -> edits -----------------------------------------------------------
    def _push_layout(self, layout: Layout) -> None:
        volume = self.session.volume
        if volume is not None and layout != volume.layout:
            self.session.push(edits.SetVolumeLayout(volume.name, layout))

    def _type_chosen(self) -> None:
        volume = self.session.volume
        if self._syncing or volume is None or self.type.currentData() is None:
            return
        kind = VolumeType(self.type.currentData())
        family = [l for l in self.session.candidates()
                  if (l.replica is not None) == kind.is_replicated and (l.disperse is not None) == kind.is_dispersed
                  and not l.arbiter]
        preferred = [l for l in family if l.replica == 3] + [l for l in family if l.type is kind] + family
        layout = replace(preferred[0], type=kind) if preferred else Layout(kind)
        if volume.thin_arbiter_brick is not None and layout != volume.layout:
            # another type: its thin-arbiter brick goes with the thin-arbiter, in the same step
            self.session.push(edits.Compound(f"make {volume.name} {kind.value}", [
                edits.UpdateVolume(volume.name, {"thin_arbiter_brick": None}),
                edits.SetVolumeLayout(volume.name, layout)]))
            return
        self._push_layout(layout)

    def _counts_chosen(self, *_: object) -> None:
        volume = self.session.volume
        if self._syncing or volume is None:
            return
        kind = volume.layout.type
        if kind.is_replicated:
            arbiter = 1 if self.arbiter.isChecked() else 0
            replica = self.replica.currentData()
            # a thin-arbiter stays while the counts allow it (replica 2, no arbiter)
            thin = volume.layout.thin_arbiter if not arbiter and replica == 2 else 0
            self._push_layout(Layout(kind, replica=replica, arbiter=arbiter, thin_arbiter=thin))
        elif kind.is_dispersed:
            self._push_layout(Layout(kind, disperse=self.disperse.currentData(),
                                     redundancy=self.redundancy.currentData()))

    def _thin_arbiter_chosen(self, *_: object) -> None:
        """One undoable step: replica 2 thin-arbiter 1 with the chosen brick, or neither."""
        volume = self.session.volume
        if self._syncing or volume is None:
            return
        text = self.thin_arbiter.currentData() or ""
        ref = BrickRef.parse(text) if text else None
        if ref == volume.thin_arbiter_brick:
            return
        layout = (replace(volume.layout, replica=2, arbiter=0, thin_arbiter=1) if ref is not None
                  else replace(volume.layout, thin_arbiter=0))
        title = f"thin-arbiter {ref} for {volume.name}" if ref else f"no thin-arbiter for {volume.name}"
        self.session.push(edits.Compound(title, [
            edits.UpdateVolume(volume.name, {"thin_arbiter_brick": ref}),
            edits.SetVolumeLayout(volume.name, layout)]))

    def _force_toggled(self, on: bool) -> None:
        volume = self.session.volume
        if not self._syncing and volume is not None and volume.force != on:
            self.session.push(edits.UpdateVolume(volume.name, {"force": on}))

    def _name_edited(self, text: str) -> None:
        """Mark the name as it is typed, and clear the mark as soon as it is valid again."""
        mark_field(self.name, self.name_error, volname_problem(text.strip()) if text.strip() else None)

    def _rename(self) -> None:
        volume = self.session.volume
        text = self.name.text().strip()
        problem = volname_problem(text)
        mark_field(self.name, self.name_error, problem)
        if volume is None or text == volume.name:
            return
        if problem is None and self.session.push(edits.UpdateVolume(volume.name, {"name": text})):
            self.session.select_volume(text)

    def add_volume(self) -> None:
        topo = self.session.topo
        name = editing.unique_name({v.name for v in topo.volumes}, "gv0" if not topo.volumes else f"gv{len(topo.volumes)}")
        bricks = [ref for ref, _ in topo.all_bricks()]
        if self.session.push(edits.AddVolume(Volume(name, Layout(VolumeType.DISTRIBUTE), bricks))):
            self.session.select_volume(name)

    def remove_volume(self) -> None:
        if self.session.volume is not None:
            self.session.push(edits.RemoveVolume(self.session.volume_name))

    def place_automatically(self) -> None:
        volume = self.session.volume
        if volume is None:
            return
        placed = plan_volume(self.session.topo, volume, auto_place=True)
        if list(placed.volume.bricks) != list(volume.bricks):
            self.session.push(edits.SetVolumeBricks(volume.name, list(placed.volume.bricks), text="auto-place bricks"))
        # the note holds while the volume keeps these bricks and this layout
        self.placement_note.setText(placed.placement_note)
        self._note_for = self._placement_key()

    def _placement_key(self) -> tuple | None:
        volume = self.session.volume
        if volume is None:
            return None
        return (id(self.session.topo), volume.name, tuple(volume.bricks), repr(volume.layout), volume.force)

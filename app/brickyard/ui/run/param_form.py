"""A workload's parameter form, generated from the ``Param``s it declares (built-ins and
third-party plugins alike): one field per parameter by kind (a check box for ``bool``, a list
for ``choice``, a line for everything else), its default shown, its help and limits as the
tooltip, and each value checked as it is typed with the plugin's own ``Param.parse`` — the
message under the field is the plugin's. Cross-parameter problems (``Workload.check``) show
under the form. The engine's own parameters (repeats, stall limit) come last, apart."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QLabel, QLineEdit, QVBoxLayout,
                               QWidget)

from ...bench.api import COMMON_PARAMS, Param, ParamError, Workload
from ..planner.panels.fields import mark_field

ERROR_STYLE = "color: #c62828;"


def param_title(p: Param) -> str:
    return p.name.replace("_", " ")


def param_tooltip(p: Param) -> str:
    return p.describe()


class ParamField(QWidget):
    """One parameter's widget and the plugin's message under it."""

    sig_changed = Signal()

    def __init__(self, param: Param, parent: QWidget | None = None):
        super().__init__(parent)
        self.param = param
        self.error = QLabel()
        self.error.setObjectName(f"error-{param.name}")
        self.error.hide()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(1)
        tip = param_tooltip(param)
        self.check: QCheckBox | None = None
        self.combo: QComboBox | None = None
        self.edit: QLineEdit | None = None
        if param.kind == "bool":
            self.check = QCheckBox()
            self.check.toggled.connect(lambda _b: self._changed())
            widget: QWidget = self.check
        elif param.kind == "choice":
            self.combo = QComboBox()
            self.combo.addItems(list(param.choices))
            self.combo.currentIndexChanged.connect(lambda _i: self._changed())
            widget = self.combo
        else:
            self.edit = QLineEdit()
            self.edit.setPlaceholderText(self.default_text())
            self.edit.textChanged.connect(lambda _t: self._changed())
            widget = self.edit
        widget.setObjectName(f"param-{param.name}")
        widget.setToolTip(tip)
        box.addWidget(widget)
        box.addWidget(self.error)
        self.widget = widget
        self.set_text(self.default_text())

    def default_text(self) -> str:
        return self.param.show(self.param.parse(self.param.default))

    def text(self) -> str:
        if self.check is not None:
            return "yes" if self.check.isChecked() else "no"
        if self.combo is not None:
            return self.combo.currentText()
        return self.edit.text()

    def set_text(self, text: str) -> None:
        if self.check is not None:
            try:
                self.check.setChecked(bool(self.param.parse(text)))
            except ParamError:
                pass
        elif self.combo is not None:
            index = self.combo.findText(str(text))
            if index >= 0:
                self.combo.setCurrentIndex(index)
        else:
            self.edit.setText(str(text))
        self._changed()

    def problem(self) -> str | None:
        """The plugin's message for the current text, or None when it parses."""
        try:
            self.param.parse(self.text())
        except ParamError as exc:
            return str(exc)
        return None

    def show_problem(self, problem: str | None) -> None:
        """Mark the field with ``problem`` (its own parse error, or a cross-check naming it)."""
        if self.edit is not None:
            mark_field(self.edit, self.error, problem)
            self.edit.setToolTip(problem or param_tooltip(self.param))
        else:
            self.error.setText(problem or "")
            self.error.setStyleSheet(ERROR_STYLE)
            self.error.setVisible(bool(problem))

    def _changed(self) -> None:
        self.show_problem(self.problem())
        self.sig_changed.emit()


class ParamForm(QWidget):
    """The generated form of one workload (``set_workload``); ``texts()`` is what to run with."""

    sig_changed = Signal()

    def __init__(self, parent: QWidget | None = None, hidden: tuple[str, ...] = ()):
        super().__init__(parent)
        self.hidden = hidden         # parameters another control sets (a campaign's repeats)
        self.workload: Workload | None = None
        self.fields: dict[str, ParamField] = {}
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._body: QWidget | None = None
        self.problem_label = QLabel()
        self.problem_label.setObjectName("param-problem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(ERROR_STYLE)
        self.problem_label.hide()
        self._box.addWidget(self.problem_label)
        self._context: list[str] = []     # what the values meet where they run (free space)

    def set_workload(self, workload: Workload | None, texts: dict[str, str] | None = None) -> None:
        """Build the fields of ``workload`` with ``texts`` (remembered values) over the defaults;
        a remembered value the plugin no longer has is dropped."""
        if self._body is not None:
            self._body.setParent(None)
            self._body.deleteLater()
        self.workload, self.fields, self._body = workload, {}, None
        self._context = []
        if workload is None:
            self._update_problem()
            return
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        own = QFormLayout()
        common = QFormLayout()
        for form in (own, common):
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        common_names = {p.name for p in COMMON_PARAMS}
        for p in workload.all_params():
            if p.name in self.hidden:
                continue
            field = ParamField(p)
            field.sig_changed.connect(self._field_changed)
            label = QLabel(param_title(p))
            label.setToolTip(param_tooltip(p))
            (common if p.name in common_names and p not in workload.params else own).addRow(label, field)
            self.fields[p.name] = field
        column.addLayout(own)
        rule = QFrame()
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)
        column.addWidget(rule)
        column.addLayout(common)
        self._box.insertWidget(0, body)
        self._body = body
        for name, text in (texts or {}).items():
            if name in self.fields:
                self.fields[name].set_text(text)
        self._update_problem()

    def texts(self) -> dict[str, str]:
        """Every parameter as text (what the CLI's ``--param`` would be given)."""
        return {name: f.text() for name, f in self.fields.items()}

    def changed_texts(self) -> dict[str, str]:
        """Only the parameters that differ from the plugin's default (worth remembering)."""
        return {name: f.text() for name, f in self.fields.items() if f.text() != f.default_text()}

    def set_texts(self, texts: dict[str, str]) -> None:
        for name, text in texts.items():
            if name in self.fields:
                self.fields[name].set_text(text)

    def reset(self) -> None:
        for f in self.fields.values():
            f.set_text(f.default_text())

    def problems(self) -> list[str]:
        """Field problems first (the plugin's own words), then the workload's cross-checks."""
        out = [p for p in (f.problem() for f in self.fields.values()) if p]
        if out or self.workload is None:
            return out
        try:
            self.workload.resolve(self.texts())
        except ParamError as exc:
            return [str(exc)]
        return list(self._context)

    def set_context_problems(self, problems: list[str]) -> None:
        """Problems of the values where they will run (a step larger than a target's free
        space), shown as cross-checks are: one that starts with a parameter's name marks its
        field. They count as problems until set again."""
        if problems != self._context:
            self._context = list(problems)
            self._update_problem()

    def values(self) -> dict[str, Any]:
        """The checked values (raises ParamError like ``Workload.resolve``)."""
        if self.workload is None:
            raise ParamError("choose a workload")
        return self.workload.resolve(self.texts())

    def _field_changed(self) -> None:
        self._update_problem()
        self.sig_changed.emit()

    def _update_problem(self) -> None:
        """Cross-parameter problems: one that starts with a parameter's name ('options: fio
        refuses …') marks that parameter's field, as its own parse errors do; the rest show under
        the form."""
        fields_bad = any(f.problem() for f in self.fields.values())
        cross = [] if fields_bad or self.workload is None else self.cross_problems() or list(self._context)
        for field in self.fields.values():       # a cross-check that went away unmarks its field
            field.show_problem(field.problem())
        general = []
        for text in cross:
            name = text.split(":", 1)[0].strip()
            field = self.fields.get(name)
            if field is not None and ":" in text:
                field.show_problem(text)
            else:
                general.append(text)
        self.problem_label.setText("\n".join(general))
        self.problem_label.setVisible(bool(general))

    def cross_problems(self) -> list[str]:
        """The workload's own cross-checks (``Workload.check``) of the current texts, one by one."""
        if self.workload is None:
            return []
        try:
            values = {p.name: p.parse(self.texts()[p.name]) if p.name in self.fields else p.parse(p.default)
                      for p in self.workload.all_params()}
        except ParamError as exc:
            return [str(exc)]
        return list(self.workload.check(values))

"""The exact gluster commands for the current volume, selectable, with a copy button."""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from ....core.gluster_cli import command_lines
from ....core.plan import PlanResult
from ...frame.session import Session


class CommandsPanel(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFont("DejaVu Sans Mono", 9))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.copy = QPushButton("Copy commands")
        self._shown: tuple = ()
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        row.addWidget(self.copy)
        box = QVBoxLayout(self)
        box.addWidget(self.text)
        box.addLayout(row)
        self.copy.clicked.connect(self.copy_to_clipboard)
        session.sig_plan_changed.connect(self.show_plan)
        self.show_plan(session.plan)

    def command_text(self) -> str:
        return self.text.toPlainText()

    def show_plan(self, plan: PlanResult | None) -> None:
        if plan is None:
            self._shown = ()
            self.text.setPlainText("")
            self.note.setText(self.session.plan_problem)
            return
        if plan.shown_commands != self._shown or not plan.commands:
            self._shown = plan.shown_commands
            if plan.commands:
                self.text.setPlainText("\n".join(command_lines(plan.shown_commands)) + "\n")
            else:  # nothing runnable is offered while gluster refuses a step
                what = "this volume" if plan.refused else "a step of this volume"
                self.text.setPlainText(f"# No commands: gluster refuses {what}.\n"
                                       f"# {plan.errors[0].message if plan.errors else ''}\n")
        self.copy.setEnabled(bool(plan.commands))
        if plan.errors:
            self.note.setText(f"gluster would refuse {'the create command' if plan.refused else 'a step'}: "
                              f"{plan.errors[0].message}")
        elif plan.needs_force and not plan.volume.force:
            self.note.setText("gluster refuses this without force; tick force in the Layout panel to add it.")
        elif plan.commands:
            mounts = sum(c.key.startswith("mount:") for c in plan.mount_commands)
            self.note.setText(f"{len(plan.commands)} command(s), all run on {plan.commands[0].host}"
                              " (the topology's first node), as provisioning runs them"
                              + (f"; then {mounts} mount(s) on the clients." if mounts else "."))

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.command_text())

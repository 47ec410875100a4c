"""The "Provision" tab: a volume's plan as a dry run first, then run step by step, or torn down.

The steps and their checks are ``remote/provision.py`` and ``remote/teardown.py`` (the same
ones ``brickyard provision`` / ``brickyard teardown`` run); this view only shows them and runs
them through the ``RemoteBridge``:

1. "Show plan" builds the plan on a snapshot of the topology and lists every step with the
   exact commands, quoted as the CLI's ``--dry-run`` prints them. Nothing runs remotely.
2. What gluster would have asked about (``plan.questions``) must be acknowledged before
   "Provision" is enabled (the CLI's ``--yes``).
3. A run fills the status column step by step (waiting, running, done, skipped, failed, left)
   and the log; Cancel kills the running command. The summary says what was done, what is
   left and how to undo it. A re-run skips what is done already.
4. "Tear down…" asks for the volume's name to be typed (``teardown_dialog``), then runs the
   teardown in the same table.

An unknown host key met on the way is shown for the user to trust once (then the same run
starts again); a changed key is explained and refused.
"""

from __future__ import annotations

import re
import time
from html import escape

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QGroupBox, QHeaderView, QLabel, QPlainTextEdit, QProgressBar, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from ...core.topology import Topology
from ...remote import commandline
from ...remote.hostkeys import HostKeyChanged, HostKeyError, UnknownHostKey
from ...remote.loop import Cancelled
from ...remote.provision import ProvisionPlan, provision_plan
from ...remote.steps import DONE, FAILED, PENDING, PLANNED, RUNNING, SKIPPED, RunReport, Step, dry_run
from ...remote.teardown import teardown_plan
from ..frame.bridge import FutureWatcher, QtProgress, RemoteBridge
from ..frame.session import Session
from ..widgets.make import STRETCH, button, check_box, combo_box, hbox, named, splitter, wrapped_label
from . import hostkey_dialog, teardown_dialog
from .runtable import WrapDelegate, fill_volumes, set_status, snapshot

WAITING, LEFT, STOPPED = "waiting", "left", "stopped"
STATUS_WORDS = {PLANNED: "planned", WAITING: "waiting", RUNNING: "running…", DONE: "done", SKIPPED: "skipped",
                FAILED: "FAILED", LEFT: "left", STOPPED: "stopped"}
STATUS_COLOURS = {PLANNED: "#455a64", WAITING: "#607d8b", RUNNING: "#1565c0", DONE: "#2e7d32",
                  SKIPPED: "#00695c", FAILED: "#c62828", LEFT: "#ef6c00", STOPPED: "#757575"}
STATUS_FILLS = {PLANNED: "#eceff1", WAITING: "#f5f5f5", RUNNING: "#e3f2fd", DONE: "#e8f5e9",
                SKIPPED: "#e0f2f1", FAILED: "#ffebee", LEFT: "#fff3e0", STOPPED: "#f5f5f5"}
HOST, STEP, STATUS, DETAIL = range(4)
HARD_CANCEL_MS = 20_000  # a step that ignores the cancel this long is abandoned (its task cancelled)
OK_STYLE, ERROR_STYLE = "color: #1b5e20;", "color: #b00020;"
# the labels of RunReport.summary()'s lines, shown in bold
_LABEL = re.compile(r"^(done \(\d+\)|already done, skipped \(\d+\)|left \(\d+\)|to undo [^:]*)$")


def _wraps(index: QModelIndex) -> bool:
    """A step's command lines (spanning the row) and the Detail column (a failure's reason)."""
    return (index.column() == HOST and index.parent().isValid()) or index.column() == DETAIL


class ProvisionView(QWidget):
    """The "Provision" tab."""

    sig_status = Signal(str)
    """One line for the main window's status bar."""
    sig_finished = Signal(object)
    """RunReport | None after each provision or teardown run (None: it stopped without a report)."""

    def __init__(self, session: Session, bridge: RemoteBridge, parent: QWidget | None = None,
                 topology_path=None):
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        # () -> the open topology's file or None (untitled): named in a failed run's undo hint
        self.topology_path = topology_path or (lambda: None)
        self.plan: ProvisionPlan | None = None
        self.report: RunReport | None = None
        self.watcher: FutureWatcher | None = None
        self._plan_topo: Topology | None = None
        self._plan_fstab = False
        self._relay: QtProgress | None = None
        self._rows: list[QTreeWidgetItem] = []
        self._last_run: tuple | None = None  # (action, topo, volume, fstab, steps) to run again after a trust
        self._refused: set[str] = set()
        self._action = ""

        self.volume_box = combo_box("volume", 160)
        self.fstab_box = check_box("fstab line on clients", "fstab",
                                   "Also add each client mount to /etc/fstab (teardown removes the line again)")
        self.plan_button = button("Show plan", "plan", "List every step and command for this volume. Nothing runs.")
        self.run_button = button("Provision", "provision")
        self.cancel_button = button("Cancel", "cancel")
        self.teardown_button = button("Tear down…", "teardown", "Unmount, stop and delete the volume; remove only "
                                      "the brick directories Brickyard created. Asks you to type the volume name "
                                      "first.")
        self.copy_button = button("Copy as text", "copy")
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m steps")
        self.summary = wrapped_label("Show the plan of a volume to see every command before anything runs.",
                                     "summary", selectable=True)
        self.summary_text = self.summary.text()  # what the summary says as plain text (the label may be rich)

        self.questions = named(QGroupBox("gluster would ask before creating this volume"), "questions")
        self.question_text = wrapped_label(selectable=True)
        self.ack_box = check_box("I have read these and want gluster to go ahead (--mode=script)", "acknowledge")
        qbox = QVBoxLayout(self.questions)
        qbox.addWidget(self.question_text)
        qbox.addWidget(self.ack_box)
        self.questions.hide()

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._mono = mono
        self.tree = QTreeWidget()
        self.tree.setObjectName("steps")
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Host", "Step", "Status", "Detail"])
        self.tree.setUniformRowHeights(False)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(HOST, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(STEP, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(STATUS, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setColumnWidth(HOST, 150)
        self.tree.setColumnWidth(STEP, 440)
        self.tree.setItemDelegate(WrapDelegate(self.tree, _wraps))
        header.sectionResized.connect(lambda index, _old, _new: index == DETAIL and self.tree.doItemsLayout())
        self.log = QPlainTextEdit()
        self.log.setObjectName("log")
        self.log.setReadOnly(True)
        self.log.setFont(mono)
        self.log.setMaximumBlockCount(5000)
        self.log.setPlaceholderText("The log of a run appears here.")
        split = splitter(Qt.Orientation.Vertical, (self.tree, 3), (self.log, 1))

        top = hbox(QLabel("Volume:"), self.volume_box, self.fstab_box, self.plan_button, self.run_button,
                  self.cancel_button, STRETCH, self.copy_button, self.teardown_button)
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addWidget(self.progress)  # its own row: a wider button row would squeeze the docks
        box.addWidget(self.summary)
        box.addWidget(self.questions)
        box.addWidget(split, 1)

        self.plan_button.clicked.connect(lambda: self.show_plan())
        self.run_button.clicked.connect(lambda: self.provision())
        self.cancel_button.clicked.connect(self.cancel)
        self.teardown_button.clicked.connect(lambda: self.ask_teardown())
        self.copy_button.clicked.connect(self.copy_text)
        self.ack_box.toggled.connect(lambda _: self._update_buttons())
        self.volume_box.currentIndexChanged.connect(lambda _: self._choice_changed())
        self.fstab_box.toggled.connect(lambda _: self._choice_changed())
        session.sig_topology_replaced.connect(self._topology_replaced)
        session.sig_model_changed.connect(self._model_changed)
        session.sig_volume_selected.connect(self._volume_selected)
        self._fill_volumes()
        self._update_buttons()

    # ---- choosing ------------------------------------------------------------------
    def _fill_volumes(self) -> None:
        fill_volumes(self.volume_box, self.session.topo, self.volume_box.currentData() or self.session.volume_name)

    def selected_volume(self) -> str | None:
        return self.volume_box.currentData() or None

    def _volume_selected(self, name: str) -> None:
        if name and not self.running and self.volume_box.findData(name) >= 0:
            self.volume_box.setCurrentIndex(self.volume_box.findData(name))

    def _choice_changed(self) -> None:
        if self.plan is not None and (self.plan.volume.name, self._plan_fstab) != (
                self.selected_volume(), self.fstab_box.isChecked()):
            self._forget_plan("Show the plan again for this choice.")

    def _topology_replaced(self) -> None:
        self._fill_volumes()
        if not self.running:
            self.tree.clear()
            self._rows.clear()
            self.report = None
            self._forget_plan("A different topology is open: show the plan of one of its volumes.")

    def _model_changed(self, _changes: list) -> None:
        names = [self.volume_box.itemData(i) for i in range(self.volume_box.count())]
        if names != [v.name for v in self.session.topo.volumes]:
            self._fill_volumes()
        if self.plan is not None and not self.running and not self._plan_is_current():
            self._forget_plan("The topology changed since the plan was shown: show the plan again.")

    def _plan_is_current(self) -> bool:
        """The canvas still gives the same steps (moving a node on the canvas changes nothing)."""
        try:
            now = provision_plan(self.session.topo, self.plan.volume.name, fstab=self._plan_fstab)
        except ValueError:
            return False
        return _fingerprint(now) == _fingerprint(self.plan)

    def _forget_plan(self, why: str) -> None:
        self.plan = None
        self.questions.hide()
        self._say(why)
        self._update_buttons()

    # ---- the dry run ---------------------------------------------------------------
    def show_plan(self) -> bool:
        """Build the plan on a snapshot and list its steps and commands (False: refused)."""
        if self.running:
            return False
        volume = self.selected_volume()
        if volume is None:
            self._say("Nothing to provision: the topology has no volume yet.", error=True)
            return False
        topo = snapshot(self.session.topo)
        fstab = self.fstab_box.isChecked()
        self.plan, self.report = None, None
        self.questions.hide()
        try:
            plan = provision_plan(topo, volume, fstab=fstab)
        except ValueError as exc:  # ProvisionError, TopologyError: the planner says why
            self.tree.clear()
            self._rows.clear()
            self._say(f"Volume {volume} cannot be provisioned: {exc}", error=True)
            self.sig_status.emit(f"Provision: {volume} refused")
            self._update_buttons()
            return False
        self.plan, self._plan_topo, self._plan_fstab = plan, topo, fstab
        self._fill_rows(plan.steps, PLANNED, commands=True)
        hosts = len({s.host for s in plan.steps})
        questions = plan.questions
        self.ack_box.setChecked(False)
        if questions:
            self.question_text.setText("\n".join(f"• {q}" for q in questions))
            self.questions.show()
        text = (f"Dry run of {volume}: {len(plan.steps)} steps on {hosts} hosts, every command below; "
                "nothing has run. Commands run as root (through sudo -n when the SSH user is not root).")
        self._say(text + (" Read what gluster would ask, tick to accept, then Provision." if questions
                          else " Provision runs them, skipping what is already done."))
        self.sig_status.emit(f"Provision: plan of {volume} shown, nothing run")
        self._update_buttons()
        return True

    def _fill_rows(self, steps: list[Step], status: str, commands: bool = False) -> None:
        self.tree.clear()
        self._rows = []
        scripts: dict[str, str] = {}
        lines = [[commandline.ssh_line(step.host, argv, scripts) for argv in step.commands] for step in steps]
        if scripts:     # the scripts first, named, so every step below reads as what it does
            helpers = QTreeWidgetItem(["Brickyard's scripts the steps below run: a line NAME var=VALUE runs the "
                                       "script NAME with that value in that variable (fixed text; the values are "
                                       "passed as quoted data)"])
            self.tree.addTopLevelItem(helpers)
            helpers.setFirstColumnSpanned(True)
            bold = helpers.font(HOST)
            bold.setBold(True)
            for name, body in scripts.items():
                heading = QTreeWidgetItem([commandline.script_heading(name)])
                heading.setFont(HOST, bold)
                heading.setToolTip(HOST, heading.text(HOST))
                helpers.addChild(heading)
                heading.setFirstColumnSpanned(True)
                for text in body.strip().splitlines():
                    line = QTreeWidgetItem([text])
                    line.setFont(HOST, self._mono)
                    heading.addChild(line)
                    line.setFirstColumnSpanned(True)
                # each script's name and purpose in view, its text one click away: expanded,
                # the two scripts' 18 lines pushed every step below the fold at 1600x900
                heading.setExpanded(False)
            helpers.setExpanded(commands)
        for step, texts in zip(steps, lines):
            row = QTreeWidgetItem([step.host, step.title, "", ""])
            row.setToolTip(STEP, step.title)
            self.tree.addTopLevelItem(row)
            self._style(row, status)
            for text in texts:
                line = QTreeWidgetItem([text])
                line.setToolTip(HOST, text)
                line.setFont(HOST, self._mono)
                line.setForeground(HOST, QBrush(QColor("#37474f")))
                row.addChild(line)
                line.setFirstColumnSpanned(True)
            row.setExpanded(commands)
            self._rows.append(row)
        self.progress.setRange(0, max(1, len(steps)))
        self.progress.setValue(0)

    def _style(self, row: QTreeWidgetItem, status: str, detail: str | None = None) -> None:
        set_status(row, STATUS, status, STATUS_WORDS[status], STATUS_COLOURS[status], STATUS_FILLS[status])
        if detail is not None:
            row.setText(DETAIL, detail)
            row.setToolTip(DETAIL, detail)

    # ---- running -------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.watcher is not None and not self.watcher.finished

    def _update_buttons(self) -> None:
        running = self.running
        self.progress.setVisible(running)  # idle, the summary says how the last run went
        questions = self.plan.questions if self.plan is not None else []
        ready = self.plan is not None and not running and (not questions or self.ack_box.isChecked())
        self.run_button.setEnabled(ready)
        if self.plan is None:
            self.run_button.setToolTip("Show the plan first: every command is listed before anything runs")
        elif questions and not self.ack_box.isChecked():
            self.run_button.setToolTip("Acknowledge what gluster would ask first")
        else:
            self.run_button.setToolTip("Run the plan over SSH, step by step (already-done steps are skipped)")
        self.ack_box.setEnabled(not running)
        for widget in (self.plan_button, self.volume_box, self.fstab_box):
            widget.setEnabled(not running)
        self.teardown_button.setEnabled(not running and self.selected_volume() is not None)
        self.cancel_button.setEnabled(running)
        self.copy_button.setEnabled(not running and (self.plan is not None or self.report is not None))

    def provision(self) -> bool:
        """Run the shown plan (False: no plan, questions not acknowledged, or already running)."""
        if self.plan is None or self.running or self._plan_topo is None:
            return False
        if self.plan.questions and not self.ack_box.isChecked():
            return False
        self._refused.clear()
        return self._start("provision", self._plan_topo, self.plan.volume.name, self._plan_fstab, self.plan.steps)

    def ask_teardown(self) -> bool:
        """Ask for the typed confirmation, then tear the chosen volume down (False: not confirmed)."""
        volume = self.selected_volume()
        if self.running or volume is None:
            return False
        topo = snapshot(self.session.topo)
        try:
            steps = teardown_plan(topo, volume)
        except ValueError as exc:
            self._say(f"Volume {volume} cannot be torn down: {exc}", error=True)
            return False
        if not steps:
            self._say(f"Volume {volume} has no bricks: there is nothing to tear down.", error=True)
            return False
        if not teardown_dialog.confirm_teardown(volume, steps, self):
            self.sig_status.emit(f"Teardown of {volume} not confirmed: nothing was run")
            return False
        self._refused.clear()
        return self._start("teardown", topo, volume, False, steps)

    def _start(self, action: str, topo: Topology, volume: str, fstab: bool, steps: list[Step]) -> bool:
        try:
            services = self.bridge.services
        except Exception as exc:  # e.g. an SSH config file that does not exist
            self._say(f"Cannot reach hosts: {exc}", error=True)
            return False
        relay = QtProgress(self)
        relay.sig_item.connect(lambda event, r=relay: self._step_event(r, event))
        relay.sig_log.connect(lambda line, r=relay: r is self._relay and self._log(line))
        relay.sig_progress.connect(lambda _f, text, r=relay: r is self._relay and text and self._say(
            f"{'Provisioning' if action == 'provision' else 'Tearing down'} {volume}: {text}"))

        item = relay.item   # the loop thread gets the GuiCall, never the relay (it may be deleted)

        def on_step(index: int, outcome) -> None:
            item((index, outcome))

        try:
            if action == "provision":
                path = self.topology_path()
                future = services.provision(topo, volume, relay.progress, fstab=fstab, on_step=on_step,
                                            topology_file=str(path) if path else None)
            else:
                future = services.teardown(topo, volume, relay.progress, on_step=on_step)
        except (ValueError, RuntimeError) as exc:  # the plan is refused now, or the loop thread is gone
            self._say(f"Cannot start: {exc}", error=True)
            return False
        self._relay, self._action, self.report = relay, action, None
        if action == "teardown":  # the table shows the teardown now: Provision needs its plan shown again
            self.plan = None
            self.questions.hide()
        self._last_run = (action, topo, volume, fstab, steps)
        self._fill_rows(steps, WAITING)
        self._log(f"--- {action} {volume} started {time.strftime('%H:%M:%S')}: {len(steps)} steps ---")
        self.watcher = self.bridge.watch(future, f"{'provisioning' if action == 'provision' else 'teardown'} of {volume}")
        self.watcher.sig_done.connect(self._finished)
        self.watcher.sig_failed.connect(self._failed)
        self.watcher.sig_cancelled.connect(self._abandoned)   # bound: never called once this view is gone
        self._say(f"{'Provisioning' if action == 'provision' else 'Tearing down'} {volume} over SSH…")
        self.sig_status.emit(f"{action.capitalize()} of {volume} started")
        self._update_buttons()
        return True

    def _step_event(self, relay: QtProgress, event: tuple) -> None:
        index, outcome = event
        if relay is not self._relay or not 0 <= index < len(self._rows):
            return
        self._show_outcome(self._rows[index], outcome.status, outcome.message)
        finished = sum(1 for r in self._rows if r.data(STATUS, Qt.ItemDataRole.UserRole) in (DONE, SKIPPED, FAILED))
        self.progress.setValue(finished)
        if outcome.status == RUNNING:
            self.tree.scrollToItem(self._rows[index])

    def _show_outcome(self, row: QTreeWidgetItem, status: str, message: str) -> None:
        if status == SKIPPED:
            # "already in the trusted pool" stands alone; "exists already …" gets the words
            detail = message if message.startswith("already") else \
                f"already done: {message}" if message else "already done"
        elif status == RUNNING:
            detail = ""
        else:
            detail = message
        self._style(row, status, detail)

    def cancel(self) -> None:
        """Kill the running step's commands; the run stops and reports what was done."""
        if not self.running or self._relay is None:
            return
        self._relay.cancel()
        self._say("Cancelling: the running command is being stopped…")
        watcher = self.watcher
        QTimer.singleShot(HARD_CANCEL_MS, self,   # with this view as context: never fires once it is gone
                          lambda: watcher is self.watcher and self.running and watcher.cancel())

    def _finished(self, report: RunReport) -> None:
        self._relay = None
        self.report = report
        for row, outcome in zip(self._rows, report.outcomes):
            status = LEFT if outcome.status == PENDING else outcome.status
            self._show_outcome(row, status, outcome.message or ("not reached" if status == LEFT else ""))
            if status == FAILED:
                row.setExpanded(True)
                self.tree.scrollToItem(row)
        self.progress.setValue(sum(1 for o in report.outcomes if o.status in (DONE, SKIPPED)))
        if report.ok:
            done = sum(1 for o in report.outcomes if o.status == DONE)
            skipped = sum(1 for o in report.outcomes if o.status == SKIPPED)
            verb = "provisioned" if report.action == "provision" else "torn down"
            lines = [f"{report.subject} {verb}: {done} steps done, {skipped} already done (skipped).", *report.notes]
        else:
            lines = report.summary()
        if self.plan is not None and not self._plan_is_current():  # edited while it ran
            self.plan = None
            lines.append("The topology changed during the run: show the plan again before provisioning.")
        self._say_report(lines, report.ok)
        self._log(f"--- {report.action} {report.subject}: {'finished' if report.ok else 'stopped'} ---")
        self.sig_status.emit(f"{report.action.capitalize()} of {report.subject}: "
                             + ("finished" if report.ok else "stopped, see the summary"))
        self._update_buttons()
        self.sig_finished.emit(report)
        failed = report.failed
        if failed is not None and isinstance(failed.error, HostKeyError):
            self._host_key(failed.error, failed.step.host)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, HostKeyError):
            name = self._machine_name(exc.host)
            state = "has CHANGED (refused)" if isinstance(exc, HostKeyChanged) else "is not known yet"
            self._stopped(f"stopped at a host key: the key of {name} {state} ({getattr(exc, 'fingerprint', '?')})")
            self._host_key(exc, name)
        elif isinstance(exc, Cancelled):
            self._stopped("cancelled")
        else:
            self._stopped(f"stopped: {exc}")

    def _abandoned(self) -> None:
        self._stopped("stopped: the run was abandoned after Cancel")

    def _stopped(self, why: str) -> None:
        self._relay = None
        for row in self._rows:
            status = row.data(STATUS, Qt.ItemDataRole.UserRole)
            if status in (WAITING, RUNNING):
                self._style(row, LEFT if status == WAITING else STOPPED, "not reached" if status == WAITING
                            else "interrupted: it may or may not have finished")
        self._say(f"The {self._action} {why}. Show the plan and run again: finished steps are skipped.", error=True)
        self._log(f"--- {self._action} {why} ---")
        self.sig_status.emit(f"{self._action.capitalize()} {why}")
        self._update_buttons()
        self.sig_finished.emit(None)

    # ---- host keys -----------------------------------------------------------------
    def _machine_name(self, host: str) -> str:
        """The topology's name for the SSH host an error names (its address, or its name)."""
        topo = self._last_run[1] if self._last_run is not None else self.session.topo
        for machine in (*topo.nodes, *topo.clients):
            if host in (machine.name, machine.ssh_host):
                return machine.name
        return host

    def _host_key(self, err: HostKeyError, name: str) -> None:
        if isinstance(err, HostKeyChanged):
            hostkey_dialog.show_changed(err, self)
            return
        if not isinstance(err, UnknownHostKey):
            return
        # every host met with an unknown key before the first step: one question for all of them
        errors = [err, *err.others]
        names = [name, *(self._machine_name(e.host) for e in err.others)]
        trusted, refused = hostkey_dialog.ask_unless_refused(errors, names, self._refused, self)
        if not trusted and not refused:  # every one refused earlier in this round: not asked again
            return
        if refused:
            self._say_report([*self.summary_text.splitlines(),
                              f"The host key of {', '.join(refused)} was not trusted: nothing runs there."], False)
            return
        trusted_names = [n for e, n in zip(errors, names) if e in trusted]
        self.sig_status.emit(f"Stored the host key of {', '.join(trusted_names)}; running the {self._action} again")
        if self._last_run is not None:
            self._start(*self._last_run)

    # ---- output --------------------------------------------------------------------
    def _say(self, text: str, error: bool = False, ok: bool = False) -> None:
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setText(text)
        self.summary_text = text
        self.summary.setStyleSheet(ERROR_STYLE if error else OK_STYLE if ok else "")

    def _say_report(self, lines: list[str], ok: bool) -> None:
        """A run's summary: the verdict first and coloured, then done / left / undo, each labelled."""
        parts = []
        for i, line in enumerate(lines):
            if i == 0:
                parts.append(f"<b style='color:{'#1b5e20' if ok else '#b00020'}'>{escape(line, quote=False)}</b>")
                continue
            label, sep, rest = line.partition(": ")
            if sep and _LABEL.match(label):
                parts.append(f"<b>{escape(label, quote=False)}:</b> {escape(rest, quote=False)}")
            else:
                parts.append(escape(line, quote=False))
        self.summary.setStyleSheet("")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setText("<br>".join(parts))
        self.summary_text = "\n".join(lines)

    def _log(self, line: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")
        bar = self.log.verticalScrollBar()
        bar.setValue(bar.maximum())  # follow the run

    def text(self) -> str:
        """The shown plan as the CLI's dry run prints it, or the last run's summary and log."""
        if self.report is not None:
            return "\n".join([*self.report.summary(), "", self.log.toPlainText()])
        if self.plan is not None:
            notes = [f"gluster would ask: {q}" for q in self.plan.questions]
            return "\n".join(commandline.dry_run_lines(dry_run("provision", self.plan.volume.name,
                                                               self.plan.steps, notes)))
        return ""

    def copy_text(self) -> None:
        text = self.text()
        if text:
            QGuiApplication.clipboard().setText(text)
            self.sig_status.emit("Copied to the clipboard")


def _fingerprint(plan: ProvisionPlan) -> tuple:
    return (tuple((s.key, s.host, tuple(map(tuple, s.commands))) for s in plan.steps), tuple(plan.questions))

"""Pre-flight as a checklist view: every host of the topology (or of one volume), its checks,
filled in host by host while they run.

The checks themselves are ``remote/preflight.py`` (the same ones ``brickyard preflight`` runs);
this view only starts them through the ``RemoteBridge``, shows each host's row as its result
arrives, and handles what only a person can decide: an unknown host key is shown with its
fingerprint for the user to trust once (then the checks simply run again); a changed key is
explained and refused. A run can be cancelled at any time; the remote commands are killed.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QHeaderView, QLabel, QProgressBar, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ...core.edits import record_free_space
from ...remote.hostkeys import HostKeyChanged, UnknownHostKey
from ...remote.loop import Cancelled
from ...remote.preflight import FAIL, OK, WARN, HostChecks, PreflightReport, preflight_hosts
from ..frame.bridge import FutureWatcher, QtProgress, RemoteBridge
from ..frame.session import Session
from ..widgets.make import STRETCH, button, combo_box, hbox, wrapped_label
from . import hostkey_dialog
from .runtable import WrapDelegate, set_status, snapshot

PENDING, CANCELLED = "checking", "cancelled"
STATUS_WORDS = {OK: "OK", WARN: "WARN", FAIL: "FAIL", PENDING: "checking…", CANCELLED: "cancelled"}
STATUS_COLOURS = {OK: "#2e7d32", WARN: "#ef6c00", FAIL: "#c62828", PENDING: "#607d8b", CANCELLED: "#9e9e9e"}
STATUS_FILLS = {OK: "#e8f5e9", WARN: "#fff3e0", FAIL: "#ffebee", PENDING: "#eceff1", CANCELLED: "#f5f5f5"}
ALL_HOSTS = ""
DETAIL = 2


class PreflightView(QWidget):
    """The "Pre-flight" tab."""

    sig_status = Signal(str)
    """One line for the main window's status bar."""
    sig_finished = Signal(object)
    sig_provision = Signal(str)
    """str: the volume a pre-flight with nothing failed found ready: show its provisioning plan."""
    """PreflightReport | None after each run (None: cancelled or failed)."""

    def __init__(self, session: Session, bridge: RemoteBridge, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self.report: PreflightReport | None = None
        self.watcher: FutureWatcher | None = None
        self._relay: QtProgress | None = None
        self._rows: dict[str, QTreeWidgetItem] = {}
        self._refused: set[str] = set()  # fingerprints refused during this round of runs
        self._scope_volume = ALL_HOSTS

        self.scope = combo_box("scope", 220)
        self.run_button = button("Run pre-flight", "run", "Check every host over SSH (F5). Only read-only commands run.")
        self.cancel_button = button("Cancel", "cancel")
        self.copy_button = button("Copy as text", "copy")
        # after 'Ready to provision.' the next step is one click, not a trip to the Cluster menu
        self.provision_button = button("Provision…", "provision", "Show this volume's provisioning plan on the "
                                       "Provision tab (nothing runs until you press Provision there)")
        self.provision_button.hide()
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setMaximumWidth(260)
        self.summary = wrapped_label("Checks each server and client over SSH before anything is created: access, "
                                     "sudo, gluster and glusterd, peers, brick paths, free space, clock, client "
                                     "tools.", "summary", selectable=True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("checks")
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Host / check", "Result", "Detail"])
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setAlternatingRowColors(False)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setColumnWidth(0, 300)
        self.tree.setItemDelegate(WrapDelegate(self.tree, lambda index: index.column() == DETAIL))
        header.sectionResized.connect(lambda index, _old, _new: index == DETAIL and self.tree.doItemsLayout())

        top = hbox(QLabel("Check:"), self.scope, self.run_button, self.cancel_button, self.progress,
                  self.provision_button, STRETCH, self.copy_button)
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addWidget(self.summary)
        box.addWidget(self.tree, 1)

        self.run_button.clicked.connect(lambda: self.run())
        self.cancel_button.clicked.connect(self.cancel)
        self.copy_button.clicked.connect(self.copy_report)
        self.provision_button.clicked.connect(lambda: self.sig_provision.emit(self._scope_volume))
        QShortcut(QKeySequence(Qt.Key.Key_F5), self, activated=lambda: self.run())
        session.sig_topology_replaced.connect(self._topology_replaced)
        session.sig_model_changed.connect(self._model_changed)
        session.sig_volume_selected.connect(self._volume_selected)
        self._fill_scope()
        self._set_running(False)

    # ---- scope ----------------------------------------------------------------------
    def _fill_scope(self) -> None:
        wanted = self.scope.currentData() if self.scope.count() else (self.session.volume_name or ALL_HOSTS)
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem("All hosts in the topology", ALL_HOSTS)
        for volume in self.session.topo.volumes:
            self.scope.addItem(f"Volume {volume.name}: its servers, bricks and clients", volume.name)
        index = self.scope.findData(wanted)
        self.scope.setCurrentIndex(max(0, index))
        self.scope.blockSignals(False)

    def selected_volume(self) -> str | None:
        return self.scope.currentData() or None

    def _volume_selected(self, name: str) -> None:
        if name and not self.running:
            index = self.scope.findData(name)
            if index >= 0:
                self.scope.setCurrentIndex(index)

    def _topology_replaced(self) -> None:
        self._fill_scope()
        if not self.running:
            self.tree.clear()
            self._rows.clear()
            self.report = None
            self.progress.reset()
            self.summary.setText("A different topology is open: run pre-flight for it.")

    def _model_changed(self, changes: list) -> None:
        names = [self.scope.itemData(i) for i in range(1, self.scope.count())]
        if names != [v.name for v in self.session.topo.volumes]:
            self._fill_scope()
        if self.report is not None and not self.running:
            self.summary.setText(self._summary_text(self.report) + " The topology changed since: run again.")

    # ---- running --------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.watcher is not None and not self.watcher.finished

    def _set_running(self, running: bool) -> None:
        self.progress.setVisible(running)  # idle, the summary line says how it went
        self.run_button.setEnabled(not running)
        self.scope.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.copy_button.setEnabled(not running and self.report is not None)
        ready = (not running and self.report is not None and bool(self._scope_volume)
                 and not any(h.status == FAIL for h in self.report.hosts))
        self.provision_button.setVisible(ready)

    def run(self, *, keep_refusals: bool = False) -> bool:
        """Start the checks (False: already running, or nothing to check)."""
        if self.running:
            return False
        if not keep_refusals:
            self._refused.clear()
        volume = self.selected_volume()
        # the loop thread works on a snapshot: the user may keep editing while checks run
        topo = snapshot(self.session.topo)
        if volume is not None and topo.volume(volume) is None:
            self._fill_scope()
            volume = None
        hosts = preflight_hosts(topo, volume)
        if not hosts:
            self.summary.setText("Nothing to check: the topology has no nodes or clients yet."
                                 if volume is None else f"Volume {volume} has no bricks or mounts yet.")
            return False
        try:
            services = self.bridge.services
        except Exception as exc:  # e.g. an SSH config file that does not exist
            self.summary.setText(f"Cannot reach hosts: {exc}")
            return False
        self._scope_volume = volume or ALL_HOSTS
        self.report = None
        self._fill_pending(hosts)
        relay = QtProgress(self)
        relay.sig_item.connect(lambda hc, r=relay: self._host_done(r, hc))
        self._relay = relay
        try:
            future = services.preflight(topo, volume, on_host=relay.item)
        except RuntimeError as exc:  # the loop thread is gone (window closing)
            self.summary.setText(f"Cannot start: {exc}")
            return False
        self.watcher = self.bridge.watch(future, "pre-flight checks")
        self.watcher.sig_done.connect(self._finished)
        self.watcher.sig_failed.connect(self._failed)
        self.watcher.sig_cancelled.connect(self._cancelled)
        self._set_running(True)
        where = f"volume {volume}" if volume else "the whole topology"
        self.summary.setText(f"Checking {len(hosts)} hosts of {where} over SSH…")
        self.sig_status.emit(f"Pre-flight: checking {len(hosts)} hosts")
        return True

    def cancel(self) -> None:
        if self.running and self.watcher is not None:
            self.watcher.cancel()

    def _fill_pending(self, hosts: list[tuple[str, str]]) -> None:
        self.tree.clear()
        self._rows.clear()
        for name, role in hosts:
            row = QTreeWidgetItem([f"{name}  ({role})", "", "waiting for SSH…"])
            self._style_row(row, PENDING, bold=True)
            self.tree.addTopLevelItem(row)
            self._rows[name] = row
        self.progress.setRange(0, len(hosts))
        self.progress.setValue(0)
        self.progress.setFormat("%v of %m hosts")

    def _host_done(self, relay: QtProgress, hc: HostChecks) -> None:
        if relay is not self._relay:  # a late row from a cancelled or earlier run
            return
        self._show_host(hc)
        self.progress.setValue(sum(1 for r in self._rows.values() if r.data(1, Qt.ItemDataRole.UserRole) != PENDING))

    def _show_host(self, hc: HostChecks) -> None:
        row = self._rows.get(hc.host)
        if row is None:
            return
        row.takeChildren()
        if hc.status == OK:
            detail = f"all {len(hc.checks)} checks passed"
        else:
            parts = []
            for status, word in ((FAIL, "failed"), (WARN, "warning")):
                names = [c.name for c in hc.checks if c.status == status]
                if names:
                    count = f"{len(names)} {word}" + ("s" if word == "warning" and len(names) > 1 else "")
                    parts.append(f"{count}: {', '.join(names)}")
            detail = "; ".join(parts)
        row.setText(2, detail)
        row.setToolTip(2, detail)
        self._style_row(row, hc.status, bold=True)
        for check in hc.checks:
            child = QTreeWidgetItem([check.name, "", check.message])
            child.setToolTip(2, check.message)
            self._style_row(child, check.status)
            row.addChild(child)
        row.setExpanded(hc.status != OK)

    def _style_row(self, row: QTreeWidgetItem, status: str, bold: bool = False) -> None:
        set_status(row, 1, status, STATUS_WORDS[status], STATUS_COLOURS[status], STATUS_FILLS[status])
        if bold:
            name_font = QFont(row.font(0))
            name_font.setBold(True)
            row.setFont(0, name_font)

    def _finished(self, report: PreflightReport) -> None:
        # what it measured goes into the topology (one undoable step), before the report is
        # shown, so this edit does not mark the report out of date
        recorded = record_free_space(self.session.topo, report.free_space(), report.finished)
        if recorded is not None and not self.session.push(recorded):
            recorded = None
        self.report = report
        for hc in report.hosts:
            self._show_host(hc)
        self.progress.setValue(self.progress.maximum())
        self._set_running(False)
        text = self._summary_text(report)
        if recorded is not None:
            text += (f" Free space measured on {len(recorded.parts)} brick(s): the Capacity panel shows it as "
                     "free now (Ctrl+Z forgets it).")
        self.summary.setText(text)
        self.sig_status.emit("Pre-flight: " + self._summary_text(report))
        self.sig_finished.emit(report)
        self._handle_host_keys(report)

    def _failed(self, exc: BaseException) -> None:
        self._mark_pending(CANCELLED, "not checked: pre-flight stopped")
        self._set_running(False)
        if isinstance(exc, Cancelled):
            self.summary.setText("Pre-flight cancelled.")
        else:
            self.summary.setText(f"Pre-flight stopped: {exc}")
        self.sig_finished.emit(None)

    def _cancelled(self) -> None:
        self._mark_pending(CANCELLED, "not checked: cancelled (its SSH commands were stopped)")
        self._set_running(False)
        done = sum(1 for r in self._rows.values() if r.data(1, Qt.ItemDataRole.UserRole) not in (PENDING, CANCELLED))
        self.summary.setText(f"Pre-flight cancelled after {done} of {len(self._rows)} hosts.")
        self.sig_status.emit("Pre-flight cancelled")
        self.sig_finished.emit(None)

    def _mark_pending(self, status: str, text: str) -> None:
        self._relay = None
        for row in self._rows.values():
            if row.data(1, Qt.ItemDataRole.UserRole) == PENDING:
                row.setText(2, text)
                self._style_row(row, status, bold=True)

    def _summary_text(self, report: PreflightReport) -> str:
        n = len(report.hosts)
        by = {s: [h.host for h in report.hosts if h.status == s] for s in (OK, WARN, FAIL)}
        text = f"{n} hosts: {len(by[OK])} ok, {len(by[WARN])} with warnings, {len(by[FAIL])} failed."
        if by[FAIL]:
            text += f" Fix {', '.join(by[FAIL])} before provisioning."
        elif by[WARN]:
            text += " Ready to provision; read the warnings first."
        else:
            text += " Ready to provision."
        return text

    # ---- host keys ------------------------------------------------------------------
    def _handle_host_keys(self, report: PreflightReport) -> None:
        unknown: dict[str, tuple[str, UnknownHostKey]] = {}
        for hc in report.hosts:
            err = hc.host_key_error
            if isinstance(err, HostKeyChanged):
                hostkey_dialog.show_changed(err, self)
            elif isinstance(err, UnknownHostKey):
                unknown.setdefault(f"{err.lookup} {err.fingerprint}", (hc.host, err))
        chosen, _ = hostkey_dialog.ask_unless_refused([e for _, e in unknown.values()],
                                                      [n for n, _ in unknown.values()], self._refused, self)
        if chosen:
            self.sig_status.emit(f"Stored {len(chosen)} host key(s) in Brickyard's known_hosts; checking again")
            self.run(keep_refusals=True)

    # ---- output ---------------------------------------------------------------------
    def copy_report(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.report.text())
            self.sig_status.emit("Pre-flight report copied")


"""The "Run" tab: benchmark the volume from the window, watch it, keep it in history.

Left, what to run: the targets (``targets.TargetsPanel``: the volume's client mounts and any
baselines), the workload from the registry (built-ins and third-party plugins alike; a plugin
that failed to load is listed greyed with its error) and its parameter form generated from the
plugin's ``Param``s (``param_form``; values remembered per workload), the physics bound and
save-to-history. Right, what happens (``live.LivePanel``).

Start turns the choice into ``bench.request.BenchRequest``s — one for the ticked mounts (they
run together), then one per ticked baseline — and hands them to ``batch.BatchRunner``, which
runs them one after another on the SSH loop thread (and writes them to the history store as
they are measured); this view shows what its signals say. Cancel stops the running one (its
agents kill their workers and remove the run's files) and drops the rest. When a saved run
ends, ``sig_show_in_history`` asks the window to open it in History over the earlier runs of
the same volume and workload.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QScrollArea, QSplitter, QVBoxLayout, QWidget)

from ...bench import registry
from ...bench.api import ParamError
from ...bench.hostlock import HostBusy, HostLocks
from ...bench.lines import step_line
from ...bench.room import Room, room_problems
from ...bench.request import BenchRequest, HostsUnreachable, run_outcome, topology_nics, volume_servers
from ...core.plan import plan_volume
from ...core.results import RunResult
from ...core.units import UnitError, format_link_speed, parse_link_rate
from ...remote.hostkeys import HostKeyChanged, HostKeyError, UnknownHostKey
from ..cluster import hostkey_dialog
from ..cluster.runtable import snapshot
from ..frame.bridge import RemoteBridge
from ..frame.session import Session
from ..planner.panels.fields import mark_field
from .batch import BatchRunner
from .live import LivePanel
from .param_form import ParamForm
from .targets import TargetsPanel

TICK_MS = 250             # elapsed / remaining / live throughput refresh while running


class RunView(QWidget):
    """The Run tab. ``store`` is a callable giving the history store (opened on first use)."""

    sig_status = Signal(str)
    """One line for the main window's status bar."""
    sig_show_in_history = Signal(list)
    """list[str]: the saved runs of a batch, to open in History over the earlier runs of the same
    volume (a baseline: the same target) and workload."""
    sig_batch_finished = Signal(list)
    """list[RunResult]: every run of the batch that Start began, in order (cancelled ones too)."""

    def __init__(self, session: Session, bridge: RemoteBridge, store: Callable[[], Any] | None = None,
                 settings=None, entries: Callable[[], list] | None = None, locks: HostLocks | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self._store = store
        self.settings = settings
        self._discover = entries or registry.discover
        self.locks = locks or HostLocks()
        self.entries: list[registry.PluginEntry] = []
        self.runner = BatchRunner(bridge, self._workload_of, store=store, locks=self.locks, parent=self)
        self._refused: set[str] = set()    # hosts whose key the user refused during this batch
        self.last_saved_runs: list[str] = []

        self.targets = TargetsPanel(session, settings)
        self.workload_box = QComboBox()
        self.workload_box.setObjectName("run-workload")
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Look for workload plugins again (entry points and the user plugins folder)")
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.broken = QLabel()
        self.broken.setObjectName("run-broken")
        self.broken.setWordWrap(True)
        self.broken.setStyleSheet("color: #b00020;")
        self.broken.hide()
        self.form = ParamForm()
        self.defaults_button = QPushButton("Defaults")
        self.defaults_button.setToolTip("Put every parameter back to the plugin's default")
        self.link_edit = QLineEdit()
        self.link_edit.setObjectName("run-link")
        self.link_edit.setToolTip("The network's limit for the physics check: steps faster than this are flagged "
                                  "'cache-effect-suspected'. Empty: read on each client host (the topology's NIC speed "
                                  "where the OS gives none). Or type one for every client: 1Gbit, 10Gbit, 117MB/s.")
        self.link_edit.setPlaceholderText("detect on each client")
        self.link_error = QLabel()
        self.link_error.hide()
        self.link_hint = QLabel()
        self.link_hint.setObjectName("run-link-hint")
        self.link_hint.setWordWrap(True)
        self.link_hint.setStyleSheet("color: #555;")
        self.save_box = QCheckBox("Save to history")
        self.save_box.setObjectName("run-save")
        self.save_box.setChecked(True)
        self.save_box.setToolTip("Every step is written to the history database as it is measured")
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("run-start")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("run-cancel")
        self.history_button = QPushButton("Show in History")
        self.history_button.setObjectName("run-history")
        self.message = QLabel()
        self.message.setObjectName("run-message")
        self.message.setWordWrap(True)
        self.hint = QLabel()
        self.hint.setObjectName("run-hint")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #8a6d00;")
        self.live = LivePanel()

        targets_box = QGroupBox("Targets")
        QVBoxLayout(targets_box).addWidget(self.targets)
        workload_box = QGroupBox("Workload")
        wl = QVBoxLayout(workload_box)
        row = QHBoxLayout()
        row.addWidget(self.workload_box, 1)
        row.addWidget(self.defaults_button)
        row.addWidget(self.reload_button)
        wl.addLayout(row)
        wl.addWidget(self.description)
        wl.addWidget(self.broken)
        wl.addWidget(self.form)
        run_box = QGroupBox("Run")
        rl = QFormLayout(run_box)
        link = QVBoxLayout()
        link.setSpacing(1)
        link.addWidget(self.link_edit)
        link.addWidget(self.link_error)
        link.addWidget(self.link_hint)
        rl.addRow("Link (physics bound):", link)
        rl.addRow(self.save_box)
        setup = QWidget()
        column = QVBoxLayout(setup)
        column.addWidget(targets_box)
        column.addWidget(workload_box)
        column.addWidget(run_box)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(setup)
        # Start/Cancel and what they say stay under the form, in sight however long it grows
        # (at 1600x900 the dd form pushed them below the scroll area's edge)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.history_button)
        left = QWidget()
        left.setMinimumWidth(440)
        pane = QVBoxLayout(left)
        pane.setContentsMargins(0, 0, 0, 0)
        pane.addWidget(scroll, 1)
        pane.addLayout(buttons)
        pane.addWidget(self.hint)
        pane.addWidget(self.message)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.live)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([470, 1000])
        QVBoxLayout(self).addWidget(split)

        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.workload_box.currentIndexChanged.connect(lambda _i: self._workload_chosen())
        self.reload_button.clicked.connect(self.reload_workloads)
        self.defaults_button.clicked.connect(self.form.reset)
        self.form.sig_changed.connect(self._form_changed)
        self.targets.sig_changed.connect(self._targets_changed)
        self.targets.sig_add_mount_requested.connect(self.add_mount)
        self.link_edit.textChanged.connect(lambda _t: self._targets_changed())
        self.start_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.history_button.clicked.connect(lambda: self.last_saved_runs and
                                            self.sig_show_in_history.emit(list(self.last_saved_runs)))
        self.runner.sig_run_started.connect(self._run_started)
        self.runner.sig_step.connect(self._step)
        self.runner.sig_log.connect(self._log)
        self.runner.sig_run_done.connect(self._run_done)
        self.runner.sig_run_failed.connect(self._run_failed)
        self.runner.sig_host_key.connect(self._host_key)
        self.runner.sig_problem.connect(lambda text: self._say(text, error=True))
        self.runner.sig_batch_done.connect(self._batch_done)
        self.reload_workloads()
        self._targets_changed()

    # ---- workloads -----------------------------------------------------------------------
    def reload_workloads(self) -> None:
        wanted = self.workload_name() or str(self._setting("run/workload", "dd"))
        self.entries = self._discover()
        self.workload_box.blockSignals(True)
        self.workload_box.clear()
        model: QStandardItemModel = self.workload_box.model()
        for entry in self.entries:
            if entry.ok:
                self.workload_box.addItem(f"{entry.name} — {entry.workload.title or entry.name}", entry.name)
            else:
                self.workload_box.addItem(f"{entry.name} — broken plugin", entry.name)
                item = model.item(self.workload_box.count() - 1)
                item.setEnabled(False)
                item.setToolTip(f"{entry.source}: {entry.error}")
        ok = [i for i, e in enumerate(self.entries) if e.ok]
        index = next((i for i in ok if self.entries[i].name == wanted), ok[0] if ok else -1)
        self.workload_box.setCurrentIndex(index)
        self.workload_box.blockSignals(False)
        broken = [e for e in self.entries if not e.ok]
        self.broken.setText("\n".join(f"{e.name} could not be loaded ({e.source}): {e.error}" for e in broken))
        self.broken.setVisible(bool(broken))
        self._workload_chosen()

    def measure_baselines(self, baselines: list, workload: str, texts: dict[str, str]) -> bool:
        """Run ``workload`` with ``texts`` (the rest at the plugin's defaults) on ``baselines``
        only, each a run of its own saved to history: the welcome view's "Benchmark this
        machine". The tab shows it as if chosen by hand. False: refused (the message says why)."""
        if self.running:
            self._say("A run is going on: wait for it or cancel it first.", error=True)
            return False
        if not self.select_workload(workload):
            self._say(f"The {workload} workload is not installed or did not load: see the Workload box.", error=True)
            return False
        self._keep_remembered = True        # the user's saved parameters stay theirs: this sweep is not them
        try:
            self.form.reset()
            self.form.set_texts(texts)
        finally:
            self._keep_remembered = False
        self.targets.tick_only(baselines)
        self.save_box.setChecked(True)
        return self.start()

    def workload_name(self) -> str:
        return self.workload_box.currentData() or ""

    def entry(self) -> registry.PluginEntry | None:
        name = self.workload_name()
        return next((e for e in self.entries if e.name == name and e.ok), None)

    def _workload_of(self, name: str):
        return next((e for e in self.entries if e.name == name and e.ok), None).workload

    def select_workload(self, name: str) -> bool:
        index = self.workload_box.findData(name)
        if index < 0 or not self.entries[index].ok:
            return False
        self.workload_box.setCurrentIndex(index)
        return True

    def _workload_chosen(self) -> None:
        entry = self.entry()
        if entry is None:
            self.description.setText("No workload is installed." if not self.entries else "")
            self.form.set_workload(None)
        else:
            self.description.setText(entry.workload.description or entry.workload.title)
            remembered = self._setting(f"run/params/{entry.name}", "{}")
            try:
                texts = json.loads(str(remembered or "{}"))
            except ValueError:
                texts = {}
            self.form.set_workload(entry.workload, texts if isinstance(texts, dict) else {})
            self._set_setting("run/workload", entry.name)
        self._update_buttons()

    def _form_changed(self) -> None:
        entry = self.entry()
        if entry is not None and not getattr(self, "_keep_remembered", False):
            self._set_setting(f"run/params/{entry.name}", json.dumps(self.form.changed_texts()))
        self._update_buttons()

    def add_mount(self, volume: str = "") -> tuple[str, str, str] | None:
        """Mount ``volume`` on a client (or a new one) through the window's mount editor: an
        undoable topology edit, ticked here at once (None: cancelled or refused)."""
        from ..planner.editors import run_mount_dialog

        added = run_mount_dialog(self.session, self, volume=volume or self.targets.volume())
        if added is not None:
            self.targets.select_volume(added[0])
            self.sig_status.emit(f"{added[0]} mounted on {added[1]} at {added[2]} (Ctrl+Z on the Planner undoes it)")
        return added

    # ---- link ----------------------------------------------------------------------------
    def link_choice(self) -> float | None:
        """The link speed typed for every client (bytes/s), or None: detect it on each host.
        Raises UnitError for text that is not a speed."""
        text = self.link_edit.text().strip()
        return parse_link_rate(text) if text else None

    def _targets_changed(self) -> None:
        try:
            bps = self.link_choice()
            mark_field(self.link_edit, self.link_error, None)
        except UnitError as exc:
            mark_field(self.link_edit, self.link_error, str(exc))
            self._update_buttons()
            return
        if bps is not None:
            self.link_hint.setText(f"Every client host is checked against {format_link_speed(bps)}.")
        else:
            hosts = [t.host for t in self.targets.mount_targets()] + [b.spec.host for b in self.targets.baseline_targets()]
            nics = topology_nics(self.session.topo, hosts)
            fallback = (" Where the OS says nothing, or only a virtual device's nominal speed, the topology's NIC "
                        "speed: "
                        + ", ".join(f"{h} {format_link_speed(v)}" for h, v in nics.items()) + "." if nics else
                        " The topology gives no NIC speed to fall back on.")
            self.link_hint.setText("Empty: each client's link is read on the host at the start of the run (the device "
                                   "on the route to the servers)." + fallback)
        self._update_buttons()

    # ---- starting ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.runner.running

    def requests(self) -> list[BenchRequest]:
        """What Start would run, in order (raises ValueError saying what is missing)."""
        entry = self.entry()
        if entry is None:
            raise ValueError("choose a workload that loaded")
        problems = self.form.problems()
        if problems:
            raise ValueError("; ".join(problems))
        link = self.link_choice()
        texts = self.form.texts()
        topo = self.session.topo
        out = []
        mounts = self.targets.mount_targets()
        if mounts:
            volume = self.targets.volume()
            servers = volume_servers(topo, volume)
            hosts = [t.host for t in mounts]
            out.append(BenchRequest(entry.name, texts, tuple(mounts), tuple(servers), link, volume,
                                    label=f"{volume} on {', '.join(hosts)}", link_hints=topology_nics(topo, hosts)))
        for baseline in self.targets.baseline_targets():
            out.append(BenchRequest(entry.name, texts, (baseline.spec,), (), link, "", label=baseline.label(),
                                    link_hints=topology_nics(topo, [baseline.spec.host])))
        if not out:
            raise ValueError("tick a client mount of the volume or a baseline to measure")
        return out

    def rooms(self) -> list[Room]:
        """The free space the ticked targets write into, as far as the window knows it: the
        volume's (measured by pre-flight or import, else its usable size when empty), shared by
        its ticked clients, and each local directory's file system. Other hosts' baselines are
        not known until the run."""
        out = []
        mounts = self.targets.mount_targets()
        volume = self.targets.volume() if mounts else ""
        if volume:
            session = self.session
            if session.volume_name == volume and session.plan is not None:
                capacity = session.plan.capacity
            else:
                found = next((v for v in session.topo.volumes if v.name == volume), None)
                capacity = plan_volume(session.topo, found).capacity if found is not None else None
            if capacity is not None and capacity.free_now_bytes is not None:
                out.append(Room(volume, capacity.free_now_bytes, f"measured {capacity.free_measured}".strip(),
                                len(mounts)))
            elif capacity is not None and capacity.usable_bytes:
                out.append(Room(volume, capacity.usable_bytes, "its usable size when empty", len(mounts)))
        for baseline in self.targets.baseline_targets():
            path = Path(baseline.spec.path)
            if baseline.spec.is_local and path.is_dir():
                try:
                    free = shutil.disk_usage(path).free
                except OSError:
                    continue
                out.append(Room(str(path), free, "its file system now"))
        return out

    def _check_room(self) -> None:
        """Mark the field (dd's size) when a step would not fit where it writes."""
        workload = self.form.workload
        problems: list[str] = []
        if workload is not None and not self.running:
            try:
                values = workload.resolve(self.form.texts())
            except ParamError:
                values = None
            if values is not None:
                problems = room_problems(workload, values, self.rooms())
        self.form.set_context_problems(problems)

    def _update_buttons(self) -> None:
        running = self.running
        self._check_room()
        try:
            self.requests()
            problem = ""
        except (ValueError, UnitError) as exc:
            problem = str(exc)
        self.start_button.setEnabled(not running and not problem)
        self.start_button.setToolTip(problem or "Run the workload on the ticked targets")
        self.cancel_button.setEnabled(running)
        self.history_button.setEnabled(bool(self.last_saved_runs) and not running)
        for widget in (self.targets, self.workload_box, self.form, self.defaults_button, self.reload_button,
                       self.link_edit, self.save_box):
            widget.setEnabled(not running)
        self.hint.setText(problem if not running else "")
        self.hint.setVisible(bool(problem) and not running)

    def start(self) -> bool:
        """Run what the form says (False: refused, the message says why)."""
        if self.running:
            return False
        try:
            batch = self.requests()
        except (ValueError, UnitError) as exc:
            self._say(str(exc), error=True)
            return False
        try:
            self.bridge.services
        except Exception as exc:  # noqa: BLE001 - e.g. an SSH config file that does not exist
            self._say(f"Cannot reach hosts: {exc}", error=True)
            return False
        self._refused.clear()
        self.live.clear()
        self.live.log.clear()
        self._say("")
        return self.runner.start(batch, snapshot(self.session.topo), self.save_box.isChecked())

    def _run_started(self, request: BenchRequest) -> None:
        self.live.begin_run(request.label)
        self._log(f"--- {request.describe()}: {request.workload} "
                  + " ".join(f"{k}={v}" for k, v in self.form.changed_texts().items()) + " ---")
        self.timer.start()
        self.sig_status.emit(f"Run started: {request.describe()}")
        self._update_buttons()
        self._tick()

    # ---- while it runs --------------------------------------------------------------------
    def _step(self, request: BenchRequest | None, step) -> None:
        self.live.add_step(request.label if request else "", step)
        self._log(step_line(step))

    def _tick(self) -> None:
        if not self.running:
            return
        now = self.runner.now()
        if now is None:
            return
        if now.fresh is not None and now.fresh.live_bps is not None:
            self.live.rate.add(now.elapsed, now.fresh.live_bps)
        ev, label = now.event, now.request.label
        step, steps = (ev.step_index, ev.step_total) if ev is not None else (0, 0)
        fraction = ev.fraction if ev is not None else now.fraction
        doing = (ev.label if ev is not None else now.text) or "starting agents"
        if ev is None and now.waiting_for:
            self.live.set_state("running", f"{label}: waiting its turn — {now.waiting_for}. "
                                "It starts when the host is free (one benchmark at a time per host); Cancel gives up.")
        elif steps:
            self.live.show_progress(now.run_no, now.runs, step, steps, fraction, now.elapsed, f"{label}: {doing}")
        else:
            self.live.set_state("running", f"{label}: {doing}")

    def cancel(self) -> None:
        """Stop the running run (its workers are killed, its files removed) and drop the rest."""
        if not self.runner.cancel():
            return
        self._say("Cancelling: the workers are being stopped and the run's files removed…")
        self._log("cancel asked")

    # ---- the end --------------------------------------------------------------------------
    def _run_done(self, request: BenchRequest, run: RunResult, unsaved: str) -> None:
        self.timer.stop()
        self.live.flush()
        outcome = run_outcome(run)
        self.live.show_outcome(outcome, request.label)
        self._log(f"--- {request.label}: {outcome.text}" + (f" ({run.error})" if run.error and run.error not in outcome.text else "") + " ---")
        if unsaved:
            self._say(unsaved, error=True)
        self.sig_status.emit(f"Run {request.label}: {outcome.kind}")

    def _run_failed(self, request: BenchRequest, exc: BaseException) -> None:
        self.timer.stop()
        if isinstance(exc, HostBusy) and self.runner.cancelled:
            self.live.set_state("cancelled", f"{request.label}: cancelled while waiting its turn — {exc}")
            self._log(f"--- {request.label}: cancelled while waiting: {exc} ---")
            return
        what = str(exc) if isinstance(exc, (HostsUnreachable, ParamError, HostBusy)) else f"{type(exc).__name__}: {exc}"
        self.live.set_state("failed", f"{request.label}: not run — {what}")
        self._log(f"--- {request.label}: not run: {what} ---")

    def _host_key(self, request: BenchRequest, err: HostKeyError) -> None:
        self.timer.stop()
        if isinstance(err, HostKeyChanged):
            self.live.set_state("failed", f"{request.label}: not run — the host key of {err.host} has CHANGED")
            hostkey_dialog.show_changed(err, self)
            self.runner.give_up()
            return
        errors = [err, *getattr(err, "others", [])] if isinstance(err, UnknownHostKey) else []
        trusted, refused = hostkey_dialog.ask_unless_refused(errors, [e.host for e in errors], self._refused, self)
        if refused or not trusted:
            self.live.set_state("failed", f"{request.label}: not run — the host key of "
                                f"{', '.join(refused) or err.host} was not trusted")
            self.runner.give_up()
            return
        self.sig_status.emit(f"Stored the host key of {', '.join(e.host for e in trusted)}; starting the run again")
        self.runner.retry(request)

    def _batch_done(self, results: list[RunResult]) -> None:
        self.timer.stop()
        self.live.idle()
        if self.runner.cancelled and self.message.text().startswith("Cancelling"):
            self._say("")          # the workers have stopped: the run's state says how it ended
        if results:
            batch = self.runner.batch
            lines = [f"{batch[i].label}: {run_outcome(r).text}" for i, r in enumerate(results)]
            if len(results) > 1:
                self.live.set_state(self._worst([run_outcome(r).kind for r in results]), " · ".join(lines))
            saved = [r.run_id for r in results if any("stall" not in s.flags for s in r.steps)]
            self.last_saved_runs = saved if self.save_box.isChecked() and self._store is not None else []
            if saved and self.last_saved_runs:
                # a clean batch opens in History; one that ended badly stays here, its state on show
                if all(run_outcome(r).kind == "complete" for r in results):
                    self.sig_show_in_history.emit(saved)
        self._update_buttons()
        self.sig_batch_finished.emit(list(results))

    @staticmethod
    def _worst(kinds: list[str]) -> str:
        order = ("failed", "stalled", "partial", "cancelled", "complete")
        return next((k for k in order if k in kinds), "complete")

    # ---- output ----------------------------------------------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b00020;" if error else "")

    def _log(self, line: str) -> None:
        self.live.add_log(line)

    def _setting(self, key: str, default: Any) -> Any:
        return self.settings.value(key, default) if self.settings is not None else default

    def _set_setting(self, key: str, value: Any) -> None:
        if self.settings is not None:
            self.settings.setValue(key, value)

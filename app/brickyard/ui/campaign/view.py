"""The "Campaign" tab: the same benchmarks on several layouts of the same bricks, as one job
you start, watch, pause, cancel and resume — and the decision table it ends with.

A campaign comes from the Compare layouts table (tick layouts there, "Campaign with ticked
layouts…"; then pick workloads here: ``setup.CampaignSetup``), from a campaign file ("Open
campaign file…", what ``brickyard campaign FILE`` runs), or from the history database
("Resume" lists the campaigns that did not finish: paused, interrupted by a closed window, a
lost host, Ctrl-C or SIGKILL in a terminal).

It runs through ``campaign.CampaignRunner`` — the very service the CLI drives — on the SSH
loop thread; its events arrive here through the bridge (``bridge.GuiCall``) and fill the grid
(``grid.CampaignGrid``: layout × workload, plus pre-flight, provision and teardown), the
overall progress and time remaining, the current cell's live chart and the log. "Pause" stops
after the running step (a provisioned volume stays for the resume); "Cancel" stops now and
tears down every volume the campaign provisioned. At the end the decision table of its
cells opens (``decision_view.DecisionView``).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (QFileDialog, QGroupBox, QLabel, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton,
                               QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget)

from ...bench.request import executor_lookup
from ...campaign import CampaignError, CampaignEvent, CampaignFileError, CampaignRunner, CampaignSpec, load
from ...campaign.dryrun import questions
from ...campaign.results import campaign_table
from ...campaign.state import BASELINE, C_COMPLETE, C_PAUSED, CELL, DONE, RUNNING, CampaignState
from ...core.topology import Layout, Topology, Volume
from ...core.units import format_rate
from ...remote.hostkeys import HostKeyChanged, HostKeyError, UnknownHostKey
from ..cluster import hostkey_dialog
from ..frame.bridge import FutureWatcher, GuiCall, RemoteBridge
from ..run.charts import RunChart
from ..run.live import STATE_COLOURS, clock
from ..widgets.make import button, check_box, combo_box, hbox, splitter, vstack, wrapped_label
from .decision_view import DecisionView
from .grid import CampaignGrid, cell_headline
from .setup import CampaignSetup

TICK_MS = 500


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class _Events(QObject):
    """Campaign events from the loop thread as GUI-thread signals; the frequent live-progress
    events are only kept (``latest``) for the view's timer."""

    sig_event = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._event = GuiCall(self, "sig_event")   # dropped on the GUI thread if this view is gone
        self._lock = threading.Lock()
        self._latest: CampaignEvent | None = None

    def __call__(self, event: CampaignEvent) -> None:       # on the loop thread
        if event.kind == "run-progress":
            with self._lock:
                self._latest = event
            return
        self._event(event)

    def latest(self) -> CampaignEvent | None:
        with self._lock:
            event, self._latest = self._latest, None
        return event


class CampaignView(QWidget):
    sig_status = Signal(str)
    sig_finished = Signal(object)
    """CampaignState at the end of each session (complete, paused, cancelled, failed, interrupted)."""

    def __init__(self, bridge: RemoteBridge, store: Callable[[], Any], entries: Callable[[], list] | None = None,
                 runner_class: type[CampaignRunner] = CampaignRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.bridge = bridge
        self._store = store
        self.runner_class = runner_class
        self.live_volumes: Callable[[], dict[str, list]] = dict   # the window says which volumes exist
        self.spec: CampaignSpec | None = None
        self.runner: CampaignRunner | None = None
        self.state: CampaignState | None = None
        self.watcher: FutureWatcher | None = None
        self._events: _Events | None = None
        self._refused: set[str] = set()
        self._last: CampaignEvent | None = None

        self.setup = CampaignSetup(entries)
        self.file_label = wrapped_label("", "campaign-file")
        self.file_label.hide()
        self.open_button = QPushButton("Open campaign file…")
        self.save_button = QPushButton("Save as file…")
        self.save_button.setToolTip("Write the campaign as a file `brickyard campaign FILE` runs")
        self.resume_box = combo_box("campaign-unfinished")
        self.resume_button = button("Resume", "campaign-resume")
        self.questions = QGroupBox("gluster would ask before creating these layouts")
        self.question_text = wrapped_label()
        self.ack_box = check_box("I have read these and want gluster to go ahead for every layout", "campaign-ack")
        qbox = QVBoxLayout(self.questions)
        qbox.addWidget(self.question_text)
        qbox.addWidget(self.ack_box)
        self.questions.hide()
        self.start_button = button("Start campaign", "campaign-start")
        self.pause_button = button("Pause after this step", "campaign-pause")
        self.cancel_button = button("Cancel and tear down", "campaign-cancel")
        self.message = wrapped_label("", "campaign-message")

        self.state_label = wrapped_label("No campaign yet: tick layouts in Compare layouts, or open a campaign file.",
                                         "campaign-state")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p %")
        self.grid = CampaignGrid()
        self.chart = RunChart()
        self.cell_label = wrapped_label()
        self.log = QPlainTextEdit()
        self.log.setObjectName("campaign-log")
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(10000)
        self.decision = DecisionView()
        self.decision.sig_status.connect(self.sig_status)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(vstack(self.cell_label, (self.chart, 1)), "Current cell")
        self.tabs.addTab(self.log, "Log")
        self.tabs.addTab(self.decision, "Decision table")

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addLayout(hbox(self.open_button, self.save_button))
        lv.addLayout(hbox(QLabel("Unfinished:"), (self.resume_box, 1), self.resume_button))
        lv.addWidget(self.file_label)
        lv.addWidget(self.setup)
        lv.addWidget(self.questions)
        lv.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(left)
        scroll.setMinimumWidth(530)
        # Start, Pause and Cancel stay in sight under the form, however long it scrolls
        form_column = vstack((scroll, 1), hbox(self.start_button, self.pause_button, self.cancel_button),
                             self.message)
        # a taller or shorter column changes the tabs, not the grid
        split_right = splitter(Qt.Orientation.Vertical, (self.grid, 0), (self.tabs, 1), sizes=(330, 520))
        right = vstack(self.state_label, self.bar, (split_right, 1))
        self.split_right = split_right
        self._grid_moved = False      # the user dragged the divider: the grid keeps that height
        split_right.splitterMoved.connect(lambda *_: setattr(self, "_grid_moved", True))
        self.grid.verticalScrollBar().rangeChanged.connect(lambda *_: QTimer.singleShot(0, self._refit_grid))
        QVBoxLayout(self).addWidget(splitter(Qt.Orientation.Horizontal, form_column, (right, 1), sizes=(560, 1000)))

        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.open_button.clicked.connect(self._open_dialog)
        self.save_button.clicked.connect(self._save_dialog)
        self.resume_button.clicked.connect(lambda: self.resume(self.resume_box.currentData()))
        self.start_button.clicked.connect(lambda: self.start())
        self.pause_button.clicked.connect(self.pause)
        self.cancel_button.clicked.connect(self.ask_cancel)
        self.ack_box.toggled.connect(lambda _b: (self._update_buttons(), self._show_ready()))
        self.setup.sig_changed.connect(self._setup_changed)
        self.refresh_unfinished()
        self._update_buttons()

    # ---- where a campaign comes from ------------------------------------------------------
    def from_layouts(self, topology: Topology, volume: Volume, layouts: list[Layout], topology_path: str = "") -> None:
        """Layouts ticked in the Compare layouts table: a new campaign to finish setting up here."""
        if self.running:
            return
        self.spec = None
        self.file_label.hide()
        self.setup.show()
        self.setup.set_layouts(topology, volume, layouts, topology_path)

    def open_file(self, path: str) -> bool:
        """A campaign file, checked as ``brickyard campaign`` checks it (every problem named)."""
        try:
            spec = load(path)
        except CampaignFileError as exc:
            self._say(f"{path} cannot be used:\n" + "\n".join(f"• {p}" for p in exc.problems), error=True)
            return False
        self.spec = spec
        self.setup.hide()
        self.file_label.setText(f"<b>{spec.name}</b> from {path}<br>{spec.description}<br>"
                                f"{len(spec.layouts)} layouts × {len(spec.workloads)} workloads"
                                + (f", {len(spec.baselines)} baselines" if spec.baselines else "")
                                + f"; on failure: {spec.on_failure}")
        self.file_label.show()
        self._show_campaign(spec, None)
        self._show_ready()
        self._say(f"Opened {path}: Start runs it.")
        return True

    def refresh_unfinished(self) -> None:
        self.resume_box.clear()
        try:
            records = self._store().campaigns.list(unfinished=True) if self._store else []
        except Exception:  # noqa: BLE001 - no database yet: nothing to resume
            records = []
        for r in records:
            self.resume_box.addItem(f"{r.name} ({r.campaign_id[:12]}): {r.status}", r.campaign_id)
        self.resume_box.setEnabled(bool(records))

    def current_spec(self) -> CampaignSpec:
        return self.spec if self.spec is not None else self.setup.spec()

    def _setup_changed(self) -> None:
        if self.running:
            return
        problem = self.setup.check() if self.setup.chosen_workloads() else ""
        if not problem and self.setup.chosen_workloads() and self.setup.chosen_layouts():
            try:
                self._show_campaign(self.setup.spec(), None)
            except (CampaignFileError, ValueError):
                pass
        self._update_buttons()
        self._show_ready()

    def _show_ready(self) -> None:
        """The header says where the campaign being set up stands (not 'No campaign yet' once
        layouts are in): what is missing, or what Start will run."""
        if self.running:
            return
        if self.spec is None and self.setup.volume is None:
            self._set_state("idle", "No campaign yet: tick layouts in Compare layouts, or open a campaign file.")
            return
        layouts = len(self.spec.layouts) if self.spec is not None else len(self.setup.chosen_layouts())
        workloads = len(self.spec.workloads) if self.spec is not None else len(self.setup.chosen_workloads())
        name = self.spec.name if self.spec is not None else (self.setup.name_edit.text().strip() or "new campaign")
        if not layouts:
            self._set_state("idle", f"Campaign {name}: no layout yet — tick or add the layouts to compare.")
        elif not workloads:
            self._set_state("idle", f"Campaign {name}: {_count(layouts, 'layout')} — add the workloads to run on each "
                                    "(pick one, set its parameters, Add workload).")
        elif self._setup_problem():
            self._set_state("idle", f"Campaign {name}: {_count(layouts, 'layout')} × {_count(workloads, 'workload')}, "
                                    "cannot start — see what is wrong under the form.")
        else:
            steps = len(self.grid.steps)
            ack = " once gluster's questions below are acknowledged" if self.questions.isVisible() \
                and not self.ack_box.isChecked() else ""
            self._set_state("idle", f"Campaign {name}: {_count(layouts, 'layout')} × {_count(workloads, 'workload')}, "
                                    f"{_count(steps, 'step')} — ready to start{ack}.")

    def _show_campaign(self, spec: CampaignSpec, state: CampaignState | None) -> None:
        self.grid.set_campaign(spec, state)
        self._fit_grid()
        asked = questions(spec)
        self.ack_box.setChecked(False)
        self.questions.setVisible(bool(asked))
        # a break after each '/': gluster's questions hold long URLs, which widened the column
        self.question_text.setText("\n".join(f"• {name}: {q}" for name, qs in asked.items() for q in qs)
                                   .replace("/", "/\u200b"))
        self._update_buttons()

    # ---- running ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.watcher is not None and not self.watcher.finished

    def _setup_problem(self) -> str:
        """What stops the campaign being set up in the tab from starting ('' when nothing does;
        a campaign file's problems were said when it was opened)."""
        if self.spec is not None or not (self.setup.chosen_layouts() and self.setup.chosen_workloads()):
            return ""
        return self.setup.check()

    def _update_buttons(self) -> None:
        running = self.running
        # a set-up gluster or the campaign loader refuses does not start (the header said
        # 'ready to start' and Start was enabled under a red 'gluster refuses this layout')
        ready = not running and (self.spec is not None or (bool(self.setup.chosen_layouts())
                                                           and bool(self.setup.chosen_workloads())
                                                           and not self._setup_problem()))
        needs_ack = self.questions.isVisible() and not self.ack_box.isChecked()
        self.start_button.setEnabled(ready and not needs_ack)
        self.start_button.setToolTip("Acknowledge what gluster would ask first" if needs_ack else
                                     "Pre-flight, provision, measure and tear down each layout in turn")
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        for w in (self.setup, self.open_button, self.save_button, self.resume_box, self.resume_button, self.ack_box):
            w.setEnabled(not running)
        self.resume_button.setEnabled(not running and self.resume_box.count() > 0)
        self.save_button.setEnabled(not running and self.spec is None)

    def start(self) -> bool:
        if self.running:
            return False
        try:
            spec = self.current_spec()
        except CampaignFileError as exc:
            self._say("\n".join(f"• {p}" for p in exc.problems), error=True)
            return False
        except ValueError as exc:
            self._say(str(exc), error=True)
            return False
        if questions(spec) and not self.ack_box.isChecked():
            self._say("Read what gluster would ask for these layouts and tick to accept first.", error=True)
            return False
        held = self._bricks_held(spec)
        if held:
            self._say(held, error=True)
            self._set_state("idle", f"Campaign {spec.name}: cannot start — a volume still holds its bricks, "
                                    "see under the form.")
            return False
        store = self._store()
        busy = [r for r in store.campaigns.list(source=spec.source, unfinished=True)] if spec.source else []
        if busy and not spec.source.startswith("<"):
            self._say(f"Campaign {busy[0].campaign_id[:12]} of this file did not finish ({busy[0].status}): "
                      "resume it (Unfinished) or abandon it with `brickyard campaign FILE --abandon`.", error=True)
            return False
        return self._launch(lambda lookup, events: self.runner_class.start(spec, store, lookup,
                                                                                   on_event=events))

    def _bricks_held(self, spec) -> str:
        """A sentence when a volume on the cluster (provisioned or imported in this window)
        still holds bricks the campaign's layouts use: pre-flight would fail every layout with
        'already a brick of volume gv0', so it is refused at Start instead."""
        ours = {v.name for v in spec.layouts}
        wanted = {(b.node, b.path) for v in spec.layouts for b in v.bricks}

        def clash(node: str, path: str) -> bool:
            return any(n == node and (p == path or p.startswith(path.rstrip("/") + "/")
                                      or path.startswith(p.rstrip("/") + "/")) for n, p in wanted)

        for name, bricks in sorted(self.live_volumes().items()):
            if name in ours:
                continue
            used = [f"{b.node}:{b.path}" for b in bricks if clash(b.node, b.path)]
            if used:
                more = f" and {len(used) - 2} more" if len(used) > 2 else ""
                return (f"Volume {name} still holds the bricks this campaign uses ({', '.join(used[:2])}{more}): "
                        f"tear {name} down first (Provision tab ▸ Tear down…), then Start. Otherwise every "
                        f"layout's pre-flight fails with 'already a brick of volume {name}'.")
        return ""

    def resume(self, campaign_id: str | None) -> bool:
        if self.running or not campaign_id:
            return False
        store = self._store()
        try:
            record = store.campaigns.get(campaign_id)
            probe = self.runner_class.resume(record, None, lambda h: None)   # type: ignore[arg-type,return-value]
        except (CampaignError, CampaignFileError, KeyError, ValueError) as exc:
            self._say(f"Cannot resume {campaign_id[:12]}: {exc}", error=True)
            return False
        if store.campaigns.owner_alive(record):
            self._say(f"Campaign {campaign_id[:12]} is running now in process {record.owner_pid}.", error=True)
            return False
        self._show_campaign(probe.spec, probe.state)
        self.ack_box.setChecked(True)      # it was accepted when the campaign started
        return self._launch(lambda lookup, events: self.runner_class.resume(
            store.campaigns.get(campaign_id), store, lookup, on_event=events))

    def _launch(self, build: Callable[[Callable, Callable], CampaignRunner]) -> bool:
        try:
            services = self.bridge.services
        except Exception as exc:  # noqa: BLE001 - e.g. an SSH config file that does not exist
            self._say(f"Cannot reach hosts: {exc}", error=True)
            return False
        events = _Events(self)
        events.sig_event.connect(lambda ev, e=events: e is self._events and self._event(ev))
        holder: dict[str, Callable] = {}
        try:
            runner = build(lambda host: holder["lookup"](host), events)
        except (CampaignError, CampaignFileError, ValueError) as exc:
            self._say(f"Cannot start: {exc}", error=True)
            return False
        holder["lookup"] = executor_lookup(services.hosts(runner.spec.topology), runner.spec.topology,
                                           services.pool.executor)
        try:
            future = services.loop.submit(runner.run())
        except RuntimeError as exc:
            self._say(f"Cannot start: {exc}", error=True)
            return False
        self.runner, self.state, self._events = runner, runner.state, events
        self._show_grid(runner)
        self.log.clear()
        self._log(f"--- campaign {runner.spec.name} ({runner.state.campaign_id[:12]}): {len(runner.steps)} steps ---")
        self.watcher = self.bridge.watch(future, f"the campaign {runner.spec.name} (Resume in the Campaign tab "
                                                 "goes on from the step it stopped at)")
        self.watcher.sig_done.connect(self._done)
        self.watcher.sig_failed.connect(self._failed)
        self.watcher.sig_cancelled.connect(self._abandoned)   # bound: never called once this view is gone
        self.timer.start()
        self._set_state("running", f"Campaign {runner.spec.name}: starting…")
        self.bar.setValue(int(runner.fraction() * 1000))
        self._say("")
        self.sig_status.emit(f"Campaign {runner.spec.name} started")
        self._update_buttons()
        return True

    def _show_grid(self, runner: CampaignRunner) -> None:
        self.grid.set_campaign(runner.spec, runner.state)
        self._fit_grid()

    GRID_SHARE = 0.45    # of the right-hand column the grid may take to show every row whole

    def _fit_grid(self) -> None:
        """The grid as tall as its rows, up to GRID_SHARE of the column (beyond that it
        scrolls); the rest for the cell, log and decision table."""
        splitter = self.grid.parentWidget()
        if not isinstance(splitter, QSplitter):
            return
        self._grid_moved = False
        sizes = splitter.sizes()
        total = sum(sizes) or 850
        want = min(self.grid.rows_height(), max(int(total * self.GRID_SHARE), 120))
        if sizes and sizes[0] == want:
            return
        splitter.setSizes([want, max(200, total - want)])

    def _refit_grid(self, *_) -> None:
        """Rows grew (a failure's reason wraps; a scroll bar narrows the columns and wraps
        more): grow the grid to show them whole, unless the user moved the divider."""
        if self._grid_moved or self.grid.rowCount() == 0:
            return
        if self.grid.verticalScrollBar().maximum() > 0 or self.grid.height() < self.grid.rows_height():
            self._fit_grid()

    def pause(self) -> None:
        if self.running and self.runner is not None:
            self.runner.pause()
            self._say("Pausing: the campaign stops after the running step; Resume goes on from there.")
            self._log("pause asked")

    def ask_cancel(self) -> None:
        if not self.running:
            return
        left = ", ".join(self.runner.state.provisioned) if self.runner else ""
        answer = QMessageBox.question(
            self, "Cancel the campaign",
            "Stop the campaign now? The running step is stopped" + (f" and {left} is torn down" if left else "")
            + ". Finished cells stay in History; a cancelled campaign cannot be resumed.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        if answer == QMessageBox.StandardButton.Yes:
            self.cancel()

    def cancel(self) -> None:
        """Stop now and tear down every volume the campaign provisioned."""
        if self.running and self.runner is not None:
            self.runner.cancel(teardown=True)
            self._say("Cancelling: the running step is stopped, then what the campaign provisioned is torn down…")
            self._log("cancel asked: tearing down what the campaign provisioned")

    # ---- events ------------------------------------------------------------------------------
    def _event(self, ev: CampaignEvent) -> None:
        self._last = ev
        if ev.kind == "step" and ev.step is not None:
            cell = ev.step.kind in (CELL, BASELINE)
            headline = cell_headline(self.chart.runs[-1][1]) if cell and ev.status == DONE and self.chart.runs else ""
            self.grid.show_step(ev.step.key, ev.status, ev.message, ev.run_id, headline)
            self._refit_grid()
            if ev.status == RUNNING and cell and not ev.message.startswith("run "):
                self.chart.reset()
                self.chart.begin(ev.step.title)
                self.cell_label.setText(f"{ev.step.title}: starting")
                self.tabs.setCurrentIndex(0)
            word = ev.status if ev.status != RUNNING else "started"
            self._log(f"{ev.step.title}: {word}" + (f" — {ev.message}" if ev.message else ""))
        elif ev.kind == "run-step" and ev.detail is not None:
            self.chart.add_step(ev.detail)
        elif ev.kind == "log":
            self._log(ev.message)
        elif ev.kind == "waiting":
            self._set_state("running", f"Waiting its turn: {ev.message}. It starts when the hosts are free "
                                       "(one benchmark at a time per host); Cancel gives up.")
            self._log(ev.message)
        self._show_progress(ev)

    def _tick(self) -> None:
        ev = self._events.latest() if self._events is not None else None
        if ev is not None:
            self._last = ev
            live = getattr(ev.detail, "live_bps", None)
            label = getattr(ev.detail, "label", "")
            self.cell_label.setText(f"{ev.step.title if ev.step else ''}: {label}"
                                    + (f" · live {format_rate(live)}" if live else ""))
        if self._last is not None:
            self._show_progress(self._last)

    def _show_progress(self, ev: CampaignEvent) -> None:
        if not self.running or self.runner is None:
            return
        steps = self.runner.steps
        done = sum(1 for s in steps if self.runner.state.step(s.key).status not in ("pending", "running"))
        left = (f"about {clock(ev.remaining)} left" if ev.remaining is not None
                else "time left: after the first step")
        now = next((s.title for s in steps if self.runner.state.step(s.key).status == RUNNING), "")
        if not self.state_label.text().startswith("Waiting") or now:
            self._set_state("running", f"Campaign {self.runner.spec.name}: {done} of {len(steps)} steps · "
                                       f"{clock(ev.elapsed)} elapsed · {left}" + (f" · now: {now}" if now else ""))
        self.bar.setValue(int(ev.fraction * 1000))

    # ---- the end ---------------------------------------------------------------------------
    def _done(self, state: CampaignState) -> None:
        self.timer.stop()
        self.state = state
        self._events = None
        counts = state.counts()
        kind = {"complete": "complete", "paused": "cancelled", "cancelled": "cancelled"}.get(state.status, "failed")
        if state.status == C_COMPLETE and counts.get("failed"):
            kind = "partial"
        self._set_state(kind, f"Campaign {self.runner.spec.name}: {state.status} — {state.message}")
        self._log(f"--- campaign {state.status}: {state.message} ---")
        self.bar.setValue(1000 if state.status == C_COMPLETE else self.bar.value())
        self.show_decision()
        if state.status == C_PAUSED:
            self._say("Paused. Resume (Unfinished) goes on with the next step.")
        self.refresh_unfinished()
        index = self.resume_box.findData(state.campaign_id)
        if index >= 0:
            self.resume_box.setCurrentIndex(index)
        self.sig_status.emit(f"Campaign {self.runner.spec.name}: {state.status}")
        self._update_buttons()
        self.sig_finished.emit(state)

    def show_decision(self) -> None:
        """The decision table of the cells measured so far (every layout planned beside them)."""
        if self.runner is None:
            return
        try:
            table = campaign_table(self.runner.spec, self.runner.state, self._store(), model_check=True)
        except Exception as exc:  # noqa: BLE001 - the table is a view of history; say why it is missing
            self._log(f"decision table not built: {type(exc).__name__}: {exc}")
            return
        self.show_decision_table(table)

    def show_decision_table(self, table) -> None:
        """Show ``table`` on the Decision table tab; once it holds measurements bring it to the
        front and give it the room: the grid (its cells are done) keeps what shows its rows
        whole (failed cells' reasons make rows taller: a fixed 120 px cut the second row)."""
        self.decision.set_table(table)
        if any(r.run_ids for r in table.rows):
            self.tabs.setCurrentWidget(self.decision)
            if sum(self.split_right.sizes()) > 0:
                self._fit_grid()
            self.decision.fit_rows()

    def _abandoned(self) -> None:
        self._failed(RuntimeError("the campaign was abandoned"))

    def _failed(self, exc: BaseException) -> None:
        self.timer.stop()
        self._events = None
        if isinstance(exc, HostKeyError):
            self._host_key(exc)
            return
        self._set_state("failed", f"Campaign stopped: {exc}")
        self._log(f"--- campaign stopped: {type(exc).__name__}: {exc} ---")
        self.refresh_unfinished()
        self._update_buttons()
        self.sig_finished.emit(self.runner.state if self.runner else None)

    def _host_key(self, err: HostKeyError) -> None:
        campaign_id = self.runner.state.campaign_id if self.runner else ""
        self.refresh_unfinished()
        self._update_buttons()
        if isinstance(err, HostKeyChanged):
            self._set_state("failed", f"Campaign stopped: the host key of {err.host} has CHANGED")
            hostkey_dialog.show_changed(err, self)
            return
        errors = [err, *getattr(err, "others", [])] if isinstance(err, UnknownHostKey) else []
        trusted, refused = hostkey_dialog.ask_unless_refused(errors, [e.host for e in errors], self._refused, self)
        if refused or not trusted:
            self._set_state("failed", f"Campaign stopped: the host key of {', '.join(refused) or err.host} "
                                      "was not trusted. Resume runs it again.")
            return
        self.sig_status.emit(f"Stored the host key of {', '.join(e.host for e in trusted)}; resuming the campaign")
        self.resume(campaign_id)

    # ---- files ----------------------------------------------------------------------------
    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a campaign file", "", "Campaigns (*.campaign.json *.json)")
        if path:
            self.open_file(path)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the campaign as a file", "layouts.campaign.json",
                                              "Campaigns (*.campaign.json)")
        if path:
            try:
                self.setup.save(path)
                self._say(f"Saved {path}: `brickyard campaign {path}` runs the same campaign.")
            except (OSError, ValueError, CampaignFileError) as exc:
                self._say(f"Not saved: {exc}", error=True)

    # ---- output ----------------------------------------------------------------------------
    def _set_state(self, kind: str, text: str) -> None:
        self.state_label.setText(text)
        self.state_label.setStyleSheet(f"font-size: 12pt; font-weight: bold; color: {STATE_COLOURS.get(kind, '#222')};")

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b00020;" if error else "")

    def _log(self, line: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")

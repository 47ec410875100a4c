"""The main window: the planner canvas in a tab, its panels in docks, menus over both.

Later views (provisioning, benchmark runs, history, reports) join as tabs next to the
planner through ``add_view``; ``View > History`` opens ``brickyard.ui.history`` when that
module is installed.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (QApplication, QDockWidget, QMainWindow, QMenu, QScrollArea, QTabWidget, QVBoxLayout,
                               QWidget)

from ...core.topology import BrickRef, Topology
from ..planner.canvas.view import CanvasView
from ..planner.editors import ClientsPanel, VolumeOptionsEditor
from ..planner.panels.commands_panel import CommandsPanel
from ..planner.panels.compare_panel import ComparePanel
from ..planner.panels.inspector import Inspector
from ..planner.panels.layout_panel import LayoutPanel
from ..planner.panels.quickfill import QuickFillDialog
from ..planner.panels.verdict_panel import VerdictPanel
from ..widgets.make import menu_action
from .bridge import RemoteBridge
from .files import FileController, example_files
from .help import add_help_menu
from .session import Session
from .window_state import LAYOUT_DOCK_MIN, WindowLayout

if TYPE_CHECKING:   # the SSH layer loads with the first view that reaches a host
    from ..cluster.preflight_view import PreflightView

def _history_view(module) -> QWidget:
    """The history browser over the user's history database (``store.HistoryStore.open``)."""
    from ...store.history import HistoryStore

    return module.HistoryView(HistoryStore.open())


# Optional views: (menu text, module, function building the widget from that module).
OPTIONAL_VIEWS = (("&History", "brickyard.ui.history", _history_view),)


class MainWindow(QMainWindow):
    def __init__(self, topo: Topology | None = None, settings_path: Path | None = None,
                 autosave_dir: Path | None = None, remote: RemoteBridge | None = None):
        super().__init__()
        self.statusBar()     # made now: made by the first message, it would shrink every view by its height then
        self.remote = remote or RemoteBridge()
        self.remote.adopt(self)
        self.remote.sig_note.connect(lambda note: self.statusBar().showMessage(note, 30000))
        self.preflight: PreflightView | None = None
        self.provision_view: QWidget | None = None
        self.run_view: QWidget | None = None
        self.decision_view: QWidget | None = None
        self.campaign_view: QWidget | None = None
        self.change_view: QWidget | None = None
        self.change_history: QWidget | None = None
        # volumes this window saw exist on the cluster (provisioned here, or read by an import),
        # with their bricks: a campaign over those bricks would fail every layout's pre-flight
        self.live_volumes: dict[str, list] = {}
        self.welcome: QWidget | None = None
        self._history_store = None
        self.session = Session(topo or Topology(), self)
        self.files = FileController(self.session, self, settings_path, autosave_dir)
        self.canvas = CanvasView(self.session)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.canvas, "Planner")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.setCentralWidget(self.tabs)
        self.layout_panel = LayoutPanel(self.session)
        self.verdict = VerdictPanel(self.session)
        self.inspector = Inspector(self.session)
        self.commands = CommandsPanel(self.session)
        self.compare = ComparePanel(self.session)
        self.options_editor = VolumeOptionsEditor(self.session)
        self.clients_panel = ClientsPanel(self.session)
        self.docks: dict[str, QDockWidget] = {}
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.layout_panel)
        column.addWidget(self.verdict)
        self._dock("layout", "Layout and verdict", right, Qt.DockWidgetArea.RightDockWidgetArea)
        self.docks["layout"].setMinimumWidth(LAYOUT_DOCK_MIN)     # its form scrolls sideways below 420
        self._dock("inspector", "Inspector", self.inspector, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("commands", "Commands", self.commands, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("compare", "Compare layouts", self.compare, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("options", "Volume options", self.options_editor, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("clients", "Clients and mounts", self.clients_panel, Qt.DockWidgetArea.BottomDockWidgetArea)
        for key in ("compare", "options", "clients"):
            self.tabifyDockWidget(self.docks["commands"], self.docks[key])
        self.docks["commands"].raise_()
        self.resizeDocks([self.docks["inspector"], self.docks["layout"]], [270, 440], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["commands"]], [190], Qt.Orientation.Vertical)
        self.setAcceptDrops(True)
        self._menus()
        self.canvas.board.selectionChanged.connect(self._selection_changed)
        self.canvas.sig_rename_requested.connect(self._focus_name)
        self.canvas.sig_quick_fill_requested.connect(self.quick_fill)
        self.compare.sig_campaign_requested.connect(self.open_campaign)
        self.session.sig_edit_refused.connect(self._show_refusal)
        self.session.sig_topology_replaced.connect(self._topology_opened)
        self.session.stack.indexChanged.connect(self._clear_status)
        self.files.sig_title_changed.connect(self._set_title)
        self.files.sig_recent_changed.connect(self._fill_recent)
        self.files.sig_error.connect(self._show_file_error)
        self._set_title(self.files.title())
        self.window_layout = WindowLayout(self, self.canvas, self.files.settings)
        self.window_layout.restore()
        if self.files.settings.problem:
            self.statusBar().showMessage(self.files.settings.problem, 60000)
        self._load_connection()

    def _dock(self, key: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        """A dock for ``widget``. Side docks scroll (long forms); bottom docks hold panels that
        scroll inside (text, tables), and must not scroll as a whole: a scroll area gives a
        panel with a wrapping label its preferred height, which pushed buttons such as Copy
        commands out of sight at the default height."""
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{key}")
        if area == Qt.DockWidgetArea.BottomDockWidgetArea:
            dock.setWidget(widget)
        else:
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(widget)
            dock.setWidget(scroll)
        self.addDockWidget(area, dock)
        self.docks[key] = dock

    # ---- menus ----------------------------------------------------------------------
    def _menus(self) -> None:
        a = self.canvas.actions_by_name
        file_menu = self.menuBar().addMenu("&File")
        for text, keys, slot in (("&New", QKeySequence.StandardKey.New, self.files.new),
                                 ("&Open…", QKeySequence.StandardKey.Open, self.open_dialog),
                                 ("&Save", QKeySequence.StandardKey.Save, self.files.save),
                                 ("Save &As…", QKeySequence.StandardKey.SaveAs, self.files.save_as)):
            action = file_menu.addAction(text)
            action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _=False, s=slot: s())
        self.recent_menu = file_menu.addMenu("Open &recent")
        examples = file_menu.addMenu("Open &example")
        for path in example_files():
            action = examples.addAction(path.name.removesuffix(".brickyard.json"))
            action.triggered.connect(lambda _=False, p=path: self.files.open_example(p))
        file_menu.addSeparator()
        menu_action(file_menu, "&Export PDF…", lambda: self.export_report(), keys="Ctrl+Shift+E", name="export-report",
                    tip="The report of the tab in front: the planner's volume, the runs selected in History, a "
                        "campaign, or the decision table (PDF, or HTML for a wiki)")
        file_menu.addSeparator()
        quit_action = file_menu.addAction("&Quit")
        # the platform's Quit key is empty on plain X11 and offscreen: Ctrl+Q everywhere
        quit_action.setShortcut(QKeySequence.StandardKey.Quit if QKeySequence(QKeySequence.StandardKey.Quit).toString()
                                else QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        self._fill_recent()
        edit = self.menuBar().addMenu("&Edit")
        for name in ("undo", "redo", None, "add_site", "add_node", "add_brick", "quick_fill", "duplicate",
                     "rename", "delete", None, "add_client", "add_mount", None, "add_to_volume", "remove_from_volume",
                     None, "select_all"):
            edit.addSeparator() if name is None else edit.addAction(a[name])
        simulate = self.menuBar().addMenu("&Simulate")
        simulate.addAction(a["fail"])
        simulate.addAction(a["clear_failures"])
        cluster = self.menuBar().addMenu("&Cluster")
        menu_action(cluster, "&Pre-flight check", lambda: self.open_preflight(run=True), keys="Ctrl+Shift+P",
                    tip="Check every host over SSH before provisioning")
        menu_action(cluster, "P&rovision…", self.open_provision,
                    tip="Show the plan of a volume, then create it over SSH (or tear it down)")
        menu_action(cluster, "&Run benchmark…", self.open_run, keys="Ctrl+Shift+R",
                    tip="Benchmark the volume on its client mounts (and baselines), live, into history")
        menu_action(cluster, "Layout &campaign…", lambda: self.open_campaign(),
                    tip="The same benchmarks on several layouts of the same bricks, resumable, ending with a decision "
                        "table (add the layouts of the planned volume's bricks there, tick them in Compare layouts, "
                        "or open a campaign file)")
        menu_action(cluster, "Cali&brate throughput model…", self.open_calibration, name="calibrate-model",
                    tip="Calibrate the planner's throughput figures on stored runs (a probe run, runs of a layout) or "
                        "calibration files: every layout is then predicted, not just estimated")
        menu_action(cluster, "C&hange live volume…", lambda: self.open_change(read=True), keys="Ctrl+Shift+G",
                    name="change-volume", tip="Day two: read the running volume, edit its drawing (add servers, "
                    "retire, replace, raise redundancy), see the plan, and apply it over SSH")
        menu_action(cluster, "&Import from cluster…", self.import_from_cluster, keys="Ctrl+Shift+I")
        cluster.addSeparator()
        menu_action(cluster, "Co&nnection settings…", lambda: self.open_connection_settings(),
                    name="connection-settings", tip="How Brickyard reaches hosts over SSH: the SSH config file, keys, "
                    "default user, per-host user and port (passwords only in the OS keyring)")
        view = self.menuBar().addMenu("&View")
        for name in ("fit", "zoom_in", "zoom_out"):
            view.addAction(a[name])
        view.addSeparator()
        for dock in self.docks.values():
            view.addAction(dock.toggleViewAction())
        view.addSeparator()
        for text, module, make in OPTIONAL_VIEWS:
            action = view.addAction(text)
            action.triggered.connect(lambda _=False, t=text, m=module, f=make: self.open_optional_view(t, m, f))
        menu_action(view, "Change histor&y", lambda: self.open_change_history(), name="change-history",
                    tip="Every change made to a live volume: its steps, predicted and measured, and its record")
        menu_action(view, "&Decision table of selected runs", lambda: self.open_decision(),
                    tip="Per layout: capacity, failures survived and measured throughput of the runs selected in "
                        "History, side by side")
        add_help_menu(self)

    def _tab_changed(self, _index: int) -> None:
        """The planner's keys belong to the Planner tab; coming back to it, the canvas takes
        the keyboard unless a planner widget still has it."""
        front = self.tabs.currentWidget() is self.canvas
        self.canvas.set_in_front(front)
        if front:
            focus = QApplication.focusWidget()
            if focus is None or not focus.isVisible() or focus is self.tabs.tabBar():
                self.canvas.setFocus()

    def _topology_opened(self) -> None:
        """A file opened (File ▸ Open, a recent file, an example, an import, a dropped file):
        the Planner comes to the front and the drawing is fitted to the canvas, whatever tab
        the user was on and however the last drawing was zoomed."""
        self.tabs.setCurrentWidget(self.canvas)
        # once the tab has its size; tied to the canvas, so a window closed at once never runs it
        QTimer.singleShot(0, self.canvas, self.canvas.fit)

    def _show_refusal(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _show_file_error(self, text: str) -> None:
        self.statusBar().showMessage(text.splitlines()[0], 15000)

    def _clear_status(self, *_: object) -> None:
        self.statusBar().clearMessage()

    def _fill_recent(self, *_: object) -> None:
        menu: QMenu = self.recent_menu
        menu.clear()
        for item in self.files.recent():
            action = menu.addAction(item)
            action.triggered.connect(lambda _=False, p=item: self.files.open(p))
        menu.setEnabled(bool(menu.actions()))

    def _set_title(self, title: str) -> None:
        self.setWindowTitle(title)
        self.setWindowModified(self.files.dirty)

    # ---- views ----------------------------------------------------------------------
    def add_view(self, title: str, widget: QWidget) -> int:
        """Add a view (history, provisioning, a run) as a tab next to the planner."""
        index = self.tabs.addTab(widget, title.replace("&", ""))
        self.tabs.setCurrentIndex(index)
        return index

    def open_optional_view(self, title: str, module_name: str, make) -> QWidget | None:
        """Show the tab ``title`` (built once by ``make(module)``), or say why it cannot be."""
        plain = title.replace("&", "")
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i) == plain:
                self.tabs.setCurrentIndex(i)
                return self.tabs.widget(i)
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            self.statusBar().showMessage(f"{plain} is not part of this installation ({module_name} is missing)", 8000)
            return None
        try:
            widget = make(module)
        except Exception as exc:  # a broken optional view must not take the planner down
            from ...core import applog

            logging.getLogger("brickyard").exception("%s cannot open", plain)
            self.statusBar().showMessage(f"{plain} cannot open: {exc}. Fix what it names (a settings or database "
                                         f"file?) and open it again; details in {applog.log_path()}", 30000)
            return None
        status = getattr(widget, "sig_status", None)
        if status is not None:
            status.connect(self._show_refusal)
        changes = getattr(widget, "sig_show_changes", None)
        if changes is not None:
            changes.connect(lambda: self.open_change_history())
        self.add_view(plain, widget)
        return widget

    # ---- welcome --------------------------------------------------------------------
    def open_welcome(self) -> QWidget:
        """Show the Welcome tab (built once): benchmark this machine, an example, an import,
        a new topology, the recent files. A first start opens on it."""
        from .welcome import WelcomeView

        if self.welcome is None:
            self.welcome = WelcomeView()
            self.welcome.sig_benchmark.connect(self.benchmark_this_machine)
            self.welcome.sig_open_example.connect(lambda path: self._to_planner(self.files.open_example(path)))
            self.welcome.sig_open_file.connect(lambda path: self._to_planner(self.files.open(path)))
            self.welcome.sig_new.connect(lambda: self._to_planner(self.files.new()))
            self.welcome.sig_import.connect(self.import_from_cluster)
            self.files.sig_recent_changed.connect(self.welcome.set_recent)
            self.welcome.set_recent(self.files.recent())
            self.tabs.insertTab(0, self.welcome, "Welcome")
        self.tabs.setCurrentWidget(self.welcome)
        return self.welcome

    def _to_planner(self, done: bool) -> None:
        if done:
            self.tabs.setCurrentWidget(self.canvas)

    def benchmark_this_machine(self, directory: str, tmpfs: str = "") -> bool:
        """The local dd sweep on ``directory`` (and ``tmpfs``, the ceiling), each a baseline run
        of the Run tab, saved to history and opened there charted when both are done."""
        from ...bench.engine import TargetSpec
        from ..run.targets import Baseline
        from .welcome import LOCAL_SWEEP

        baselines = [Baseline("local directory", TargetSpec("local", directory))]
        if tmpfs:
            baselines.append(Baseline("tmpfs", TargetSpec("local", tmpfs)))
        run = self.open_run()
        run.sig_batch_finished.connect(self._chart_local_baseline)
        started = run.measure_baselines(baselines, "dd", dict(LOCAL_SWEEP))
        if not started:
            run.sig_batch_finished.disconnect(self._chart_local_baseline)
        return started

    def _chart_local_baseline(self, _runs: list) -> None:
        """The local sweep is done and History shows it: open its chart, one file vs N per block size."""
        self.run_view.sig_batch_finished.disconnect(self._chart_local_baseline)
        history = self.tabs.currentWidget()
        compare = getattr(history, "compare", None)
        if compare is not None:
            compare.tabs.setCurrentWidget(compare.throughput_chart)

    # ---- cluster --------------------------------------------------------------------
    def _show_tab(self, title: str, widget: QWidget) -> None:
        """Bring ``widget``'s tab forward, adding it next to the planner the first time."""
        index = self.tabs.indexOf(widget)
        if index < 0:
            self.add_view(title, widget)
        else:
            self.tabs.setCurrentIndex(index)

    def open_preflight(self, run: bool = False) -> PreflightView:
        """Show the Pre-flight tab (built once); ``run`` starts the checks unless they are running."""
        if self.preflight is None:
            from ..cluster.preflight_view import PreflightView

            self.preflight = PreflightView(self.session, self.remote)
            self.preflight.sig_status.connect(self._show_refusal)
            self.preflight.sig_provision.connect(self._provision_after_preflight)
        self._show_tab("Pre-flight", self.preflight)
        if run:
            self.preflight.run()
        return self.preflight

    def _provision_after_preflight(self, volume: str) -> None:
        view = self.open_provision()
        if view.volume_box.findData(volume) >= 0:
            view.volume_box.setCurrentIndex(view.volume_box.findData(volume))
        if not view.running:
            view.show_plan()

    def open_provision(self) -> QWidget:
        """Show the Provision tab (built once): a volume's dry run, provisioning and teardown."""
        from ..cluster.provision_view import ProvisionView

        if self.provision_view is None:
            self.provision_view = ProvisionView(self.session, self.remote, topology_path=lambda: self.files.path)
            self.provision_view.sig_status.connect(self._show_refusal)
            self.provision_view.sig_finished.connect(self._provision_finished)
        self._show_tab("Provision", self.provision_view)
        return self.provision_view

    def _provision_finished(self, report) -> None:
        """Remember which volume now holds its bricks on the cluster, and which no longer does."""
        if report is None or report.dry_run:
            return
        plan = self.provision_view.plan if self.provision_view is not None else None
        if report.action == "provision" and report.ok and plan is not None and plan.volume.name == report.subject:
            self.live_volumes[report.subject] = list(plan.volume.bricks)
        elif report.action == "teardown" and report.ok:
            self.live_volumes.pop(report.subject, None)

    def open_run(self) -> QWidget:
        """Show the Run tab (built once): benchmark a volume's mounts and baselines."""
        from ..run import RunView

        if self.run_view is None:
            self.run_view = RunView(self.session, self.remote, store=self.history_store, settings=self.files.settings)
            self.run_view.sig_status.connect(self._show_refusal)
            self.run_view.sig_show_in_history.connect(self.show_run_in_history)
        self._show_tab("Run", self.run_view)
        return self.run_view

    def open_campaign(self, layouts: list | None = None) -> QWidget:
        """Show the Campaign tab (built once); ``layouts`` (ticked in Compare layouts) start a
        new campaign over the current volume's bricks."""
        from ..campaign import CampaignView
        from ..cluster.runtable import snapshot

        if self.campaign_view is None:
            self.campaign_view = CampaignView(self.remote, self.history_store)
            self.campaign_view.sig_status.connect(self._show_refusal)
            self.campaign_view.live_volumes = lambda: self.live_volumes
        volume = self.session.volume
        if layouts and volume is not None:
            path = str(self.files.path) if self.files.path and not self.files.dirty else ""
            self.campaign_view.from_layouts(snapshot(self.session.topo), volume, list(layouts), path)
        elif layouts is not None and not layouts:
            self.statusBar().showMessage("Tick layouts in the first column of Compare layouts first", 10000)
        elif volume is not None and self.campaign_view.spec is None and self.campaign_view.setup.volume is None:
            # from the menu: a campaign over the planned volume's bricks, its layouts added in the tab
            # (the list to add from was empty until Compare layouts had sent some)
            path = str(self.files.path) if self.files.path and not self.files.dirty else ""
            self.campaign_view.from_layouts(snapshot(self.session.topo), volume, [], path)
        self._show_tab("Campaign", self.campaign_view)
        return self.campaign_view

    def open_change(self, read: bool = False) -> QWidget:
        """Show the Change tab (built once); ``read`` reads the live volume unless it has been
        read already (or something runs)."""
        from ..change import ChangeView

        if self.change_view is None:
            self.change_view = ChangeView(self.session, self.remote, self.history_store,
                                          topology_path=lambda: self.files.path)
            self.change_view.sig_status.connect(self._show_refusal)
            self.change_view.sig_show_history.connect(self._show_change_in_history)
            self.change_view.control.sig_done.connect(lambda *_: self.change_history is not None
                                                      and self.change_history.reload())
        self._show_tab("Change", self.change_view)
        view = self.change_view
        view.refresh_unfinished()
        if read and view.live is None and not view.control.busy and view.selected_volume():
            view.read_live()
        return view

    def open_change_history(self) -> QWidget:
        """Show the change history (built once): every change to a live volume, and its record."""
        from ..change import ChangeHistoryView

        if self.change_history is None:
            self.change_history = ChangeHistoryView(self.history_store())
            self.change_history.sig_status.connect(self._show_refusal)
            self.change_history.sig_resume.connect(lambda change_id: self.open_change().resume(change_id))
            self.change_history.sig_export.connect(lambda: self.export_report())
        else:
            self.change_history.reload()
        self._show_tab("Change history", self.change_history)
        return self.change_history

    def _show_change_in_history(self, change_id: str) -> None:
        history = self.open_change_history()
        if change_id:
            history.select(change_id)

    def open_decision(self, run_ids: list[str] | None = None) -> QWidget | None:
        """The Decision tab for stored runs (default: those selected in History), grouped by
        the layout they measured and planned on the open topology where it holds their bricks."""
        from ...core.decision import build_table
        from ...core.decision_runs import entries_from_runs
        from ..campaign import DecisionView

        history = self.open_optional_view(*OPTIONAL_VIEWS[0]) if run_ids is None else None
        store = history.store if history is not None else self.history_store()
        ids = run_ids if run_ids is not None else history.selected_run_ids() if history is not None else []
        if not ids:
            self.statusBar().showMessage("Select runs in History first: the decision table compares their layouts",
                                         10000)
            return None
        table = build_table(entries_from_runs(store.load_runs(ids), self.session.topo), model_check=True)
        if self.decision_view is None:
            self.decision_view = DecisionView()
            self.decision_view.sig_status.connect(self._show_refusal)
        self.decision_view.set_table(table)
        self._show_tab("Decision", self.decision_view)
        return self.decision_view

    def export_report(self, show: bool = True):
        """File ▸ Export PDF…: the report of what the tab in front shows (``ui.report.report_export``),
        written by a process of its own while the window stays usable."""
        from ..report.report_export import export_report_dialog

        return export_report_dialog(self, show=show)

    def open_calibration(self):
        """The Calibrate throughput model dialog over the history the Run tab writes to."""
        from ..planner.calibrate_dialog import CalibrateDialog

        dialog = CalibrateDialog(self.session, self.history_store(), self)
        dialog.open()
        return dialog

    def history_store(self):
        """The history database the Run tab writes to (opened on first use)."""
        if self._history_store is None:
            from ...store.history import HistoryStore

            self._history_store = HistoryStore.open()
        return self._history_store

    def show_run_in_history(self, run_ids: list[str]) -> None:
        """Open History on ``run_ids`` over the earlier runs of the same volume and workload."""
        view = self.open_optional_view(*OPTIONAL_VIEWS[0])
        if view is not None:
            view.reload()
            view.show_runs(run_ids, overlay_same_volume=True)

    def import_from_cluster(self) -> bool:
        from ..cluster.import_dialog import run_import_dialog

        return run_import_dialog(self)

    # ---- connection settings --------------------------------------------------------
    def _load_connection(self) -> None:
        """The Connection settings kept in settings.json, for the bridge (when any are kept)."""
        from ...remote.connection import SETTINGS_KEY, load

        if not self.files.settings.contains(SETTINGS_KEY):
            return
        settings, problems = load(self.files.settings)
        problems += settings.problems()
        self.remote.set_connection(settings)
        if problems:
            self.statusBar().showMessage("Connection settings: " + "; ".join(problems)
                                         + " (Cluster ▸ Connection settings… to fix)", 60000)

    def open_connection_settings(self, test_host: str = "", show: bool = True, parent: QWidget | None = None):
        """Cluster ▸ Connection settings…: the dialog, over ``parent`` (default: this window; the
        import dialog passes itself, so its own modality does not block the page); Save keeps the
        settings in settings.json and the window reaches hosts with them."""
        from ..cluster.connection_dialog import ConnectionDialog

        host = test_host or next((n.ssh_host for n in self.session.topo.nodes), "")
        dialog = ConnectionDialog(self.remote, self.remote.connection, parent or self, test_host=host)
        # a bound method, not a closure over this window: the dialog is this window's child and is
        # deleted on its own; a connection of it holding the window's last reference would delete
        # the window inside the dialog's destructor, and the window would delete the dialog again
        dialog.sig_saved.connect(self._connection_saved)
        dialog.finished.connect(dialog.deleteLater)
        if show:
            dialog.open()
        return dialog

    def _connection_saved(self, settings) -> None:
        from ...remote.connection import SETTINGS_KEY

        self.files.settings.setValue(SETTINGS_KEY, settings.to_json())
        self.remote.set_connection(settings)
        self.statusBar().showMessage("Connection settings saved: the next SSH connection uses them", 10000)

    # ---- actions --------------------------------------------------------------------
    def open_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        from .files import FILE_FILTER
        path, _ = QFileDialog.getOpenFileName(self, "Open topology", str(self.files.start_dir()), FILE_FILTER)
        if path:
            self.files.open(path)

    def quick_fill(self) -> None:
        dialog = QuickFillDialog(self.session, self)
        if dialog.exec():
            edit = dialog.edit()
            if edit is not None:
                self.session.push(edit)

    def _selection_changed(self) -> None:
        sites, nodes, bricks, clients = self.canvas.board.selected_names()
        chosen: tuple[str, str | BrickRef] | None = None
        if bricks:
            chosen = ("brick", bricks[0])
        elif nodes:
            chosen = ("node", nodes[0])
        elif sites:
            chosen = ("site", sites[0])
        elif clients:
            chosen = ("client", clients[0])
        self.inspector.show_item(chosen)

    def _focus_name(self) -> None:
        kind = self.inspector.selection[0] if self.inspector.selection else ""
        key = {"site": "name", "node": "name", "brick": "path", "client": "address"}.get(kind)
        if key:
            self.docks["inspector"].raise_()
            edit = self.inspector.field(kind, key).edit
            edit.setFocus()
            edit.selectAll()

    # ---- window events --------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(u.isLocalFile() and u.toLocalFile().endswith(".json") for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile() and url.toLocalFile().endswith(".json"):
                self.files.open(url.toLocalFile())
                event.acceptProposedAction()
                return

    def busy_question(self) -> str:
        """The quit question while something runs, naming what runs (a teardown, a benchmark…)."""
        running = self.remote.running()
        what = ", ".join(running) if running else "a run on the cluster"
        return (f"Still running: {what}.\n\nQuit anyway? Brickyard stops it and kills its remote commands. "
                "Provisioning or a teardown can be resumed by running it again (finished steps are skipped); "
                "a benchmark keeps the steps it measured; a change to a live volume is stopped as Cancel stops "
                "it (a rebalance or remove-brick it started is stopped) and Resume in the Change tab goes on.")

    def _confirm_quit_while_busy(self) -> bool:
        from PySide6.QtWidgets import QMessageBox

        answer = QMessageBox.question(self, "Brickyard", self.busy_question(),
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.remote.busy and not self._confirm_quit_while_busy():
            event.ignore()
            return
        if self.files.maybe_save():
            self.window_layout.save()
            self.files.discard_autosave()
            if self.change_view is not None:       # a change stops as Cancel stops it: consistent, resumable
                self.change_view.stop_for_close()
            self.remote.close()
            if self._history_store is not None:
                self._history_store.close()
            event.accept()
        else:
            event.ignore()

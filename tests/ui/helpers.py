"""Real input on a canvas view: clicks and drags as the mouse sends them."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QGraphicsItem

from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType


def small_topology() -> Topology:
    """Two sites; n1, n2 in A with two 1 TB bricks each, n3 in B; volume gv0 replica 2 over
    n1's and n2's bricks in node-major order (so each set sits on one node)."""
    topo = Topology(name="small", sites=[Site("A"), Site("B")])
    for name, site in (("n1", "A"), ("n2", "A"), ("n3", "B")):
        topo.nodes.append(Node(name, site=site, nic_gbps=10.0,
                               bricks=[Brick("/b1", 10**12, speed_bps=5e8), Brick("/b2", 10**12, speed_bps=5e8)]))
    refs = [BrickRef("n1", "/b1"), BrickRef("n1", "/b2"), BrickRef("n2", "/b1"), BrickRef("n2", "/b2")]
    topo.volumes.append(Volume("gv0", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2), refs))
    return topo


def show_active(qtbot, widget) -> None:
    """Show a top-level widget and make it the active window, so its shortcuts fire."""
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.windowHandle().requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget, timeout=10_000)


def open_window(qtbot, tmp_path, topo: Topology | None = None, *, size: tuple[int, int] | None = None,
                focus_canvas: bool = False, settled: bool = False):
    """A main window over ``topo`` (small_topology() when not given) with its settings and autosaves
    in ``tmp_path``, shown and active. ``settled``: wait out its first fit into the (offscreen)
    screen before ``size`` applies; ``focus_canvas``: the canvas takes the keyboard."""
    from brickyard.ui.frame.mainwindow import MainWindow

    win = MainWindow(topo if topo is not None else small_topology(), tmp_path / "settings.json", tmp_path / "autosave")
    if size and not settled:
        win.resize(*size)
    show_active(qtbot, win)
    if settled:
        qtbot.wait(500)
        if size:
            win.resize(*size)
            qtbot.wait(50)
    if focus_canvas:
        win.canvas.setFocus()
    return win


def eight_node_window(qtbot, tmp_path, monkeypatch, size: tuple[int, int]):
    """The eight-node example at ``size`` once its first fit is done, with a history of its own."""
    from brickyard.core import topofile

    from ..conftest import EXAMPLES

    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.db'}")
    return open_window(qtbot, tmp_path, topofile.load(EXAMPLES / "eight-node-raid5.brickyard.json"), size=size,
                       settled=True)


def point_of(view, item: QGraphicsItem, where: QPointF | None = None) -> QPoint:
    """Viewport coordinates of an item's centre (or of a point in item coordinates)."""
    scene_point = item.mapToScene(where) if where is not None else item.sceneBoundingRect().center()
    view.ensureVisible(item, 10, 10)
    return view.mapFromScene(scene_point)


def send(view, kind, pos: QPoint, button, buttons, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    viewport = view.viewport()
    event = QMouseEvent(kind, QPointF(pos), QPointF(viewport.mapToGlobal(pos)), button, buttons, modifiers)
    QApplication.sendEvent(viewport, event)


def click(view, pos: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    left = Qt.MouseButton.LeftButton
    send(view, QMouseEvent.Type.MouseButtonPress, pos, left, left, modifiers)
    send(view, QMouseEvent.Type.MouseButtonRelease, pos, left, Qt.MouseButton.NoButton, modifiers)


def drag(view, start: QPoint, end: QPoint, steps: int = 8, button=Qt.MouseButton.LeftButton) -> None:
    """Press at ``start``, move in ``steps`` to ``end`` with the button held, release."""
    send(view, QMouseEvent.Type.MouseButtonPress, start, button, button)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        send(view, QMouseEvent.Type.MouseMove, p, Qt.MouseButton.NoButton, button)
    send(view, QMouseEvent.Type.MouseButtonRelease, end, button, Qt.MouseButton.NoButton)


def on_next_dialog(act, timeout_s: float = 20.0) -> list:
    """Run ``act(dialog)`` on the next modal dialog that opens, from a timer, so it runs inside
    the dialog's own ``exec()`` loop with real key clicks and mouse clicks. If ``act`` fails
    the dialog is rejected (the test then fails instead of hanging). Returns a list that holds
    the dialog once ``act`` has run."""
    import time

    from PySide6.QtCore import QTimer

    done: list = []
    before = QApplication.activeModalWidget()
    deadline = time.monotonic() + timeout_s

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None or dialog is before:
            if time.monotonic() < deadline:
                QTimer.singleShot(20, poll)
            return
        try:
            act(dialog)
        except BaseException:
            dialog.reject()
            raise
        finally:
            done.append(dialog)

    QTimer.singleShot(0, poll)
    return done


def type_into(qtbot, line_edit, text: str) -> None:
    """Select what a line edit holds and type ``text`` over it, key by key."""
    line_edit.setFocus()
    line_edit.selectAll()
    qtbot.keyClick(line_edit, Qt.Key.Key_Backspace)
    qtbot.keyClicks(line_edit, text)


def choose_in_combo(qtbot, combo, text_start: str) -> None:
    """Walk a closed combo box with the arrow keys (as a keyboard user does) to an entry."""
    combo.setFocus()
    for key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
        for _ in range(combo.count()):
            if combo.currentText().startswith(text_start):
                return
            qtbot.keyClick(combo, key)
    assert combo.currentText().startswith(text_start), [combo.itemText(i) for i in range(combo.count())]

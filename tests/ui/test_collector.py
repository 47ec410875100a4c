"""ui.frame.collector: a window in a reference cycle is freed on the GUI thread, however much another
thread allocates meanwhile (tests/ui runs every test with the collector on, as the app does)."""

import gc
import threading
import weakref

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from brickyard.ui.frame.collector import GuiThreadCollector


class _Window(QWidget):
    def __init__(self):
        super().__init__()
        self.me = self                      # a cycle: only the collector frees it
        QVBoxLayout(self).addWidget(QLabel("bricks"))
        self.timer = QTimer(self)           # deleted off the GUI thread, a timer is a crash later
        self.timer.start(50)


def _allocate_cycles(n: int) -> None:
    for _ in range(n):
        a: list = []
        a.append(a)


def test_a_window_in_a_cycle_is_freed_on_the_gui_thread_not_on_a_busy_thread(qtbot, gc_on_the_gui_thread):
    assert gc_on_the_gui_thread.active and not gc.isenabled()
    freed_on: list[threading.Thread] = []
    window = _Window()
    window.show()
    ref = weakref.ref(window, lambda _: freed_on.append(threading.current_thread()))
    del window
    busy = threading.Thread(target=_allocate_cycles, args=(200_000,))   # would trigger many collections
    busy.start()
    busy.join()
    assert ref() is not None and freed_on == []
    qtbot.waitUntil(lambda: bool(freed_on), timeout=5000)
    assert freed_on == [threading.main_thread()]


def test_collecting_follows_the_thresholds_and_stop_gives_collection_back(qtbot):
    collector = GuiThreadCollector(interval_ms=10)
    was = gc.isenabled()
    gc.enable()
    try:
        collector.start()
        assert not gc.isenabled()
        gc.collect()
        assert collector.collect() == 0             # nothing due right after a full pass
        _allocate_cycles(gc.get_threshold()[0] + 10)
        assert gc.get_count()[0] > gc.get_threshold()[0]
        collector.collect()
        assert gc.get_count()[0] < gc.get_threshold()[0]
        collector.start()                           # twice is once
        collector.stop()
        assert gc.isenabled() and not collector.active
    finally:
        gc.enable() if was else gc.disable()

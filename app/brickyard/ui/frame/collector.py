"""Python's cyclic garbage collector runs on the GUI thread only.

Left to itself, the collector runs in whichever thread happens to allocate when a generation
fills up: often the asyncio loop thread, which allocates a lot while SSH traffic flows. A Qt
object that Python owns and that sits in a reference cycle (a window whose controller holds the
window) is then deleted on that thread. Qt objects must be deleted on the thread they live in: a
widget deleted on the loop thread (its timers "cannot be stopped from another thread") crashes
the GUI thread at its next event, far from the cause.

So while the app runs (and while a GUI test runs), automatic collection is off and the GUI
thread collects on a timer, generation by generation as the thresholds say, so each pass costs
what an automatic one would have (Anki's ``GarbageCollector`` does the same). Reference counting
is untouched: only cycles wait for the timer, at most ``INTERVAL_MS``.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000


class GuiThreadCollector(QObject):
    """``start()`` on the GUI thread turns automatic collection off and collects from a timer;
    ``stop()`` collects everything once more (here) and gives collection back to Python."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        self._was_enabled: bool | None = None

    @property
    def active(self) -> bool:
        return self._was_enabled is not None

    def start(self) -> None:
        if self.active:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        if not self.active:
            return
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()
        self._was_enabled = None

    def collect(self) -> int:
        """Collect the oldest generation that is due (with the younger ones), as Python would have."""
        count, threshold = gc.get_count(), gc.get_threshold()
        due = -1
        for generation in range(3):
            if threshold[generation] <= 0 or count[generation] <= threshold[generation]:
                break
            due = generation
        return gc.collect(due) if due >= 0 else 0

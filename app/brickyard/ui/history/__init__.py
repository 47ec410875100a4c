"""History views: pyqtgraph charts of stored runs and the history browser.

``HistoryView(store)`` is a self-contained widget for the main window; ``HistoryWindow``
shows it on its own."""

from .browser import HistoryView, HistoryWindow

__all__ = ["HistoryView", "HistoryWindow"]

"""Day two: change a running volume from the window — the Change tab (``view.ChangeView``: the
live volume and the drawing on one canvas, the plan beside it, Apply, Cancel, Resume) and
the change history (``history.ChangeHistoryView``: what each change did, step by step,
predicted against measured, with its PDF record)."""

from .history import ChangeHistoryView
from .view import ChangeView

__all__ = ["ChangeHistoryView", "ChangeView"]

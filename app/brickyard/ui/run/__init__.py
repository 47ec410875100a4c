"""The Run tab: benchmark a volume (and baselines) from the window, live; see ``view``."""

from .view import RunView

__all__ = ["RunView"]

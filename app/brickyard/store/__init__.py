"""Benchmark history: SQLAlchemy models, Alembic migrations and ``HistoryStore`` (no Qt).

The run engine writes through ``HistoryStore`` (``begin_run`` / ``add_step`` / ``finish_run``);
views, the CLI and reports read ``brickyard.core.results`` objects back from it.

The names below load their module on first use (PEP 562): ``store.settings``, which the window
reads at start-up, must not pull SQLAlchemy and Alembic in with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {"DatabaseError": ".engine", "FilterChoices": ".history", "HistoryStore": ".history",
          "RunFilter": ".history", "RunSummary": ".history", "StoreError": ".errors",
          "SettingsError": ".settings", "resolve_db_url": ".settings"}

__all__ = sorted(_WHERE)

if TYPE_CHECKING:
    from .engine import DatabaseError
    from .errors import StoreError
    from .history import FilterChoices, HistoryStore, RunFilter, RunSummary
    from .settings import SettingsError, resolve_db_url


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))

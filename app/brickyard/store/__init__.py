"""Benchmark history: SQLAlchemy models, Alembic migrations and ``HistoryStore`` (no Qt).

The run engine writes through ``HistoryStore`` (``begin_run`` / ``add_step`` / ``finish_run``);
views, the CLI and reports read ``brickyard.core.results`` objects back from it.
"""

from .engine import DatabaseError
from .history import FilterChoices, HistoryStore, RunFilter, RunSummary, StoreError
from .settings import SettingsError, resolve_db_url

__all__ = ["DatabaseError", "FilterChoices", "HistoryStore", "RunFilter", "RunSummary", "SettingsError",
           "StoreError", "resolve_db_url"]

import pytest

from brickyard.store import HistoryStore

from .helpers import stored_campaign


@pytest.fixture
def store(tmp_path):
    s = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
    yield s
    s.close()


@pytest.fixture
def campaign(store, tmp_path):
    """(store, campaign id) of a completed seed004-like campaign: 4 layouts and a baseline."""
    return store, stored_campaign(store, tmp_path)


@pytest.fixture
def ts(tmp_path):
    """A Typeset measuring for a PDF at the report's resolution (the writer's file is never written)."""
    from PySide6.QtGui import QPdfWriter

    from brickyard.report import ensure_app
    from brickyard.report.typeset import DPI, Typeset

    ensure_app()
    writer = QPdfWriter(str(tmp_path / "probe.pdf"))
    writer.setResolution(DPI)
    return Typeset(writer)

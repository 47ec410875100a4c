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

"""Which database: --db, else BRICKYARD_DB, else the settings file, else the user data dir."""

from __future__ import annotations

import json

import pytest

from brickyard.store import HistoryStore, SettingsError, resolve_db_url


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("BRICKYARD_DB", raising=False)
    return tmp_path


def _settings(home, data) -> None:
    path = home / "config" / "brickyard" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_precedence_is_flag_then_environment_then_settings_then_default(home, monkeypatch):
    assert resolve_db_url() == (f"sqlite:///{home / 'data' / 'brickyard' / 'history.sqlite3'}", "default")
    _settings(home, {"history_db": "sqlite:////srv/team.sqlite3"})
    assert resolve_db_url() == ("sqlite:////srv/team.sqlite3", str(home / "config" / "brickyard" / "settings.json"))
    monkeypatch.setenv("BRICKYARD_DB", "postgresql://lab/brickyard")
    assert resolve_db_url() == ("postgresql://lab/brickyard", "BRICKYARD_DB")
    assert resolve_db_url("sqlite:////tmp/x.sqlite3") == ("sqlite:////tmp/x.sqlite3", "--db")


def test_broken_settings_are_named(home):
    _settings(home, "{not json")
    with pytest.raises(SettingsError, match="settings.json: not valid JSON"):
        resolve_db_url()
    _settings(home, {"history_db": 5})
    with pytest.raises(SettingsError, match="'history_db' must be a database URL"):
        resolve_db_url()


def test_default_database_is_created_in_the_user_data_dir(home):
    store = HistoryStore.open()
    assert (home / "data" / "brickyard" / "history.sqlite3").exists()
    assert store.run_count() == 0
    store.close()

"""Which database: --db, else BRICKYARD_DB, else the settings file, else the user data dir."""

from __future__ import annotations

import json
import os

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
    with pytest.raises(SettingsError, match="settings.json: line 1: not valid JSON"):
        resolve_db_url()
    _settings(home, {"history_db": 5})
    with pytest.raises(SettingsError, match="'history_db' must be a database URL"):
        resolve_db_url()


def test_default_database_is_created_in_the_user_data_dir(home):
    store = HistoryStore.open()
    assert (home / "data" / "brickyard" / "history.sqlite3").exists()
    assert store.run_count() == 0
    store.close()


def test_the_window_keys_share_the_one_settings_file_with_history_db(home):
    from brickyard.store.settings import Settings, settings_path

    _settings(home, {"history_db": "sqlite:////srv/team.sqlite3"})
    settings = Settings()
    assert settings.path == settings_path() == home / "config" / "brickyard" / "settings.json"
    settings.setValue("recent", ["/a.brickyard.json"])
    settings.setValue("window/geometry", "AdnQywAD")
    data = json.loads(settings.path.read_text())
    assert data == {"history_db": "sqlite:////srv/team.sqlite3", "recent": ["/a.brickyard.json"],
                    "window/geometry": "AdnQywAD"}
    assert resolve_db_url()[0] == "sqlite:////srv/team.sqlite3"
    assert oct(settings.path.stat().st_mode & 0o777) == "0o644"  # the user's own mode is kept


def test_a_new_settings_file_is_private(home):
    from brickyard.store.settings import Settings

    settings = Settings()
    settings.setValue("recent", [])
    assert oct(settings.path.stat().st_mode & 0o777) == "0o600"  # it may hold a database URL with a password


def test_two_processes_writing_settings_never_undo_each_others_keys(home):
    from brickyard.store.settings import Settings

    first, second = Settings(), Settings()
    first.setValue("recent", ["/a.json"])
    second.setValue("run/workload", "fio")
    first.setValue("last_dir", "/tmp")
    data = json.loads(first.path.read_text())
    assert data == {"recent": ["/a.json"], "run/workload": "fio", "last_dir": "/tmp"}


def test_a_broken_settings_file_is_named_and_never_overwritten(home):
    from brickyard.store.settings import Settings

    _settings(home, '{"history_db": "sqlite:////x", oops}')
    settings = Settings()
    assert "not valid JSON" in settings.problem and "fix it, or move it away" in settings.problem
    assert settings.notice == "" and settings.kept_as is None
    settings.setValue("recent", ["/a.json"])
    assert settings.value("recent") == ["/a.json"]   # kept for this session
    assert (home / "config" / "brickyard" / "settings.json").read_text() == '{"history_db": "sqlite:////x", oops}'


def test_a_value_json_cannot_hold_is_refused_before_anything_changes(home):
    from brickyard.store.settings import Settings

    settings = Settings()
    with pytest.raises(TypeError):
        settings.setValue("x", object())
    assert not settings.path.exists() and settings.value("x") is None


BROKEN = [
    ('{"history_db": NaN}', ["history_db: NaN is not a number JSON allows"]),
    ('{"recent": [], "recent": ["/a"]}', ["recent: appears twice in one object"]),
    ('["a list"]', ["must be a JSON object, not an array"]),
    ('{"a": 1e400, "b": "\\ud800"}', ["a: the number 1e400 is too large", "b: contains a lone surrogate"]),
    ('{"history_db": "sqlite:////x", oops}', ["line 1: not valid JSON"]),
]


@pytest.mark.parametrize("text, words", BROKEN)
def test_the_settings_file_is_read_strictly_and_every_problem_is_named(home, text, words):
    _settings(home, text)
    with pytest.raises(SettingsError) as err:
        resolve_db_url()
    for word in words:
        assert word in str(err.value), str(err.value)


def test_a_settings_file_that_is_not_a_regular_file_or_too_large_is_refused_without_reading_it(home):
    path = home / "config" / "brickyard" / "settings.json"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)                                   # would wait for a writer forever
    with pytest.raises(SettingsError, match="not a regular file"):
        resolve_db_url()
    path.unlink()
    with open(path, "wb") as fh:
        fh.truncate(5 * 2**20)
    with pytest.raises(SettingsError, match="at most 4.0 MiB"):
        resolve_db_url()


def test_the_history_cli_refuses_to_guess_past_a_broken_settings_file(home, capsys):
    from brickyard.cli import main

    _settings(home, '{"history_db": "sqlite:////srv/team.sqlite3", "history_db": "x"}')
    assert main(["history", "list", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert "history_db: appears twice" in doc["error"]
    assert not (home / "data" / "brickyard" / "history.sqlite3").exists()   # no default database made instead


def test_the_app_sets_a_broken_settings_file_aside_and_goes_on_with_defaults(home):
    from brickyard.store.settings import Settings

    broken = '{"recent": ["/a.json"], "window/geometry": NaN}'
    _settings(home, broken)
    path = home / "config" / "brickyard" / "settings.json"
    settings = Settings(path, set_aside=True)
    assert settings.problem == "" and settings.value("recent") is None          # defaults
    kept = settings.kept_as
    assert kept is not None and kept.parent == path.parent and kept.name.startswith("settings.json.unreadable-")
    assert kept.read_text() == broken                                           # nothing lost
    assert str(kept) in settings.notice and "window/geometry: NaN is not a number" in settings.notice
    assert "started with default settings" in settings.notice
    settings.setValue("recent", ["/b.json"])                                    # and saved as usual
    assert json.loads(path.read_text()) == {"recent": ["/b.json"]}
    assert Settings(path, set_aside=True).notice == ""                         # said once
    again = Settings(path, set_aside=True)                                      # a second broken file: kept too
    path.write_text("{")
    again2 = Settings(path, set_aside=True)
    assert again2.kept_as != kept and again2.kept_as.read_text() == "{" and kept.read_text() == broken
    assert again.value("recent") == ["/b.json"]

"""Where --db points: a SQLite file in a folder that does not exist is refused (Brickyard
makes folders only for its own default history), and the plain ``postgresql://`` URL a user
writes works with the driver Brickyard installs (psycopg 3)."""

from __future__ import annotations

import json

import pytest

from brickyard.cli import main
from brickyard.store import DatabaseError, HistoryStore


def test_a_sqlite_url_in_a_missing_folder_is_refused_and_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "nonexistent-dir"
    url = f"sqlite:///{missing / 'x' / 'y.db'}"
    assert main(["history", "list", "--db", url, "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert "does not exist" in doc["error"] and str(missing / "x") in doc["error"]
    assert not missing.exists()
    with pytest.raises(DatabaseError, match="does not exist"):
        HistoryStore(url)
    assert not missing.exists()


def test_the_default_history_makes_its_own_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("BRICKYARD_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with HistoryStore.open() as store:
        assert store.run_count() == 0
    assert (tmp_path / "data" / "brickyard" / "history.sqlite3").is_file()


def test_the_plain_postgresql_url_works_from_the_command_line(postgres_server, tmp_path, capsys):
    url = postgres_server.create_database()
    assert url.startswith("postgresql://")          # no +driver: what a user writes
    export = tmp_path / "export.json"
    from ..conftest import FIXTURES
    source = FIXTURES / "runs" / "local-dd-both-4K-1M.json"
    assert main(["history", "import", "--db", url, str(source), "--json"]) == 0
    added = json.loads(capsys.readouterr().out)["added"]
    assert main(["history", "list", "--db", url, "--json"]) == 0
    assert [r["run_id"] for r in json.loads(capsys.readouterr().out)] == added
    assert main(["history", "export", "--db", url, "-o", str(export), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == 1

"""Where the history lives: ``--db URL``, else ``BRICKYARD_DB``, else the settings file,
else a SQLite file in the user data directory.

The settings file is a small JSON object in the user config directory
(``$XDG_CONFIG_HOME/brickyard/settings.json``, ``~/.config/brickyard/settings.json``) with a
``history_db`` key; it is read without Qt so the CLI and the app agree on the database.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..core.paths import user_config_dir, user_data_dir

ENV_VAR = "BRICKYARD_DB"
SETTINGS_KEY = "history_db"


class SettingsError(ValueError):
    """A settings file that cannot be read without guessing."""


def settings_path() -> Path:
    return user_config_dir() / "settings.json"


def read_settings(path: Path | None = None) -> dict:
    """The settings object, ``{}`` when the file does not exist."""
    path = path or settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def default_db_url() -> str:
    return f"sqlite:///{user_data_dir() / 'history.sqlite3'}"


def resolve_db_url(cli_url: str | None = None, settings_file: Path | None = None) -> tuple[str, str]:
    """The database URL and where it came from ("--db", "BRICKYARD_DB", the settings path, "default")."""
    if cli_url:
        return cli_url, "--db"
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return env, ENV_VAR
    path = settings_file or settings_path()
    value = read_settings(path).get(SETTINGS_KEY)
    if value is not None:
        if not isinstance(value, str) or not value.strip():
            raise SettingsError(f"{path}: {SETTINGS_KEY!r} must be a database URL such as "
                                "'sqlite:////home/me/history.sqlite3' or 'postgresql://host/brickyard'")
        return value.strip(), str(path)
    return default_db_url(), "default"

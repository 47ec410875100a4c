"""The user's settings file, and where the history lives.

Every setting Brickyard keeps is in ONE file: a JSON object in the user config directory
(``$XDG_CONFIG_HOME/brickyard/settings.json``, ``~/.config/brickyard/settings.json``). It is
read without Qt so the CLI and the app agree, e.g. on ``history_db``; the window keeps its
recent files, window geometry and dock layout, run parameters and baselines there too
(``Settings``, which the window uses as Qt code uses ``QSettings``).

The history database: ``--db URL``, else ``BRICKYARD_DB``, else ``history_db`` in the settings
file, else a SQLite file in the user data directory.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

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


class Settings:
    """The settings file as ``QSettings``' ``value``/``setValue``, for the window's own keys.

    Each change is written at once, atomically (a temporary file renamed over the old one), and
    merged into the file as it is on disk then, so two Brickyard windows (or the CLI) never undo
    each other's keys. A settings file that cannot be read is never overwritten: ``problem``
    says why, and this session's changes are kept in memory only."""

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path is not None else settings_path()
        self.problem = ""
        self._data: dict[str, Any] = self._read()

    def _read(self) -> dict[str, Any]:
        try:
            data = read_settings(self.path)
        except SettingsError as exc:
            self.problem = (f"{exc}. Brickyard keeps this session's settings in memory and leaves the file "
                            "as it is: fix it, or move it away to start afresh.")
            return {}
        except OSError as exc:
            self.problem = f"{self.path}: cannot read ({exc.strerror or exc}); settings are not saved this session"
            return {}
        self.problem = ""
        return data

    def value(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def contains(self, key: str) -> bool:
        return key in self._data

    def keys(self) -> list[str]:
        return list(self._data)

    def setValue(self, key: str, value: Any) -> None:  # noqa: N802 - QSettings' name, so views take either
        self.update({key: value})

    def remove(self, key: str) -> None:
        self.update({}, remove=(key,))

    def update(self, values: dict[str, Any], remove: tuple[str, ...] = ()) -> None:
        """Set several keys (and drop ``remove``) in one write."""
        for key, value in values.items():
            json.dumps(value)   # refuse what JSON cannot hold before anything changes
        if all(self._data.get(k, _MISSING) == v for k, v in values.items()) and not any(k in self._data for k in remove):
            return
        self._data.update(values)
        for key in remove:
            self._data.pop(key, None)
        if self.problem:
            return
        on_disk = self._read()
        if self.problem:
            return
        on_disk.update(values)
        for key in remove:
            on_disk.pop(key, None)
        self._data = on_disk
        try:
            _write_json(self.path, on_disk)
        except OSError as exc:
            self.problem = f"{self.path}: cannot write ({exc.strerror or exc}); settings are not saved this session"

    def sync(self) -> None:
        """Nothing to do: every change is on disk already (``QSettings`` compatibility)."""


_MISSING = object()


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

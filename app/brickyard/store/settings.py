"""The user's settings file, and where the history lives.

Every setting Brickyard keeps is in ONE file: a JSON object in the user config directory
(``$XDG_CONFIG_HOME/brickyard/settings.json``, ``~/.config/brickyard/settings.json``). It is
read without Qt so the CLI and the app agree, e.g. on ``history_db``; the window keeps its
recent files, window geometry and dock layout, run parameters and baselines there too
(``Settings``, which the window uses as Qt code uses ``QSettings``).

The history database: ``--db URL``, else ``BRICKYARD_DB``, else ``history_db`` in the settings
file, else a SQLite file in the user data directory.

The file is read as strictly as a topology (``core.strictjson``: a regular file of at most
4 MiB, one JSON object, no NaN or duplicate keys), every problem named. A command refuses to
guess past a broken one (``history_db`` may be in it). The app (``Settings(...,
set_aside=True)``) starts with default settings instead and keeps the broken file beside it
as ``settings.json.unreadable-YYYYMMDD-HHMMSS``, saying so.
"""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from typing import Any

from ..core.atomicfile import write_atomic
from ..core.paths import user_data_dir
# the file itself is read in core (no SQL, no Qt), so even `brickyard plan` reads its "units"
from ..core.settings import MAX_SETTINGS_BYTES, SettingsError, read_settings, settings_path

__all__ = ["ENV_VAR", "MAX_SETTINGS_BYTES", "SETTINGS_KEY", "Settings", "SettingsError",
           "default_db_url", "read_settings", "resolve_db_url", "settings_path"]

ENV_VAR = "BRICKYARD_DB"
SETTINGS_KEY = "history_db"


SET_ASIDE_SUFFIX = ".unreadable-"


def set_aside(path: Path) -> Path:
    """Rename an unreadable settings file to ``NAME.unreadable-YYYYMMDD-HHMMSS`` beside it
    (never over another file): kept for the user, out of the way. OSError if it cannot."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        kept = path.with_name(f"{path.name}{SET_ASIDE_SUFFIX}{stamp}{f'-{n}' if n else ''}")
        try:
            os.link(path, kept)          # fails if ``kept`` exists: nothing is ever overwritten
        except FileExistsError:
            continue
        except OSError:                  # no hard links here (or a directory): rename, checked
            if kept.exists() or kept.is_symlink():
                continue
            os.rename(path, kept)
            return kept
        os.unlink(path)
        return kept
    raise OSError(errno.EEXIST, "no free name to keep it under", str(path))

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
    try:
        value = read_settings(path).get(SETTINGS_KEY)
    except OSError as exc:      # the system refuses to let it be read: say so as a settings problem
        raise SettingsError(f"{path}: cannot be read ({exc.strerror or exc}); it may name the history "
                            "database, so nothing is guessed past it") from None
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
    each other's keys. A settings file that cannot be read is never overwritten. With
    ``set_aside`` (the app, at start) it is renamed aside (``set_aside``) and Brickyard goes on
    with default settings, saved as usual; ``notice`` says so, once. Without (or when it cannot
    be renamed), ``problem`` says why and this session's changes are kept in memory only."""

    def __init__(self, path: Path | None = None, *, set_aside: bool = False):
        self.path = Path(path) if path is not None else settings_path()
        self.problem = ""
        self.notice = ""            # what the user should be told once (a file set aside)
        self.kept_as: Path | None = None
        self._set_aside = set_aside
        self._data: dict[str, Any] = self._read()

    def _read(self) -> dict[str, Any]:
        try:
            data = read_settings(self.path)
        except SettingsError as exc:
            if self._set_aside and self.kept_as is None:
                try:
                    self.kept_as = set_aside(self.path)
                except OSError as why:
                    self.problem = (f"{exc}\nIt could not be moved aside ({why.strerror or why}), so this session's "
                                    "settings are kept in memory only: fix the file, or move it away.")
                    return {}
                self.problem = ""
                found = [str(p) for p in exc.problems] or [str(exc)]
                self.notice = (f"Brickyard could not read its settings file {self.path} and started with default "
                               f"settings. The file is kept as {self.kept_as}.\n"
                               + "\n".join(f"  {line}" for line in found))
                return {}
            self.problem = (f"{exc}\nBrickyard keeps this session's settings in memory and leaves the file "
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
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", new_mode=0o600)

"""The user's settings file, read and written without Qt or SQL so the CLI (even `plan`,
which loads no heavy library), the store and the app agree.

``$XDG_CONFIG_HOME/brickyard/settings.json`` (``~/.config/brickyard/settings.json``) is one
JSON object. Keys read here: ``units`` ("decimal": MB/s and GB/s, the default; "binary":
MiB/s and GiB/s; ``BRICKYARD_UNITS`` overrides it). ``store.settings`` reads ``history_db`` and
writes the file (``Settings``: merged, atomic, a broken file never overwritten).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from . import strictjson
from .paths import user_config_dir
from .units import UnitError, apply_unit_setting

UNITS_KEY = "units"
UNITS_ENV = "BRICKYARD_UNITS"


MAX_SETTINGS_BYTES = 4 * strictjson.MiB   # window layouts and recent files: a few KiB


class SettingsError(ValueError):
    """A settings file that cannot be read without guessing; ``problems``: each one found."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems = list(problems or [])


def settings_path() -> Path:
    return user_config_dir() / "settings.json"


def read_settings(path: Path | None = None) -> dict:
    """The settings object, ``{}`` when the file does not exist. SettingsError when the file
    is not one Brickyard can read (every problem named); OSError when the system refuses to
    let it be read (permissions)."""
    path = path or settings_path()
    try:
        return strictjson.load_object(path, limit=MAX_SETTINGS_BYTES, what="settings file")
    except strictjson.JsonFileError as exc:
        if exc.errno == errno.ENOENT:
            return {}
        if exc.errno is not None:
            raise OSError(exc.errno, os.strerror(exc.errno), str(path)) from None
        raise SettingsError(str(exc), exc.problems) from None


def apply_unit_preference(settings_file: Path | None = None) -> str:
    """Make ``core.units`` write rates as the user chose (``BRICKYARD_UNITS``, else the
    settings file's "units", else decimal); returns "decimal" or "binary". A settings file
    that cannot be read leaves the default (the command that needs the file says why); an
    unknown value is a ``SettingsError`` naming where it came from."""
    env = os.environ.get(UNITS_ENV, "").strip()
    if env:
        value, where = env, UNITS_ENV
    else:
        path = settings_file or settings_path()
        try:
            value = read_settings(path).get(UNITS_KEY, "decimal")
        except (SettingsError, OSError):
            value = "decimal"
        where = str(path)
    try:
        apply_unit_setting(value)
    except UnitError as exc:
        raise SettingsError(f"{where}: {exc}") from None
    return str(value)

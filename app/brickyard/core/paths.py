"""Where Brickyard keeps the user's files, without Qt: the CLI, the store, the SSH layer
and the plugin registry must all agree with the app.

Linux and other Unix: ``$XDG_CONFIG_HOME`` / ``$XDG_DATA_HOME`` when set to an absolute
path (the XDG spec says a relative one is invalid and must be ignored), else
``~/.config`` / ``~/.local/share``. macOS: ``~/Library/Application Support``. Windows:
``%APPDATA%`` for settings, ``%LOCALAPPDATA%`` for data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "brickyard"


def _xdg_dir(env: str, fallback: str) -> Path:
    value = os.environ.get(env, "")
    if value and os.path.isabs(value):
        return Path(value) / APP
    return Path.home() / fallback / APP


def user_config_dir() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming")) / APP
    return _xdg_dir("XDG_CONFIG_HOME", ".config")


def user_data_dir() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / APP
    return _xdg_dir("XDG_DATA_HOME", ".local/share")

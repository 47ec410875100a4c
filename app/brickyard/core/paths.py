"""Where Brickyard keeps the user's files, without Qt: the CLI, the store, the SSH layer
and the plugin registry must all agree with the app.

Linux and other Unix: ``$XDG_CONFIG_HOME`` / ``$XDG_DATA_HOME`` / ``$XDG_STATE_HOME`` when set
to an absolute path (the XDG spec says a relative one is invalid and must be ignored), else
``~/.config`` / ``~/.local/share`` / ``~/.local/state``. macOS: ``~/Library/Application Support``
(logs in ``~/Library/Logs``). Windows: ``%APPDATA%`` for settings, ``%LOCALAPPDATA%`` for data
and logs.

These are the only places: settings in ``user_config_dir() / "settings.json"``; the history,
known hosts, plugins, host locks and autosaves under ``user_data_dir()``; logs in
``user_log_dir()``.
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


def user_cache_dir() -> Path:
    """Scratch space worth nothing after a run (the welcome view's local benchmark directory)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / APP
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / APP / "Cache"
    return _xdg_dir("XDG_CACHE_HOME", ".cache")


def user_log_dir() -> Path:
    """Where the rotating log lives (the XDG "state" directory: kept, but not worth a backup)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Logs" / APP
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / APP / "Logs"
    return _xdg_dir("XDG_STATE_HOME", ".local/state") / "log"

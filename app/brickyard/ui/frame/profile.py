"""Moving the window's files from where older Brickyards kept them into the one place.

Older versions let Qt choose (``QStandardPaths`` with the organisation and application both
"Brickyard"), so a user had three folders: ``~/.config/Brickyard/Brickyard/brickyard.ini``
(recent files, window geometry and dock layout, run parameters, baselines),
``~/.local/share/Brickyard/Brickyard/autosave`` and Brickyard's own ``~/.local/share/brickyard``.
Now settings are ``~/.config/brickyard/settings.json`` and data ``~/.local/share/brickyard``
(``core.paths``). ``migrate_old_locations`` moves what it finds once: keys already in
settings.json win, the old .ini and the autosaves are removed after they are moved, and the
old folders go only when nothing else is left in them. A note of what moved is kept in the
settings (``migrated``) and returned for the log.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from ...store.settings import Settings

MIGRATED_KEY = "migrated"


def _base(env: str, fallback: str) -> Path:
    value = os.environ.get(env, "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / fallback


def old_settings_files() -> list[Path]:
    """The .ini files older Brickyards wrote (Qt's AppConfigLocation, and the folder above it)."""
    root = _base("XDG_CONFIG_HOME", ".config") / "Brickyard"
    return [root / "Brickyard" / "brickyard.ini", root / "brickyard.ini"]


def old_autosave_dir() -> Path:
    return _base("XDG_DATA_HOME", ".local/share") / "Brickyard" / "Brickyard" / "autosave"


def to_text(value: object) -> object:
    """A QSettings value as JSON can hold it: byte arrays (window geometry and state) as base64."""
    if isinstance(value, QByteArray):
        return bytes(value.toBase64()).decode("ascii")
    if isinstance(value, (bytes, bytearray)):
        return bytes(QByteArray(bytes(value)).toBase64()).decode("ascii")
    if isinstance(value, (list, tuple)):
        return [to_text(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _remove_empty(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents up to (not including) ``stop`` while they are empty."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def migrate_old_locations(settings: Settings, autosave_dir: Path) -> list[str]:
    """Move old settings and autosaves into ``settings`` and ``autosave_dir``; what moved, in words."""
    if sys.platform in ("darwin", "win32"):
        return []
    moved: list[str] = []
    config_root = _base("XDG_CONFIG_HOME", ".config")
    for ini in old_settings_files():
        if not ini.is_file():
            continue
        old = QSettings(str(ini), QSettings.Format.IniFormat)
        values = {key: to_text(old.value(key)) for key in old.allKeys() if not settings.contains(key)}
        if settings.problem:
            moved.append(f"{ini}: left in place ({settings.problem})")
            continue
        settings.update(values)
        if settings.problem:
            moved.append(f"{ini}: left in place ({settings.problem})")
            continue
        del old
        ini.unlink()
        _remove_empty(ini.parent, config_root)
        moved.append(f"{ini} → {settings.path} ({len(values)} setting{'s' if len(values) != 1 else ''})")
    old_auto = old_autosave_dir()
    if old_auto.is_dir():
        autosave_dir.mkdir(parents=True, exist_ok=True)
        count = 0
        for item in sorted(old_auto.iterdir()):
            if item.is_file() and item.name.startswith("session-") and not (autosave_dir / item.name).exists():
                shutil.move(str(item), autosave_dir / item.name)
                count += 1
        _remove_empty(old_auto, _base("XDG_DATA_HOME", ".local/share"))
        if count:
            moved.append(f"{old_auto} → {autosave_dir} ({count} file{'s' if count != 1 else ''})")
    if moved and not settings.problem:
        earlier = settings.value(MIGRATED_KEY)
        settings.setValue(MIGRATED_KEY, [*(earlier if isinstance(earlier, list) else []),
                                         {"at": time.strftime("%Y-%m-%d %H:%M:%S"), "moved": moved}])
    return moved

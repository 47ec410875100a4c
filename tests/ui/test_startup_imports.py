"""The window comes up without the SSH and SQL libraries: asyncssh (and cryptography),
SQLAlchemy and Alembic load when a host is first reached or the history first opened, never
on the way to the first window (they were ~1 s of its start-up); importlib.metadata (with the
email parser under it) when versions or plugins are listed (~30 ms of start-up CPU); the user
guide's window and chapter index when Help ▸ User guide is first opened. The full garbage
collection and freeze (``settle_gc``) run once the first frame is painted, not before it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ..conftest import EXAMPLES

HEAVY = ("asyncssh", "cryptography", "sqlalchemy", "alembic", "mako", "pygments", "importlib.metadata",
         "brickyard.ui.frame.guide", "brickyard.ui.frame.guide_text")

PROBE = """
import gc
import sys
from PySide6.QtWidgets import QApplication

def first_window(*args):
    print("FROZEN", gc.get_freeze_count())
    window = QApplication.activeWindow() or next(w for w in QApplication.topLevelWidgets() if w.isVisible())
    print("WINDOW", type(window).__name__, window.isVisible())
    loaded = {m.split(".")[0] for m in sys.modules} | set(sys.modules)
    print("HEAVY", ",".join(sorted(loaded & set(sys.argv[1].split(",")))))
    return 0

QApplication.exec = first_window        # the window is up: stop before the event loop
from brickyard.ui.frame.app import main
sys.exit(main(sys.argv[2:]))
"""


def _start(tmp_path, *args: str) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp_path / name.lower())
    proc = subprocess.run([sys.executable, "-c", PROBE, ",".join(HEAVY), *args], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return dict(line.split(" ", 1) for line in proc.stdout.splitlines() if line.startswith(("WINDOW", "HEAVY", "FROZEN")))


@pytest.mark.parametrize("args", [[], [str(EXAMPLES / "three-site.brickyard.json")]], ids=["first start", "a file"])
def test_the_first_window_comes_up_without_ssh_or_sql_libraries(tmp_path, args):
    seen = _start(tmp_path, *args)
    assert seen["WINDOW"] == "MainWindow True"
    assert seen["HEAVY"] == ""
    assert seen["FROZEN"] == "0"        # settle_gc waits for the event loop


def test_the_store_package_hands_out_its_names_on_first_use():
    from brickyard import store
    from brickyard.store.history import HistoryStore

    assert store.HistoryStore is HistoryStore and "HistoryStore" in dir(store)
    with pytest.raises(AttributeError):
        store.NoSuchName  # noqa: B018

"""The Qt application a report needs for fonts and painting."""

from __future__ import annotations

import os

_APP: list = []


def ensure_app() -> None:
    """Make an offscreen ``QGuiApplication`` when the process (the CLI, a test) has none; the
    app's own QApplication is used as it is. Qt aborts the process if fonts are touched
    without one, so every writer calls this first."""
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        _APP.append(QGuiApplication(["brickyard-report"]))

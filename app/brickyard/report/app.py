"""The Qt application a report needs for fonts and painting."""

from __future__ import annotations

import os

_APP: list = []


def ensure_app() -> None:
    """Make an offscreen application when the process (the CLI, a test) has none; the app's
    own QApplication is used as it is. Qt aborts the process if fonts are touched without
    one, so every writer calls this first. It is a QApplication, not a QGuiApplication: a
    process that makes a report and later a window (a test run) must not be left with an
    application that cannot hold widgets."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    if QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        _APP.append(QApplication(["brickyard-report"]))


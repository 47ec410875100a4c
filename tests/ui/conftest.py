"""UI tests never block on a modal question: unsaved changes are discarded when a test's
windows close, and no crash recovery is offered unless a test asks for it."""

import pytest

from brickyard.ui import files


@pytest.fixture(autouse=True)
def _no_modal_questions(monkeypatch):
    monkeypatch.setattr(files.FileController, "_ask_box", lambda self, question: "discard")
    monkeypatch.setattr(files.FileController, "_ask_recover_box", lambda self, question: False)
    from brickyard.ui.mainwindow import MainWindow

    monkeypatch.setattr(MainWindow, "_confirm_quit_while_busy", lambda self: True)

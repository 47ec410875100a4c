"""Field messages are the same everywhere (issue 21 item 9): checked as typed, beside the field,
every bad word named and the whole message shown; a workload's refusal of one parameter (fio's
``options``) marks that parameter's field."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from brickyard.bench import registry
from brickyard.ui.run.param_form import ParamForm

from .helpers import on_next_dialog, open_window, type_into


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, size=(1400, 900))


def shows_whole(label) -> bool:
    """The label is shown, as tall as its wrapped text needs, and inside its window."""
    window = label.window()
    bottom = label.mapTo(window, label.rect().bottomRight())
    return (label.isVisible() and label.height() >= label.heightForWidth(label.width())
            and window.rect().contains(bottom))


def test_mount_options_are_checked_as_typed_and_every_bad_word_is_named_in_full(qtbot, window):
    from brickyard.core import edits
    from brickyard.core.topology import Client

    window.session.push(edits.AddClient(Client("web1")))

    def fill(dialog) -> None:
        field = dialog.options
        type_into(qtbot, field.edit, "noatime,bogus,ro=1,log-level=LOUD")
        QApplication.processEvents()
        text = field.error.text()
        assert field.invalid                                     # as typed: no Enter, no OK yet
        assert "'bogus' (Invalid option bogus)" in text and "'ro=1' (Invalid option: ro; it takes no value)" in text
        assert "log-level=LOUD" in text
        qtbot.waitUntil(lambda: shows_whole(field.error))
        assert field.error.parentWidget() is field               # under its own field, not at the dialog's foot
        type_into(qtbot, field.edit, "noatime")
        assert not field.invalid and not field.error.isVisible()
        dialog.reject()
    done = on_next_dialog(fill)
    qtbot.keyClick(window.canvas, Qt.Key.Key_M)
    assert done


def test_fios_refused_options_mark_the_options_field(qtbot):
    fio = next(e for e in registry.discover(Path("/nonexistent")) if e.name == "fio")
    form = ParamForm()
    qtbot.addWidget(form)
    form.resize(700, 800)
    form.show()
    form.set_workload(fio.workload)
    field = form.fields["options"]
    qtbot.waitUntil(field.edit.isVisible)
    field.edit.setFocus()
    qtbot.keyClicks(field.edit, "iodepth=16 filename=/etc/passwd")
    assert field.edit.property("invalid") and field.error.isVisible()
    assert field.error.text().startswith("options:") and "filename" in field.error.text()
    assert not form.problem_label.isVisible()                    # said once, at the field
    field.edit.clear()
    qtbot.keyClicks(field.edit, "iodepth=16")
    assert not field.edit.property("invalid") and not field.error.isVisible()
    assert form.problems() == []

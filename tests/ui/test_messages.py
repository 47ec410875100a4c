"""Messages that went stale or were cut off (issue 10 item 8), each driven with keys and clicks."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox


from .helpers import choose_in_combo, on_next_dialog, open_window, type_into

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path)


def test_the_placement_note_goes_when_the_layout_it_spoke_of_changes(qtbot, window):
    panel = window.layout_panel
    qtbot.mouseClick(panel.auto_place, LEFT)
    assert panel.placement_note.text().startswith("Placed")
    window.canvas.setFocus()
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)  # an edit elsewhere keeps it
    assert panel.placement_note.text().startswith("Placed")
    choose_in_combo(qtbot, panel.replica, "4")  # replica 4: the note no longer describes the sets
    assert window.session.volume.layout.replica == 4
    assert panel.placement_note.text() == ""


def test_a_volume_name_error_clears_once_the_name_is_valid_again(qtbot, window):
    panel = window.layout_panel
    type_into(qtbot, panel.name, "bad name")
    assert "should not contain" in panel.name_error.text() and panel.name_error.isVisible()
    qtbot.keyClick(panel.name, Qt.Key.Key_Return)
    assert window.session.volume.name == "gv0" and panel.name_error.isVisible()
    type_into(qtbot, panel.name, "gv0")  # back to the name it has: nothing to rename, nothing wrong
    assert not panel.name_error.isVisible()
    qtbot.keyClick(panel.name, Qt.Key.Key_Return)
    assert not panel.name_error.isVisible() and not panel.name.property("invalid")


def test_the_quick_fill_size_error_is_shown_whole(qtbot, window):
    seen = {}

    def fill(dialog):
        type_into(qtbot, dialog.size.edit, "fourteen terabytes please")
        qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), LEFT)
        qtbot.waitUntil(lambda: dialog.size.error.isVisible())
        label = dialog.size.error
        seen["fits"] = label.height() >= label.heightForWidth(label.width())
        seen["text"] = label.text()
        seen["inside"] = dialog.rect().contains(label.mapTo(dialog, label.rect().bottomRight()))
        dialog.reject()
    done = on_next_dialog(fill)
    qtbot.keyClick(window.canvas, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert done and seen["text"].startswith("not a size") and seen["fits"] and seen["inside"]


def test_at_the_default_size_the_bottom_panels_show_their_buttons(qtbot, window):
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    for key, button in (("commands", window.commands.copy), ("options", window.options_editor.set_button),
                        ("clients", window.clients_panel.add_client)):
        window.docks[key].raise_()
        qtbot.waitUntil(lambda d=window.docks[key]: not d.visibleRegion().isEmpty())
        region = button.visibleRegion()
        assert not region.isEmpty() and region.boundingRect().size() == button.size(), key


def test_fields_with_nothing_to_edit_are_empty_not_the_last_documents_values(qtbot, window):
    window.files.new()  # no volume in a new topology
    panel = window.layout_panel
    assert not panel.name.isEnabled() and panel.name.text() == ""
    assert panel.replica.count() == 0 and panel.type.currentIndex() == -1
    assert not panel.arbiter.isChecked() and not panel.force.isChecked()
    assert window.options_editor.table.rowCount() == 0 and window.options_editor.name.text() == ""
    assert QApplication.activeWindow() is window

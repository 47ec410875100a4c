"""Clients, mounts and volume options edited in the window with keys and clicks, undone with
Ctrl+Z, and shown on the canvas and in the Commands panel."""

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialogButtonBox

from brickyard.core.topology import Client, Mount

from .helpers import click, on_next_dialog, open_window, point_of, type_into

CTRL = Qt.KeyboardModifier.ControlModifier
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, focus_canvas=True)


def _ok(qtbot, dialog) -> None:
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), LEFT)


def _undo(qtbot, window) -> None:
    """Ctrl+Z as the user presses it, once the window is active again after a dialog."""
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.canvas, Qt.Key.Key_Z, CTRL)


def test_c_adds_a_client_from_a_dialog_it_shows_on_the_canvas_and_ctrl_z_takes_it_back(qtbot, window):
    def fill(dialog):
        type_into(qtbot, dialog.name.edit, "web 1")
        _ok(qtbot, dialog)
        assert dialog.isVisible() and "spaces" in dialog.name.error.text()  # refused at the field
        type_into(qtbot, dialog.name.edit, "web1")
        type_into(qtbot, dialog.address.edit, "10.0.0.50")
        _ok(qtbot, dialog)
    done = on_next_dialog(fill)
    qtbot.keyClick(window.canvas, Qt.Key.Key_C)
    assert done
    topo = window.session.topo
    assert topo.client("web1").address == "10.0.0.50"
    assert "web1" in window.canvas.board.clients and window.canvas.board.clients["web1"].isSelected()
    assert window.inspector.title.text() == "Client web1"
    _undo(qtbot, window)
    assert topo.client("web1") is None and "web1" not in window.canvas.board.clients


def test_m_mounts_the_volume_on_the_selected_client_with_checked_options_and_fstab(qtbot, window):
    topo = window.session.topo
    window.session.push(__import__("brickyard.core.edits", fromlist=["AddClient"]).AddClient(Client("web1")))
    item = window.canvas.board.clients["web1"]
    click(window.canvas, point_of(window.canvas, item))
    assert window.canvas.board.selected_names()[3] == ["web1"]

    def fill(dialog):
        assert dialog.client.currentText() == "web1" and dialog.volume.currentText() == "gv0"
        assert dialog.path.edit.text() == "/mnt/gv0"
        type_into(qtbot, dialog.options.edit, "noatime,bogus")
        _ok(qtbot, dialog)
        assert dialog.isVisible() and "Invalid option bogus" in dialog.options.error.text()
        type_into(qtbot, dialog.options.edit, "noatime,log-level=WARNING")
        qtbot.mouseClick(dialog.fstab, LEFT, pos=QPoint(8, dialog.fstab.height() // 2))
        assert dialog.fstab.isChecked()
        preview = dialog.preview.text()
        assert "mount -t glusterfs -o noatime,log-level=WARNING,backup-volfile-servers=n2 n1:/gv0 /mnt/gv0" in preview
        assert "/etc/fstab: n1:/gv0 /mnt/gv0 glusterfs defaults,_netdev,noatime" in preview
        _ok(qtbot, dialog)
    done = on_next_dialog(fill)
    qtbot.keyClick(window.canvas, Qt.Key.Key_M)
    assert done
    assert topo.volume("gv0").mounts == [Mount("web1", "/mnt/gv0", "noatime,log-level=WARNING", True)]
    assert item.mounts == ["gv0 at /mnt/gv0 (noatime,log-level=WARNING) · fstab"]
    caption = [text for text, _ in window.canvas.board.volume_item.lines]
    assert "mounted by web1:/mnt/gv0 (fstab)" in caption
    assert "gv0 at /mnt/gv0" in window.inspector.client_mounts.text()
    _undo(qtbot, window)
    assert topo.volume("gv0").mounts == [] and item.mounts == []


def test_a_new_client_made_inside_the_mount_dialog_is_one_undo_step_with_its_mount(qtbot, window):
    topo = window.session.topo

    def fill_client(dialog):
        type_into(qtbot, dialog.name.edit, "bench1")
        _ok(qtbot, dialog)

    def fill_mount(dialog):
        on_next_dialog(fill_client)
        qtbot.mouseClick(dialog.new_client, LEFT)
        assert dialog.client.currentText() == "bench1"
        type_into(qtbot, dialog.path.edit, "/srv/gv0")
        _ok(qtbot, dialog)
    done = on_next_dialog(fill_mount)
    window.canvas.actions_by_name["add_mount"].trigger()
    assert done
    assert topo.client("bench1") is not None and topo.volume("gv0").mounts == [Mount("bench1", "/srv/gv0")]
    assert window.session.stack.count() == 1
    _undo(qtbot, window)
    assert topo.client("bench1") is None and topo.volume("gv0").mounts == []


def test_the_clients_panel_edits_a_mount_by_double_click_and_deletes_a_client_with_its_mounts(qtbot, window):
    from brickyard.core import edits

    topo = window.session.topo
    window.session.push(edits.AddClient(Client("web1")))
    window.session.push(edits.AddMount("gv0", Mount("web1", "/mnt/gv0")))
    window.docks["clients"].raise_()
    panel = window.clients_panel
    qtbot.waitUntil(panel.tree.isVisible)
    mount_row = panel.tree.topLevelItem(0).child(0)
    assert mount_row.text(0) == "gv0 at /mnt/gv0"
    rect = panel.tree.visualItemRect(mount_row)

    def change(dialog):
        assert dialog.windowTitle() == "Edit mount"
        type_into(qtbot, dialog.path.edit, "/mnt/data")
        _ok(qtbot, dialog)
    done = on_next_dialog(change)
    qtbot.mouseClick(panel.tree.viewport(), LEFT, pos=rect.center())  # Qt 6 item views want the first click
    qtbot.mouseDClick(panel.tree.viewport(), LEFT, pos=rect.center())
    assert done
    assert topo.volume("gv0").mounts == [Mount("web1", "/mnt/data")]
    assert window.canvas.board.clients["web1"].mounts == ["gv0 at /mnt/data"]
    client_row = panel.tree.topLevelItem(0)
    qtbot.mouseClick(panel.tree.viewport(), LEFT, pos=panel.tree.visualItemRect(client_row).center())
    qtbot.keyClick(panel.tree, Qt.Key.Key_Delete)
    assert topo.client("web1") is None and topo.volume("gv0").mounts == []
    assert panel.tree.topLevelItemCount() == 0 and panel.empty.isVisible()
    _undo(qtbot, window)
    assert topo.volume("gv0").mounts == [Mount("web1", "/mnt/data")]


def type_option_name(qtbot, window, text: str):
    """Bring the volume options dock forward and type ``text`` into its option name field."""
    editor = window.options_editor
    window.docks["options"].raise_()
    qtbot.waitUntil(editor.name.isVisible)
    editor.name.setFocus()
    qtbot.keyClicks(editor.name, text)
    return editor


def test_volume_options_complete_names_refuse_what_gluster_refuses_and_reach_the_commands(qtbot, window):
    editor = type_option_name(qtbot, window, "ping")
    popup = editor.name.completer().popup()
    qtbot.waitUntil(popup.isVisible)
    offered = [popup.model().index(i, 0).data() for i in range(popup.model().rowCount())]
    assert "network.ping-timeout" in offered
    row = offered.index("network.ping-timeout")
    for _ in range(row + 1):
        qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert editor.name.text() == "network.ping-timeout"
    assert "Time duration for which the client waits" in editor.about.text()
    qtbot.keyClick(editor.name, Qt.Key.Key_Return)  # Enter moves on to the value
    assert editor.value.hasFocus()
    qtbot.keyClicks(editor.value, "2000")
    assert editor.value_error.text() == "'2000' in 'option ping-timeout 2000' is out of range [0 - 1013]"
    qtbot.keyClick(editor.value, Qt.Key.Key_Return)
    volume = window.session.volume
    assert "network.ping-timeout" not in volume.options
    type_into(qtbot, editor.value, "10")
    assert editor.value_error.isHidden()
    qtbot.keyClick(editor.value, Qt.Key.Key_Return)
    assert volume.options == {"network.ping-timeout": "10"}
    assert "gluster volume set gv0 network.ping-timeout 10" in window.commands.command_text()
    assert editor.table.rowCount() == 1 and editor.table.item(0, 3).text() == "accepted"
    assert any("network.ping-timeout=10" in text for text, _ in window.canvas.board.volume_item.lines)
    _undo(qtbot, window)
    assert volume.options == {} and editor.table.rowCount() == 0
    assert "network.ping-timeout" not in window.commands.command_text()


def test_an_option_from_a_file_that_gluster_would_refuse_is_shown_red_and_can_be_reset(qtbot, window):
    from brickyard.core import edits

    window.session.push(edits.SetVolumeOption("gv0", "cluster.quorum-type", "sometimes"))
    editor = window.options_editor
    assert editor.table.item(0, 3).text().startswith("option quorum-type sometimes: 'sometimes' is not valid")
    assert any(f.code == "volume-option" for f in window.session.plan.errors)
    assert any(bad and "cluster.quorum-type=sometimes" in text for text, bad in window.canvas.board.volume_item.lines)
    window.docks["options"].raise_()
    qtbot.waitUntil(editor.table.isVisible)
    qtbot.mouseClick(editor.table.viewport(), LEFT, pos=editor.table.visualItemRect(editor.table.item(0, 0)).center())
    assert editor.name.text() == "cluster.quorum-type"
    qtbot.mouseClick(editor.reset_button, LEFT)
    assert window.session.volume.options == {}
    assert not any(f.code == "volume-option" for f in window.session.plan.findings)


def test_a_user_namespace_option_is_set_verbatim_and_a_new_line_in_it_is_refused(qtbot, window):
    editor = type_option_name(qtbot, window, "user.backup-policy")
    editor.name.completer().popup().hide()
    assert "user.* namespace" in editor.about.text()
    qtbot.keyClick(editor.name, Qt.Key.Key_Return)
    assert editor.value.hasFocus()
    editor.value.setText("line1\nline2")             # pasted: a QLineEdit keeps the new line
    assert "cannot restore the volume" in editor.value_error.text()
    type_into(qtbot, editor.value, "nightly at  02:00")
    assert editor.value_error.isHidden()
    qtbot.keyClick(editor.value, Qt.Key.Key_Return)
    volume = window.session.volume
    assert volume.options == {"user.backup-policy": "nightly at  02:00"}   # spaces kept, as gluster keeps them
    assert "gluster volume set gv0 user.backup-policy 'nightly at  02:00'" in window.commands.command_text()
    assert editor.table.item(0, 3).text() == "accepted"

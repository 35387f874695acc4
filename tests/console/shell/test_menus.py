"""Every menu shortcut, pressed on the main window connected to the real server."""

from __future__ import annotations

import datetime as dt

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QKeySequence, QPalette
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLabel, QLineEdit, QMessageBox, QPushButton, QWidget

from console.about_dialog import AboutDialog
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.settings_keys import profile_key
from console.errors.actions import TRIAGE
from console.icons import app_icon
from console.looks import DARK, LIGHT, is_dark
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors

NOW = dt.datetime.now(dt.UTC).isoformat()


@pytest.fixture(scope="module")
def triage(server, api):
    """A project with two unresolved errors, to resolve and ignore from the keyboard."""
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "first to go")
    send_errors(dsn, "second to go")
    error_list(server, project["path_with_namespace"], lambda body: len(body["errors"]) == 2)
    return project


def press(qtbot, window, shortcut: str) -> None:
    """Types the shortcut where the focus is, as a user would; window shortcuts need the window active."""
    if not window.isActiveWindow():
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=WAIT)
    combination = QKeySequence(shortcut)[0]  # type: ignore[index]  # PySide6 declares no __getitem__
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, combination.key(), combination.keyboardModifiers())


@pytest.fixture
def connected(qtbot, make_window, server, tmp_path):
    ExportHistory(tmp_path / "exports", profile_key(server.url, "root")).save([
        ExportRecord(id=41, scope_kind="instance", scope_id=None, scope_label="Instance", status="finished",
                     created_at=NOW, finished_at=NOW, expires_at=(dt.datetime.now(dt.UTC)
                                                                  + dt.timedelta(hours=1)).isoformat())])
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT)
    return window


def test_every_action_shows_its_shortcut_in_its_tooltip(make_window):
    window = make_window()
    actions = window.actions_.by_name
    for action in actions.values():
        shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        assert action.toolTip().endswith(f"({shortcut})") if shortcut else action.toolTip()
    texts = [action.text() for action in actions.values()]
    assert len(texts) == len(set(texts))  # each action once
    assert window.connection_bar.connect_button.toolTip() == actions["connect"].toolTip()


def test_tab_find_refresh_and_copy_shortcuts(qtbot, connected):
    window = connected
    for number, name in enumerate(window.tabs.names, start=1):
        press(qtbot, window, f"Ctrl+{number}")
        assert window.tabs.current_name() == name
    press(qtbot, window, "Ctrl+2")
    variables = window.tabs.current_feature()
    press(qtbot, window, "Ctrl+F")
    qtbot.waitUntil(variables.filter_edit.hasFocus, timeout=WAIT)

    said: list[str] = []
    window.context.status_message.connect(said.append)
    press(qtbot, window, "F5")
    qtbot.waitUntil(lambda: "Loading CI/CD variables…" in said, timeout=WAIT)

    press(qtbot, window, "Ctrl+1")
    overview = window.tabs.current_feature()
    qtbot.waitUntil(lambda: overview.model.rowCount() > 0, timeout=WAIT)
    overview.table.setFocus()
    overview.table.selectRow(0)
    press(qtbot, window, "Ctrl+C")
    assert QGuiApplication.clipboard().text().startswith(overview.model.rows[0].path + "\t")
    press(qtbot, window, "Ctrl+F")
    assert overview.table.hasFocus()


def test_variable_shortcuts(qtbot, connected, api):
    window = connected
    press(qtbot, window, "Ctrl+N")
    variables = window.tabs.current_feature()
    assert window.tabs.current_name() == "variables"
    qtbot.waitUntil(lambda: variables.dialog is not None and variables.dialog.isVisible(), timeout=WAIT)
    variables.dialog.reject()
    qtbot.waitUntil(lambda: variables.model.rowCount() > 0, timeout=WAIT)
    variables.table.setFocus()
    variables.table.selectRow(0)
    press(qtbot, window, "Ctrl+C")  # on the variables list, Copy copies the selected variable's value
    assert QGuiApplication.clipboard().text() == variables.model.variable(variables.selected_rows()[0]).value
    press(qtbot, window, "Del")
    qtbot.waitUntil(lambda: isinstance(variables.confirmation, QMessageBox) and variables.confirmation.isVisible(),
                    timeout=WAIT)
    variables.confirmation.reject()
    # Delete in a text field deletes text, not the selected variable.
    variables.filter_edit.setFocus()
    variables.filter_edit.setText("ab")
    variables.filter_edit.setCursorPosition(0)
    variables.confirmation = None
    press(qtbot, window, "Del")
    assert variables.filter_edit.text() == "b" and variables.confirmation is None


def test_save_export_shortcut(qtbot, connected):
    window = connected
    press(qtbot, window, "Ctrl+3")
    exports = window.tabs.current_feature()
    exports.select_export(41)  # selected once the history file has been read, off the UI thread
    qtbot.waitUntil(lambda: exports.selected() is not None and exports.selected().id == 41, timeout=WAIT)
    press(qtbot, window, "Ctrl+S")
    qtbot.waitUntil(lambda: exports.file_dialog is not None and exports.file_dialog.isVisible(), timeout=WAIT)
    exports.file_dialog.reject()


def test_resolve_and_ignore_shortcuts(qtbot, connected, triage):
    window = connected
    path = triage["path_with_namespace"]
    window.open_target(("errors", path))
    errors = window.tabs.current_feature()
    page = errors.errors_page
    actions = window.actions_.by_name
    assert page.table.actions() == [actions["resolve"], actions["ignore"], actions["unresolve"],  # context menu
                                    *(actions[name] for name in TRIAGE)]
    buttons = [button.text() for button in errors.findChildren(QPushButton)]
    assert buttons.count("Resolve") == buttons.count("Ignore") == buttons.count("Unresolve") == 1  # each once
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    page.table.setFocus()
    page.table.selectRow(0)
    press(qtbot, window, "Ctrl+R")
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    press(qtbot, window, "Ctrl+I")
    qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=WAIT)
    page.filters.status.setCurrentIndex(page.filters.status.findData("ignored"))
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    press(qtbot, window, "Ctrl+U")
    qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=WAIT)
    statuses = {status: len(error_list(window_server(window), path, lambda body: True, issue_status=status)["errors"])
                for status in ("resolved", "ignored")}
    assert statuses == {"resolved": 1, "ignored": 0}  # the ignored one is unresolved again


def window_server(window):
    class Server:
        url = window.context.client.base_url
        root_token = window.context.client._http.headers["PRIVATE-TOKEN"]

    return Server


def test_help_connection_and_quit_shortcuts(qtbot, connected):
    window = connected
    press(qtbot, window, "F1")
    box = next(child for child in window.findChildren(AboutDialog) if child.isVisible())
    text = box.versions.text()
    assert "Outpost console" in text and "PySide6" in text and "Server: 18.6.0" in text
    assert box.token is None, "a token only for the local demo server"
    box.close()
    press(qtbot, window, "Ctrl+O")
    qtbot.waitUntil(lambda: window.connection_dialog is not None and window.connection_dialog.isVisible(),
                    timeout=WAIT)
    window.connection_dialog.reject()
    press(qtbot, window, "Ctrl+Shift+D")
    qtbot.waitUntil(lambda: not window.context.is_connected, timeout=WAIT)
    press(qtbot, window, "Ctrl+Q")
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT)


def test_start_local_server_shortcut(qtbot, make_window):
    window = make_window()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT)
    press(qtbot, window, "Ctrl+L")
    qtbot.waitUntil(lambda: window.context.is_connected, timeout=60_000)
    assert window.local_server is not None and window.local_server.url == window.context.client.base_url


def test_find_goes_to_the_errors_search(qtbot, connected, triage):
    window = connected
    press(qtbot, window, "Ctrl+4")
    errors = window.tabs.current_feature()
    press(qtbot, window, "Ctrl+F")  # no project chosen yet: Find goes to the project picker
    assert QApplication.focusWidget() is errors.project_picker
    window.open_target(("errors", triage["path_with_namespace"]))
    qtbot.waitUntil(lambda: errors.project is not None, timeout=WAIT)
    press(qtbot, window, "Ctrl+F")
    assert isinstance(QApplication.focusWidget(), QLineEdit)
    assert QApplication.focusWidget() is errors.errors_page.filters.search


def test_colours_follow_a_dark_palette(qapp, make_window):
    window = make_window()
    original = qapp.palette()
    dark = QPalette(original)
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    try:
        qapp.setPalette(dark)
        assert is_dark()
        window.looks.apply()
        assert DARK["warning"] in window.styleSheet()
    finally:
        qapp.setPalette(original)
    window.looks.apply()
    assert not is_dark() and LIGHT["warning"] in window.styleSheet()


def test_every_focusable_control_has_an_accessible_name(qtbot, connected):
    window = connected
    for name in window.tabs.names:
        window.tabs.show_tab(name)
    controls = [widget for widget in window.findChildren(QWidget)
                if widget.focusPolicy() != Qt.FocusPolicy.NoFocus and not isinstance(widget, QLabel)
                and not isinstance(widget.parentWidget(), QAbstractSpinBox)]
    assert len(controls) > 40
    assert [widget for widget in controls if not widget.accessibleName()] == []
    assert window.tabs.feature("variables").filter_edit.accessibleName() == "Filter by key, value or description"


def test_the_application_icon_is_sharp_at_twice_the_pixel_ratio(qapp):
    icon = app_icon()
    assert not icon.isNull()
    pixmap = icon.pixmap(QSize(32, 32), 2.0)
    assert (pixmap.width(), pixmap.height(), pixmap.devicePixelRatio()) == (64, 64, 2.0)
    # Drawn at 64 px, not a 32 px picture scaled up: the edges differ from an upscaled copy.
    upscaled = icon.pixmap(QSize(32, 32), 1.0).scaled(64, 64).toImage()
    assert pixmap.toImage().convertToFormat(upscaled.format()) != upscaled

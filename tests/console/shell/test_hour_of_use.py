"""Journeys from an hour of use as a new user: what the console does after a keyboard resolve, a link to an
error that is gone, a refused save, a crashed local server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from console.core.outpost_links import error_link
from console.messages_view import MessageLogModel
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors

START = 90_000  # a fresh demo server loads its demo data first


def two_errors_listed(qtbot, make_window, server, api):
    """A window showing the Errors page of a new project with two unresolved errors; (window, page, path)."""
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "first trouble")
    send_errors(dsn, "second trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 2)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", path))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    return window, page, path


def test_ctrl_r_under_the_unresolved_filter_leaves_nothing_selected(qtbot, make_window, server, api):
    window, page, path = two_errors_listed(qtbot, make_window, server, api)
    page.table.selectRow(0)
    opened = page.model.error_at(0)
    qtbot.waitUntil(lambda: window.actions_.by_name["resolve"].isEnabled(), timeout=WAIT)

    resolve = window.actions_.by_name["resolve"]  # Ctrl+R
    assert resolve.shortcut().toString() == "Ctrl+R"
    resolve.trigger()
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    assert page.selected_error() is None and page.detail.error_id is None
    assert not page.table.selectionModel().hasSelection()
    assert not resolve.isEnabled()
    resolve.trigger()  # a second Ctrl+R resolves nothing
    qtbot.wait(500)  # a resolve, had it gone out, would be answered by now
    assert page.model.rowCount() == 1 and not page.loading
    body = error_list(server, path, lambda body: len(body["errors"]) == 1, status="unresolved")
    assert [error["title"] for error in body["errors"]] == [
        title for title in ("first trouble", "second trouble") if title != opened.title]


# A read still on its way when the server is killed (the overview's, say) fails before the exit is noticed:
# refused, or cut off while connecting.
@pytest.mark.expected_log(r"WARNING console\.context The local server stopped: It exited on its own \(exit code -9\)",
                          r"WARNING console\.context [A-Z][a-z ]+ failed: (Nothing is listening at|The connection to) "
                          r"http://127\.0\.0\.1")
def test_a_killed_local_server_is_said_and_can_be_started_again(qtbot, make_window):
    window = make_window()
    window.start_local_server()
    qtbot.waitUntil(lambda: window.context.is_connected, timeout=START)
    bar = window.connection_bar
    assert not bar.local_server_button.isEnabled()
    os.kill(window.local_server.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: window.local_server is None and not window.context.is_connected, timeout=WAIT)
    assert window.message_bar.isVisible()
    assert "The local server stopped: It exited on its own (exit code -9)" in window.message_bar.label.text()
    assert bar.server_label.text() == "Not connected"
    assert bar.local_server_button.isEnabled()
    qtbot.mouseClick(bar.local_server_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.context.is_connected, timeout=START)
    assert not window.message_bar.isVisible()


@pytest.mark.expected_log(r"WARNING console\.context Cannot open the link: Error 987654 was not found in ")
def test_a_link_to_an_error_that_does_not_exist_says_so(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    send_errors(enable_integrated(api.root, project["id"]), "the only error")
    error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    said: list[str] = []
    window.context.status_message.connect(said.append)
    opening = window.open_link(error_link(server.url, path, "987654"))
    qtbot.waitUntil(opening.done, timeout=WAIT)
    assert window.message_bar.isVisible()
    assert f"Error 987654 was not found in {path}" in window.message_bar.label.text()
    assert "Opening the link: done" not in said
    errors = window.tabs.current_feature()
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == path,
                    timeout=WAIT)
    assert errors.errors_page.selected_error() is None


def project_page_shown(qtbot, make_window, server, api, page_name: str):
    """A connected window showing a new project's Error tracking tab at its page ``page_name``;
    (project, window, tab, page)."""
    project = api.project()
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    tab = window.tabs.current_feature()
    qtbot.waitUntil(lambda: tab.project is not None, timeout=WAIT)
    page = getattr(tab, page_name)
    tab.pages.setCurrentWidget(page)
    return project, window, tab, page


def alert_rule_drafted(qtbot, make_window, server, api):
    """A window whose Alerts page holds an unsaved rule named "Night shift"; (window, tab, page)."""
    project, window, tab, page = project_page_shown(qtbot, make_window, server, api, "alerts_page")
    qtbot.waitUntil(lambda: page.loaded_project == project["id"], timeout=WAIT)
    page.editor.name.setText("Night shift")
    return window, tab, page


def test_an_unsaved_alert_rule_is_not_lost_on_quit_without_asking(qtbot, make_window, server, api):
    window, _tab, page = alert_rule_drafted(qtbot, make_window, server, api)
    window.close()  # Ctrl+Q
    qtbot.waitUntil(lambda: page.question is not None and page.question.isVisible(), timeout=WAIT)
    assert window.isVisible() and "Night shift" in page.question.text()
    page.question.button(QMessageBox.StandardButton.Cancel).click()
    assert window.isVisible() and page.editor.name.text() == "Night shift"
    window.close()
    qtbot.waitUntil(lambda: page.question is not None and page.question.isVisible(), timeout=WAIT)
    page.question.button(QMessageBox.StandardButton.Discard).click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT)


def test_escape_in_a_changed_variable_dialog_asks_first(qtbot, make_window, server):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    variables = window.tabs.show_tab("variables")
    dialog = variables.add_variable()
    qtbot.waitExposed(dialog)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # nothing typed: it closes at once
    assert not dialog.isVisible() and dialog.question is None
    dialog = variables.add_variable()
    qtbot.waitExposed(dialog)
    qtbot.keyClicks(dialog.key_edit, "HALF_TYPED")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: dialog.question is not None and dialog.question.isVisible(), timeout=WAIT)
    assert dialog.isVisible() and "HALF_TYPED" in dialog.question.text()
    dialog.question.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.isVisible() and dialog.key_edit.text() == "HALF_TYPED"
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: dialog.question.isVisible(), timeout=WAIT)
    dialog.question.button(QMessageBox.StandardButton.Discard).click()
    assert not dialog.isVisible()


PREVIEW_ON_A_SMALL_SCREEN = """
import json, sys
from PySide6.QtCore import QPoint, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from console.core.connection.credentials import CredentialStore
from console.context import AppContext
from console.exports.dialogs import PreviewDialog
from console.main_window import MainWindow
from tests.console.memkeyring import MemoryKeyring

app = QApplication([])
window = MainWindow(AppContext(), CredentialStore(MemoryKeyring()),
                    settings=QSettings(sys.argv[1] + "/settings.ini", QSettings.Format.IniFormat),
                    local_server_dir=sys.argv[1], history_dir=sys.argv[1])
window.show()
shown = []

def step():
    if not window.is_ready:  # the set-up after the first frame
        QTimer.singleShot(20, step)
    elif not shown:
        preview = PreviewDialog("export 1 of the instance", ["Severity", "Status", "Name", "Location"],
                                [["high", "detected", "x" * 200, "app.py"]], truncated=False, parent=window)
        preview.show()
        shown.append(preview)
        QTimer.singleShot(0, step)
    else:
        preview = shown[0]
        close = preview.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
        corner = close.mapToGlobal(QPoint(close.width(), close.height()))
        print(json.dumps({"frame": preview.frameGeometry().getRect(),
                          "available": preview.screen().availableGeometry().getRect(),
                          "close_corner": [corner.x(), corner.y()]}), flush=True)
        app.quit()

QTimer.singleShot(0, step)
app.exec()
"""


def test_no_dialog_is_larger_than_the_screen(tmp_path):
    """A 900×600 screen: the export preview, which asks for 1,100 px, fits with its Close button."""
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "small", "x": 0, "y": 0, "width": 900, "height": 600,
                                               "logicalDpi": 96}]}))
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(root), str(root / "src")])}
    done = subprocess.run([sys.executable, "-c", PREVIEW_ON_A_SMALL_SCREEN, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.splitlines()[-1])
    x, y, width, height = shown["frame"]
    assert shown["available"] == [0, 0, 900, 600]
    assert x >= 0 and y >= 0 and x + width <= 900 and y + height <= 600, shown
    assert shown["close_corner"][0] <= 900 and shown["close_corner"][1] <= 600, shown


def test_unread_notifications_stand_out_and_opening_one_puts_the_list_away(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    send_errors(enable_integrated(api.root, project["id"]), "worth a look")
    error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.context.announce("New error", f"worth a look in {path}", ("errors", path))
    listing = window.notifications_button.open_list()
    qtbot.waitExposed(listing)
    row = listing.model.index(0, MessageLogModel.TEXT)
    assert row.data(Qt.ItemDataRole.FontRole).bold(), "unread when the list was opened"
    window.context.announce("New error", f"another one in {path}", ("errors", path))
    assert [listing.model.index(r, MessageLogModel.TEXT).data(Qt.ItemDataRole.FontRole) is not None
            for r in range(2)] == [True, True]
    listing.close()
    assert window.notifications_button.text() == "Notifications: 1 new"  # the one said while the list was open
    listing = window.notifications_button.open_list()
    assert [listing.model.index(r, MessageLogModel.TEXT).data(Qt.ItemDataRole.FontRole) is not None
            for r in range(2)] == [True, False], "bold as the count said"
    row = listing.model.index(1, MessageLogModel.TEXT)
    listing.table.activated.emit(row)
    assert not listing.isVisible()
    assert window.tabs.current_name() == "errors"
    errors = window.tabs.current_feature()
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == path,
                    timeout=WAIT)


def test_settings_say_what_to_fix_by_label_and_entry_as_you_type(qtbot, make_window, server, api):
    project = api.project()
    enable_integrated(api.root, project["id"])
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    tab = window.tabs.current_feature()
    page = tab.settings_page
    tab.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.baseline is not None, timeout=WAIT)

    page.origins_box.origins.setText("https://shop.example.com, shop example!")
    assert not page.save_button.isEnabled() and page.problems.isVisible()
    assert "Allowed origins: “example!” is not an origin" in page.problems.text()
    page.origins_box.origins.setText("https://shop.example.com")
    assert page.save_button.isEnabled() and not page.problems.isVisible()

    page.external.setChecked(True)
    page.api_host.setText("https://sentry.example.com")  # filled in, yet no project chosen
    assert not page.save_button.isEnabled()
    assert page.problems.text() == "Project: press Connect, then choose the Sentry project to show here."
    assert "api_url" not in page.problems.text()
    page.api_host.clear()
    assert page.problems.text().startswith("API URL: enter the address")
    page.integrated.setChecked(True)
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.saved_label.text() == "Saved.", timeout=WAIT)
    saved = api.root.get(f"/projects/{project['id']}/error_tracking/settings").json()
    assert saved["allowed_origins"] == ["https://shop.example.com"]


def test_a_demo_link_with_no_demo_running_offers_to_start_it_then_opens_the_error(qtbot, make_window, tmp_path):
    with socket.socket() as probe:  # a free port, as the demo's last one
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "local-server").mkdir()
    (tmp_path / "local-server" / "port").write_text(f"{port}\n")
    window = make_window()
    window.open_link(f"outpost://127.0.0.1:{port}/acme/webshop/-/error_tracking/1")
    qtbot.waitUntil(lambda: any(box.isVisible() for box in window.findChildren(QMessageBox)), timeout=WAIT)
    offer = next(box for box in window.findChildren(QMessageBox) if box.isVisible())
    assert "local demo server, which is not running" in offer.text()
    assert window.connection_dialog is None, "no sign-in with a token no one knows"
    offer.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: window.context.is_connected, timeout=START)
    qtbot.waitUntil(lambda: window.tabs.current_name() == "errors", timeout=WAIT)
    errors = window.tabs.current_feature()
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == "acme/webshop",
                    timeout=WAIT)


def test_a_failed_connection_test_is_not_said_to_be_done(qtbot, make_window, server, api):
    project = api.project()
    window = make_window()
    said: list[str] = []
    window.context.status_message.connect(said.append)
    dialog = window.open_connection_dialog()
    dialog.url_edit.setText("http://127.0.0.1:9")  # nothing listens there
    dialog.token_edit.setText("glpat-whatever")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_label.text().startswith("✘"), timeout=WAIT)
    qtbot.waitUntil(lambda: "The connection test failed: see the dialog" in said, timeout=WAIT)
    assert "Testing the connection: done" not in said
    dialog.close()

    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    tab = window.tabs.current_feature()
    qtbot.waitUntil(lambda: tab.project is not None, timeout=WAIT)
    page = tab.settings_page
    tab.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.loaded is not None, timeout=WAIT)
    said.clear()
    page.external.setChecked(True)
    page.api_host.setText("http://127.0.0.1:9")
    page.token.setText("sntrys-some-token")
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "The connection test failed: the settings say why" in said, timeout=WAIT)
    assert "Testing the connection: done" not in said


def test_a_cold_start_connect_dialog_offers_no_keyring_where_there_is_none(qtbot, qloop_running, context, settings,
                                                                          monkeypatch):
    import keyring
    from keyring.backends import fail

    from console.connection.dialog import ConnectionDialog
    from console.connection.profiles import ProfileStore
    from console.core.connection.credentials import CredentialStore

    monkeypatch.setattr(keyring.core, "_keyring_backend", fail.Keyring())  # this computer has no keyring
    credentials = CredentialStore()  # the system's choice, not looked up yet: the dialog opens first
    dialog = ConnectionDialog(context, ProfileStore(settings), credentials)
    qtbot.addWidget(dialog)
    dialog.show()
    assert not (dialog.remember_box.isEnabled() and dialog.remember_box.isChecked())
    qtbot.waitUntil(lambda: credentials.backend is not None and dialog.keyring_note.isVisible(), timeout=WAIT)
    assert not dialog.remember_box.isEnabled() and not dialog.remember_box.isChecked()
    assert "this session only" in dialog.keyring_note.text()


@pytest.mark.expected_log(r"WARNING console\.context Saving the alert rule failed: The server rejected the request")
def test_discarding_a_refused_rule_takes_its_failure_away(qtbot, make_window, server, api):
    project = api.project()
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    tab = window.tabs.current_feature()
    qtbot.waitUntil(lambda: tab.project is not None, timeout=WAIT)
    page = tab.alerts_page
    tab.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.loaded_project == project["id"], timeout=WAIT)
    page.editor.name.setText("To my laptop")
    page.editor.channel.setCurrentIndex(page.editor.channel.findData("json_webhook"))
    page.editor.target.setText("http://127.0.0.1:9/hook")  # refused: a local address
    page.editor.add_recipient_button.click()
    page.editor.save_button.click()
    qtbot.waitUntil(lambda: tab.message_bar.isVisible(), timeout=WAIT)
    assert "Saving the alert rule failed" in tab.message_bar.label.text()
    discarded: list[bool] = []
    assert not tab.may_close(lambda: discarded.append(True))  # as on quit
    qtbot.waitUntil(lambda: page.question is not None and page.question.isVisible(), timeout=WAIT)
    page.question.button(QMessageBox.StandardButton.Discard).click()
    assert discarded == [True]
    assert not tab.message_bar.isVisible() and "Saving the alert rule" not in tab.message_bar.failures


def test_the_stack_trace_scrolls_sideways_and_says_its_order(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    send_errors(enable_integrated(api.root, project["id"]), "keyerror")
    error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", path))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    trace = page.detail.stack_trace
    qtbot.waitUntil(lambda: trace.topLevelItemCount() == 1 and page.shown_error is not None, timeout=WAIT)
    trace.resize(160, trace.height())  # narrower than its longest line
    qtbot.waitUntil(lambda: trace.horizontalScrollBar().maximum() > 0, timeout=WAIT)
    widest = max(trace.visualItemRect(item).width() for item in trace.findItems("", Qt.MatchFlag.MatchContains
                                                                                | Qt.MatchFlag.MatchRecursive))
    assert trace.columnWidth(0) >= widest > trace.viewport().width()
    sections = page.detail.sections
    assert "oldest first" in sections.tabToolTip(sections.indexOf(trace))
    # Said in view too, over the frames, as the copy says its own.
    assert not trace.isHeaderHidden() and trace.headerItem().text(0) == "Frames, oldest first (most recent call last)"
    page.copy_markdown()
    assert "(most recent call first)" in QApplication.clipboard().text()  # the copy says its own order


def test_the_overview_keeps_room_for_several_projects_at_900x600(qtbot, make_window, server):
    window = make_window()
    window.resize(900, 600)
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.show_tab("overview")
    qtbot.waitUntil(lambda: overview.storage_box.isVisible() and overview.mail_box.isVisible(), timeout=WAIT)
    QApplication.processEvents()
    table = overview.table
    assert table.viewport().height() >= 3 * table.verticalHeader().defaultSectionSize()

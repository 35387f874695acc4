"""The main window against the real server: connection area, dialog, status bar, error reporting."""

import asyncio
import sys

import httpx
import pytest
from keyring.backends import null
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from console.connection.profiles import Profile, ProfileStore
from console.core.connection.credentials import CredentialStore
from console.excepthook import ExceptionReporter
from console.main_window import TAB_FACTORIES, MainWindow
from console.operations import Op
from outpost_model.projects import Project
from tests.console.shell.conftest import wait_until_ready
from tests.console.test_api_client import closed_port
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list

WAIT = 15_000


@pytest.fixture
def window(qtbot, qloop_running, context, credentials, settings, tmp_path):
    win = MainWindow(context, credentials, settings=settings, local_server_dir=tmp_path / "local-server")
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    wait_until_ready(qtbot, win)
    yield win
    if context.client is not None or win.local_server is not None:
        win.close()


def connect(window, qtbot, url, token):
    Op(window.context, window.context.connect_to(url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible() and window.context.is_connected, timeout=WAIT)


def test_not_connected_shows_the_welcome_page(window):
    assert window.pages.currentWidget() is window.welcome_page
    assert window.connection_bar.server_label.full_text() == "Not connected"
    assert not window.connection_bar.disconnect_button.isEnabled()
    assert window.connection_bar.admin_badge.isHidden() and window.connection_bar.user_badge.isHidden()
    assert window.connection_bar.keyring_warning.isHidden()


def test_tabs_come_from_the_factory_list(window):
    titles = [window.tabs.tabText(index) for index in range(window.tabs.count())]
    assert titles == [factory.title for factory in TAB_FACTORIES]


def test_connect_as_root_shows_user_and_admin_badge(window, qtbot, server):
    said: list[str] = []
    window.context.status_message.connect(said.append)
    connect(window, qtbot, server.url, server.root_token)
    bar = window.connection_bar
    assert window.pages.currentWidget() is window.tabs
    assert bar.server_label.full_text() == f"Connected to {server.url}"
    assert "@root" in bar.user_label.full_text()
    assert bar.admin_badge.isVisible() and bar.user_badge.isHidden()
    assert bar.disconnect_button.isEnabled()
    overview = window.tabs.feature("overview")
    assert overview.server_value.text() == server.url
    assert overview.version_value.text().startswith(window.context.server_version.version)
    assert overview.kind_value.text() == "Outpost", "the console tells Outpost from GitLab"
    assert f"Connected to {server.url} as root" in said


def test_regular_user_has_no_admin_badge(window, qtbot, server, api):
    user, token = api.user()
    connect(window, qtbot, server.url, token)
    bar = window.connection_bar
    assert f"@{user['username']}" in bar.user_label.full_text()
    assert bar.admin_badge.isHidden() and bar.user_badge.isVisible()


def test_disconnect_returns_to_the_welcome_page(window, qtbot, server):
    connect(window, qtbot, server.url, server.root_token)
    qtbot.mouseClick(window.connection_bar.disconnect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.welcome_page, timeout=WAIT)
    assert not window.context.is_connected
    assert window.connection_bar.admin_badge.isHidden()


@pytest.mark.expected_log(r"WARNING console\.context Loading the project failed: Not found \(404\)")
def test_a_failure_of_no_tab_stays_in_the_windows_message_bar_until_dismissed(window, qtbot, server):
    connect(window, qtbot, server.url, server.root_token)
    Op(window.context, window.context.client.get_as(Project, "/projects/987654321"),
       description="Loading the project").run()
    qtbot.waitUntil(lambda: window.message_bar.isVisible(), timeout=WAIT)
    assert "Loading the project failed: Not found (404)" in window.message_bar.label.text()
    # Later work that succeeds, with its "…: done", does not take the failure away.
    later = Op(window.context, window.context.client.get_version(), description="Reading the version").run()
    qtbot.waitUntil(later.done, timeout=WAIT)
    # It is said once "Connected to …", an outcome, has had its few seconds.
    qtbot.waitUntil(lambda: window.status_line.label.text() == "Reading the version: done", timeout=WAIT)
    assert window.message_bar.isVisible() and "404 Project Not Found" in window.message_bar.label.text()
    window.message_bar.dismiss_button.click()
    assert not window.message_bar.isVisible()


@pytest.mark.expected_log(r"ERROR console\.excepthook Unexpected error")
def test_unexpected_error_in_async_work_is_shown_in_a_dialog(window, qtbot):
    reporter = ExceptionReporter()
    reporter.install()
    shown: list[QMessageBox] = []
    reporter.unexpected.connect(lambda summary, details: shown.append(window.show_unexpected_error(summary, details)))

    async def broken() -> None:
        raise ValueError("cannot parse the answer")

    try:
        Op(window.context, broken(), description="Refreshing").run()
        qtbot.waitUntil(lambda: bool(shown), timeout=WAIT)
    finally:
        reporter.uninstall()
    box = shown[0]
    assert box.isVisible()
    assert box.text() == "ValueError: cannot parse the answer"
    assert "Traceback" in box.detailedText()
    assert "cannot parse the answer" in window.message_bar.label.text()
    assert not window.status_line.progress.isVisible()
    box.close()


def test_exception_hook_is_restored(qapp):
    before = sys.excepthook
    reporter = ExceptionReporter()
    reporter.install()
    assert sys.excepthook == reporter.handle
    reporter.uninstall()
    assert sys.excepthook is before


def test_dialog_connects_and_remembers_profile_and_token(window, qtbot, server, settings, memory_keyring):
    dialog = window.open_connection_dialog()
    qtbot.waitExposed(dialog)
    dialog.name_edit.setText("Local test")
    dialog.url_edit.setText(server.url + "/")
    dialog.token_edit.setText(server.root_token)
    assert dialog.remember_box.isChecked() and dialog.keyring_note.isHidden()
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.context.is_connected and not dialog.isVisible(), timeout=WAIT)
    assert ProfileStore(settings).load() == [Profile("Local test", server.url)]
    assert memory_keyring.passwords == {(f"Outpost {server.url}", "Local test"): server.root_token}
    assert window.connection_bar.admin_badge.isVisible()

    # Opening the dialog again offers the saved profile with its token read back from the keyring.
    again = window.open_connection_dialog()
    qtbot.waitUntil(lambda: again.token_edit.text() == server.root_token, timeout=WAIT)
    assert again.profile_box.currentText() == "Local test"
    assert again.url_edit.text() == server.url
    again.reject()


@pytest.mark.parametrize(
    ("url_of", "token", "expected"),
    [
        (lambda server: server.url, "wrong-token", "did not accept the access token (401)"),
        (lambda server: f"http://127.0.0.1:{closed_port()}", "token", "connection was refused"),
        (lambda server: server.url.replace("http:", "https:"), "token", "secure (TLS) connection"),
        (lambda server: server.url + "/nothing-here", "token", "does not look like a GitLab-compatible server"),
        (lambda server: "gitlab.example.com", "token", "not a valid server address"),
    ],
    ids=["401", "refused", "tls", "wrong-url", "no-scheme"],
)
def test_test_connection_explains_failures(window, qtbot, server, url_of, token, expected):
    dialog = window.open_connection_dialog()
    dialog.url_edit.setText(url_of(server))
    dialog.token_edit.setText(token)
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_label.text().startswith("✘"), timeout=WAIT)
    assert expected in dialog.result_label.text()
    assert not window.context.is_connected
    dialog.reject()


def test_test_connection_reports_user_and_version(window, qtbot, server):
    dialog = window.open_connection_dialog()
    dialog.url_edit.setText(server.url)
    dialog.token_edit.setText(server.root_token)
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_label.text().startswith("✔"), timeout=WAIT)
    assert "@root, administrator" in dialog.result_label.text()
    assert "server version" in dialog.result_label.text()
    assert not window.context.is_connected  # testing does not connect
    dialog.reject()


def test_rejected_connect_keeps_dialog_open_with_the_reason(window, qtbot, server):
    dialog = window.open_connection_dialog()
    dialog.url_edit.setText(server.url)
    dialog.token_edit.setText("wrong-token")
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_label.text().startswith("✘"), timeout=WAIT)
    assert dialog.isVisible() and not window.context.is_connected
    assert "401" in dialog.result_label.text()
    dialog.reject()


def test_without_a_keyring_the_session_only_storage_is_visible(
    qtbot, qloop_running, context, settings, tmp_path, server, memory_keyring
):
    credentials = CredentialStore(null.Keyring())
    win = MainWindow(context, credentials, settings=settings, local_server_dir=tmp_path)
    qtbot.addWidget(win)
    win.show()
    assert win.connection_bar.keyring_warning.isVisible()
    assert "this session only" in win.connection_bar.keyring_warning.text()
    assert win.connection_bar.keyring_warning.toolTip() == credentials.warning
    dialog = win.open_connection_dialog()
    qtbot.waitExposed(dialog)
    assert dialog.keyring_note.isVisible() and not dialog.remember_box.isEnabled()
    dialog.url_edit.setText(server.url)
    dialog.token_edit.setText(server.root_token)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: context.is_connected and not dialog.isVisible(), timeout=WAIT)
    assert memory_keyring.passwords == {}  # nothing went to any store
    reopened = win.open_connection_dialog()
    qtbot.waitUntil(lambda: reopened.token_edit.text() == server.root_token, timeout=WAIT)
    reopened.reject()
    win.close()
    assert not context.is_connected


def test_geometry_is_saved_on_close(window, settings):
    window.resize(900, 640)
    window.close()
    assert settings.value("main_window/geometry") is not None


def test_closing_disconnects(window, qtbot, server):
    connect(window, qtbot, server.url, server.root_token)
    client = window.context.client
    window.close()
    assert window.context.client is None
    assert client.is_closed


def test_close_requested_from_a_coroutine_still_shuts_down(window, qtbot, server):
    connect(window, qtbot, server.url, server.root_token)

    async def close_window() -> None:
        window.close()

    Op(window.context, close_window(), description="Closing").run()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT)
    assert window.context.client is None


def test_closing_cancels_operations_still_running(window, qtbot, server):
    connect(window, qtbot, server.url, server.root_token)
    said: list[str] = []
    window.context.status_message.connect(said.append)
    slow = Op(window.context, asyncio.sleep(3600), description="Waiting for a slow answer").run()
    window.close()
    assert slow.cancelled()
    assert "Waiting for a slow answer: cancelled" in said
    assert window.status_line.progress.isHidden()


def test_an_outcome_is_not_replaced_by_the_routine_lines_of_the_loads_after_it(window, qtbot, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "first trouble")
    send_errors(dsn, "second trouble")
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        wait_for_list(web, path, lambda body: len(body["errors"]) == 2)
    connect(window, qtbot, server.url, server.root_token)
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.shown_error is not None and not window.status_line.progress.isVisible(),
                    timeout=WAIT)
    resolved = page.detail.error_id
    qtbot.waitUntil(lambda: not window.status_line.outcome.isActive(), timeout=WAIT)  # "Connected to …" had its time
    said: list[str] = []
    window.context.status_message.connect(said.append)

    # Resolving leaves nothing selected; the user opens the other error at once, whose details load: their lines
    # are said (Messages keeps them) but the status line keeps the outcome.
    errors.tab_actions()["resolve"].trigger()
    qtbot.waitUntil(lambda: "The error is now resolved" in said and page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.error_id not in (None, resolved) and page.shown_error is not None
                    and not window.status_line.progress.isVisible(), timeout=WAIT)
    assert "Loading the error: done" in said[said.index("The error is now resolved"):]
    assert window.status_line.label.text() == "The error is now resolved"
    # Once the outcome has had its time, the newest routine line takes the line.
    qtbot.waitUntil(lambda: window.status_line.label.text() == "Loading the error: done", timeout=WAIT)

"""outpost:// links against the real server: on the command line they open the error with the profile saved for
its server (or ask to sign in), and a second start hands its link to the console already running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from console import app as console_app
from console.connection.dialog import ConnectionDialog
from console.connection.profiles import Profile, ProfileStore
from console.core.outpost_links import error_link
from console.errors.tab import ErrorTrackingTab
from console.main_window import MainWindow
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def two_errors(server, api):
    """A project with two errors; returns its path and the id of the one that is not first in the list."""
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "first broke")
    send_errors(dsn, "second broke")
    body = error_list(server, path, lambda body: len(body["errors"]) == 2)
    return path, next(error["id"] for error in body["errors"] if error["title"] == "first broke")


def shown_error(window: MainWindow) -> tuple[str, str] | None:
    """The project and error selected in the error tracking tab."""
    errors = window.tabs.created_as("errors", ErrorTrackingTab)
    if errors is None or errors.project is None or window.tabs.current_name() != "errors":
        return None
    error = errors.errors_page.selected_error()
    return (errors.project.path_with_namespace, error.id) if error is not None else None


def save_profile(window: MainWindow, qtbot, settings, url: str, token: str) -> None:
    ProfileStore(settings).save(Profile("test server", url))
    saving = window.credentials.save_token(url, "test server", token)
    from console.operations import Op

    op = Op(window.context, saving, description="Saving the token").run()
    qtbot.waitUntil(op.done, timeout=WAIT)


def test_a_link_on_the_command_line_opens_the_error_with_the_saved_profile(qtbot, make_window, settings, server,
                                                                           two_errors, monkeypatch):
    path, error_id = two_errors
    link = error_link(server.url, path, error_id)
    assert link.startswith("outpost://127.0.0.1:") and link.endswith(f"/{path}/-/error_tracking/{error_id}")
    started: list[dict] = []
    monkeypatch.setattr(console_app, "run_gui", lambda **options: started.append(options) or 0)
    monkeypatch.setattr("console.single_instance.server_name", lambda: "outpost-console-none-running")
    assert console_app.main([link]) == 0
    assert started == [{"demo": False, "screenshot": None, "link": link}]

    window = make_window()  # what run_gui does with the link
    save_profile(window, qtbot, settings, server.url, server.root_token)
    assert not window.context.is_connected
    window.open_link(started[0]["link"])
    qtbot.waitUntil(lambda: shown_error(window) == (path, error_id), timeout=WAIT)
    assert window.context.client is not None and window.context.client.base_url == server.url


def test_without_a_saved_profile_the_link_asks_to_sign_in_then_opens_the_error(qtbot, make_window, server,
                                                                                two_errors):
    path, error_id = two_errors
    window = make_window()
    window.open_link(error_link(server.url, path, error_id))
    qtbot.waitUntil(lambda: window.connection_dialog is not None and window.connection_dialog.isVisible(),
                    timeout=WAIT)
    dialog: ConnectionDialog = window.connection_dialog
    assert dialog.url_edit.text() == server.url  # http: the server is on this computer
    assert path in dialog.result_label.text()
    dialog.token_edit.setText(server.root_token)
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: shown_error(window) == (path, error_id), timeout=WAIT)


@pytest.mark.expected_log(r"WARNING console\.context Cannot open the link: .* does not name an error")
def test_a_link_that_names_no_error_says_why(qtbot, make_window):
    window = make_window()
    window.open_link("outpost://example.com/group/project")
    qtbot.waitUntil(lambda: "does not name an error" in window.message_bar.label.text(), timeout=WAIT)
    assert window.message_bar.isVisible()  # a failure stays until dismissed
    assert not window.context.is_connected


def test_a_second_start_hands_its_link_to_the_running_console(qtbot, make_window, server, two_errors, tmp_path,
                                                              monkeypatch):
    path, error_id = two_errors
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # this console's own: no other test's meets it
    window = make_window()
    assert window.instance.server.isListening()
    connect(window, qtbot, server.url, server.root_token)
    window.tabs.show_tab("variables")
    window.showMinimized()
    link = error_link(server.url, path, error_id)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT / "src")}
    second = subprocess.Popen([sys.executable, "-m", "console", link], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=WAIT)
    finally:
        if second.poll() is None:
            second.kill()
    assert second.returncode == 0, second.stderr
    assert not any(isinstance(widget, MainWindow) and widget is not window
                   for widget in QApplication.topLevelWidgets())
    qtbot.waitUntil(lambda: shown_error(window) == (path, error_id), timeout=WAIT)
    assert not window.isMinimized()

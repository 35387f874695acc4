"""Fixtures for the main window's shell: a project with errors sent by the real SDK, a recording notifier."""

from __future__ import annotations

import httpx
import pytest
from shiboken6 import isValid

from console.main_window import MainWindow
from console.operations import Op
from console.overview.view import OverviewTab
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list

WAIT = 20_000


class RecordingNotifier:
    """Keeps every notification instead of showing it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, object]] = []

    def notify(self, title: str, message: str, target: object) -> None:
        self.sent.append((title, message, target))


def open_overview(qtbot, context, url: str, token: str, tmp_path) -> OverviewTab:
    """The overview tab, shown, once the context is connected to `url` with `token`."""
    Op(context, context.connect_to(url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
    tab = OverviewTab(context, history_dir=tmp_path)
    qtbot.addWidget(tab)
    tab.show()
    return tab


def resolve(server, path: str, error_id: str) -> None:
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        web.put(f"/{path}/-/error_tracking/{error_id}.json", json={"status": "resolved"}).raise_for_status()


def error_list(server, path: str, ready, **params) -> dict:
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        return wait_for_list(web, path, ready, **params)


@pytest.fixture(scope="module")
def noisy(server, api):
    """A project with two unresolved errors today, one of which regressed (resolved, then seen again)."""
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "alpha broke")
    send_errors(dsn, "beta broke")
    body = error_list(server, path, lambda body: len(body["errors"]) == 2)
    beta = next(error for error in body["errors"] if error["title"] == "beta broke")
    resolve(server, path, beta["id"])
    send_errors(dsn, "beta broke")
    error_list(server, path, lambda body: len(body["errors"]) == 2 and sum(e["count"] for e in body["errors"]) == 3)
    return project


def wait_until_ready(qtbot, window: MainWindow) -> None:
    """Waits for the set-up the window finishes after its first frame (menus, shortcuts, tray, names)."""
    if not window.is_ready:
        with qtbot.waitSignal(window.ready, timeout=WAIT):
            pass


@pytest.fixture
def notifier():
    return RecordingNotifier()


@pytest.fixture
def make_window(qtbot, qloop_running, context, credentials, settings, tmp_path, notifier):
    """Opens main windows on one settings file (a second one sees what the first remembered)."""
    windows: list[MainWindow] = []

    def make() -> MainWindow:
        window = MainWindow(context, credentials, settings=settings, local_server_dir=tmp_path / "local-server",
                            notifier=notifier, history_dir=tmp_path / "exports")
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        wait_until_ready(qtbot, window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        if isValid(window) and window.isVisible() and (context.client is not None or window.local_server is not None):
            window.close()


def connect(window: MainWindow, qtbot, url: str, token: str) -> None:
    Op(window.context, window.context.connect_to(url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible() and window.context.is_connected, timeout=WAIT)

"""Fixtures for the error tracking tab: a connected context and the tab on screen."""

import pytest

from console.errors.tab import ErrorTrackingTab
from console.operations import Op

WAIT = 20_000


def connect(qtbot, context, url: str, token: str) -> None:
    Op(context, context.connect_to(url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)


def open_tab(qtbot, context) -> ErrorTrackingTab:
    tab = ErrorTrackingTab(context)
    qtbot.addWidget(tab)
    tab.resize(1300, 800)
    tab.show()
    qtbot.waitExposed(tab)
    return tab


def choose_project(qtbot, tab: ErrorTrackingTab, path: str) -> None:
    qtbot.waitUntil(lambda: tab.project_picker.findText(path) >= 0, timeout=WAIT)
    tab.select_project(path)


def select_only_error(qtbot, tab: ErrorTrackingTab, path: str):
    """Opens the project, waits for its one error and selects it; returns the errors page."""
    choose_project(qtbot, tab, path)
    page = tab.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    return page


@pytest.fixture
def make_root_tab(qtbot, qloop_running, context, server):
    """Connects as root and opens the tab; tests call it after their (slow) data set-up, so the
    client's pooled connection is fresh."""

    def make() -> ErrorTrackingTab:
        connect(qtbot, context, server.url, server.root_token)
        return open_tab(qtbot, context)

    return make

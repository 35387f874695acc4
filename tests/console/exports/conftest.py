"""Fixtures for the exports tab's GUI tests: a connected context and the tab on screen."""

import pytest

from console.exports.views import ExportsTab

WAIT = 30_000


def connect(qtbot, context, url, token):
    context.run(context.connect_to(url, token), description="Connecting")
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)


@pytest.fixture
def live_context(qtbot, qloop_running, context):
    """The app context on a running loop; its connection is closed while the loop still runs,
    so no socket outlives the loop."""
    yield context
    if context.is_connected:
        context.run(context.disconnect(), description="Disconnecting")
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def make_tab(qtbot, context, history_dir) -> ExportsTab:
    tab = ExportsTab(context, history_dir=history_dir)
    qtbot.addWidget(tab)
    tab.resize(1000, 500)
    tab.show()
    return tab

"""Fixtures for the exports tab's GUI tests: a connected context and the tab on screen."""

import pytest

from console.exports.views import ExportsTab
from console.operations import Op

WAIT = 30_000


def connect(qtbot, context, url, token):
    Op(context, context.connect_to(url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)


@pytest.fixture
def live_context(qtbot, qloop_running, context):
    """The app context on a running loop; its connection is closed while the loop still runs,
    so no socket outlives the loop."""
    yield context
    if context.is_connected:
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def make_tab(qtbot, context, history_dir) -> ExportsTab:
    tab = ExportsTab(context, history_dir=history_dir)
    qtbot.addWidget(tab)
    tab.resize(1000, 500)
    tab.show()
    return tab

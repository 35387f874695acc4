"""Fixtures for the exports tab's GUI tests: a connected context and the tab on screen."""

from typing import Any

import msgspec
import pytest

from console.exports.views import ExportsTab
from console.operations import Op
from outpost_model.exports import Export

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


def export_answer(export_id: int, status: str, **fields: Any) -> Export:
    """GitLab's answer about an instance export (outpost_model's Export): ``fields`` say the times and format."""
    body: dict[str, Any] = {"id": export_id, "created_at": "2026-11-26T08:59:00Z", "project_id": None,
                            "group_id": None, "format": "csv", "status": status, "started_at": None,
                            "finished_at": None, "send_email": False, "expires_at": None,
                            "_links": {"self": f"/api/v4/security/vulnerability_exports/{export_id}",
                                       "download": f"/api/v4/security/vulnerability_exports/{export_id}/download"}}
    return msgspec.convert({**body, **fields}, Export)

"""The overview's Storage box: administrators of an Outpost server see what error tracking stores, other
users do not see the box, and against a GitLab it says plainly that the figures are not available."""

from __future__ import annotations

from console.core.api.storage import NOT_AVAILABLE, describe_storage
from console.operations import Op
from outpost_model import decode
from outpost_model.retention import Storage
from tests.console.shell.conftest import WAIT, open_overview
from tests.recorded_gitlab import TOKEN as GITLAB_TOKEN
from tests.recorded_gitlab import RecordedGitLab
from tests.sdk_errors import enable_integrated, send_errors


def test_administrators_see_the_instance_storage_and_other_users_do_not(qtbot, qloop_running, context, tmp_path,
                                                                       server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "stored broke")
    tab = open_overview(qtbot, context, server.url, server.root_token, tmp_path)
    box = tab.storage_box
    qtbot.waitUntil(lambda: box.figures is not None and any(
        row.path_with_namespace == project["path_with_namespace"] for row in box.figures.projects), timeout=WAIT)
    figures = decode(api.root.get("/error_tracking/storage").content, Storage)
    assert box.isVisible() and box.text.text() == describe_storage(figures)
    assert box.text.text().startswith(f"Error tracking stores {figures.events:,} events in ")
    assert "on disk (estimated from " in box.text.text()

    _, token = api.user()
    Op(context, context.connect_to(server.url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: context.user is not None and not context.is_admin, timeout=WAIT)
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=WAIT)
    assert box.text.text() == "" and box.figures is None


def test_against_gitlab_the_box_says_the_figures_are_not_available(qtbot, qloop_running, context, tmp_path):
    with RecordedGitLab() as gitlab:
        tab = open_overview(qtbot, context, gitlab.url, GITLAB_TOKEN, tmp_path)
        assert context.is_admin  # the recorded user is an administrator
        qtbot.waitUntil(lambda: tab.storage_box.isVisible(), timeout=WAIT)
        assert tab.storage_box.text.text() == NOT_AVAILABLE
        assert not [path for _method, path, _operation in gitlab.requests if path.endswith("/error_tracking/storage")]
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)

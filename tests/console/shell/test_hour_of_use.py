"""Journeys from an hour of use as a new user: what the console does after a keyboard resolve, a link to an
error that is gone, a refused save, a crashed local server."""

from __future__ import annotations

from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors


def test_ctrl_r_under_the_unresolved_filter_leaves_nothing_selected(qtbot, make_window, server, api):
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

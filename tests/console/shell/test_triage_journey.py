"""Triage in the console against the real server, with errors the real Python SDK sends: select three errors,
assign them, merge two, ignore one until two more events; the SDK sends three; the row comes back unresolved
and a notification says so. A Reporter is offered none of it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel

from console.core.api.triage import NOT_ALLOWED
from console.errors.actions import TRIAGE
from console.errors.models import ErrorListModel
from console.errors.triage_dialogs import AssignDialog, IgnoreDialog
from outpost_server.accounts import access
from tests.console.conftest import OFFSCREEN_NOISE
from tests.console.shell.conftest import WAIT, connect
from tests.console.shell.test_news_without_watching import looks_done, news_texts
from tests.sdk_errors import enable_integrated
from tests.server.error_tracking.triage_support import send_with_sdk

TITLES = ("cart total negative", "coupon expired", "stock went missing")


def _select(page, titles) -> None:
    """Selects exactly the rows of these titles, as Ctrl+click does."""
    selection = page.table.selectionModel()
    selection.clear()
    for row in range(page.model.rowCount()):
        if page.model.error_at(row).title in titles:
            selection.select(page.model.index(row, 0),
                             QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def _assignees(page) -> dict[str, str]:
    model = page.model
    return {model.error_at(row).title: model.data(model.index(row, ErrorListModel.ASSIGNEE))
            for row in range(model.rowCount())}


@pytest.mark.qt_log_ignore("This plugin does not support raise", OFFSCREEN_NOISE)
def test_select_assign_merge_and_ignore_until_two_more_events(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    member, _ = api.user()
    api.member("projects", project["id"], member["id"], access.DEVELOPER)
    dsn = enable_integrated(api.root, project["id"])
    send_with_sdk(server, dsn, *((title, None) for title in TITLES), ("cart total negative", None))
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    page, actions = errors.errors_page, window.actions_.by_name
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=WAIT)
    looks_done(qtbot, window, path)

    # Three errors selected: assigned in one go, every row at once.
    _select(page, TITLES)
    qtbot.waitUntil(lambda: actions["assign"].isEnabled(), timeout=WAIT)
    assert actions["resolve_all"].isEnabled() and actions["merge"].isEnabled()
    actions["assign"].trigger()
    qtbot.waitUntil(lambda: isinstance(page.triage.dialog, AssignDialog), timeout=WAIT)
    dialog = page.triage.dialog
    assert isinstance(dialog, AssignDialog)
    dialog.choose(member["username"])
    dialog.accept()
    qtbot.waitUntil(lambda: set(_assignees(page).values()) == {member["name"]}, timeout=WAIT)

    # Two merged: the one seen most often stays, with both errors' events.
    _select(page, ("cart total negative", "coupon expired"))
    qtbot.waitUntil(lambda: actions["merge"].isEnabled(), timeout=WAIT)
    actions["merge"].trigger()
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    merged = next(page.model.error_at(row) for row in range(2)
                  if page.model.error_at(row).title == "cart total negative")
    assert merged.count == 3

    # The third ignored until it happens two more times: it leaves the list of unresolved errors.
    _select(page, ("stock went missing",))
    qtbot.waitUntil(lambda: actions["ignore_until"].isEnabled(), timeout=WAIT)
    actions["ignore_until"].trigger()
    qtbot.waitUntil(lambda: isinstance(page.triage.dialog, IgnoreDialog), timeout=WAIT)
    ignore = page.triage.dialog
    assert isinstance(ignore, IgnoreDialog) and ignore.condition().status_details() == {"ignoreCount": 2}
    ignore.accept()
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    looks_done(qtbot, window, path)
    assert news_texts(window) == []

    # The SDK sends it three times: the list's refresh shows it unresolved again, and the news says so.
    send_with_sdk(server, dsn, *(("stock went missing", None),) * 3)
    page.auto_refresh()  # the refresh timer's slot: the test does not wait for its 30 s
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    back = next(page.model.error_at(row) for row in range(2) if page.model.error_at(row).title == "stock went missing")
    assert back.status == "unresolved"
    qtbot.waitUntil(lambda: f"Regressed error in {path}: stock went missing" in news_texts(window), timeout=WAIT)


def test_a_reporter_is_offered_no_triage_and_told_why(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    reporter, token = api.user()
    api.member("projects", project["id"], reporter["id"], access.REPORTER)
    send_with_sdk(server, enable_integrated(api.root, project["id"]), ("reporters read", None))
    window = make_window()
    connect(window, qtbot, server.url, token)
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    qtbot.waitUntil(lambda: page.triage.allowed.get(path) is False, timeout=WAIT)
    page.table.selectAll()
    for name in TRIAGE:
        action = window.actions_.by_name[name]
        assert not action.isEnabled()
        assert action.toolTip() == NOT_ALLOWED
    assert page.filters.mine.isEnabled()  # reading by assignee is a Reporter's too

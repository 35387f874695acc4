"""A new user, who has set up nothing (watching is off), hears of new errors and regressions: each read of the
open project's error list is a look for news, shared with the watcher's, so nothing is news twice. Real console,
real server, errors sent by the real Python SDK."""

from __future__ import annotations

import pytest

from console.messages_view import MessageLogModel
from tests.console.conftest import OFFSCREEN_NOISE
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors


def news_texts(window) -> list[str]:
    return [message.text for message in window.context.messages.news()]


def looks_done(qtbot, window, path: str) -> None:
    """Waits until no look at ``path`` is under way (every read of the list starts one)."""
    qtbot.waitUntil(lambda: window.context.error_news.is_settled(path), timeout=WAIT)


@pytest.mark.qt_log_ignore("This plugin does not support raise", OFFSCREEN_NOISE)  # offscreen: the list is raised
def test_a_new_user_hears_of_new_errors_and_regressions_from_the_list_s_own_refreshes(
        qtbot, qtmodeltester, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "old trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    assert not window.state.watch_enabled and not window.watcher.timer.isActive()  # nothing set up

    # The first load of the project is what was there, not news.
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1 and window.context.error_news.has_looked(path), timeout=WAIT)
    looks_done(qtbot, window, path)
    assert news_texts(window) == [] and window.notifications_button.text() == "Notifications"

    # A new error; the user presses F5: the list shows it and the notification list has it.
    send_errors(dsn, "fresh trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 2)
    window.actions_.by_name["refresh"].trigger()
    qtbot.waitUntil(lambda: bool(news_texts(window)), timeout=WAIT)
    assert news_texts(window) == [f"New error in {path}: fresh trouble"]
    assert page.model.rowCount() == 2
    assert window.notifications_button.text() == "Notifications: 1 new"

    # The user resolves the old error in the console; the SDK sends it again; the auto-refresh finds it.
    old_row = next(row for row in range(page.model.rowCount()) if page.model.error_at(row).title == "old trouble")
    page.table.selectRow(old_row)
    qtbot.waitUntil(lambda: errors.tab_actions()["resolve"].isEnabled(), timeout=WAIT)
    errors.tab_actions()["resolve"].trigger()
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)  # the list shows unresolved errors
    looks_done(qtbot, window, path)
    send_errors(dsn, "old trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 2)
    page.auto_refresh()  # the refresh timer's slot: the test does not wait for its 30 s
    qtbot.waitUntil(lambda: len(news_texts(window)) == 2, timeout=WAIT)
    assert news_texts(window)[-1] == f"Regressed error in {path}: old trouble"
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    assert window.notifications_button.text() == "Notifications: 2 new"

    # Watching switched on for the same project: its polls and the list's refreshes share one memory, so the
    # next new error and the next regression are each news once, however many looks see them.
    window.state.set_value("watch/enabled", True)
    window.state.set_value("watch/projects", [path])
    window.state.set_value("watch/interval_seconds", 3600)  # the test starts each poll itself
    window.watcher.restart()
    looks_done(qtbot, window, path)
    assert len(news_texts(window)) == 2  # the watcher's first poll of an already looked-at project is no news
    fresh_id = next(page.model.error_at(row).id for row in range(page.model.rowCount())
                    if page.model.error_at(row).title == "fresh trouble")
    page.table.selectRow(page.model.row_of(fresh_id))
    qtbot.waitUntil(lambda: page.detail.error_id == fresh_id and errors.tab_actions()["resolve"].isEnabled(),
                    timeout=WAIT)
    errors.tab_actions()["resolve"].trigger()
    qtbot.waitUntil(lambda: page.model.row_of(fresh_id) < 0, timeout=WAIT)
    looks_done(qtbot, window, path)
    send_errors(dsn, "third trouble")
    send_errors(dsn, "fresh trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 3)

    def both_look() -> bool:
        page.reload()
        window.watcher.poll()
        return len(news_texts(window)) >= 4

    qtbot.waitUntil(both_look, timeout=60_000)
    for _ in range(3):  # more looks by both: nothing is news again
        page.auto_refresh()
        window.watcher.poll()
        qtbot.waitUntil(lambda: not window.watcher._running or window.watcher._running.done(), timeout=WAIT)
        looks_done(qtbot, window, path)
    assert sorted(news_texts(window)[2:]) == [f"New error in {path}: third trouble",
                                              f"Regressed error in {path}: fresh trouble"]
    assert window.notifications_button.text() == "Notifications: 4 new"
    notifications = window.notifications_button.open_list()
    qtmodeltester.check(notifications.model)
    assert [notifications.model.index(row, MessageLogModel.TEXT).data()
            for row in range(notifications.model.rowCount())][-2:] == [f"Regressed error in {path}: old trouble",
                                                                       f"New error in {path}: fresh trouble"]
    notifications.close()

"""Journeys through the real console against the real server, with errors sent by the real Python SDK: what
the console shows in different places agrees at every step, failures stay until dismissed, and news is not
lost while other work runs."""

from __future__ import annotations

import httpx
import msgspec
import pytest

from console.core.api.alerts import AlertsApi, RecipientDraft, RuleDraft
from console.core.api.error_tracking import EVERY_STATUS
from console.core.api.exports import ExportScope
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.settings_keys import profile_key
from console.errors.models import ErrorListModel
from console.messages_view import MessageLogModel
from console.operations import Op
from outpost_model.exports import Export
from tests.console.conftest import OFFSCREEN_NOISE
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors
from tests.server.alerts.flows import allow_local_requests
from tests.server.alerts.receivers import HttpReceiver, receiver  # noqa: F401

POLLS = 60_000


def watch(window, path: str) -> None:
    """Watching on for ``path``; the test starts each poll itself."""
    window.state.set_value("watch/enabled", True)
    window.state.set_value("watch/projects", [path])
    window.state.set_value("watch/interval_seconds", 3600)
    window.watcher.restart()


def poll_until(qtbot, window, ready) -> None:
    def polled() -> bool:
        window.watcher.poll()
        return ready()

    qtbot.waitUntil(polled, timeout=POLLS)


def row_texts(page) -> tuple[str, str]:
    """The selected row's status and events, as the list shows them."""
    row = page.table.currentIndex().row()
    return (page.model.index(row, ErrorListModel.STATUS).data(),
            str(page.model.index(row, ErrorListModel.EVENTS).data()))


def detail_texts(page) -> tuple[str, str]:
    return page.detail.fields["Status"].text(), page.detail.fields["Events"].text()


def unresolved_on_overview(qtbot, window, path: str) -> str:
    """The overview's counts for ``path``, read again when it is shown."""
    overview = window.tabs.feature("overview")
    with qtbot.waitSignal(overview.loaded, timeout=WAIT):  # something changed since: it reads them again
        window.tabs.show_tab("overview")
    row = next(row for row in overview.overview.projects if row.path == path)
    return f"{row.unresolved.text} unresolved, {row.regressions.text} regressed"


def test_send_resolve_send_again_every_view_agrees(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "journey broke")
    error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    watch(window, path)
    qtbot.waitUntil(lambda: window.context.error_news.has_looked(path), timeout=WAIT)
    assert unresolved_on_overview(qtbot, window, path) == "1 unresolved, 0 regressed"

    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    page = errors.errors_page
    page.filters.status.setCurrentIndex(page.filters.status.findData(EVERY_STATUS))  # a resolved error stays listed
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.copy_button.isEnabled(), timeout=WAIT)  # its details are in
    assert row_texts(page) == ("Unresolved", "1") and detail_texts(page) == ("Unresolved", "1")

    # Resolve: the row, the detail and the actions follow the answer.
    errors.tab_actions()["resolve"].trigger()
    qtbot.waitUntil(lambda: row_texts(page)[0] == "Resolved", timeout=WAIT)
    assert detail_texts(page) == ("Resolved", "1")
    assert not errors.tab_actions()["resolve"].isEnabled() and errors.tab_actions()["unresolve"].isEnabled()
    assert unresolved_on_overview(qtbot, window, path) == "0 unresolved, 0 regressed"

    # The SDK sends it again: the watcher's poll finds the regression; nobody selects anything again.
    window.tabs.show_tab("errors")
    send_errors(dsn, "journey broke")
    error_list(server, path, lambda body: len(body["errors"]) == 1 and body["errors"][0]["count"] == 2)
    poll_until(qtbot, window, lambda: bool(window.context.messages.news()))
    news = [message.text for message in window.context.messages.news()]
    assert news == [f"Regressed error in {path}: journey broke"]
    qtbot.waitUntil(lambda: row_texts(page) == ("Unresolved", "2"), timeout=WAIT)
    qtbot.waitUntil(lambda: detail_texts(page) == ("Unresolved", "2"), timeout=WAIT)
    qtbot.waitUntil(lambda: errors.tab_actions()["resolve"].isEnabled(), timeout=WAIT)
    assert page.detail.error_id == page.model.error_at(0).id  # still the same error, still open
    assert window.notifications_button.text() == "Notifications: 1 new"

    # A new error: the watcher's news, and the list shows it without being refreshed by hand.
    send_errors(dsn, "journey news")
    poll_until(qtbot, window, lambda: len(window.context.messages.news()) == 2)
    assert window.context.messages.news()[-1].text == f"New error in {path}: journey news"
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    assert page.detail.error_id == page.model.error_at(page.table.currentIndex().row()).id  # still open
    assert unresolved_on_overview(qtbot, window, path) == "2 unresolved, 1 regressed"


@pytest.mark.qt_log_ignore("This plugin does not support raise", OFFSCREEN_NOISE)  # offscreen: the list is raised
def test_new_errors_and_regressions_reach_the_notification_list_while_a_refresh_runs(
        qtbot, qtmodeltester, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "old trouble")
    body = error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    watch(window, path)
    qtbot.waitUntil(lambda: window.context.error_news.has_looked(path), timeout=WAIT)
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    qtbot.waitUntil(lambda: errors.errors_page.model.rowCount() == 1, timeout=WAIT)

    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        web.put(f"/{path}/-/error_tracking/{body['errors'][0]['id']}.json",
                json={"status": "resolved"}).raise_for_status()
    send_errors(dsn, "old trouble")
    send_errors(dsn, "new trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 2)

    said: list[str] = []
    window.context.status_message.connect(said.append)

    def both_arrived() -> bool:
        errors.errors_page.reload()  # the user refreshes the list while the watcher polls
        window.watcher.poll()
        return len(window.context.messages.news()) >= 2

    qtbot.waitUntil(both_arrived, timeout=POLLS)
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible(), timeout=WAIT)
    news = sorted(message.text for message in window.context.messages.news())
    assert news == [f"New error in {path}: new trouble", f"Regressed error in {path}: old trouble"]
    assert window.notifications_button.text() == "Notifications: 2 new"

    # The error that was news as new is resolved, then sent again: its regression is news as well.
    fresh = error_list(server, path, lambda body: len(body["errors"]) == 2)
    new_id = next(error["id"] for error in fresh["errors"] if error["title"] == "new trouble")
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        web.put(f"/{path}/-/error_tracking/{new_id}.json", json={"status": "resolved"}).raise_for_status()
    send_errors(dsn, "new trouble")
    poll_until(qtbot, window, lambda: len(window.context.messages.news()) >= 3)
    assert window.context.messages.news()[-1].text == f"Regressed error in {path}: new trouble"
    assert window.notifications_button.text() == "Notifications: 3 new"
    assert not any("Checking for news" in line for line in said)  # polls say nothing
    notifications = window.notifications_button.open_list()
    qtmodeltester.check(notifications.model)
    assert notifications.model.rowCount() == 3
    assert window.notifications_button.text() == "Notifications"  # read
    messages = window.commands.open_messages()
    assert isinstance(messages.model, MessageLogModel)
    qtmodeltester.check(messages.model)
    kinds = {messages.model.index(row, MessageLogModel.KIND).data() for row in range(messages.model.rowCount())}
    assert {"Progress", "Done", "News"} <= kinds
    notifications.close()
    messages.close()


@pytest.mark.expected_log(r"WARNING console\.context Cannot import import\.env: Line 3",
                          r"WARNING console\.context Saving retention settings failed: The project \S+ no longer")
def test_a_failed_import_and_a_failed_save_stay_until_dismissed(qtbot, make_window, server, api, tmp_path):
    project = api.project()
    path = project["path_with_namespace"]
    enable_integrated(api.root, project["id"])
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)

    # The import file's third line is no variable: the tab says so, and keeps saying it.
    variables = window.tabs.show_tab("variables")
    bad = tmp_path / "import.env"
    bad.write_text("FIRST=1\nSECOND=2\nbad key=1\n")
    variables.import_file(bad)
    qtbot.waitUntil(lambda: variables.message_bar.isVisible(), timeout=WAIT)
    assert "Cannot import import.env: Line 3" in variables.message_bar.label.text()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible(), timeout=WAIT)
    # Neither "Reading import.env: done" nor "Reading import.env…" left standing ("Connected to …" may still be).
    assert "import.env" not in window.status_line.label.text()

    # A save that fails: the project is deleted behind the console's back.
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    errors.pages.setCurrentWidget(errors.retention_page)
    storage = errors.retention_page
    qtbot.waitUntil(lambda: storage.loaded is not None, timeout=WAIT)
    assert api.root.delete(f"/projects/{project['id']}").status_code == 202
    storage.save_button.click()
    qtbot.waitUntil(lambda: errors.message_bar.isVisible(), timeout=WAIT)
    assert "Saving retention settings failed" in errors.message_bar.label.text()

    # Later work in the background, and elsewhere, succeeds: both failures stay.
    window.tabs.show_tab("variables")
    variables.refresh()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible(), timeout=WAIT)
    window.tabs.show_tab("errors")
    errors.errors_page.auto_refresh()
    window.watcher.poll()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible(), timeout=WAIT)
    assert "Line 3" in variables.message_bar.label.text() and not variables.message_bar.isHidden()
    assert errors.message_bar.isVisible() and "Saving retention settings failed" in errors.message_bar.label.text()
    failures = [message.text for message in window.context.messages.messages if message.kind.value == "Failure"]
    assert len(failures) == 2

    errors.message_bar.dismiss_button.click()
    assert not errors.message_bar.isVisible()
    assert not variables.message_bar.isHidden()  # dismissed where it was shown, not everywhere


def test_an_alert_delivery_that_starts_failing_reaches_the_notification_list(
        qtbot, make_window, server, api, receiver: HttpReceiver):  # noqa: F811
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    allow_local_requests(server)
    try:
        window = make_window()
        connect(window, qtbot, server.url, server.root_token)
        rule = RuleDraft(name="Shop hook", onNewError=True,
                         alertRecipients=(RecipientDraft(recipientType="json_webhook", url=receiver.url + "/hook"),))
        saved = Op(window.context, AlertsApi(window.context.client).save(path, rule), description="Saving").run()
        qtbot.waitUntil(saved.done, timeout=WAIT)
        watch(window, path)
        # The deliveries' first look too: a delivery already failing when it is taken is not news.
        qtbot.waitUntil(lambda: window.watcher.has_looked_at(path), timeout=WAIT)
        receiver.statuses[:] = [500] * 20  # the receiver is down for a while
        send_errors(dsn, "hook trouble")
        poll_until(qtbot, window, lambda: any(message.text.startswith("Alert delivery failing")
                                              for message in window.context.messages.news()))
        failing = [message.text for message in window.context.messages.news()
                   if message.text.startswith("Alert delivery failing")]
        assert failing == [f"Alert delivery failing in {path}: Shop hook: Webhook (signed JSON) to {receiver.url}: "
                           "the receiver answered 500"]
        assert f"New error in {path}: hook trouble" in [message.text for message in window.context.messages.news()]
    finally:
        allow_local_requests(server, False)


# Blocked, the console's other work fails too (the Overview's first load, if it was still on its way).
@pytest.mark.expected_log(r"WARNING console\.context Checking for news failed: .*\(403\)",
                          r"WARNING console\.context .* failed: .*\(403\)")
def test_a_failing_background_poll_is_said_once_and_taken_back_when_it_works_again(qtbot, make_window, server, api,
                                                                                     tmp_path):
    user, token = api.user()
    scope = ExportScope("instance")
    with server.client(token) as rest:
        body = rest.post(scope.create_path).raise_for_status().json()
    # An export this console requested and has not yet seen finish: each poll asks the server about it.
    ExportHistory(tmp_path / "exports", profile_key(server.url, user["username"])).save(
        [ExportRecord.from_api(msgspec.convert({**body, "status": "created"}, Export), scope)])
    window = make_window()
    connect(window, qtbot, server.url, token)
    api.root.post(f"/users/{user['id']}/block").raise_for_status()  # every request of the console now fails

    def poll_failures() -> list[str]:
        return [message.text for message in window.context.messages.messages
                if message.kind.value == "Failure" and message.text.startswith("Checking for news failed")]

    watch(window, "")
    qtbot.waitUntil(lambda: len(poll_failures()) == 1, timeout=WAIT)
    for _ in range(2):  # the next polls fail too
        running = window.watcher.poll()
        assert running is not None
        qtbot.waitUntil(running.done, timeout=WAIT)
    assert len(poll_failures()) == 1
    assert window.message_bar.isVisible() and "Checking for news failed" in window.message_bar.label.text()

    api.root.post(f"/users/{user['id']}/unblock").raise_for_status()
    running = window.watcher.poll()
    assert running is not None
    qtbot.waitUntil(running.done, timeout=WAIT)
    # Taken back (other work that failed while the user was blocked, the Overview's, may still be shown).
    assert "Checking for news failed" not in window.message_bar.label.text()
    assert len(poll_failures()) == 1

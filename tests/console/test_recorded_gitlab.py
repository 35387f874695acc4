"""Every tab against a recorded GitLab (tests/recorded_gitlab.py): what GitLab offers a token holder
works, and what it does not offer is explained in place, never reported as a failure."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication

from console.core.api.error_tracking import NO_STATUS_API, PROJECTS_SESSION_ONLY, UNRESOLVED_ONLY
from console.core.api.triage import NO_TRIAGE_API
from console.core.connection.check import check_connection
from console.errors.actions import TRIAGE
from console.errors.client_keys import INTEGRATED_ONLY
from console.errors.error_filters import NO_ASSIGNEES
from console.errors.event_history import NEEDS_OUTPOST
from console.errors.models import PENDING
from console.errors.retention import NOT_AVAILABLE
from console.errors.stacktrace import ERROR_LINE_ROLE
from console.errors.tab import ErrorTrackingTab
from console.exports.views import ULTIMATE_ONLY, ExportsTab
from console.operations import Op
from console.variables.views import VariablesTab
from tests.recorded_gitlab import SIGN_IN_REQUIRED, TOKEN, RecordedGitLab

WAIT = 20_000
PROJECT = "diaspora/diaspora-client"


@pytest.fixture
def gitlab():
    with RecordedGitLab() as recorded:
        yield recorded


@pytest.fixture
def connected(qtbot, qloop_running, context, gitlab):
    """The context signed in to the recorded GitLab, collecting every failure it reports."""
    reported: list[tuple[str, str]] = []
    context.error_reported.connect(lambda title, message: reported.append((title, message)))
    Op(context, context.connect_to(gitlab.url, TOKEN), description="Connecting").run()
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
    yield context, reported
    Op(context, context.disconnect(), description="Disconnecting").run()
    qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def show(qtbot, tab):
    qtbot.addWidget(tab)
    tab.resize(1300, 800)
    tab.show()
    qtbot.waitExposed(tab)
    return tab


def test_web_routes_refuse_a_token_as_gitlab_does(gitlab):
    headers = {"PRIVATE-TOKEN": TOKEN}
    with httpx.Client(base_url=gitlab.url, headers=headers) as web:
        page = web.get(f"/{PROJECT}/-/error_tracking", headers={"Accept": "text/html"})
        assert page.status_code == 302 and page.headers["Location"] == f"{gitlab.url}/users/sign_in"
        for path in (f"/{PROJECT}/-/error_tracking.json", f"/{PROJECT}/-/error_tracking/projects.json"):
            answer = web.get(path)
            assert (answer.status_code, answer.json()) == (401, {"error": SIGN_IN_REQUIRED})
        assert web.get("/api/v4/user", headers={"PRIVATE-TOKEN": "wrong"}).status_code == 401


def test_connection_check_names_the_product(gitlab):
    report = asyncio.run(check_connection(gitlab.url, TOKEN))
    assert report.ok
    assert report.message == ("Signed in as John Smith (@john_smith, administrator) "
                              "on server version 17.5.0-ee (GitLab).")
    # GitLab before 17.6 sends /version's kas without externalK8sProxyUrl: read all the same.
    assert report.version is not None and report.version.kas.enabled


def test_a_regular_gitlab_user_is_read_without_the_administrator_fields():
    """GitLab answers GET /user with UserPublic to a user who is not an administrator: no ``is_admin`` at all."""
    with RecordedGitLab(scenario="regular user") as gitlab:
        report = asyncio.run(check_connection(gitlab.url, TOKEN))
    assert report.ok and report.message.startswith("Signed in as Jane Doe (@jane_doe, user) on server version")
    assert report.user is not None and report.user.email == "jane@example.com"


def test_the_console_signs_a_regular_gitlab_user_in_as_one(qtbot, qloop_running, context):
    with RecordedGitLab(scenario="regular user") as gitlab:
        Op(context, context.connect_to(gitlab.url, TOKEN), description="Connecting").run()
        qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
        assert context.user is not None and context.user.username == "jane_doe" and not context.is_admin
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def test_the_console_knows_it_talks_to_gitlab(connected):
    context, _reported = connected
    assert not context.server.is_outpost and context.server.product == "GitLab"
    assert context.server.graphql_error_tracking
    assert not context.server.web_routes_take_tokens


def test_error_tracking_reads_through_graphql_and_explains_what_gitlab_lacks(qtbot, connected, gitlab,
                                                                             monkeypatch):
    context, reported = connected
    tab = show(qtbot, ErrorTrackingTab(context))
    qtbot.waitUntil(lambda: tab.project_picker.findText(PROJECT) >= 0, timeout=WAIT)
    tab.select_project(PROJECT)
    page = tab.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    assert [error.title for error in page.model.errors] == ["title"]
    assert not page.filters.status.isEnabled() and page.filters.status.toolTip() == UNRESOLVED_ONLY

    page.table.selectRow(0)
    # GitLab has no triage API: the triage of the selection stays off and says why, as the assignee filter does.
    assert not page.filters.mine.isEnabled() and page.filters.mine.toolTip() == NO_ASSIGNEES
    for name in TRIAGE:
        assert not tab.tab_actions()[name].isEnabled() and tab.tab_actions()[name].toolTip() == NO_TRIAGE_API
    detail = page.detail
    qtbot.waitUntil(lambda: detail.fields["Last release"].text() == "abc123", timeout=WAIT)
    frame = detail.stack_trace.topLevelItem(0).child(0)
    assert frame.text(0) == "hello_world.rb in puts at line 14"
    highlighted = [frame.child(i).text(0) for i in range(frame.childCount()) if frame.child(i).data(0, ERROR_LINE_ROLE)]
    assert highlighted == ['    14      puts "Hello #{@name}"']
    assert page.events_pane.notice.text() == NEEDS_OUTPOST and page.facets_pane.notice.text() == NEEDS_OUTPOST
    assert page.facets_pane.facets.facets.rowCount() == 0
    qtbot.mouseClick(detail.copy_button, Qt.MouseButton.LeftButton)  # from GraphQL's details and stack trace
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("### title\n") and "| Releases | " in copied and "| Events | " in copied
    assert "- `hello_world.rb in puts at line 14`" in copied
    assert copied.rstrip().endswith(")") and "[Open in Outpost](outpost://" in copied and "[API](" in copied

    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    assert detail.action_buttons["resolved"].toolTip() == NO_STATUS_API
    qtbot.mouseClick(detail.action_buttons["resolved"], Qt.MouseButton.LeftButton)
    assert detail.notice.text() == NO_STATUS_API and detail.browser_button.isVisible()
    qtbot.mouseClick(detail.browser_button, Qt.MouseButton.LeftButton)
    assert [url.toString() for url in opened] == [f"{gitlab.url}/{PROJECT}/-/error_tracking/1/details"]
    assert page.model.rowCount() == 1, "nothing changed, nothing failed"

    tab.pages.setCurrentWidget(tab.settings_page)
    qtbot.waitUntil(lambda: tab.settings_page.loaded is not None, timeout=WAIT)
    assert tab.settings_page.connection_status.text() == PROJECTS_SESSION_ONLY
    assert not tab.settings_page.connect_button.isEnabled()
    tab.pages.setCurrentWidget(tab.keys_page)
    qtbot.waitUntil(lambda: tab.keys_page.model.rowCount() == 2, timeout=WAIT)
    assert tab.keys_page.notice.text() == INTEGRATED_ONLY
    tab.pages.setCurrentWidget(tab.retention_page)
    assert tab.retention_page.notice.text() == NOT_AVAILABLE and not tab.retention_page.save_button.isEnabled()

    assert reported == []
    operations = [operation for method, path, operation in gitlab.requests if path == "/api/graphql"]
    assert {"sentryErrors", "sentryErrorDetails"} <= set(operations)
    assert not [path for _method, path, _operation in gitlab.requests if "/-/" in path], "no web route was tried"
    assert not [path for _method, path, _operation in gitlab.requests if path.startswith("/api/0")], \
        "GitLab has no Sentry web API: it is not asked"


def test_exports_explain_that_gitlab_needs_ultimate(qtbot, connected, tmp_path):
    context, reported = connected
    tab = show(qtbot, ExportsTab(context, history_dir=tmp_path))
    tab.picker.set_kind("project")
    qtbot.waitUntil(lambda: tab.picker.results.findText(PROJECT) >= 0, timeout=WAIT)
    tab.picker.results.setCurrentIndex(tab.picker.results.findText(PROJECT))
    task = tab.request_export()
    qtbot.waitUntil(task.done, timeout=WAIT)
    assert tab.notice.text() == ULTIMATE_ONLY
    assert tab.model.rowCount() == 0 and reported == []


def test_variables_work_on_gitlab(qtbot, connected):
    context, reported = connected
    tab = show(qtbot, VariablesTab(context))
    qtbot.waitUntil(lambda: tab.model.rowCount() == 2, timeout=WAIT)
    assert [variable.key for variable in tab.model.variables] == ["TEST_VARIABLE_1", "TEST_VARIABLE_2"]
    assert tab.count_label.text() == "2 variables" and reported == []


def test_errors_still_loading_from_sentry_are_announced_not_failed(qtbot, qloop_running, context):
    reported = []
    context.error_reported.connect(lambda title, message: reported.append(title))
    with RecordedGitLab(scenario="sentry still loading") as loading:
        Op(context, context.connect_to(loading.url, TOKEN), description="Connecting").run()
        qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
        tab = show(qtbot, ErrorTrackingTab(context))
        qtbot.waitUntil(lambda: tab.project_picker.findText(PROJECT) >= 0, timeout=WAIT)
        tab.select_project(PROJECT)
        qtbot.waitUntil(lambda: not tab.errors_page.loading, timeout=WAIT)
        assert tab.errors_page.empty_label.text() == PENDING
        assert tab.errors_page.model.rowCount() == 0 and reported == []
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)

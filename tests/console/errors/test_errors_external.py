"""The tab with the external backend: settings page connection test and the same list and detail views,
against a private server and the fake Sentry web API."""

from __future__ import annotations

import socket

import pytest
from PySide6.QtCore import Qt

from console.errors.client_keys import INTEGRATED_ONLY
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab
from tests.fake_sentry import FakeSentry
from tests.support import ApiHelper, start_server

GOOD_TOKEN = "sntrys-console-token"


@pytest.fixture(scope="module")
def external_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("console-external"),
                      extra_env={"OUTPOST_ERROR_TRACKING_EXTERNAL_TIMEOUT": "1"}) as running:
        helper = ApiHelper(running)
        # The fake Sentry listens on 127.0.0.1, which only an administrator's setting allows.
        helper.root.put("/application/settings",
                        json={"allow_local_requests_from_web_hooks_and_services": True}).raise_for_status()
        yield running, helper


@pytest.fixture(scope="module")
def fake():
    with FakeSentry(tokens=(GOOD_TOKEN,)) as running:
        yield running


@pytest.fixture
def tab_for(qtbot, qloop_running, context, external_server):
    running, helper = external_server

    def make(project):
        connect(qtbot, context, running.url, running.root_token)
        tab = open_tab(qtbot, context)
        choose_project(qtbot, tab, project["path_with_namespace"])
        tab.pages.setCurrentWidget(tab.settings_page)
        qtbot.waitUntil(lambda: tab.settings_page.loaded is not None, timeout=WAIT)
        return tab

    return make


def _connect_with(qtbot, page, api_host: str, token: str) -> None:
    page.external.setChecked(True)
    page.api_host.setText(api_host)
    page.token.setText(token)
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.connect_button.isEnabled() and page.connection_status.text() != "Connecting…",
                    timeout=WAIT)


def test_connect_fills_the_project_dropdown(qtbot, tab_for, external_server, fake):
    tab = tab_for(external_server[1].project())
    page = tab.settings_page
    assert "project:read, event:read, event:write" in page.scopes_label.text()
    _connect_with(qtbot, page, fake.url, GOOD_TOKEN)
    assert page.connection_status.text() == "Connected: 2 projects found."
    assert [page.external_project.itemText(i) for i in range(page.external_project.count())] == [
        "Acme | Storefront", "Acme | Billing API"]
    assert page.external_project.isEnabled()


def test_each_connection_failure_is_explained(qtbot, tab_for, external_server, fake):
    helper = external_server[1]
    project = helper.project()
    page = tab_for(project).settings_page
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    cases = [("bad token", fake.url, "wrong-token", "did not accept the auth token (401)"),
             ("refused", closed, GOOD_TOKEN, "Nothing is listening at 127.0.0.1:"),
             ("timeout", fake.url, GOOD_TOKEN, "did not answer in time")]
    for case, api_host, token, reason in cases:
        fake.delay = 3 if case == "timeout" else 0
        try:
            _connect_with(qtbot, page, api_host, token)
        finally:
            fake.delay = 0
        assert reason in page.connection_status.text(), case
        assert page.external_project.count() == 0 and not page.external_project.isEnabled()
    helper.root.put(f"/projects/{project['id']}", json={"monitor_access_level": "disabled"}).raise_for_status()
    _connect_with(qtbot, page, fake.url, GOOD_TOKEN)
    assert "Monitor feature may be disabled" in page.connection_status.text()


def test_save_then_list_detail_and_resolve_from_sentry(qtbot, tab_for, external_server, fake):
    project = external_server[1].project()
    tab = tab_for(project)
    page = tab.settings_page
    page.active.setChecked(True)
    _connect_with(qtbot, page, fake.url, GOOD_TOKEN)
    page.external_project.setCurrentIndex(0)
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.saved_label.text() == "Saved.", timeout=WAIT)
    assert page.loaded.api_url == fake.api_url("storefront"), (
        "the settings API ignored api_url/token: its PATCH and PUT handlers must call "
        "outpost_server.error_tracking.read.external.sentry_settings.apply_external_params")
    assert not page.loaded.integrated

    errors = tab.errors_page
    tab.pages.setCurrentWidget(errors)
    errors.filters.sort.setCurrentIndex(errors.filters.sort.findData("frequency"))
    qtbot.waitUntil(lambda: errors.model.rowCount() == 20, timeout=WAIT)
    first = errors.model.error_at(0)
    assert first.title == "ZeroDivisionError: divided by 0 (#30)" and first.count == 90 and first.user_count == 30
    errors.table.selectRow(0)
    trace = errors.detail.stack_trace
    qtbot.waitUntil(lambda: errors.detail.fields["Last release"].text() == "storefront@1.2.0", timeout=WAIT)
    qtbot.waitUntil(lambda: trace.topLevelItemCount() == 1, timeout=WAIT)
    assert "order.rb in total at line 42" in trace.topLevelItem(0).child(1).text(0)
    qtbot.mouseClick(errors.detail.action_buttons["resolved"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: errors.model.row_of(first.id) < 0, timeout=WAIT)
    assert fake.issues[first.id]["status"] == "resolved"
    fake.issues[first.id]["status"] = "unresolved"


def test_the_client_keys_page_says_at_once_that_an_external_sentry_does_not_use_its_keys(
        qtbot, tab_for, external_server, fake):
    tab = tab_for(external_server[1].project())
    keys_page = tab.keys_page
    with qtbot.waitSignal(keys_page.model.modelReset, timeout=WAIT):  # its keys and settings are in
        tab.pages.setCurrentWidget(keys_page)
    assert not keys_page.notice.isVisible()  # integrated: the keys are what applications send with

    page = tab.settings_page
    tab.pages.setCurrentWidget(page)
    page.active.setChecked(True)
    _connect_with(qtbot, page, fake.url, GOOD_TOKEN)
    page.external_project.setCurrentIndex(0)
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.saved_label.text() == "Saved.", timeout=WAIT)
    tab.pages.setCurrentWidget(keys_page)  # back, without a Refresh
    assert keys_page.notice.isVisible() and keys_page.notice.text() == INTEGRATED_ONLY

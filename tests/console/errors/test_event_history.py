"""The detail pane walks every event of a real SDK's error through Sentry's web API on our server:
breadcrumbs from logging, the request a WSGI app received, the user, contexts, tags and tag facets."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from console.errors.breadcrumbs import CRASH_ROLE, BreadcrumbModel
from console.errors.event_history import LOADING, PRUNED_MEANWHILE
from console.errors.tag_facets import SHARE_ROLE, TagFacetModel
from console.errors.tagged_events import TaggedEventsModel
from outpost_server.accounts import access
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab, select_only_error
from tests.sdk_errors import enable_integrated, failed_checkouts, send_errors
from tests.support import REPO_ROOT

TITLE = "ConnectionError: card processor refused cart 43"  # the latest event names the error


@pytest.fixture(scope="module")
def checkout(server, api):
    """Three failed checkouts (ada on Firefox, bob on Chrome, cyd on Firefox), one error, sent by the SDK."""
    return failed_checkouts(server, api)


def open_error(qtbot, make_root_tab, project):
    page = select_only_error(qtbot, make_root_tab(), project["path_with_namespace"])
    page.detail.sections.setCurrentWidget(page.events_pane)
    qtbot.waitUntil(lambda: page.events_pane.navigator.position.text() == "event 3 of 3", timeout=WAIT)
    return page


def column(model, column_number: int, role=Qt.ItemDataRole.DisplayRole) -> list:
    return [model.data(model.index(row, column_number), role) for row in range(model.rowCount())]


def shown_user(page) -> str:
    return page.events_pane.context.rows("User").get("id", "")


def test_walks_the_events_oldest_previous_next_latest(qtbot, make_root_tab, checkout):
    page = open_error(qtbot, make_root_tab, checkout)
    events = page.events_pane
    navigator = events.navigator
    assert shown_user(page) == "cyd", "the latest event is shown first"
    assert not navigator.next_button.isEnabled() and navigator.previous_button.isEnabled()

    qtbot.mouseClick(navigator.previous_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 2 of 3", timeout=WAIT)
    assert shown_user(page) == "bob"
    qtbot.mouseClick(navigator.oldest_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 1 of 3", timeout=WAIT)
    assert shown_user(page) == "ada"
    assert not navigator.previous_button.isEnabled() and not navigator.oldest_button.isEnabled()
    qtbot.mouseClick(navigator.next_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 2 of 3", timeout=WAIT)
    qtbot.mouseClick(navigator.latest_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 3 of 3" and shown_user(page) == "cyd", timeout=WAIT)

    # The event's own stack trace, in the stack trace view: the frame that raised is the application's.
    trace = events.stack_trace
    exception = trace.topLevelItem(0)
    assert exception.text(0) == "ConnectionError: card processor refused cart 43"
    labels = [exception.child(i).text(0) for i in range(exception.childCount())]
    assert any(label.startswith("shop_app.py in charge_card") for label in labels)


def test_breadcrumbs_request_user_contexts_and_tags_of_the_shown_event(qtbot, make_root_tab, checkout):
    page = open_error(qtbot, make_root_tab, checkout)
    crumbs = page.events_pane.breadcrumbs.crumbs
    assert column(crumbs, BreadcrumbModel.MESSAGE) == [
        "checkout started for cyd", "inventory service answered slowly",
        "ConnectionError: card processor refused cart 43"]
    assert column(crumbs, BreadcrumbModel.CATEGORY) == ["shop.checkout", "shop.checkout", "crash"]
    assert column(crumbs, BreadcrumbModel.LEVEL) == ["info", "warning", "error"]
    assert column(crumbs, BreadcrumbModel.MESSAGE, CRASH_ROLE) == [False, False, True], "the crash is marked"
    assert all(column(crumbs, BreadcrumbModel.TIME))

    context = page.events_pane.context
    request = context.rows("Request")
    assert request["URL"] == "http://shop.example.com/checkout" and request["Method"] == "POST"
    assert request["Query/cart"] == "43"
    assert request["Headers/X-Payment-Provider"] == "adyen"
    assert context.rows("User") == {"id": "cyd", "email": "cyd@example.com"}
    contexts = context.rows("Contexts")
    assert contexts["browser"] == "Firefox 121.0" and contexts["os"] == "Linux"
    tags = context.rows("Tags")
    assert tags["payment_provider"] == "adyen" and tags["server_name"] == "web-1"
    assert tags["browser"] == "Firefox 121.0" and tags["release"] == "shop@1.0.0"


def test_tag_facets_and_the_events_carrying_a_value(qtbot, make_root_tab, checkout):
    page = open_error(qtbot, make_root_tab, checkout)
    facets = page.facets_pane.facets.facets
    qtbot.waitUntil(lambda: facets.rowCount() > 0, timeout=WAIT)
    keys = [facets.value_at(row).key for row in range(facets.rowCount())]
    first_keys = list(dict.fromkeys(keys))[:6]
    assert first_keys == ["release", "environment", "browser", "os", "server_name", "user"]
    assert "payment_provider" in keys, "custom tags are faceted too"
    firefox = facets.row_of("browser", "Firefox 121.0")
    assert facets.data(facets.index(firefox, TagFacetModel.COUNT)) == 2
    assert facets.data(facets.index(firefox, TagFacetModel.SHARE), SHARE_ROLE) == pytest.approx(2 / 3)
    assert facets.data(facets.index(firefox, TagFacetModel.SHARE)) == "67%"

    page.detail.sections.setCurrentWidget(page.facets_pane)
    page.facets_pane.facets.choose("browser", "Firefox 121.0")
    tagged = page.facets_pane.tagged.events
    qtbot.waitUntil(lambda: tagged.rowCount() == 2, timeout=WAIT)
    assert column(tagged, TaggedEventsModel.USER) == ["cyd", "ada"]
    page.facets_pane.facets.choose("user", "id:bob")
    qtbot.waitUntil(lambda: column(tagged, TaggedEventsModel.USER) == ["bob"], timeout=WAIT)

    page.facets_pane.tagged.choose(0)
    qtbot.waitUntil(lambda: shown_user(page) == "bob", timeout=WAIT)
    assert page.events_pane.navigator.position.text() == "event 2 of 3"
    assert page.detail.sections.currentWidget() is page.events_pane


def test_copy_as_markdown(qtbot, make_root_tab, checkout, server):
    page = open_error(qtbot, make_root_tab, checkout)
    qtbot.waitUntil(lambda: page.detail.copy_button.isEnabled(), timeout=WAIT)
    qtbot.mouseClick(page.detail.copy_button, Qt.MouseButton.LeftButton)
    text = QGuiApplication.clipboard().text()
    assert text.startswith(f"### {TITLE}\n")
    assert "\n`generic WSGI request`\n" in text, "the culprit: the WSGI transaction"
    for row in ("| Events | 3 |", "| Users affected | 3 |", "| Releases | shop@1.0.0 |"):
        assert row in text
    frames = [line for line in text.splitlines() if line.startswith("- `")]
    assert frames[0].startswith("- `shop_app.py in charge_card at line") and len(frames) == 2
    error_id = page.model.error_at(0).id
    assert f"({server.url}/{checkout['path_with_namespace']}/-/error_tracking/{error_id}/details)" in text


def test_a_reporter_sees_the_events_without_the_settings(qtbot, qloop_running, context, server, api, checkout):
    """Reporters may not read the tracking settings (Maintainer), and need not: the project's API answers."""
    user, token = api.user(scopes=("read_api",))
    api.member("projects", checkout["id"], user["id"], access.REPORTER)
    connect(qtbot, context, server.url, token)
    page = select_only_error(qtbot, open_tab(qtbot, context), checkout["path_with_namespace"])
    page.detail.sections.setCurrentWidget(page.facets_pane)
    qtbot.waitUntil(lambda: page.events_pane.navigator.position.text() == "event 3 of 3", timeout=WAIT)
    assert shown_user(page) == "cyd" and page.facets_pane.facets.facets.rowCount() > 0


def test_the_position_says_when_retention_pruned_events(qtbot, make_root_tab, server, api):
    """Two events kept per error (the first and the latest) of three received: the count stays 3. The
    pruning happens while the latest is shown, so the previous one (bob's) goes from under the navigator."""
    project = failed_checkouts(server, api)
    page = open_error(qtbot, make_root_tab, project)
    navigator = page.events_pane.navigator
    api.root.put(f"/projects/{project['id']}/error_tracking/retention", json={"events_per_error": 2}).raise_for_status()
    pruned = subprocess.run([sys.executable, "-m", "outpost_server", "prune", "--data-dir", str(server.data_dir)],
                            capture_output=True, text=True, env=server.env, cwd=REPO_ROOT, timeout=120)
    assert pruned.returncode == 0, pruned.stderr

    qtbot.mouseClick(navigator.previous_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.events_pane.notice.text() == PRUNED_MEANWHILE, timeout=WAIT)
    qtbot.mouseClick(navigator.latest_button, Qt.MouseButton.LeftButton)
    pruned_text = "event 2 of 2 stored (3 received; retention pruned the others)"
    qtbot.waitUntil(lambda: navigator.position.text() == pruned_text, timeout=WAIT)
    assert shown_user(page) == "cyd" and page.events_pane.notice.isHidden()
    qtbot.mouseClick(navigator.previous_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text().startswith("event 1 of 2 stored"), timeout=WAIT)
    assert shown_user(page) == "ada", "the middle event (bob's) was pruned; the first one is kept"


def test_events_load_only_once_their_section_is_shown(qtbot, make_root_tab, checkout, server):
    tab = make_root_tab()
    page = tab.errors_page
    choose_project(qtbot, tab, checkout["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.copy_button.isEnabled(), timeout=WAIT)  # the details are in
    assert page.detail.sections.currentWidget() is page.detail.stack_trace
    assert page.history.waiting and page.history.issue is None, "nothing asked of /api/0 yet"
    assert page.events_pane.notice.text() == LOADING
    page.detail.sections.setCurrentWidget(page.facets_pane)
    qtbot.waitUntil(lambda: page.facets_pane.facets.facets.rowCount() > 0, timeout=WAIT)
    assert page.events_pane.navigator.position.text() == "event 3 of 3" and not page.history.waiting


def test_events_shown_again_after_they_aged_are_read_again(qtbot, make_root_tab, server, api):
    project = failed_checkouts(server, api)  # its own error: three more events reach it below
    page = open_error(qtbot, make_root_tab, project)
    page.detail.sections.setCurrentWidget(page.detail.stack_trace)  # meanwhile the SDK sends again
    send_errors(enable_integrated(api.root, project["id"]), "web")
    qtbot.wait(1_100)  # what the section read is over a second old, as it is after minutes elsewhere
    page.detail.sections.setCurrentWidget(page.events_pane)
    navigator = page.events_pane.navigator
    # Six events now: the row, the summary and the section say so, and the latest is shown.
    qtbot.waitUntil(lambda: navigator.position.text() == "event 6 of 6", timeout=WAIT)
    assert page.model.error_at(0).count == 6 and page.detail.fields["Events"].text() == "6"

"""The detail pane is as rich when a project's backend is an external Sentry: the console, connected to
server A, walks the events of an error that the real SDK sent to server B, A's external Sentry.

A relays Sentry's issue resources to B through B's `/api/0/` with the token stored in A's settings; the
console holds only its token for A.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from console.errors.breadcrumbs import BreadcrumbModel
from console.errors.tag_facets import TagFacetModel
from outpost_server.accounts import access
from tests.console.errors.conftest import WAIT, connect, open_tab, select_only_error
from tests.sdk_errors import failed_checkouts
from tests.support import ApiHelper, start_server


@pytest.fixture(scope="module")
def external_project(tmp_path_factory):
    """A's project whose backend is B's project holding three failed checkouts (ada, bob, cyd)."""
    with start_server(tmp_path_factory.mktemp("server-a")) as server_a, \
            start_server(tmp_path_factory.mktemp("server-b")) as server_b:
        b = ApiHelper(server_b)
        checkouts = failed_checkouts(server_b, b)
        user, b_token = b.user(scopes=("read_api",))
        b.member("projects", checkouts["id"], user["id"], access.REPORTER)
        a = ApiHelper(server_a)
        a.root.put("/application/settings",  # B listens on loopback
                   json={"allow_local_requests_from_web_hooks_and_services": True}).raise_for_status()
        project = a.project()
        response = a.root.put(f"/projects/{project['id']}/error_tracking/settings", json={
            "active": True, "integrated": False, "token": b_token,
            "api_url": f"{server_b.url}/api/0/projects/{checkouts['path_with_namespace']}/"})
        assert response.status_code == 200, response.text
        yield server_a, project


def column(model, number: int) -> list:
    return [model.data(model.index(row, number)) for row in range(model.rowCount())]


def test_events_breadcrumbs_context_and_facets_of_an_external_sentry(qtbot, qloop_running, context,
                                                                     external_project):
    server_a, project = external_project
    connect(qtbot, context, server_a.url, server_a.root_token)
    page = select_only_error(qtbot, open_tab(qtbot, context), project["path_with_namespace"])
    page.detail.sections.setCurrentWidget(page.events_pane)
    navigator = page.events_pane.navigator
    qtbot.waitUntil(lambda: navigator.position.text() == "event 3 of 3", timeout=WAIT)
    context_rows = page.events_pane.context
    assert context_rows.rows("User") == {"id": "cyd", "email": "cyd@example.com"}
    assert context_rows.rows("Request")["URL"] == "http://shop.example.com/checkout"
    assert context_rows.rows("Contexts")["browser"] == "Firefox 121.0"
    crumbs = page.events_pane.breadcrumbs.crumbs
    assert column(crumbs, BreadcrumbModel.MESSAGE)[0] == "checkout started for cyd"

    qtbot.mouseClick(navigator.oldest_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 1 of 3", timeout=WAIT)
    assert context_rows.rows("User")["id"] == "ada"
    qtbot.mouseClick(navigator.next_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 2 of 3", timeout=WAIT)
    assert context_rows.rows("User")["id"] == "bob"

    facets = page.facets_pane.facets.facets
    qtbot.waitUntil(lambda: facets.rowCount() > 0, timeout=WAIT)
    firefox = facets.row_of("browser", "Firefox 121.0")
    assert facets.data(facets.index(firefox, TagFacetModel.COUNT)) == 2
    page.detail.sections.setCurrentWidget(page.facets_pane)
    page.facets_pane.facets.choose("browser", "Chrome 120.0")
    tagged = page.facets_pane.tagged.events
    qtbot.waitUntil(lambda: tagged.rowCount() == 1, timeout=WAIT)
    page.facets_pane.tagged.choose(0)
    qtbot.waitUntil(lambda: context_rows.rows("User").get("id") == "bob", timeout=WAIT)
    assert navigator.position.text() == "event 2 of 3"

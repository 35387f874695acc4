"""On our own server the error tracking tab reads through GraphQL, as on GitLab, and gets the same
errors as the web JSON routes; Outpost's extras and status changes still come from those routes."""

from __future__ import annotations

import httpx
import pytest

from console.core.api.error_tracking import ErrorTrackingApi
from console.operations import Op
from tests.console.errors.conftest import WAIT, choose_project, connect
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list


@pytest.fixture(scope="module")
def shop(server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "keyerror", release="shop@2.0.0", environment="staging")
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        wait_for_list(web, project["path_with_namespace"], lambda body: len(body["errors"]) == 1)
    return project


def test_outpost_is_detected_with_graphql_error_tracking(qtbot, qloop_running, context, server):
    connect(qtbot, context, server.url, server.root_token)
    assert context.server.is_outpost and context.server.product == "Outpost"
    assert context.server.graphql_error_tracking, "the server's schema has Project.sentryErrors"
    assert context.server.web_routes_take_tokens


def test_graphql_answers_match_the_json_routes(qtbot, qloop_running, context, server, shop):
    connect(qtbot, context, server.url, server.root_token)
    path = shop["path_with_namespace"]
    api = ErrorTrackingApi(context.client)
    found = {}
    Op(context, api.list_errors(path), description="Listing").success(lambda page: found.update(page=page)).run()
    qtbot.waitUntil(lambda: "page" in found, timeout=WAIT)
    [summary] = found["page"].errors
    Op(context, api.error(path, summary.id), description="Reading").success(lambda pair: found.update(pair=pair)).run()
    qtbot.waitUntil(lambda: "pair" in found, timeout=WAIT)
    detail, trace = found["pair"]
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        listed = web.get(f"/{path}/-/error_tracking.json").json()["errors"][0]
        details = web.get(f"/{path}/-/error_tracking/{summary.id}/details.json").json()["error"]
    assert (summary.id, summary.title, summary.count, summary.status) == \
        (str(listed["id"]), listed["title"], listed["count"], listed["status"])
    assert (detail.error.title, detail.error.count, detail.error.userCount, detail.error.culprit, detail.status,
            detail.error.lastReleaseShortVersion, detail.environment) == (
        details["title"], details["count"], details["user_count"], details["culprit"], details["status"],
        details["last_release_short_version"], details["environment"])
    assert trace.exceptions and trace.exceptions[-1].frames


def test_the_tab_works_end_to_end_through_graphql(qtbot, make_root_tab, shop):
    tab = make_root_tab()
    assert tab.api.server.graphql_error_tracking
    page = tab.errors_page
    choose_project(qtbot, tab, shop["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    assert page.filters.status.isEnabled(), "Outpost filters by status"
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.fields["Environment"].text() == "staging", timeout=WAIT)
    assert page.detail.fields["Last release"].text() == "shop@2.0.0"
    assert page.detail.stack_trace.topLevelItemCount() == 1

"""Two real servers: A's error tracking uses B as its external Sentry, through B's `/api/0/` web API.

This is the flow a real GitLab runs against a Sentry backend: the connection test lists B's projects,
then A's error list, details, stack trace and resolve work on errors the real Python SDK sent to B.
"""

from __future__ import annotations

import httpx
import pytest

from outpost_server.accounts import access
from outpost_server.error_tracking.external.client import parse_pagination
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list
from tests.support import ApiHelper, start_server


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("server-a")) as server_a, \
            start_server(tmp_path_factory.mktemp("server-b")) as server_b:
        yield server_a, server_b


@pytest.fixture(scope="module")
def b_side(servers):
    """B: a project in a group with two errors from the real SDK, and a token of a Reporter with scope api."""
    _, server_b = servers
    helper = ApiHelper(server_b)
    group = helper.group()
    project = helper.project(group_id=group["id"])
    dsn = enable_integrated(helper.root, project["id"])
    send_errors(dsn, "chained")
    send_errors(dsn, "keyerror", release="shop@2.0.0", environment="staging")
    user, token = helper.user(scopes=("api",))
    helper.member("projects", project["id"], user["id"], access.REPORTER)
    with httpx.Client(base_url=server_b.url, headers={"PRIVATE-TOKEN": server_b.root_token}) as web:
        wait_for_list(web, project["path_with_namespace"],
                      lambda body: len(body["errors"]) == 2 and max(e["count"] for e in body["errors"]) == 3)
    organization, slug = project["path_with_namespace"].split("/")
    return {"project": project, "token": token, "organization": organization, "slug": slug, "url": server_b.url}


@pytest.fixture(scope="module")
def a_side(servers, b_side):
    """A: local requests allowed (B is on loopback) and a project whose backend is B's project."""
    server_a, _ = servers
    helper = ApiHelper(server_a)
    helper.root.put("/application/settings",
                    json={"allow_local_requests_from_web_hooks_and_services": True}).raise_for_status()
    project = helper.project()
    api_url = f"{b_side['url']}/api/0/projects/{b_side['organization']}/{b_side['slug']}/"
    response = helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                               json={"active": True, "integrated": False, "api_url": api_url,
                                     "token": b_side["token"]})
    assert response.status_code == 200, response.text
    with httpx.Client(base_url=server_a.url, headers={"PRIVATE-TOKEN": server_a.root_token}, timeout=30) as web:
        yield {"path": project["path_with_namespace"], "web": web}


def test_connection_test_lists_b_projects(a_side, b_side):
    response = a_side["web"].get(f"/{a_side['path']}/-/error_tracking/projects.json",
                                 params={"api_host": b_side["url"], "token": b_side["token"]})
    assert response.status_code == 200, response.text
    assert response.json()["projects"] == [{
        "id": str(b_side["project"]["id"]), "name": b_side["project"]["name"], "status": "active",
        "slug": b_side["slug"], "organization_name": b_side["organization"],
        "organization_id": b_side["organization"], "organization_slug": b_side["organization"]}]


def test_list_details_stack_trace_and_resolve_through_a(a_side, b_side):
    web, path = a_side["web"], a_side["path"]
    listed = web.get(f"/{path}/-/error_tracking.json", params={"sort": "frequency"})
    assert listed.status_code == 200, listed.text
    errors = listed.json()["errors"]
    assert [(e["title"], e["count"], e["user_count"]) for e in errors] == [
        ("ValueError: order could not be loaded", "3", 3), ("KeyError: 'missing-key'", "1", 1)]
    chained = errors[0]
    assert chained["status"] == "unresolved" and chained["project_slug"] == b_side["slug"]
    assert len(chained["frequency"]) == 24 and chained["frequency"][-1][1] == 3
    searched = web.get(f"/{path}/-/error_tracking.json", params={"search_term": "release:shop@2.0.0"}).json()
    assert [e["title"] for e in searched["errors"]] == ["KeyError: 'missing-key'"]

    details = web.get(f"/{path}/-/error_tracking/{chained['id']}/details.json")
    assert details.status_code == 200, details.text
    detail = details.json()["error"]
    assert detail["first_release_version"] == "shop@1.0.0" and detail["exception_type"] == "ValueError"
    assert len(detail["frequency_30d"]) == 30 and detail["integrated"] is False

    trace = web.get(f"/{path}/-/error_tracking/{chained['id']}/stack_trace.json")
    assert trace.status_code == 200, trace.text
    body = trace.json()["error"]
    assert body["issue_id"] == chained["id"]
    assert [frame["function"] for frame in body["stack_trace_entries"]][-1] == "parse_quantity"
    assert [exception["type"] for exception in body["exceptions"]] == ["ZeroDivisionError", "ValueError"]
    in_app = [frame for frame in body["exceptions"][1]["frames"] if frame["in_app"]]
    assert in_app and in_app[-1]["function"] == "load_order" and in_app[-1]["context"]

    resolved = web.put(f"/{path}/-/error_tracking/{chained['id']}.json", json={"status": "resolved"})
    assert resolved.json() == {"result": {"updated": True, "closed_issue_iid": None, "status": "success"}}
    with httpx.Client(base_url=b_side["url"] + "/api/0",
                      headers={"Authorization": f"Bearer {b_side['token']}"}) as b_api:
        assert b_api.get(f"/issues/{chained['id']}/").json()["status"] == "resolved"
    remaining = web.get(f"/{path}/-/error_tracking.json").json()["errors"]
    assert [e["title"] for e in remaining] == ["KeyError: 'missing-key'"]
    assert [e["id"] for e in web.get(f"/{path}/-/error_tracking.json",
                                      params={"issue_status": "resolved"}).json()["errors"]] == [chained["id"]]


def test_b_link_header_reads_as_gitlab_reads_it(b_side, servers):
    """A page of one error: GitLab's Link parser (ours mirrors it) finds B's next cursor, which leads on."""
    _, server_b = servers
    issues_path = f"/projects/{b_side['organization']}/{b_side['slug']}/issues/"
    with httpx.Client(base_url=server_b.url + "/api/0", headers={"Authorization": f"Bearer {b_side['token']}"}) as b:
        first = b.get(issues_path, params={"query": "", "limit": 1, "sort": "freq"})
        pagination = parse_pagination(first.headers["link"])
        assert set(pagination) == {"next"}
        second = b.get(issues_path, params={"query": "", "limit": 1, "sort": "freq",
                                            "cursor": pagination["next"]["cursor"]})
        assert [issue["title"] for issue in first.json() + second.json()] == [
            "ValueError: order could not be loaded", "KeyError: 'missing-key'"]
        assert set(parse_pagination(second.headers["link"])) == {"previous"}

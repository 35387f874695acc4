"""Two real servers: A's error tracking uses B as its external Sentry, through B's `/api/0/` web API.

This is the flow a real GitLab runs against a Sentry backend: the connection test lists B's projects,
then A's error list, details, stack trace and resolve work on errors the real Python SDK sent to B.
"""

from __future__ import annotations

import httpx
import pytest

from outpost_server.accounts import access
from outpost_server.error_tracking.read.external.client import parse_pagination
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list
from tests.support import ApiHelper, start_server


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("server-a")) as server_a, \
            start_server(tmp_path_factory.mktemp("server-b")) as server_b:
        yield server_a, server_b


@pytest.fixture(scope="module")
def b_side(servers):
    """B: a project in a group with two errors from the real SDK, and a token of a Developer with scope api (A
    resolves through it, and changing an issue takes a Developer)."""
    _, server_b = servers
    helper = ApiHelper(server_b)
    group = helper.group()
    project = helper.project(group_id=group["id"])
    dsn = enable_integrated(helper.root, project["id"])
    send_errors(dsn, "chained")
    send_errors(dsn, "keyerror", release="shop@2.0.0", environment="staging")
    user, token = helper.user(scopes=("api",))
    helper.member("projects", project["id"], user["id"], access.DEVELOPER)
    with httpx.Client(base_url=server_b.url, headers={"PRIVATE-TOKEN": server_b.root_token}) as web:
        wait_for_list(web, project["path_with_namespace"],
                      lambda body: len(body["errors"]) == 2 and max(e["count"] for e in body["errors"]) == 3)
    organization, slug = project["path_with_namespace"].split("/")
    return {"project": project, "token": token, "organization": organization, "slug": slug, "url": server_b.url,
            "user_id": user["id"]}


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
    # B is shared by this module's tests, and another may have made a project of its own there first.
    listed = response.json()["projects"]
    assert {
        "id": str(b_side["project"]["id"]), "name": b_side["project"]["name"], "status": "active",
        "slug": b_side["slug"], "organization_name": b_side["organization"],
        "organization_id": b_side["organization"], "organization_slug": b_side["organization"]} in listed
    assert len({project["id"] for project in listed}) == len(listed)


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


# --- the issue's resources named through A's project: relayed to B ------------------------------


def sentry_api(server, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {token}"}, timeout=30)


@pytest.fixture(scope="module")
def relay(servers, a_side, b_side):
    """A's `/api/0` (root's token) for A's external project, B's `/api/0` (B's token), and B's chained issue."""
    server_a, server_b = servers
    organization, slug = a_side["path"].split("/")
    with sentry_api(server_a, server_a.root_token) as a_api, sentry_api(server_b, b_side["token"]) as b_api:
        issues = b_api.get(f"/projects/{b_side['organization']}/{b_side['slug']}/issues/",
                           params={"query": "", "sort": "freq"}).json()
        yield {"a": a_api, "b": b_api, "issue": issues[0]["id"],
               "prefix": f"/projects/{organization}/{slug}/issues/"}


def test_issue_events_and_tags_are_b_answers_through_a(relay):
    a, b, issue = relay["a"], relay["b"], relay["issue"]
    base = f"{relay['prefix']}{issue}/"
    details = a.get(base)
    assert details.status_code == 200, details.text
    assert details.json()["title"] == "ValueError: order could not be loaded"
    assert details.json()["count"] == b.get(f"/issues/{issue}/").json()["count"] == "3"
    for which in ("latest", "oldest"):
        relayed = a.get(f"{base}events/{which}/")
        assert relayed.status_code == 200, relayed.text
        assert relayed.json() == b.get(f"/issues/{issue}/events/{which}/").json()
    assert a.get(f"{base}tags/").json() == b.get(f"/issues/{issue}/tags/").json()
    values = a.get(f"{base}tags/user/values/")
    assert sorted(value["value"] for value in values.json()) == ["id:ada", "id:bob", "id:cyd"]
    tagged = a.get(f"{base}events/", params={"query": 'user.id:"bob"'}).json()
    assert [event["user"]["id"] for event in tagged] == ["bob"]


def test_event_pages_follow_b_cursors_with_links_naming_a(relay, servers):
    server_a, _ = servers
    a, b, issue = relay["a"], relay["b"], relay["issue"]
    seen: list[str] = []
    params: dict[str, object] = {"per_page": 1}
    for _ in range(5):
        page = a.get(f"{relay['prefix']}{issue}/events/", params=params)
        assert page.status_code == 200, page.text
        seen += [event["eventID"] for event in page.json()]
        assert page.headers["link"].startswith(f"<{server_a.url}/api/0{relay['prefix']}{issue}/events/?per_page=1&")
        following = parse_pagination(page.headers["link"]).get("next")
        if following is None:
            break
        params = {"per_page": 1, "cursor": following["cursor"]}
    assert seen == [event["eventID"] for event in b.get(f"/issues/{issue}/events/").json()]
    assert len(seen) == 3
    one = a.get(f"{relay['prefix']}{issue}/events/{seen[1]}/")
    assert one.status_code == 200 and one.json()["eventID"] == seen[1]
    by_project = a.get(f"{relay['prefix'].removesuffix('issues/')}events/{seen[2]}/")
    assert by_project.status_code == 200 and by_project.json()["groupID"] == issue


def test_an_issue_of_another_b_project_is_not_relayed(servers, b_side, relay):
    """B's token also reads a second project; its issue is not the configured project's, so A answers 404."""
    _, server_b = servers
    helper = ApiHelper(server_b)
    other = helper.project(group_id=b_side["project"]["namespace"]["id"])
    helper.member("projects", other["id"], b_side["user_id"], access.REPORTER)
    dsn = enable_integrated(helper.root, other["id"])
    send_errors(dsn, "keyerror")
    with httpx.Client(base_url=server_b.url, headers={"PRIVATE-TOKEN": server_b.root_token}) as web:
        wait_for_list(web, other["path_with_namespace"], lambda body: len(body["errors"]) == 1)
    organization, slug = other["path_with_namespace"].split("/")
    foreign = relay["b"].get(f"/projects/{organization}/{slug}/issues/", params={"query": ""}).json()[0]["id"]
    for below in ("", "events/", "events/latest/", "tags/"):
        refused = relay["a"].get(f"{relay['prefix']}{foreign}/{below}")
        assert refused.status_code == 404, (below, refused.text)
        assert refused.json() == {"detail": "The requested resource does not exist"}


def test_same_issue_id_names_each_backend_own_error(servers, relay):
    """Fresh servers both number errors from 1: A's integrated project and A's external one keep them apart."""
    server_a, _ = servers
    helper = ApiHelper(server_a)
    local = helper.project()
    send_errors(enable_integrated(helper.root, local["id"]), "keyerror")
    with httpx.Client(base_url=server_a.url, headers={"PRIVATE-TOKEN": server_a.root_token}) as web:
        listed = wait_for_list(web, local["path_with_namespace"], lambda body: len(body["errors"]) == 1)
    local_id = listed["errors"][0]["id"]
    assert str(local_id) == relay["issue"], "both servers' first error"
    organization, slug = local["path_with_namespace"].split("/")
    own = relay["a"].get(f"/projects/{organization}/{slug}/issues/{local_id}/")
    assert own.status_code == 200 and own.json()["title"] == "KeyError: 'missing-key'"
    external = relay["a"].get(f"{relay['prefix']}{local_id}/")
    assert external.status_code == 200 and external.json()["title"] == "ValueError: order could not be loaded"
    assert relay["a"].get(f"{relay['prefix']}{local_id}/events/latest/").json()["groupID"] == relay["issue"]

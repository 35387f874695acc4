"""GitLab's error tracking JSON endpoints (`/<project>/-/error_tracking...`), integrated backend.

Errors come from the real Python SDK sending to the running server.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from outpost_server.accounts import access
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list
from tests.support import ApiHelper

ERROR_ENTITY_KEYS = {"id", "title", "type", "user_count", "count", "first_seen", "last_seen", "message", "culprit",
                     "external_url", "project_id", "project_name", "project_slug", "short_id", "status", "frequency"}
DETAILED_KEYS = ERROR_ENTITY_KEYS | {
    "external_base_url", "first_release_last_commit", "first_release_short_version", "gitlab_issue",
    "last_release_last_commit", "last_release_short_version"}


def _web(server, token: str | None) -> httpx.Client:
    headers = {"PRIVATE-TOKEN": token} if token else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=30)


@pytest.fixture(scope="module")
def tracked(server, api: ApiHelper):
    """A project with three errors: a chained exception (3 events, 3 users), a KeyError and a message."""
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "chained")
    send_errors(dsn, "keyerror", release="shop@2.0.0", environment="staging")
    send_errors(dsn, "checkout is slow")
    web = _web(server, server.root_token)
    path = project["path_with_namespace"]
    body = wait_for_list(web, path, lambda b: len(b["errors"]) == 3 and max(e["count"] for e in b["errors"]) == 3)
    by_type = {error["title"].split(":")[0]: error for error in body["errors"]}
    yield {"project": project, "path": path, "web": web, "by_type": by_type, "dsn": dsn}
    web.close()


def test_list_has_gitlab_error_entities(tracked):
    response = tracked["web"].get(f"/{tracked['path']}/-/error_tracking.json")
    assert response.status_code == 200
    assert response.headers["Poll-Interval"] == "1000"
    body = response.json()
    assert set(body) == {"errors", "pagination", "external_url"}
    assert body["pagination"] == {}
    chained = tracked["by_type"]["ValueError"]
    assert set(chained) == ERROR_ENTITY_KEYS
    assert isinstance(chained["id"], str) and chained["id"].isdigit()
    assert chained["title"] == "ValueError: order could not be loaded"
    assert chained["count"] == 3 and chained["user_count"] == 3
    assert chained["status"] == "unresolved" and chained["type"] == "error"
    assert chained["project_id"] == tracked["project"]["id"]
    assert chained["external_url"].endswith(f"/{tracked['path']}/-/error_tracking/{chained['id']}/details")
    assert len(chained["frequency"]) == 24 and chained["frequency"][-1][1] == 3
    assert chained["first_seen"].endswith("Z")


def test_sorting(tracked):
    web, path = tracked["web"], tracked["path"]
    by_frequency = web.get(f"/{path}/-/error_tracking.json", params={"sort": "frequency"}).json()["errors"]
    assert by_frequency[0]["title"].startswith("ValueError")
    assert [e["count"] for e in by_frequency] == sorted((e["count"] for e in by_frequency), reverse=True)
    by_first_seen = web.get(f"/{path}/-/error_tracking.json", params={"sort": "first_seen"}).json()["errors"]
    assert [e["first_seen"] for e in by_first_seen] == sorted((e["first_seen"] for e in by_first_seen), reverse=True)
    by_last_seen = web.get(f"/{path}/-/error_tracking.json", params={"sort": "last_seen"}).json()["errors"]
    assert [e["last_seen"] for e in by_last_seen] == sorted((e["last_seen"] for e in by_last_seen), reverse=True)
    bad = web.get(f"/{path}/-/error_tracking.json", params={"sort": "title"})
    assert bad.status_code == 400 and bad.json() == {"message": "Invalid value for sort param"}


@pytest.mark.parametrize(("term", "expected"), [
    ("could not be loaded", {"ValueError"}),
    ("KEYERROR", {"KeyError"}),
    ("release:shop@2.0.0", {"KeyError"}),
    ("environment:production", {"ValueError", "checkout is slow"}),
    ("level:info", {"checkout is slow"}),
    ("level:error order", {"ValueError"}),
    ("no such thing", set()),
])
def test_search_terms(tracked, term, expected):
    body = tracked["web"].get(f"/{tracked['path']}/-/error_tracking.json", params={"search_term": term}).json()
    assert {error["title"].split(":")[0] for error in body["errors"]} == expected


def test_paths_without_the_json_suffix(tracked):
    web, path = tracked["web"], tracked["path"]
    error_id = tracked["by_type"]["KeyError"]["id"]
    assert web.get(f"/{path}/-/error_tracking").json() == web.get(f"/{path}/-/error_tracking.json").json()
    assert web.get(f"/{path}/-/error_tracking/{error_id}/details").json()["error"]["id"] == error_id
    assert web.get(f"/{path}/-/error_tracking/{error_id}/stack_trace").json()["error"]["issue_id"] == error_id


def test_invalid_issue_status(tracked):
    response = tracked["web"].get(f"/{tracked['path']}/-/error_tracking.json", params={"issue_status": "closed"})
    assert response.status_code == 400
    assert response.json() == {"message": "Bad Request: Invalid issue_status"}


def test_details(tracked):
    error = tracked["by_type"]["KeyError"]
    response = tracked["web"].get(f"/{tracked['path']}/-/error_tracking/{error['id']}/details.json")
    assert response.status_code == 200
    detail = response.json()["error"]
    assert DETAILED_KEYS <= set(detail)
    assert detail["id"] == error["id"] and detail["title"] == "KeyError: 'missing-key'"
    assert detail["first_release_short_version"] == "shop@2.0.0"
    assert detail["last_release_short_version"] == "shop@2.0.0"
    assert detail["tags"] == {"level": "error", "logger": None, "release": "shop@2.0.0", "environment": "staging",
                              "platform": "python"}
    assert detail["integrated"] is True and detail["gitlab_issue"] is None
    assert len(detail["frequency"]) == 24 and len(detail["frequency_30d"]) == 30
    assert sum(count for _, count in detail["frequency_30d"]) == 1
    assert detail["user_count"] == 1
    assert isinstance(detail["release_health"], list)


def test_release_health_of_the_error_release(server, api: ApiHelper):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "crash", release="shop@3.0.0")
    path = project["path_with_namespace"]
    with _web(server, server.root_token) as web:
        error = wait_for_list(web, path, lambda b: len(b["errors"]) == 1)["errors"][0]
        assert error["title"] == "RuntimeError: payment service unreachable"
        detail: dict[str, Any] | None = None
        for _ in range(50):
            detail = web.get(f"/{path}/-/error_tracking/{error['id']}/details.json").json()["error"]
            if detail["release_health"]:
                break
            time.sleep(0.2)
    assert detail is not None  # the loop above ran
    assert detail["release_health"] == [{"release": "shop@3.0.0", "environment": "production", "sessions": 1,
                                                "crashed": 1, "errored": 0, "abnormal": 0, "crash_free_rate": 0.0}]


def test_stack_trace_of_chained_exception(tracked):
    error = tracked["by_type"]["ValueError"]
    response = tracked["web"].get(f"/{tracked['path']}/-/error_tracking/{error['id']}/stack_trace.json")
    assert response.status_code == 200
    trace = response.json()["error"]
    assert trace["issue_id"] == error["id"] and trace["date_received"].endswith("Z")
    entries = trace["stack_trace_entries"]
    assert entries, "GitLab's entries come from the first exception value with frames"
    assert set(entries[0]) == {"lineNo", "context", "filename", "abs_path", "function", "colNo"}
    assert entries[-1]["function"] == "parse_quantity"
    error_line = next(code for number, code in entries[-1]["context"] if number == entries[-1]["lineNo"])
    assert "// 0" in error_line
    assert [exc["type"] for exc in trace["exceptions"]] == ["ZeroDivisionError", "ValueError"]
    assert trace["exceptions"][1]["frames"][-1]["function"] == "load_order"
    assert trace["exceptions"][1]["frames"][-1]["in_app"] is True


def test_resolve_moves_error_out_of_the_unresolved_list(server, api: ApiHelper):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "keyerror")
    path = project["path_with_namespace"]
    with _web(server, server.root_token) as web:
        error = wait_for_list(web, path, lambda b: len(b["errors"]) == 1)["errors"][0]
        response = web.put(f"/{path}/-/error_tracking/{error['id']}.json", json={"status": "resolved"})
        assert response.status_code == 200
        assert response.json() == {"result": {"updated": True, "closed_issue_iid": None, "status": "success"}}
        assert web.get(f"/{path}/-/error_tracking.json").json()["errors"] == []
        resolved = web.get(f"/{path}/-/error_tracking.json", params={"issue_status": "resolved"}).json()["errors"]
        assert [e["id"] for e in resolved] == [error["id"]] and resolved[0]["status"] == "resolved"
        assert [e["id"] for e in web.get(f"/{path}/-/error_tracking.json",
                                         params={"search_term": "is:resolved"}).json()["errors"]] == [error["id"]]
        again = web.put(f"/{path}/-/error_tracking/{error['id']}.json", data={"status": "resolved"})
        assert again.json()["result"]["updated"] is False
        ignored = web.put(f"/{path}/-/error_tracking/{error['id']}.json", json={"status": "ignored"})
        assert ignored.json()["result"]["updated"] is True
        invalid = web.put(f"/{path}/-/error_tracking/{error['id']}.json", json={"status": "closed"})
        assert invalid.status_code == 400 and invalid.json() == {"message": "Bad Request: Invalid status"}


def test_keyset_pagination_walks_every_error_once(server, api: ApiHelper):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "messages:45")
    path = project["path_with_namespace"]
    with _web(server, server.root_token) as web:
        wait_for_list(web, path, lambda b: "next" in b["pagination"], sort="first_seen")
        seen: list[str] = []  # the web JSON gives error ids as strings
        pages: list[dict[str, Any]] = []
        cursor = None
        while True:
            params = {"sort": "first_seen", **({"cursor": cursor} if cursor else {})}
            body = web.get(f"/{path}/-/error_tracking.json", params=params).json()
            pages.append(body)
            seen.extend(error["id"] for error in body["errors"])
            cursor = body["pagination"].get("next", {}).get("cursor")
            if cursor is None:
                break
        assert [len(page["errors"]) for page in pages] == [20, 20, 5]
        assert len(set(seen)) == 45
        assert "previous" not in pages[0]["pagination"] and "previous" in pages[1]["pagination"]
        back = web.get(f"/{path}/-/error_tracking.json",
                       params={"sort": "first_seen", "cursor": pages[2]["pagination"]["previous"]["cursor"]}).json()
        assert [e["id"] for e in back["errors"]] == [e["id"] for e in pages[1]["errors"]]
        bad = web.get(f"/{path}/-/error_tracking.json", params={"cursor": "not-a-cursor"})
        assert bad.status_code == 400


def test_access_rules(server, api: ApiHelper, tracked):
    project, tokens = api.project_with_roles({"guest": access.GUEST, "reporter": access.REPORTER,
                                              "developer": access.DEVELOPER})
    enable_integrated(api.root, project["id"])
    path = project["path_with_namespace"]
    _, outsider = api.user()
    with _web(server, None) as anonymous:
        assert anonymous.get(f"/{path}/-/error_tracking.json").status_code == 401
    with _web(server, tokens["guest"]) as guest:
        assert guest.get(f"/{path}/-/error_tracking.json").status_code == 404
    with _web(server, outsider) as stranger:
        response = stranger.get(f"/{path}/-/error_tracking.json")
        assert response.status_code == 404 and response.json() == {"message": "404 Project Not Found"}
    with _web(server, tokens["reporter"]) as reporter:
        assert reporter.get(f"/{path}/-/error_tracking.json").status_code == 200
        missing = reporter.get(f"/{path}/-/error_tracking/999999/details.json")
        assert missing.status_code == 404 and missing.json() == {"message": "404 Not found"}
    with _web(server, tokens["developer"]) as developer:
        # Listing external projects is a Maintainer's job.
        assert developer.get(f"/{path}/-/error_tracking/projects.json",
                             params={"api_host": "https://sentry.example.com", "token": "x"}).status_code == 404
    with _web(server, server.root_token) as root:
        other = tracked["by_type"]["KeyError"]["id"]
        # An error of another project is not found through this project's path.
        assert root.get(f"/{path}/-/error_tracking/{other}/details.json").status_code == 404


def test_disabled_tracking_and_monitor(server, api: ApiHelper):
    project = api.project()
    path = project["path_with_namespace"]
    with _web(server, server.root_token) as web:
        response = web.get(f"/{path}/-/error_tracking.json")
        assert response.status_code == 400 and response.json() == {"message": "Error Tracking is not enabled"}
        enable_integrated(api.root, project["id"])
        assert web.get(f"/{path}/-/error_tracking.json").status_code == 200
        api.root.put(f"/projects/{project['id']}", json={"monitor_access_level": "disabled"}).raise_for_status()
        assert web.get(f"/{path}/-/error_tracking.json").status_code == 404
        assert web.get(f"/{path}/-/error_tracking/projects.json",
                       params={"api_host": "https://sentry.example.com", "token": "t"}).status_code == 404


def test_subgroup_project_paths_route(server, api: ApiHelper):
    parent = api.group()
    child = api.group(parent_id=parent["id"])
    project = api.project(group_id=child["id"])
    enable_integrated(api.root, project["id"])
    assert project["path_with_namespace"].count("/") == 2
    with _web(server, server.root_token) as web:
        response = web.get(f"/{project['path_with_namespace']}/-/error_tracking.json")
        assert response.status_code == 200 and response.json()["errors"] == []

"""GitLab's GraphQL API for error tracking on the real server (integrated backend).

Errors come from the real Python SDK. GitLab's own frontend query for error details
(details.query.graphql, see details.query.graphql.source) runs unchanged and must return the error
the web JSON endpoint returns.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import httpx
import pytest
from graphql import build_client_schema, build_schema, get_introspection_query

from outpost_server.accounts import access
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list
from tests.server.graphql.support import DETAILED_ERROR_GID, DETAILS_QUERY, data_of, graphql
from tests.support import ApiHelper

GITLAB_SUBSET = Path(__file__).with_name("gitlab_schema_subset.graphql")
LIST_QUERY = """
query list($fullPath: ID!, $after: String, $sort: String, $searchTerm: String, $first: Int) {
  project(fullPath: $fullPath) {
    sentryErrors {
      externalUrl
      errors(first: $first, after: $after, sort: $sort, searchTerm: $searchTerm) {
        nodes { id sentryId title count userCount status shortId firstSeen lastSeen culprit externalUrl
                sentryProjectId sentryProjectName sentryProjectSlug frequency { time count } }
        edges { cursor node { sentryId } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
}
"""
STACK_TRACE_QUERY = """
query trace($fullPath: ID!, $id: GitlabErrorTrackingDetailedErrorID!) {
  project(fullPath: $fullPath) {
    sentryErrors {
      errorStackTrace(id: $id) {
        dateReceived issueId
        stackTraceEntries { fileName function line col traceContext { line code } }
      }
    }
  }
}
"""


def _time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(microsecond=0)


@pytest.fixture(scope="module")
def tracked(server, api: ApiHelper):
    """A project with a chained exception (3 events, 3 users) and a KeyError in release shop@2.0.0."""
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "chained")
    send_errors(dsn, "keyerror", release="shop@2.0.0", environment="staging")
    path = project["path_with_namespace"]
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}, timeout=30) as web:
        body = wait_for_list(web, path, lambda b: len(b["errors"]) == 2 and max(e["count"] for e in b["errors"]) == 3)
        by_type = {error["title"].split(":")[0]: error for error in body["errors"]}
        yield {"project": project, "path": path, "web": web, "by_type": by_type}


def test_served_schema_is_gitlabs_subset(server):
    """Every type GitLab defines for this API is served with GitLab's fields, types, nullability and
    arguments, and nothing the served schema adds to those types is missing from GitLab's."""
    introspection = data_of(graphql(server, get_introspection_query()))
    served = build_client_schema(introspection)
    gitlab = build_schema(GITLAB_SUBSET.read_text())
    for name, expected in gitlab.type_map.items():
        if name.startswith("__") or name in ("String", "Int", "Boolean", "ID", "Float"):
            continue
        actual = served.type_map.get(name)
        assert actual is not None, f"{name} is not served"
        assert type(actual) is type(expected), name
        if hasattr(expected, "values"):
            assert set(actual.values) == set(expected.values), name
        if not hasattr(expected, "fields"):
            continue
        assert set(actual.fields) == set(expected.fields), name
        for field_name, field in expected.fields.items():
            served_field = actual.fields[field_name]
            assert str(served_field.type) == str(field.type), f"{name}.{field_name}"
            assert {arg: str(value.type) for arg, value in served_field.args.items()} == {
                arg: str(value.type) for arg, value in field.args.items()}, f"{name}.{field_name} arguments"


def test_gitlab_details_query_returns_the_json_error(server, tracked):
    web, path = tracked["web"], tracked["path"]
    listed = tracked["by_type"]["KeyError"]
    json_error = web.get(f"/{path}/-/error_tracking/{listed['id']}/details.json").json()["error"]
    response = graphql(server, DETAILS_QUERY, {"fullPath": path, "errorId": DETAILED_ERROR_GID.format(listed["id"])})
    project = data_of(response)["project"]
    assert project["id"] == f"gid://gitlab/Project/{tracked['project']['id']}"
    error = project["sentryErrors"]["detailedError"]
    assert error["id"] == DETAILED_ERROR_GID.format(json_error["id"]) and error["sentryId"] == json_error["id"]
    same = {"title": "title", "userCount": "user_count", "count": "count", "message": "message",
            "culprit": "culprit", "externalUrl": "external_url", "externalBaseUrl": "external_base_url",
            "firstReleaseVersion": "first_release_version", "lastReleaseVersion": "last_release_version",
            "gitlabIssuePath": "gitlab_issue", "integrated": "integrated"}
    assert {key: error[key] for key in same} == {key: json_error[value] for key, value in same.items()}
    assert error["lastReleaseVersion"] == "shop@2.0.0" and error["integrated"] is True
    assert error["status"] == json_error["status"].upper() == "UNRESOLVED"
    assert _time(error["firstSeen"]) == _time(json_error["first_seen"])
    assert _time(error["lastSeen"]) == _time(json_error["last_seen"])
    assert error["tags"] == {"level": json_error["tags"]["level"], "logger": json_error["tags"]["logger"]}
    assert [(int(_time(bucket["time"]).timestamp()), bucket["count"]) for bucket in error["frequency"]] == [
        tuple(pair) for pair in json_error["frequency"]]
    assert (error["gitlabCommit"], error["gitlabCommitPath"]) == (None, None)


def test_list_pages_like_the_json_list(server, tracked):
    web, path = tracked["web"], tracked["path"]
    json_list = web.get(f"/{path}/-/error_tracking.json", params={"sort": "frequency"}).json()
    first = data_of(graphql(server, LIST_QUERY, {"fullPath": path, "sort": "frequency", "first": 1}))
    collection = first["project"]["sentryErrors"]
    assert collection["externalUrl"] == json_list["external_url"]
    page = collection["errors"]
    assert page["pageInfo"]["hasNextPage"] is True and page["pageInfo"]["hasPreviousPage"] is False
    second = data_of(graphql(server, LIST_QUERY, {"fullPath": path, "sort": "frequency", "first": 1,
                                                  "after": page["pageInfo"]["endCursor"]}))
    second_page = second["project"]["sentryErrors"]["errors"]
    assert [node["sentryId"] for node in page["nodes"] + second_page["nodes"]] == [
        error["id"] for error in json_list["errors"]]
    assert second_page["pageInfo"]["hasNextPage"] is False and second_page["pageInfo"]["hasPreviousPage"] is True
    back = data_of(graphql(server, LIST_QUERY, {"fullPath": path, "sort": "frequency", "first": 1,
                                                "after": second_page["pageInfo"]["startCursor"]}))
    assert back["project"]["sentryErrors"]["errors"]["nodes"] == page["nodes"]
    top, json_top = page["nodes"][0], json_list["errors"][0]
    assert top["id"] == f"gid://gitlab/Gitlab::ErrorTracking::Error/{json_top['id']}"
    assert (top["title"], top["count"], top["userCount"], top["culprit"], top["externalUrl"]) == (
        json_top["title"], json_top["count"], json_top["user_count"], json_top["culprit"], json_top["external_url"])
    assert top["sentryProjectId"] == f"gid://gitlab/Project/{tracked['project']['id']}"
    assert (top["sentryProjectName"], top["sentryProjectSlug"]) == (json_top["project_name"], json_top["project_slug"])
    assert page["edges"][0]["node"]["sentryId"] == top["sentryId"] and page["edges"][0]["cursor"]
    found = data_of(graphql(server, LIST_QUERY, {"fullPath": path, "searchTerm": "release:shop@2.0.0"}))
    assert [node["title"].split(":")[0] for node in found["project"]["sentryErrors"]["errors"]["nodes"]] == ["KeyError"]
    resolved = data_of(graphql(server, LIST_QUERY, {"fullPath": path, "searchTerm": "is:resolved"}))
    assert resolved["project"]["sentryErrors"]["errors"]["nodes"] == []
    every = data_of(graphql(server, LIST_QUERY, {"fullPath": path, "searchTerm": "is:all", "first": 100}))
    assert {node["sentryId"] for node in every["project"]["sentryErrors"]["errors"]["nodes"]} == {
        error["id"] for error in json_list["errors"]}, "is:all lists every status (the console's All)"


def test_stack_trace_matches_the_json_one(server, tracked):
    web, path = tracked["web"], tracked["path"]
    error_id = tracked["by_type"]["ValueError"]["id"]
    json_trace = web.get(f"/{path}/-/error_tracking/{error_id}/stack_trace.json").json()["error"]
    trace = data_of(graphql(server, STACK_TRACE_QUERY, {"fullPath": path, "id": DETAILED_ERROR_GID.format(error_id)}))
    trace = trace["project"]["sentryErrors"]["errorStackTrace"]
    assert (trace["issueId"], trace["dateReceived"]) == (json_trace["issue_id"], json_trace["date_received"])
    entries = trace["stackTraceEntries"]
    assert [(entry["fileName"], entry["function"], entry["line"]) for entry in entries] == [
        (frame["filename"], frame["function"], str(frame["lineNo"])) for frame in json_trace["stack_trace_entries"]]
    with_context = [entry for entry in entries if entry["traceContext"]]
    assert with_context and all(isinstance(line["line"], int) and isinstance(line["code"], str)
                                for entry in with_context for line in entry["traceContext"])


def test_sort_and_ids_are_checked(server, tracked):
    path = tracked["path"]
    bad_sort = graphql(server, LIST_QUERY, {"fullPath": path, "sort": "title"}).json()
    assert bad_sort["data"]["project"]["sentryErrors"]["errors"] is None
    assert [error["message"] for error in bad_sort["errors"]] == ["Invalid value for sort param"]
    assert bad_sort["errors"][0]["path"] == ["project", "sentryErrors", "errors"]
    wrong_model = graphql(server, DETAILS_QUERY, {"fullPath": path, "errorId": "gid://gitlab/Project/1"}).json()
    assert "data" not in wrong_model
    message = wrong_model["errors"][0]["message"]
    assert "does not represent an instance of Gitlab::ErrorTracking::DetailedError" in message
    missing = graphql(server, DETAILS_QUERY, {"fullPath": path, "errorId": DETAILED_ERROR_GID.format(10**9)}).json()
    assert missing["data"]["project"]["sentryErrors"]["detailedError"] is None and missing["errors"]


def test_roles(server, api, tracked):
    """Reporter or more reads errors; a Guest sees the project but `sentryErrors: null`; a non-member
    and an anonymous caller see `project: null`, as GitLab answers for a private project."""
    project, tokens = api.project_with_roles({"guest": access.GUEST, "reporter": access.REPORTER})
    enable_integrated(api.root, project["id"])
    _, outsider = api.user()
    query = "query($p: ID!) { project(fullPath: $p) { fullPath sentryErrors { errors { nodes { id } } } } }"
    variables = {"p": project["path_with_namespace"]}
    reporter = data_of(graphql(server, query, variables, token=tokens["reporter"]))["project"]
    assert reporter == {"fullPath": project["path_with_namespace"], "sentryErrors": {"errors": {"nodes": []}}}
    guest = data_of(graphql(server, query, variables, token=tokens["guest"]))["project"]
    assert guest == {"fullPath": project["path_with_namespace"], "sentryErrors": None}
    assert data_of(graphql(server, query, variables, token=outsider)) == {"project": None}
    assert data_of(graphql(server, query, variables, token=None)) == {"project": None}
    api.root.put(f"/projects/{project['id']}", json={"monitor_access_level": "disabled"}).raise_for_status()
    assert data_of(graphql(server, query, variables, token=tokens["reporter"]))["project"]["sentryErrors"] is None


def test_disabled_error_tracking_is_a_field_error(server, api):
    project = api.project()
    query = "query($p: ID!) { project(fullPath: $p) { name sentryErrors { externalUrl errors { nodes { id } } } } }"
    body = graphql(server, query, {"p": project["path_with_namespace"]}).json()
    assert body["data"]["project"] == {"name": project["name"], "sentryErrors": {"externalUrl": None, "errors": None}}
    assert [(error["message"], error["path"]) for error in body["errors"]] == [
        ("Error Tracking is not enabled", ["project", "sentryErrors", "errors"])]


def test_authentication(server, api):
    user, token = api.user(scopes=("read_api",))
    me = "{ currentUser { id username name webPath bot } }"
    assert data_of(graphql(server, me, token=token))["currentUser"] == {
        "id": f"gid://gitlab/User/{user['id']}", "username": user["username"], "name": user["name"],
        "webPath": f"/{user['username']}", "bot": False}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        bearer = client.post("/api/graphql", json={"query": me}, headers={"Authorization": f"Bearer {token}"})
        assert data_of(bearer)["currentUser"]["username"] == user["username"]
        param = client.post("/api/graphql", params={"private_token": token}, json={"query": me})
        assert data_of(param)["currentUser"]["username"] == user["username"]
    assert data_of(graphql(server, me, token=None)) == {"currentUser": None}
    _, read_user_only = api.user(scopes=("read_user",))
    revoked = api.token(user["id"])
    with httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": revoked}) as client:
        assert client.delete("/personal_access_tokens/self").status_code == 204
    for bad in ("glpat-not-a-token", read_user_only, revoked):
        refused = graphql(server, me, token=bad)
        assert (refused.status_code, refused.json()) == (401, {"errors": [{"message": "Invalid token"}]})


def test_request_shapes(server, tracked):
    me = "{ currentUser { username } }"
    assert data_of(graphql(server, me, method="GET")) == {"currentUser": {"username": "root"}}
    listed = graphql(server, "query($p: ID!) { project(fullPath: $p) { name } }", {"p": tracked["path"]}, method="GET")
    assert data_of(listed)["project"]["name"] == tracked["project"]["name"]
    mutation = graphql(server, "mutation { noSuchMutation }", method="GET")
    assert (mutation.status_code, mutation.json()) == (
        422, {"errors": [{"message": "Mutations are forbidden in GET requests"}]})
    assert graphql(server, "mutation { noSuchMutation }").status_code == 200  # POST: a validation error
    too_large = graphql(server, "{ currentUser { username } }" + " " * 10_000)
    assert (too_large.status_code, too_large.json()) == (422, {"errors": [{"message": "Query too large"}]})
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}, timeout=30) as client:
        bad_variables = client.post("/api/graphql", json={"query": me, "variables": "{not json"})
        assert bad_variables.status_code == 422 and bad_variables.json()["errors"][0]["message"]
        listed_variables = client.post("/api/graphql", json={"query": me, "variables": [1]})
        assert listed_variables.json() == {"errors": [{"message": "Unexpected parameter: [1]"}]}
        by_path = "query($p: ID!) { project(fullPath: $p) { name } }"
        string_variables = client.post("/api/graphql",
                                       json={"query": by_path, "variables": f'{{"p": "{tracked["path"]}"}}'})
        assert data_of(string_variables)["project"]["name"] == tracked["project"]["name"]
        batch = client.post("/api/graphql", json=[{"query": me}, {"query": "{ currentUser { bot } }"}])
        assert batch.json() == [{"data": {"currentUser": {"username": "root"}}},
                                {"data": {"currentUser": {"bot": False}}}]
    assert graphql(server, "").json() == {"errors": [{"message": "No query string was present"}]}
    syntax = graphql(server, "{ currentUser { ")
    assert syntax.status_code == 200 and syntax.json()["errors"][0]["locations"] == [{"line": 1, "column": 17}]


def _nested(levels: int) -> str:
    """A query `levels` fields deep: __schema, types, then ofType chains."""
    inner = "name"
    for _ in range(levels - 3):
        inner = f"ofType {{ {inner} }}"
    return f"{{ __schema {{ types {{ {inner} }} }} }}"


def test_depth_is_capped_like_gitlab(server):
    assert "errors" not in graphql(server, _nested(15), token=None).json()
    anonymous = graphql(server, _nested(16), token=None).json()
    assert anonymous == {"errors": [{"message": "Query has depth of 16, which exceeds max depth of 15"}]}
    assert "errors" not in graphql(server, _nested(20)).json()
    signed_in = graphql(server, _nested(21)).json()
    assert signed_in == {"errors": [{"message": "Query has depth of 21, which exceeds max depth of 20"}]}
    very_deep = graphql(server, _nested(400)).json()
    assert "data" not in very_deep and very_deep["errors"]


def test_complexity_is_capped_like_gitlab(server, tracked):
    fields = "nodes { id title count userCount firstSeen lastSeen culprit frequency { time count } }"
    one = f"e1: errors(first: 100) {{ {fields} }}"
    query = "query($p: ID!) { project(fullPath: $p) { sentryErrors { %s } } }"
    assert "errors" not in graphql(server, query % one, {"p": tracked["path"]}).json()
    many = " ".join(one.replace("e1", f"e{number}") for number in range(1, 16))
    refused = graphql(server, query % many, {"p": tracked["path"]}).json()
    assert "data" not in refused
    (error,) = refused["errors"]
    assert error["message"].startswith("Query has complexity of ") and error["message"].endswith(
        "which exceeds max complexity of 300")  # root is an administrator


def test_introspection_is_on(server):
    signed_in = data_of(graphql(server, get_introspection_query(descriptions=True)))
    assert {"SentryDetailedError", "SentryErrorCollection"} <= {t["name"] for t in signed_in["__schema"]["types"]}
    anonymous = graphql(server, get_introspection_query(descriptions=False), token=None,
                        operation_name="IntrospectionQuery")
    assert data_of(anonymous)["__schema"]["queryType"]["name"] == "Query"

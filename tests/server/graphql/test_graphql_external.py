"""GraphQL over the external Sentry backend: the fields read the fake Sentry (tests/fake_sentry.py)
through the same client and mapping as the web JSON endpoints, and Sentry's failures reach the caller
as GitLab's messages on a null field.

A private server keeps the instance-wide "allow local requests" setting from leaking into other tests.
"""

from __future__ import annotations

import httpx
import pytest

from tests.fake_sentry import FakeSentry
from tests.server.graphql.support import DETAILED_ERROR_GID, DETAILS_QUERY, data_of, graphql
from tests.support import ApiHelper, start_server

GOOD_TOKEN = "sntrys-good-token"
QUERY = """
query external($fullPath: ID!, $id: GitlabErrorTrackingDetailedErrorID!, $after: String) {
  project(fullPath: $fullPath) {
    sentryErrors {
      externalUrl
      errors(sort: "frequency", after: $after) {
        nodes { id sentryId shortId title count userCount message externalUrl status frequency { count } }
        pageInfo { hasNextPage hasPreviousPage endCursor startCursor }
      }
      detailedError(id: $id) { sentryId shortId firstReleaseShortVersion lastReleaseShortVersion externalBaseUrl
                               tags { level logger } integrated }
      errorStackTrace(id: $id) { issueId stackTraceEntries { line fileName } }
    }
  }
}
"""


@pytest.fixture(scope="module")
def private_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("graphql-external")) as running:
        yield running


@pytest.fixture(scope="module")
def fake():
    with FakeSentry(tokens=(GOOD_TOKEN,)) as running:
        yield running


@pytest.fixture(scope="module")
def external(private_server, fake):
    helper = ApiHelper(private_server)
    helper.root.put("/application/settings",
                    json={"allow_local_requests_from_web_hooks_and_services": True}).raise_for_status()
    project = helper.project()
    response = helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                               json={"active": True, "integrated": False, "api_url": fake.api_url(),
                                     "token": GOOD_TOKEN})
    assert response.status_code == 200, response.text
    with httpx.Client(base_url=private_server.url, headers={"PRIVATE-TOKEN": private_server.root_token},
                      timeout=30) as web:
        yield {"path": project["path_with_namespace"], "web": web}


def test_fields_read_the_external_sentry_like_the_json_routes(private_server, fake, external):
    path, web = external["path"], external["web"]
    variables = {"fullPath": path, "id": DETAILED_ERROR_GID.format("1030")}
    collection = data_of(graphql(private_server, QUERY, variables))["project"]["sentryErrors"]
    json_list = web.get(f"/{path}/-/error_tracking.json", params={"sort": "frequency"}).json()
    assert collection["externalUrl"] == json_list["external_url"] == f"{fake.url}/acme/storefront/"
    nodes = collection["errors"]["nodes"]
    assert [node["sentryId"] for node in nodes] == [error["id"] for error in json_list["errors"]]
    top = nodes[0]
    assert top == {"id": "gid://gitlab/Gitlab::ErrorTracking::Error/1030", "sentryId": "1030",
                   "shortId": "STOREFRONT-30", "title": json_list["errors"][0]["title"], "count": 90, "userCount": 30,
                   "message": "divided by 0 (#30)", "externalUrl": f"{fake.url}/acme/storefront/issues/1030",
                   "status": "UNRESOLVED",
                   "frequency": [{"count": pair[1]} for pair in json_list["errors"][0]["frequency"]]}
    assert collection["errors"]["pageInfo"]["hasNextPage"] is True
    after = collection["errors"]["pageInfo"]["endCursor"]
    second = data_of(graphql(private_server, QUERY, variables | {"after": after}))
    assert len(second["project"]["sentryErrors"]["errors"]["nodes"]) == 10
    assert second["project"]["sentryErrors"]["errors"]["pageInfo"]["hasPreviousPage"] is True
    assert collection["detailedError"] == {
        "sentryId": "1030", "shortId": "STOREFRONT-30", "firstReleaseShortVersion": "storefront@1.0.0",
        "lastReleaseShortVersion": "storefront@1.2.0", "externalBaseUrl": f"{fake.url}/acme/storefront",
        "tags": {"level": "error", "logger": None}, "integrated": False}
    trace = collection["errorStackTrace"]
    json_trace = web.get(f"/{path}/-/error_tracking/1030/stack_trace.json").json()["error"]
    assert trace["issueId"] == "1030"
    assert [entry["line"] for entry in trace["stackTraceEntries"]] == [
        str(frame["lineNo"]) for frame in json_trace["stack_trace_entries"]] == ["135", "42"]
    details = data_of(graphql(private_server, DETAILS_QUERY,
                              {"fullPath": path, "errorId": DETAILED_ERROR_GID.format("1030")}))
    assert details["project"]["sentryErrors"]["detailedError"]["sentryId"] == "1030"


def test_sentry_failures_are_gitlab_messages(private_server, fake, external):
    variables = {"fullPath": external["path"], "id": DETAILED_ERROR_GID.format("2001")}
    outside = graphql(private_server, QUERY, variables).json()
    collection = outside["data"]["project"]["sentryErrors"]
    assert (collection["detailedError"], collection["errorStackTrace"]) == (None, None)
    assert {tuple(error["path"]): error["message"] for error in outside["errors"]} == {
        ("project", "sentryErrors", "detailedError"):
            "The Sentry issue appers to be outside of the configured Sentry project",
        ("project", "sentryErrors", "errorStackTrace"):
            "The Sentry issue appers to be outside of the configured Sentry project"}
    fake.override = lambda method, url_path: (500, {"detail": "Internal Error"}, {})
    try:
        failing = graphql(private_server, QUERY, variables | {"id": DETAILED_ERROR_GID.format("1030")}).json()
    finally:
        fake.override = None
    collection = failing["data"]["project"]["sentryErrors"]
    assert (collection["errors"], collection["detailedError"], collection["errorStackTrace"]) == (None, None, None)
    assert {error["message"] for error in failing["errors"]} == {"Sentry response status code: 500"}

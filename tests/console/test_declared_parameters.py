"""Every parameter the console's API clients send is one the server declares in its OpenAPI document.

The console's clients run against the real server over a transport that records each request (and
then sends it for real); every query parameter and JSON body field of a recorded request must be
declared by the operation the server routes it to. A parameter the server does not declare is one
it silently ignores, as GET /projects once ignored min_access_level. GraphQL requests carry their
arguments in the query, checked against GitLab's schema by test_graphql_queries.py.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.api.errors import ApiError
from console.core.api.exports import ExportsApi, ExportScope
from console.core.api.graphql import GRAPHQL_PATH
from console.core.api.variables import VariablesApi, new_variable
from tests.support import ApiHelper, unique


class RecordingTransport(httpx.AsyncHTTPTransport):
    """The real HTTP transport, noting each request's method, path, query names and JSON body names."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, str, set[str], set[str]]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = set()
        if request.headers.get("content-type", "").startswith("application/json") and request.content:
            body = set(json.loads(request.content))
        query = {name for name, _ in request.url.params.multi_items()}
        self.sent.append((request.method, request.url.path, query, body))
        return await super().handle_async_request(request)


def declared_operations(document: dict, segment: str) -> list[tuple[str, re.Pattern[str], set[str], set[str]]]:
    """Each operation with a pattern of its path, where a path parameter matches `segment`."""
    operations = []
    for template, methods in document["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", segment, re.escape(template)) + "$")
        for method, operation in methods.items():
            query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            content = operation.get("requestBody", {}).get("content", {})
            body = set(content.get("application/json", {}).get("schema", {}).get("properties", {}))
            operations.append((method.upper(), pattern, query, body))
    return operations


async def exercise_console_clients(client: ApiClient, api: ApiHelper) -> None:
    """Calls every console API method that sends parameters, the way the tabs call them."""
    exports = ExportsApi(client)
    project = (await exports.search_projects("scanner"))[0]
    group = (await exports.search_groups("acme"))[0]
    export = await exports.create(ExportScope("project", project.id, project.path_with_namespace))
    await exports.state(export.id)
    variables = VariablesApi(client)
    key = unique("DECLARED_").upper()
    await variables.create(new_variable(key, "first-value", "env_var", True, False, False, "declared"))
    await variables.update(new_variable(key, "second-value"))
    await variables.list()
    await variables.limit()
    await variables.delete(key)
    tracking = ErrorTrackingApi(client)
    await tracking.projects()
    await tracking.save_settings(project.id, active=True, integrated=True)
    await tracking.settings(project.id)
    await tracking.create_client_key(project.id)
    await tracking.client_keys(project.id)
    await tracking.list_errors(project.path_with_namespace, search_term="is:unresolved")
    try:  # the Sentry project list of the Settings page; no Sentry answers here, the request is what counts
        await tracking.external_projects(project.path_with_namespace, api_host="http://127.0.0.1:9", token="t")
    except ApiError:
        pass
    assert group.full_path


@pytest.mark.asyncio
async def test_console_sends_only_declared_parameters(server):
    document = httpx.get(server.api_url + "/openapi.json").json()
    # A parameter is one path segment, except a project's full path in the web JSON routes.
    operations = declared_operations(document, "[^/]+") + declared_operations(document, ".+")
    transport = RecordingTransport()
    async with ApiClient(server.url, server.root_token, transport=transport) as client:
        client.server = await detect_server(client)  # as on connecting: what the server offers decides the route
        await exercise_console_clients(client, ApiHelper(server))

    undeclared = []
    for method, path, query, body in transport.sent:
        if path == GRAPHQL_PATH:
            continue
        matching = [op for op in operations if op[0] == method and op[1].match(path)]
        assert matching, f"{method} {path} is not in the OpenAPI document"
        _, _, declared_query, declared_body = matching[0]
        undeclared += [f"{method} {path}: query {name}" for name in sorted(query - declared_query)]
        undeclared += [f"{method} {path}: body {name}" for name in sorted(body - declared_body)]
    assert {(method, path.split("/")[3]) for method, path, _, _ in transport.sent if path != GRAPHQL_PATH} >= {
        ("GET", "projects"), ("GET", "groups"), ("POST", "admin"), ("PUT", "projects"), ("GET", "-")}
    assert ("POST", GRAPHQL_PATH) in {(method, path) for method, path, _, _ in transport.sent}
    assert undeclared == []

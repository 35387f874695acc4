"""Endpoints declare the parameters they read: the OpenAPI document lists them, and a handler that
reads an undeclared one fails loudly instead of silently accepting it."""

from __future__ import annotations

import httpx
import pytest
from fastapi.routing import APIRoute

from outpost_server.accounts.router import router as accounts_router
from outpost_server.alerts.router import api_router as mail_router
from outpost_server.alerts.router import router as alerts_router
from outpost_server.application_settings.router import router as application_settings_router
from outpost_server.error_tracking.read.router import router as error_tracking_web_router
from outpost_server.error_tracking.router import router as error_tracking_router
from outpost_server.exports.router import router as exports_router
from outpost_server.params import Params, UndeclaredParameter, declared_params, read_params
from outpost_server.sentry_api.router import router as sentry_api_router
from outpost_server.source_maps.router import router as source_maps_router
from outpost_server.variables.router import router as variables_router
from outpost_server.vulnerabilities.router import router as vulnerabilities_router
from tests.support import ApiHelper, start_server

DECLARING_ROUTERS = {
    "variables": variables_router,
    "vulnerabilities": vulnerabilities_router,
    "exports": exports_router,
    "error tracking": error_tracking_router,
    "error tracking web": error_tracking_web_router,
    "application settings": application_settings_router,
    "sentry web api": sentry_api_router,
    "alerts": alerts_router,
    "mail": mail_router,
}


def _documented_routes() -> list[tuple[str, APIRoute]]:
    return [(domain, route) for domain, router in DECLARING_ROUTERS.items() for route in _routes_of(router)
            if isinstance(route, APIRoute) and route.include_in_schema]


def _routes_of(router) -> list:
    """The routes of a router and of the routers it includes (kept nested by FastAPI)."""
    found = []
    for route in router.routes:
        included = getattr(route, "original_router", None)
        found.extend(_routes_of(included) if included is not None else [route])
    return found


def test_every_documented_endpoint_of_these_domains_declares_its_parameters():
    routes = _documented_routes()
    assert len(routes) > 30
    undeclared = [f"{domain}: {sorted(route.methods)} {route.path}" for domain, route in routes
                  if route.openapi_extra is None]
    assert not undeclared


def test_reading_an_undeclared_parameter_is_a_programming_error():
    params = Params({"export_format": "csv", "sneaky": "1"}, declared=frozenset({"export_format"}))
    assert params.str("export_format") == "csv"
    with pytest.raises(UndeclaredParameter, match="sneaky"):
        params.str("sneaky")
    with pytest.raises(UndeclaredParameter):
        _ = "sneaky" in params


def test_a_route_declaring_nothing_yet_may_read_anything():
    assert Params({"search": "acme"}).str("search") == "acme"


@pytest.fixture(scope="module")
def document(tmp_path_factory) -> dict:
    with start_server(tmp_path_factory.mktemp("declared-parameters")) as server:
        return httpx.get(server.api_url + "/openapi.json", timeout=30).json()


def _query(document: dict, method: str, path: str) -> dict[str, dict]:
    operation = document["paths"][path][method]
    return {parameter["name"]: parameter for parameter in operation["parameters"] if parameter["in"] == "query"}


def _body(document: dict, method: str, path: str, content_type: str = "application/json") -> dict:
    return document["paths"][path][method]["requestBody"]["content"][content_type]["schema"]


def test_the_served_document_lists_query_parameters_with_types_and_defaults(document):
    vulnerabilities = _query(document, "get", "/api/v4/projects/{project_id}/vulnerabilities")
    assert set(vulnerabilities) == {"page", "per_page", "state", "severity", "report_type"}
    assert vulnerabilities["state"]["schema"]["items"]["enum"] == ["detected", "confirmed", "resolved", "dismissed"]
    assert vulnerabilities["severity"]["schema"]["type"] == "array"
    assert "critical" in vulnerabilities["severity"]["schema"]["items"]["enum"]
    errors = _query(document, "get", "/{project_path}/-/error_tracking.json")
    assert errors["sort"]["schema"]["default"] == "last_seen"
    assert errors["issue_status"]["schema"]["enum"] == ["unresolved", "resolved", "ignored"]


def test_the_served_document_lists_body_parameters_as_json_and_as_a_form(document):
    create = _body(document, "post", "/api/v4/admin/ci/variables")
    assert create["required"] == ["key", "value"]
    assert create["properties"]["masked"] == {"type": "boolean"}
    assert create["properties"]["variable_type"]["enum"] == ["env_var", "file"]
    assert _body(document, "post", "/api/v4/admin/ci/variables", "application/x-www-form-urlencoded") == create
    export = _body(document, "post", "/api/v4/security/vulnerability_exports")
    assert export["properties"] == {"export_format": {"type": "string", "enum": ["csv", "pdf"], "default": "csv"},
                                    "send_email": {"type": "boolean"}, "filters": {"type": "object"}}
    scoped = _body(document, "post", "/api/v4/security/projects/{project_id}/vulnerability_exports")
    assert set(scoped["properties"]) == {"export_format", "send_email", "filters", "report_data"}
    settings = _body(document, "put", "/api/v4/projects/{project_id}/error_tracking/settings")
    assert {"active", "integrated", "api_host", "token"} <= set(settings["properties"])


def test_endpoints_reading_nothing_declare_an_empty_list(document):
    assert _query(document, "get", "/api/v4/security/vulnerability_exports/{export_id}") == {}
    assert _body(document, "post", "/api/v4/vulnerabilities/{vulnerability_id}/confirm")["properties"] == {}


def test_the_export_download_is_declared_as_what_it_serves(server):
    document = httpx.get(server.api_url + "/openapi.json", timeout=30).json()
    answer = document["paths"]["/api/v4/security/vulnerability_exports/{export_id}/download"]["get"]["responses"]
    assert list(answer["200"]["content"]) == ["application/octet-stream"]


# Routes that checked their parameters by hand before the declaration enforced them, with the body Grape
# gives for what is wrong (every problem at once, before the handler looks anything up; on a project
# route, after the project's lookup and authorization, so {project} is one the caller may change).
ENFORCED = [
    ("POST", "/groups", {}, "name is missing, path is missing"),
    ("POST", "/users", {"name": "x"}, "email is missing, username is missing"),
    ("POST", "/users/1/personal_access_tokens", {"expires_at": "2030-01-01"}, "name is missing, scopes is missing"),
    ("POST", "/projects/{project}/members", {"user_id": "1"}, "access_level is missing"),
    ("POST", "/projects/{project}/members", {"user_id": "x", "access_level": "30"}, "user_id is invalid"),
    ("PUT", "/projects/{project}/error_tracking/settings", {}, "active is missing, integrated is missing"),
    ("PUT", "/projects/{project}/error_tracking/settings", {"active": "maybe", "integrated": "true"},
     "active is invalid"),
    ("POST", "/admin/ci/variables", {"value": "v"}, "key is missing"),
    ("POST", "/security/projects/999999/vulnerability_archive_exports", {"end_date": "2026-01-01"},
     "start_date is missing"),
    ("GET", "/users", {"order_by": "email"}, "order_by does not have a valid value"),
    # A name sent both plain and as a list (a 500 once).
    ("POST", "/groups", {"name": "a", "name[]": "b", "path": "p"}, "name is invalid"),
    ("GET", "/personal_access_tokens", {"created_before": "yesterday", "state": "gone"},
     "state does not have a valid value, created_before is invalid"),
    # The project and group list filters (GitLab's collection_params), then its pagination.
    ("GET", "/projects", {"order_by": "stars", "visibility": "secret", "owned": "maybe", "page": "two"},
     "order_by does not have a valid value, visibility does not have a valid value, owned is invalid, page is invalid"),
    ("GET", "/projects", {"search": "a\x00b"}, "search is invalid"),
    ("GET", "/groups", {"sort": "up", "min_access_level": "7"},
     "sort does not have a valid value, min_access_level does not have a valid value"),
    ("GET", "/groups/999999/projects", {"include_subgroups": "perhaps"}, "include_subgroups is invalid"),
    ("GET", "/namespaces", {"top_level_only": "sometimes", "per_page": "0"},
     "top_level_only is invalid, per_page has a value not allowed"),
    ("GET", "/namespaces/some-path/exists", {"parent_id": "x"}, "parent_id is invalid"),
    ("GET", "/admin/ci/variables", {"page": str(2**64), "per_page": "1.5"}, "page is invalid, per_page is invalid"),
]


@pytest.mark.parametrize(("method", "path", "values", "error"), ENFORCED,
                         ids=[f"{method} {path} {error}" for method, path, _, error in ENFORCED])
def test_declarations_enforce_grapes_rules(server, method, path, values, error):
    if "{project}" in path:
        path = path.format(project=ApiHelper(server).project()["id"])
    with httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": server.root_token}, timeout=30) as client:
        if method == "GET":
            response = client.get(path, params=values)
        else:
            response = client.request(method, path, data=values)
    assert (response.status_code, response.json()) == (400, {"error": error})


def _page_headers(server, **values) -> tuple[int, str, str]:
    with httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": server.root_token}, timeout=30) as client:
        response = client.get("/projects", params=values)
    assert response.status_code == 200, response.text
    return len(response.json()), response.headers["X-Page"], response.headers["X-Per-Page"]


def test_pagination_reads_page_and_per_page_as_gitlab_does(server):
    helper = ApiHelper(server)
    for _ in range(3):
        helper.project()
    # Kaminari: a page below 1 is the first, a negative per_page the default, per_page at most 100.
    assert _page_headers(server, page="0", per_page="1") == (1, "1", "1")
    assert _page_headers(server, page="-4", per_page="1")[1:] == ("1", "1")
    assert _page_headers(server, per_page="-5")[2] == "20"
    assert _page_headers(server, per_page="1000")[2] == "100"
    assert _page_headers(server, page="", per_page="")[1:] == ("1", "20")
    # Far past the last row: an empty page, not an overflow.
    assert _page_headers(server, page=str(10**15)) == (0, str(10**15), "20")


# Sentry's web API refuses a bad value when its handler reads it, after the lookups before it, in Sentry's words.
SENTRY_REFUSED = [
    ("/projects/", {"cursor": "0:x:0"}, "Invalid cursor parameter."),
    ("/projects/", {"per_page": "0"}, "Invalid per_page value."),
    ("/projects/", {"per_page": "many"}, "Invalid per_page value."),
    ("/projects/", {"cursor": "0:0:0", "per_page": "a\x00"}, "Invalid per_page value."),
    ("/projects/{path}/issues/", {"sort": "loudest"}, "Invalid sort parameter."),
    ("/projects/{path}/issues/", {"query": "is:unresolved\x00"}, "Invalid query parameter."),
    ("/projects/{path}/issues/", {"limit": "-1"}, "Invalid per_page value."),
    ("/projects/{path}/alerts/", {"limit": "x"}, "Invalid per_page value."),
]


@pytest.fixture(scope="module")
def tracked_project(server) -> dict:
    helper = ApiHelper(server)
    project = helper.project()
    helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                    json={"active": True, "integrated": True}).raise_for_status()
    return project


@pytest.mark.parametrize(("path", "values", "detail"), SENTRY_REFUSED,
                         ids=[f"{path} {detail}" for path, _, detail in SENTRY_REFUSED])
def test_sentry_routes_refuse_bad_parameters_in_sentrys_words(server, tracked_project, path, values, detail):
    with httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {server.root_token}"},
                      timeout=30) as client:
        response = client.get(path.format(path=tracked_project["path_with_namespace"]), params=values)
    assert (response.status_code, response.json()) == (400, {"detail": detail})


def test_sentry_routes_look_the_project_up_before_reading_parameters(server):
    with httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {server.root_token}"},
                      timeout=30) as client:
        response = client.get("/projects/nobody/nothing/issues/", params={"cursor": "bad", "sort": "loudest"})
    assert response.status_code == 404
    assert response.json() != {"detail": "Invalid cursor parameter."}


def test_sentry_routes_treat_a_blank_value_as_not_sent(server, tracked_project):
    with httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {server.root_token}"},
                      timeout=30) as client:
        response = client.get(f"/projects/{tracked_project['path_with_namespace']}/issues/",
                              params={"sort": "", "limit": "", "cursor": ""})
    assert response.status_code == 200, response.text
    assert response.json() == []
    # Whitespace alone (here U+0085, which Python strips) is blank too, where a limit is read.
    with httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {server.root_token}"},
                      timeout=30) as client:
        projects = client.get("/projects/", params={"per_page": "\x85"})
        unlimited = client.get("/projects/")
    assert projects.status_code == 200, projects.text
    assert [project["id"] for project in projects.json()] == [project["id"] for project in unlimited.json()]
    assert projects.json()


# Under /api/0 a body is read by its endpoint's own serializer, as in Sentry and GlitchTip; the query string
# goes through the declaration.
SENTRY_MOUNTED = (sentry_api_router, alerts_router, source_maps_router)


def _routes_with_parameters() -> list[APIRoute]:
    routers = [*DECLARING_ROUTERS.values(), accounts_router, source_maps_router]
    return [route for router in routers for route in _routes_of(router)
            if isinstance(route, APIRoute) and declared_params(route)
            and (router not in SENTRY_MOUNTED or (route.openapi_extra or {}).get("parameters"))]


def _reads_params(route: APIRoute) -> bool:
    pending = list(route.dependant.dependencies)
    while pending:
        dependency = pending.pop()
        if dependency.call is read_params:
            return True
        pending.extend(dependency.dependencies)
    return False


def test_every_route_declaring_parameters_reads_them_through_the_enforcing_dependency():
    routes = _routes_with_parameters()
    assert len(routes) > 40
    unread = [f"{sorted(route.methods)} {route.path}" for route in routes if not _reads_params(route)]
    assert not unread

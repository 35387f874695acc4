"""The OpenAPI document declares every success response, and real answers match what it declares.

Schemathesis checks conformance while fuzzing (test_openapi_fuzz.py); this test reads the answers of a
demo server, where every list has rows, so each declared shape meets real data.
"""

from __future__ import annotations

import re

import httpx
import jsonschema
import pytest

from tests.support import ApiHelper, launch_server


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    server = launch_server(tmp_path_factory.mktemp("openapi") / "server", demo=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def document(demo):
    return httpx.get(demo.api_url + "/openapi.json", timeout=30).json()


def _operation(document: dict, method: str, path: str) -> dict:
    for template, operations in document["paths"].items():
        pattern = re.sub(r"\\{(\w+)\\}", lambda m: ".+" if m.group(1) == "project_path" else "[^/]+",
                         re.escape(template))
        if re.fullmatch(pattern, path) and method.lower() in operations:
            return operations[method.lower()]
    raise AssertionError(f"{method} {path} is not in the document")


def _check(document: dict, response: httpx.Response) -> None:
    operation = _operation(document, response.request.method, response.request.url.path)
    declared = operation["responses"].get(str(response.status_code))
    assert declared is not None, (response.request.url, response.status_code, sorted(operation["responses"]))
    schema = declared["content"]["application/json"]["schema"]
    jsonschema.validate(response.json(), schema, cls=jsonschema.Draft202012Validator)


def test_every_operation_declares_a_success_body(document):
    undeclared = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            successes = {status: response for status, response in operation["responses"].items()
                         if status.startswith("2") or status == "304"}
            if not successes:
                undeclared.append(f"{method.upper()} {path}: no success response")
            for status, response in successes.items():
                for media_type, content in response.get("content", {}).items():
                    if not content.get("schema"):
                        undeclared.append(f"{method.upper()} {path} {status} {media_type}: empty schema")
                    else:
                        jsonschema.Draft202012Validator.check_schema(content["schema"])
            # Parameter errors are answered 400 with GitLab's body, never FastAPI's 422.
            assert "422" not in operation["responses"], (method, path)
    assert undeclared == []


def test_the_export_download_is_declared_as_the_file_it_serves(document):
    download = document["paths"]["/api/v4/security/vulnerability_exports/{export_id}/download"]["get"]
    assert list(download["responses"]["200"]["content"]) == ["application/octet-stream"]


def test_gitlab_answers_match_their_declared_shapes(demo, document):
    client = demo.client()
    project = client.get("/projects", params={"search": "webshop"}).json()[0]
    api = ApiHelper(demo)
    member = api.user()[0]
    client.post(f"/projects/{project['id']}/members", data={"user_id": member["id"], "access_level": 30})
    vulnerable = next(p for p in client.get("/projects").json()
                      if client.get(f"/projects/{p['id']}/vulnerabilities").json())
    vulnerability = client.get(f"/projects/{vulnerable['id']}/vulnerabilities").json()[0]
    group = client.get("/groups").json()[0]
    responses = [client.get(path) for path in (
        "/version", "/user", "/users", f"/users/{member['id']}", "/personal_access_tokens",
        "/personal_access_tokens/self", "/namespaces", f"/namespaces/{group['id']}",
        f"/namespaces/{group['path']}/exists", "/groups", f"/groups/{group['id']}",
        f"/groups/{group['id']}/subgroups", f"/groups/{group['id']}/projects", "/projects",
        f"/projects/{project['id']}", f"/projects/{project['id']}/members",
        f"/projects/{project['id']}/members/{member['id']}", "/admin/ci/variables", "/application/plan_limits",
        "/application/settings", "/application/mail", f"/projects/{vulnerable['id']}/vulnerabilities",
        f"/vulnerabilities/{vulnerability['id']}", f"/projects/{project['id']}/error_tracking/settings",
        f"/projects/{project['id']}/error_tracking/client_keys", f"/projects/{project['id']}/error_tracking/retention",
        "/error_tracking/storage", "/error_tracking/ingestion",
    )]
    responses.append(client.post(f"/users/{member['id']}/personal_access_tokens",
                                 data={"name": "shape", "scopes[]": "api"}))
    responses.append(client.post(f"/users/{member['id']}/block"))
    responses.append(client.post("/security/vulnerability_exports"))
    responses.append(client.get(f"/security/vulnerability_exports/{responses[-1].json()['id']}"))
    responses.append(client.post(f"/projects/{project['id']}/error_tracking/client_keys"))
    for response in responses:
        assert response.status_code < 300, (response.request.url, response.text)
        _check(document, response)


def test_sentry_answers_match_their_declared_shapes(demo, document):
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    project = sentry.get("/api/0/projects/").json()[0]
    org, slug = project["organization"]["slug"], project["slug"]
    issue = sentry.get(f"/api/0/projects/{org}/{slug}/issues/").json()[0]
    event = sentry.get(f"/api/0/issues/{issue['id']}/events/latest/").json()
    tag = sentry.get(f"/api/0/issues/{issue['id']}/tags/").json()[0]["key"]
    project_path = httpx.get(f"{demo.api_url}/projects/{project['id']}",
                             headers={"PRIVATE-TOKEN": demo.root_token}).json()["path_with_namespace"]
    gitlab_web = httpx.Client(base_url=demo.url, headers={"PRIVATE-TOKEN": demo.root_token}, timeout=30)
    responses = [sentry.get(path) for path in (
        "/api/0/projects/", f"/api/0/projects/{org}/{slug}/issues/", f"/api/0/issues/{issue['id']}/",
        f"/api/0/projects/{org}/{slug}/issues/{issue['id']}/", f"/api/0/issues/{issue['id']}/events/",
        f"/api/0/issues/{issue['id']}/events/latest/", f"/api/0/projects/{org}/{slug}/events/{event['eventID']}/",
        f"/api/0/issues/{issue['id']}/tags/", f"/api/0/issues/{issue['id']}/tags/{tag}/values/",
        f"/api/0/organizations/{org}/chunk-upload/", f"/api/0/projects/{org}/{slug}/releases/",
        f"/api/0/projects/{org}/{slug}/files/artifact-bundles/", f"/api/0/projects/{org}/{slug}/alerts/",
    )]
    responses.append(sentry.post(f"/api/0/projects/{org}/{slug}/releases/", json={"version": "shape@1"}))
    responses.append(sentry.post(f"/api/0/projects/{org}/{slug}/alerts/", json={
        "name": "shape", "timespanMinutes": 1, "quantity": 1,
        "alertRecipients": [{"recipientType": "email", "addresses": ["ops@example.com"]}]}))
    responses.append(sentry.put(f"/api/0/issues/{issue['id']}/", json={"status": "unresolved"}))
    responses += [gitlab_web.get(f"/{project_path}/-/error_tracking{suffix}") for suffix in (
        ".json", f"/{issue['id']}/details.json", f"/{issue['id']}/stack_trace.json")]
    responses.append(gitlab_web.put(f"/{project_path}/-/error_tracking/{issue['id']}.json",
                                    json={"status": "unresolved"}))
    for response in responses:
        assert response.status_code < 300, (response.request.url, response.text)
        _check(document, response)


def test_monitor_answers_match_their_declared_shapes(demo, document):
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    project = sentry.get("/api/0/projects/").json()[0]
    org = project["organization"]["slug"]
    [key] = httpx.get(f"{demo.api_url}/projects/{project['id']}/error_tracking/client_keys",
                      headers={"PRIVATE-TOKEN": demo.root_token}).json()[:1]
    check_in = httpx.post(
        f"{demo.api_url}/error_tracking/collector/api/{project['id']}/cron/shape-job/{key['public_key']}/",
        json={"status": "ok", "duration": 2, "monitor_config": {"schedule": {"type": "interval", "value": 1,
                                                                            "unit": "day"}}})
    assert check_in.status_code == 202, check_in.text
    demo.wait_for_digest()
    monitors = f"/api/0/organizations/{org}/monitors/"
    change = {"isMuted": True, "config": {"schedule": "0 3 * * *", "schedule_type": "crontab"}}
    responses = [sentry.get(monitors), sentry.get(f"{monitors}shape-job/"),
                 sentry.get(f"{monitors}shape-job/checkins/"), sentry.put(f"{monitors}shape-job/", json=change)]
    for response in responses:
        assert response.status_code == 200, (response.request.url, response.text)
        _check(document, response)
    assert [monitor["slug"] for monitor in responses[0].json()] == ["shape-job"]
    assert responses[3].json()["config"]["schedule"] == "0 3 * * *"

"""No secret ever reaches a log: tokens, variable values (masked or not) and DSN keys.

A full flow runs against a private server logging at DEBUG, using every way a secret can travel
(headers, query strings, form and JSON bodies, refused and malformed requests), then the server's
log and the console client's log records are searched for each secret.
"""

from __future__ import annotations

import asyncio
import json
import logging

import httpx

from console.core.api.client import ApiClient
from console.core.api.errors import ApiError
from console.core.api.variables import VariablesApi, new_variable
from tests.e2e.flows import (
    enable_error_tracking,
    sast_report,
    sentry_event,
    store_path,
    store_request,
    upload_report,
    wait_for_export,
)
from tests.support import ApiHelper, launch_server


def _server_flow(server, api: ApiHelper) -> list[str]:
    """Exercises the API with secrets in every position; returns every secret it used."""
    secrets: list[str] = [server.root_token]
    user, token = api.user(admin=True)
    read_token = api.token(user["id"], scopes=("read_api",))
    revoked = api.token(user["id"])
    secrets += [token, read_token, revoked]
    base = server.api_url
    with httpx.Client(base_url=base, timeout=30) as anonymous:
        assert anonymous.get("/user", headers={"PRIVATE-TOKEN": token}).status_code == 200
        assert anonymous.get("/user", params={"private_token": token}).status_code == 200
        assert anonymous.get("/user", params={"access_token": read_token}).status_code == 200
        assert anonymous.get("/user", headers={"Authorization": f"Bearer {read_token}"}).status_code == 200
        assert anonymous.post("/admin/ci/variables", headers={"PRIVATE-TOKEN": read_token},
                              json={"key": "NOPE", "value": "nope-value-1"}).status_code == 403
        assert anonymous.delete("/personal_access_tokens/self", headers={"PRIVATE-TOKEN": revoked}).status_code == 204
        assert anonymous.get("/user", headers={"PRIVATE-TOKEN": revoked}).status_code == 401
        wrong = "glpat-" + "w" * 20
        secrets.append(wrong)
        assert anonymous.get("/user", params={"private_token": wrong}).status_code == 401

    client = server.client(token)
    masked_json, masked_form, plain, updated = ("Mask3d-Json-Value-0001", "Mask3d-Form-Value-0002",
                                                "plain value with spaces 0003", "Upd4ted-Masked-Value-0004")
    raw_masked, refused = "r@w:masked$Value~0005", "refused masked value with spaces 0006"
    secrets += [masked_json, masked_form, plain, updated, raw_masked, refused]
    assert client.post("/admin/ci/variables", json={"key": "LOG_JSON", "value": masked_json,
                                                    "masked": True}).status_code == 201
    assert client.post("/admin/ci/variables", data={"key": "LOG_FORM", "value": masked_form,
                                                    "masked": "true", "protected": "1"}).status_code == 201
    assert client.post("/admin/ci/variables", json={"key": "LOG_PLAIN", "value": plain,
                                                    "variable_type": "file"}).status_code == 201
    assert client.post("/admin/ci/variables", json={"key": "LOG_RAW", "value": raw_masked, "masked": True,
                                                    "raw": True}).status_code == 201
    assert client.post("/admin/ci/variables", json={"key": "LOG_REFUSED", "value": refused,
                                                    "masked": True}).status_code == 400
    assert client.post("/admin/ci/variables", json={"key": "LOG_JSON", "value": masked_json}).status_code == 400
    assert client.put("/admin/ci/variables/LOG_JSON", json={"value": updated, "masked": True}).status_code == 200
    assert client.get("/admin/ci/variables").status_code == 200
    assert client.get("/admin/ci/variables/LOG_FORM").status_code == 200
    assert client.delete("/admin/ci/variables/LOG_PLAIN").status_code == 204

    project = api.project()
    upload_report(client, project["id"], sast_report(3, tag="log"))
    export = client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()
    assert wait_for_export(client, export["id"])["status"] == "finished"
    assert client.get(f"/security/vulnerability_exports/{export['id']}/download").status_code == 200

    key = enable_error_tracking(client, project["id"])
    old_key = enable_error_tracking(client, project["id"])
    secrets += [key["public_key"], old_key["public_key"], key["sentry_dsn"]]
    listed = client.get(f"/projects/{project['id']}/error_tracking/client_keys")
    assert listed.status_code == 200
    with httpx.Client(base_url=server.url, timeout=30) as sdk:
        headers, body = store_request(key["public_key"], sentry_event())
        assert sdk.post(store_path(project["id"]), headers=headers, content=body).status_code == 200
        event = sentry_event()
        response = sdk.post(store_path(project["id"]), params={"sentry_key": key["public_key"]},
                            json=event)
        assert response.status_code == 200, response.text
        envelope = "\n".join(json.dumps(part) for part in (
            {"event_id": event["event_id"], "dsn": key["sentry_dsn"]},
            {"type": "event"}, sentry_event()))
        response = sdk.post(f"/api/v4/error_tracking/collector/api/{project['id']}/envelope/",
                            content=envelope.encode(), headers={"Content-Type": "application/x-sentry-envelope"})
        assert response.status_code == 200, response.text
        malformed = sdk.post(store_path(project["id"]), params={"sentry_key": key["public_key"]},
                             content=b"{not json", headers={"Content-Type": "application/json"})
        assert malformed.status_code == 400
        unknown = "glet_" + "0" * 32
        secrets.append(unknown)
        assert sdk.post(store_path(project["id"]), params={"sentry_key": unknown},
                        json=sentry_event()).status_code == 404
    assert client.delete(f"/projects/{project['id']}/error_tracking/client_keys/{old_key['id']}").status_code == 200
    # Sentry's web API: bearer tokens, good, read-only and unknown, on reads, a refused write and a 404.
    with httpx.Client(base_url=server.url + "/api/0", timeout=30) as sentry:
        organization, slug = project["path_with_namespace"].split("/")
        issues = sentry.get(f"/projects/{organization}/{slug}/issues/", params={"query": ""},
                            headers={"Authorization": f"Bearer {token}"})
        assert issues.status_code == 200 and issues.json()
        issue_id = issues.json()[0]["id"]
        assert sentry.get(f"/issues/{issue_id}/events/latest/",
                          headers={"Authorization": f"Bearer {read_token}"}).status_code == 200
        assert sentry.put(f"/issues/{issue_id}/", json={"status": "resolved"},
                          headers={"Authorization": f"Bearer {read_token}"}).status_code == 403
        assert sentry.get("/projects/", headers={"Authorization": f"Bearer {wrong}"}).status_code == 401
    return secrets


async def _console_flow(server, token: str, values: list[str]) -> None:
    async with ApiClient(server.url, token) as client:
        variables = VariablesApi(client)
        await variables.create(new_variable(key="CONSOLE_MASKED", value=values[0], masked=True))
        await variables.update(new_variable(key="CONSOLE_MASKED", value=values[1], masked=True))
        assert {variable.key for variable in await variables.list()} >= {"CONSOLE_MASKED"}
        try:
            await variables.create(new_variable(key="CONSOLE_BAD", value=values[2], masked=True))
        except ApiError:
            pass
        else:
            raise AssertionError("a value with spaces was accepted as masked")
        await variables.delete("CONSOLE_MASKED")
    async with ApiClient(server.url, "glpat-" + "c" * 20) as stranger:
        try:
            await stranger.get_user()
        except ApiError:
            pass


def test_no_secret_in_server_or_console_logs(tmp_path, caplog):
    server = launch_server(tmp_path / "server", extra_env={"OUTPOST_LOG_LEVEL": "DEBUG"})
    try:
        api = ApiHelper(server)
        secrets = _server_flow(server, api)
        console_values = ["Console-Masked-0007", "Console-Masked-0008", "console bad value 0009"]
        console_token = api.token(api.user(admin=True)[0]["id"])
        secrets += console_values + [console_token, "glpat-" + "c" * 20]
        with caplog.at_level(logging.DEBUG):
            asyncio.run(_console_flow(server, console_token, console_values))
    finally:
        server.stop()
    server_log, console_log = server.log_text(), caplog.text
    assert "outpost.request" in server_log, "the request log is not being written; nothing was checked"
    assert console_log, "the console client logged nothing at DEBUG; nothing was checked"
    leaks = {name: [s for s in secrets if s in text]
             for name, text in (("server log", server_log), ("console log", console_log))}
    assert leaks == {"server log": [], "console log": []}


def test_a_token_written_into_the_path_is_not_logged(tmp_path):
    server = launch_server(tmp_path / "server", extra_env={"OUTPOST_LOG_LEVEL": "DEBUG"})
    try:
        _, token = ApiHelper(server).user()
        encoded_once = token.replace("-", "%2D")
        paths = [f"/api/v4/user;private_token={token}",
                 f"/api/v4/projects/1%3Fprivate_token%3D{token}",
                 f"/api/v4/projects/1%253Fprivate%255Ftoken%253D{encoded_once}",
                 f"/api/v4/version;job_token={token}"]
        with httpx.Client(base_url=server.url, timeout=30) as client:
            statuses = [client.get(path).status_code for path in paths]
        assert all(status < 500 for status in statuses), statuses
        logged = [entry["path"] for entry in server.request_log() if "token=" in entry["path"]]
        log = server.log_text()
    finally:
        server.stop()
    assert len(logged) == len(paths) and all("[FILTERED]" in path for path in logged), logged
    assert token not in log and encoded_once not in log

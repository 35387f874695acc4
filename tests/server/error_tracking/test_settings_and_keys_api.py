"""GitLab's error tracking settings and client keys API, over HTTP."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
import pytest

from outpost_server.accounts import access

KEY_SHAPE = re.compile(r"^glet_[0-9a-f]{32}$")


@pytest.fixture
def roles(api):
    project, tokens = api.project_with_roles({"reporter": access.REPORTER, "developer": access.DEVELOPER,
                                              "maintainer": access.MAINTAINER})
    _, outsider = api.user()
    tokens["outsider"] = outsider
    return project, tokens


def as_user(server, token: str | None) -> httpx.Client:
    headers = {"PRIVATE-TOKEN": token} if token else {}
    return httpx.Client(base_url=server.api_url, headers=headers, timeout=30)


def test_client_keys_lifecycle(server, roles):
    project, tokens = roles
    path = f"/projects/{project['id']}/error_tracking/client_keys"
    with as_user(server, tokens["maintainer"]) as maintainer:
        listed = maintainer.get(path)
        assert (listed.status_code, listed.json()) == (200, [])
        assert listed.headers["X-Total"] == "0" and listed.headers["X-Page"] == "1"
        created = maintainer.post(path, headers={"Content-Type": "application/json"})
        assert created.status_code == 201
        key = created.json()
        assert set(key) == {"id", "active", "public_key", "sentry_dsn"}
        assert key["active"] is True and KEY_SHAPE.match(key["public_key"])
        base = urlsplit(server.url)
        assert key["sentry_dsn"] == (f"{base.scheme}://{key['public_key']}@{base.hostname}:{base.port}"
                                     f"/api/v4/error_tracking/collector/{project['id']}")
        second = maintainer.post(path).json()
        assert second["public_key"] != key["public_key"]
        page = maintainer.get(path, params={"per_page": 1})
        assert [item["id"] for item in page.json()] == [key["id"]]
        assert page.headers["X-Total"] == "2" and page.headers["X-Next-Page"] == "2"
        deleted = maintainer.delete(f"{path}/{key['id']}")
        assert (deleted.status_code, deleted.json()) == (200, key)
        assert [item["id"] for item in maintainer.get(path).json()] == [second["id"]]
        missing = maintainer.delete(f"{path}/{key['id']}")
        assert (missing.status_code, missing.json()) == (404, {"message": "404 Not found"})


@pytest.mark.parametrize(
    ("who", "status", "body"),
    [
        (None, 401, {"message": "401 Unauthorized"}),
        ("reporter", 403, {"message": "403 Forbidden"}),
        ("developer", 403, {"message": "403 Forbidden"}),
        ("outsider", 404, {"message": "404 Project Not Found"}),
    ],
)
@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("GET", "client_keys"),
        ("POST", "client_keys"),
        ("DELETE", "client_keys/1"),
        ("GET", "settings"),
        ("PATCH", "settings"),
        ("PUT", "settings"),
    ],
)
def test_refusals(server, roles, who, status, body, method, suffix):
    project, tokens = roles
    with as_user(server, tokens.get(who)) as client:
        response = client.request(method, f"/projects/{project['id']}/error_tracking/{suffix}",
                                  json={"active": True, "integrated": True})
    assert (response.status_code, response.json()) == (status, body)


# Outpost's extension fields of a setting that allows any browser origin and refused none.
NO_ORIGIN_LIMITS = {"allowed_origins": [], "rejected_origins": {"count": 0, "last_origin": None, "last_at": None}}


def test_settings_api(server, roles):
    project, tokens = roles
    path = f"/projects/{project['id']}/error_tracking/settings"
    with as_user(server, tokens["maintainer"]) as maintainer:
        missing = maintainer.get(path)
        assert (missing.status_code, missing.json()) == (404, {"message": "404 Error Tracking Setting Not Found"})
        patched = maintainer.patch(path, json={"active": True})
        assert (patched.status_code, patched.json()) == (404, {"message": "404 Error Tracking Setting Not Found"})
        assert maintainer.put(path, json={"active": True}).json() == {"error": "integrated is missing"}
        created = maintainer.put(path, json={"active": True, "integrated": True})
        assert (created.status_code, created.json()) == (200, {
            "active": True, "project_name": None, "sentry_external_url": None, "api_url": None, "integrated": True,
            **NO_ORIGIN_LIMITS})
        # As GitLab does, enabling the integrated backend creates the first client key.
        assert len(maintainer.get(f"/projects/{project['id']}/error_tracking/client_keys").json()) == 1
        assert maintainer.patch(path, data={"active": "false"}).json()["active"] is False
        assert maintainer.get(path).json()["active"] is False
        assert maintainer.patch(path, json={}).json() == {"error": "active is missing"}
        assert maintainer.patch(path, json={"active": "maybe"}).json() == {"error": "active is invalid"}
        assert maintainer.patch(path, data={"active": ""}).json() == {"error": "active is empty"}
        invalid = maintainer.patch(path, json={"active": True, "integrated": "x"})
        assert invalid.json() == {"error": "integrated is invalid"}
        # The external backend needs its API URL and token (validated as GitLab does).
        external = maintainer.patch(path, json={"active": True, "integrated": False})
        assert external.status_code == 400 and "api_url" in external.json()["message"]
        # Re-enabling does not pile up keys.
        maintainer.put(path, json={"active": True, "integrated": True})
        assert len(maintainer.get(f"/projects/{project['id']}/error_tracking/client_keys").json()) == 1

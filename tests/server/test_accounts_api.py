"""The server core over real HTTP: authentication, error bodies, pagination, accounts."""

import datetime as dt

import gitlab
import httpx
import pytest

from tests.support import unique


def test_anonymous_requests_get_401(server):
    response = httpx.get(server.api_url + "/user")
    assert response.status_code == 401
    assert response.json() == {"message": "401 Unauthorized"}


def test_unknown_token_gets_401(server):
    with server.client("glpat-not-a-real-token") as client:
        response = client.get("/user")
    assert response.status_code == 401
    assert response.json() == {"message": "401 Unauthorized"}


@pytest.mark.parametrize("how", ["header", "param", "bearer"])
def test_token_is_read_from_header_param_and_bearer(server, how):
    if how == "header":
        response = httpx.get(server.api_url + "/user", headers={"PRIVATE-TOKEN": server.root_token})
    elif how == "param":
        response = httpx.get(server.api_url + "/user", params={"private_token": server.root_token})
    else:
        response = httpx.get(server.api_url + "/user", headers={"Authorization": f"Bearer {server.root_token}"})
    assert response.status_code == 200
    assert response.json()["username"] == "root"
    assert response.json()["is_admin"] is True


def test_read_api_token_reads_but_cannot_write(server, api):
    _, token = api.user(scopes=("read_api",))
    with server.client(token) as client:
        assert client.get("/user").status_code == 200
        response = client.post("/groups", json={"name": "g", "path": unique("g")})
    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"


def test_revoked_token_is_refused(server, api):
    user, token = api.user()
    with server.client(token) as client:
        tokens = client.get("/personal_access_tokens").json()
        assert client.delete(f"/personal_access_tokens/{tokens[0]['id']}").status_code == 204
        response = client.get("/user")
    assert response.status_code == 401
    assert response.json() == {"error": "invalid_token",
                               "error_description": "Token was revoked. You have to re-authorize from the user."}


def test_expired_token_is_refused(server, api):
    user, _ = api.user()
    token = api.token(user["id"], expires_at=dt.date.today().isoformat())
    with server.client(token) as client:
        response = client.get("/user")
    assert response.status_code == 401
    assert response.json()["error_description"].startswith("Token is expired.")


def test_non_admin_cannot_create_users(server, api):
    _, token = api.user()
    with server.client(token) as client:
        response = client.post("/users", json={"username": "x", "name": "x", "email": "x@example.com",
                                               "password": "longenough"})
    assert response.status_code == 403
    assert response.json() == {"message": "403 Forbidden"}


def test_missing_parameters_use_grapes_error_body(root_client):
    response = root_client.post("/groups", json={"name": "only-a-name"})
    assert response.status_code == 400
    assert response.json() == {"error": "path is missing"}


def test_unknown_route_is_404_with_error_body(root_client):
    response = root_client.get("/definitely/not/here")
    assert response.status_code == 404
    assert response.json() == {"error": "404 Not Found"}
    assert response.headers["x-content-type-options"] == "nosniff"


def test_private_project_is_404_for_non_members(server, api):
    project = api.project()
    _, outsider = api.user()
    with server.client(outsider) as client:
        response = client.get(f"/projects/{project['id']}")
    assert response.status_code == 404
    assert response.json() == {"message": "404 Project Not Found"}


def test_project_by_url_encoded_path_and_group_membership_reaches_subgroups(server, api):
    parent = api.group()
    child = api.group(parent_id=parent["id"])
    project = api.project(group_id=child["id"])
    user, token = api.user()
    api.member("groups", parent["id"], user["id"], 30)
    encoded = project["path_with_namespace"].replace("/", "%2F")
    with server.client(token) as client:
        response = client.get(f"/projects/{encoded}")
        assert response.status_code == 200
        assert response.json()["id"] == project["id"]
        assert client.get(f"/groups/{child['id']}").status_code == 200


def test_offset_pagination_headers(server, api):
    group = api.group()
    for _ in range(3):
        api.project(group_id=group["id"])
    with server.client() as client:
        response = client.get("/projects", params={"search": group["path"], "search_namespaces": True, "per_page": 2,
                                                "page": 1})
    assert response.status_code == 200
    assert len(response.json()) == 2
    headers = response.headers
    pages = (headers["X-Total"], headers["X-Total-Pages"], headers["X-Page"], headers["X-Per-Page"])
    assert pages == ("3", "2", "1", "2")
    assert headers["X-Next-Page"] == "2" and headers["X-Prev-Page"] == ""
    assert 'rel="next"' in headers["Link"] and 'rel="last"' in headers["Link"]
    assert "page=2" in headers["Link"].split(",")[0]


def test_python_gitlab_drives_accounts(server):
    gl = gitlab.Gitlab(server.url, private_token=server.root_token)
    gl.auth()
    assert gl.user.username == "root"
    name = unique("pg")
    user = gl.users.create({"username": name, "name": "Py Gitlab", "email": f"{name}@example.com",
                            "password": "a-long-password"})
    token = user.personal_access_tokens.create({"name": "ci", "scopes": ["api"]})
    assert token.token.startswith("glpat-")
    # A group's path cannot be a username: users and top-level groups share one set of paths.
    group = gl.groups.create({"name": name, "path": f"{name}-team"})
    project = gl.projects.create({"name": "svc", "namespace_id": group.id})
    project.members.create({"user_id": user.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
    group.members.create({"user_id": user.id, "access_level": gitlab.const.AccessLevel.REPORTER})
    assert [m.username for m in project.members.list() if m.id == user.id] == [name]
    as_user = gitlab.Gitlab(server.url, private_token=token.token)
    as_user.auth()
    assert as_user.user.username == name
    assert as_user.projects.get(f"{name}-team/svc").id == project.id
    version, _ = gl.version()
    assert version.count(".") == 2


def test_duplicate_member_is_conflict(api, server):
    project = api.project()
    user, _ = api.user()
    api.member("projects", project["id"], user["id"], 30)
    with server.client() as client:
        response = client.post(f"/projects/{project['id']}/members", json={"user_id": user["id"], "access_level": 30})
    assert response.status_code == 409
    assert response.json() == {"message": "Member already exists"}


def test_request_log_never_contains_tokens(server, api):
    _, token = api.user()
    httpx.get(server.api_url + "/user", params={"private_token": token})
    log = server.log_text()
    assert any(entry["path"] == "/api/v4/user" for entry in server.request_log())
    assert token not in log
    assert server.root_token not in log


def test_openapi_document_is_served(server):
    response = httpx.get(server.api_url + "/openapi.json")
    assert response.status_code == 200
    assert "/api/v4/projects" in response.json()["paths"]

"""Every API endpoint against every kind of caller, with the status GitLab answers.

Actors (columns):
  anon       no credentials
  read_api   an administrator's token with scope read_api only (GET and HEAD allowed, writes 403)
  revoked    a revoked token of an administrator (401 invalid_token, even where anonymous access works)
  guest .. owner   members of the group that holds the project, at that access level
  admin      an administrator who is not a member
  other_dev  a second Developer (for exports: not the author of the export being read)
  outsider   an authenticated user with no membership (private resources answer 404)

A cell of "-" means the combination does not apply. Endpoints whose router is not mounted in
this build are left out of the parametrisation; test_matrix_names_every_route checks that the
table covers every /api/v4 route of the OpenAPI document, so a new endpoint cannot slip past it.
The Sentry collector takes no user credentials (SDKs authenticate with the client key) and is not
in that document; the ingestion tests and tests/e2e cover it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import pytest

from outpost_server.accounts import access
from outpost_server.app import create_app
from outpost_server.config import ServerConfig
from tests.e2e.flows import find_vulnerability, sast_report, upload_report, wait_for_export
from tests.support import ApiHelper, unique

ACTORS = ("anon", "read_api", "revoked", "guest", "reporter", "developer", "maintainer", "owner", "admin",
          "other_dev", "outsider")

ARCHIVE_RANGE = {"start_date": "2020-01-01", "end_date": "2030-12-31"}

MATRIX = """
endpoint                                                  anon read_api revoked guest reporter developer maintainer owner admin other_dev outsider
GET    /version                                            401  200      401     200   200      200       200        200   200   200       200
GET    /user                                               401  200      401     200   200      200       200        200   200   200       200
GET    /users                                              403  200      401     200   200      200       200        200   200   200       200
GET    /users/{user}                                       403  200      401     200   200      200       200        200   200   200       200
POST   /users                                              401  403      401     403   403      403       403        403   201   403       403
POST   /users/{user}/personal_access_tokens                401  403      401     403   403      403       403        403   201   403       403
PUT    /users/{fresh_user}                                 401  403      401     403   403      403       403        403   200   403       403
DELETE /users/{fresh_user}                                 401  403      401     403   403      403       403        403   204   403       403
POST   /users/{fresh_user}/block                           401  403      401     403   403      403       403        403   201   403       403
POST   /users/{fresh_user}/unblock                         401  403      401     403   403      403       403        403   201   403       403
POST   /users/{fresh_user}/deactivate                      401  403      401     403   403      403       403        403   201   403       403
POST   /users/{fresh_user}/activate                        401  403      401     403   403      403       403        403   201   403       403
GET    /personal_access_tokens                             401  200      401     200   200      200       200        200   200   200       200
GET    /personal_access_tokens/self                        401  200      401     200   200      200       200        200   200   200       200
DELETE /personal_access_tokens/self                        401  204      401     204   204      204       204        204   204   204       204
POST   /personal_access_tokens/self/rotate                 401  403      401     200   200      200       200        200   200   200       200
GET    /personal_access_tokens/{own_token}                 -    200      401     200   200      200       200        200   200   200       200
DELETE /personal_access_tokens/{own_token}                 -    403      401     204   204      204       204        204   204   204       204
POST   /personal_access_tokens/{own_token}/rotate          -    403      401     200   200      200       200        200   200   200       200
GET    /namespaces                                         401  200      401     200   200      200       200        200   200   200       200
GET    /namespaces/{group}                                 401  200      401     200   200      200       200        200   200   200       404
GET    /namespaces/{group_path}/exists                     401  200      401     200   200      200       200        200   200   200       200
GET    /groups                                             200  200      401     200   200      200       200        200   200   200       200
GET    /groups/{group}                                     404  200      401     200   200      200       200        200   200   200       404
POST   /groups                                             401  403      401     201   201      201       201        201   201   201       201
PUT    /groups/{group}                                     401  403      401     403   403      403       403        200   200   403       404
DELETE /groups/{fresh_group}                               401  403      401     403   403      403       403        202   202   403       404
GET    /groups/{group}/subgroups                           404  200      401     200   200      200       200        200   200   200       404
GET    /groups/{group}/projects                            404  200      401     200   200      200       200        200   200   200       404
GET    /projects                                           200  200      401     200   200      200       200        200   200   200       200
GET    /projects/{project}                                 404  200      401     200   200      200       200        200   200   200       404
POST   /projects                                           401  403      401     201   201      201       201        201   201   201       201
PUT    /projects/{project}                                 401  403      401     403   403      403       200        200   200   403       404
DELETE /projects/{fresh_project}                           401  403      401     403   403      403       403        202   202   403       404
GET    /projects/{project}/members                         401  200      401     200   200      200       200        200   200   200       404
GET    /projects/{project}/members/{member}                401  200      401     200   200      200       200        200   200   200       404
POST   /projects/{project}/members                         401  403      401     403   403      403       201        201   201   403       404
DELETE /projects/{project}/members/{fresh_member}          401  403      401     403   403      403       204        204   204   403       404
GET    /groups/{group}/members                             401  200      401     200   200      200       200        200   200   200       404
GET    /groups/{group}/members/{group_member}              401  200      401     200   200      200       200        200   200   200       404
POST   /groups/{group}/members                             401  403      401     403   403      403       403        201   201   403       404
DELETE /groups/{group}/members/{fresh_group_member}        401  403      401     403   403      403       403        204   204   403       404
GET    /admin/ci/variables                                 401  200      401     403   403      403       403        403   200   403       403
GET    /admin/ci/variables/{variable}                      401  200      401     403   403      403       403        403   200   403       403
POST   /admin/ci/variables                                 401  403      401     403   403      403       403        403   201   403       403
PUT    /admin/ci/variables/{variable}                      401  403      401     403   403      403       403        403   200   403       403
DELETE /admin/ci/variables/{fresh_variable}                401  403      401     403   403      403       403        403   204   403       403
GET    /application/plan_limits                            401  200      401     403   403      403       403        403   200   403       403
PUT    /application/plan_limits                            401  403      401     403   403      403       403        403   200   403       403
GET    /application/settings                               401  200      401     403   403      403       403        403   200   403       403
GET    /error_tracking/ingestion                           401  200      401     403   403      403       403        403   200   403       403
GET    /error_tracking/storage                             401  200      401     403   403      403       403        403   200   403       403
PUT    /application/settings                               401  403      401     403   403      403       403        403   200   403       403
GET    /application/mail                                   401  200      401     403   403      403       403        403   200   403       403
POST   /application/mail/test                              401  403      401     403   403      403       403        403   400   403       403
POST   /projects/{project}/security/reports                401  403      401     403   403      201       201        201   201   201       404
GET    /projects/{project}/vulnerabilities                 401  200      401     403   403      200       200        200   200   200       404
GET    /vulnerabilities/{vulnerability}                    401  200      401     403   403      200       200        200   200   200       404
POST   /vulnerabilities/{detected_vulnerability}/confirm   401  403      401     403   403      403       201        201   201   403       404
POST   /vulnerabilities/{detected_vulnerability}/resolve   401  403      401     403   403      403       201        201   201   403       404
POST   /vulnerabilities/{detected_vulnerability}/dismiss   401  403      401     403   403      403       201        201   201   403       404
POST   /vulnerabilities/{confirmed_vulnerability}/revert   401  403      401     403   403      403       201        201   201   403       404
POST   /security/projects/{project}/vulnerability_exports  401  403      401     403   403      201       201        201   201   201       404
POST   /security/groups/{group}/vulnerability_exports      401  403      401     403   403      201       201        201   201   201       404
POST   /security/vulnerability_exports                     401  403      401     201   201      201       201        201   201   201       201
GET    /security/vulnerability_exports/{export}            401  403      401     403   403      200       403        403   403   403       403
GET    /security/vulnerability_exports/{export}/download   401  403      401     403   403      200       403        403   403   403       403
POST   /security/projects/{project}/vulnerability_archive_exports  401  403  401  403  403  201  201  201  201  201  404
GET    /security/vulnerability_archive_exports/{archive_export}           401  403  401  403  403  200  403  403  403  403  403
GET    /security/vulnerability_archive_exports/{archive_export}/download  401  403  401  403  403  200  403  403  403  403  403
GET    /projects/{project}/error_tracking/settings         401  200      401     403   403      403       200        200   200   403       404
PATCH  /projects/{project}/error_tracking/settings         401  403      401     403   403      403       200        200   200   403       404
PUT    /projects/{project}/error_tracking/settings         401  403      401     403   403      403       200        200   200   403       404
GET    /projects/{project}/error_tracking/client_keys      401  200      401     403   403      403       200        200   200   403       404
POST   /projects/{project}/error_tracking/client_keys      401  403      401     403   403      403       201        201   201   403       404
DELETE /projects/{project}/error_tracking/client_keys/{fresh_client_key}  401  403  401  403  403  403  200  200  200  403  404
GET    /projects/{project}/error_tracking/retention        401  200      401     403   403      403       200        200   200   403       404
PUT    /projects/{project}/error_tracking/retention        401  403      401     403   403      403       200        200   200   403       404
"""

@dataclass(frozen=True)
class Row:
    method: str
    path: str
    expected: dict[str, int | None] = field(hash=False)

    @property
    def route(self) -> str:
        return f"{self.method} {_shape(self.path)}"


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def parse_matrix(text: str) -> list[Row]:
    lines = [line.split() for line in text.strip().splitlines()]
    header, body = lines[0], lines[1:]
    assert tuple(header[1:]) == ACTORS, "matrix columns must be the actors, in order"
    rows = []
    for cells in body:
        method, path, statuses = cells[0], cells[1], cells[2:]
        assert len(statuses) == len(ACTORS), f"{method} {path}: {len(statuses)} cells for {len(ACTORS)} actors"
        rows.append(Row(method, path, {actor: None if cell == "-" else int(cell)
                                       for actor, cell in zip(ACTORS, statuses, strict=True)}))
    return rows


def served_routes() -> set[str]:
    """API routes of the application as built from this source tree (no server or database needed)."""
    document = create_app(ServerConfig()).openapi()
    return {f"{method.upper()} {_shape(path.removeprefix('/api/v4'))}"
            for path, operations in document["paths"].items() if path.startswith("/api/v4/")
            for method in operations}


ROWS = parse_matrix(MATRIX)
SERVED = served_routes()
CELLS = [pytest.param(row, actor, id=f"{row.method} {row.path} as {actor}")
         for row in ROWS if row.route in SERVED for actor in ACTORS if row.expected[actor] is not None]


def test_matrix_names_every_route():
    in_table = {row.route for row in ROWS}
    assert SERVED - in_table == set()


class World:
    """One group and project with a member at every level, plus the resources the rows act on."""

    def __init__(self, api: ApiHelper):
        self.api = api
        self.root = api.root
        self.group = api.group()
        self.project = api.project(group_id=self.group["id"])
        self.users: dict[str, dict] = {}
        self.tokens: dict[str, str | None] = {"anon": None}
        levels = {"guest": access.GUEST, "reporter": access.REPORTER, "developer": access.DEVELOPER,
                  "maintainer": access.MAINTAINER, "owner": access.OWNER, "other_dev": access.DEVELOPER}
        for actor, level in levels.items():
            user, token = api.user()
            api.member("groups", self.group["id"], user["id"], level)
            self.users[actor], self.tokens[actor] = user, token
        for actor in ("admin", "outsider"):
            self.users[actor], self.tokens[actor] = api.user(admin=actor == "admin")
        admin_id = self.users["admin"]["id"]
        self.tokens["read_api"] = api.token(admin_id, scopes=("read_api",))
        self.users["read_api"] = self.users["revoked"] = self.users["admin"]
        revoked = api.token(admin_id)
        with httpx.Client(base_url=api.server.api_url, headers={"PRIVATE-TOKEN": revoked}) as client:
            assert client.delete("/personal_access_tokens/self").status_code == 204
        self.tokens["revoked"] = revoked
        self._shared: dict[str, str] = {}

    def client(self, actor: str, *, fresh_token: bool = False) -> httpx.Client:
        token = self.tokens[actor]
        if fresh_token and actor not in ("anon", "revoked"):
            # The request spends the caller's token (revoked or rotated): give it one of its own.
            scopes = ("read_api",) if actor == "read_api" else ("api",)
            token = self.api.token(self.users[actor]["id"], scopes=scopes)
        headers = {"PRIVATE-TOKEN": token} if token else {}
        return httpx.Client(base_url=self.api.server.api_url, headers=headers, timeout=30)

    # Placeholders. Shared ones are made once; "fresh" and state-bound ones for every cell, since
    # a successful DELETE or status change consumes them.

    def value(self, name: str, actor: str) -> str:
        if name in SHARED_PLACEHOLDERS:
            if name not in self._shared:
                self._shared[name] = str(SHARED_PLACEHOLDERS[name](self))
            return self._shared[name]
        return str(PER_CELL_PLACEHOLDERS[name](self, actor))

    def vulnerability(self, state_action: str | None) -> int:
        tag = unique("v")
        upload_report(self.root, self.project["id"], sast_report(1, tag=tag))
        vulnerability_id = find_vulnerability(self.root, self.project["id"], tag)["id"]
        if state_action:
            assert self.root.post(f"/vulnerabilities/{vulnerability_id}/{state_action}").status_code == 201
        return vulnerability_id

    def finished_export(self, resource: str = "vulnerability_exports", body: dict | None = None) -> int:
        """A project export (or archive export) authored by the developer, finished."""
        deadline = time.monotonic() + 60
        with self.client("developer") as developer:
            while True:
                response = developer.post(f"/security/projects/{self.project['id']}/{resource}", json=body)
                # One unfinished export per author and project: a row's own export may still be running.
                if response.status_code != 429 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert response.status_code == 201, response.text
            export_id = response.json()["id"]
            assert wait_for_export(developer, export_id, resource=resource)["status"] == "finished"
        return export_id

    def finished_archive_export(self) -> int:
        return self.finished_export("vulnerability_archive_exports", ARCHIVE_RANGE)

    def variable(self) -> str:
        key = unique("MATRIX_").upper()
        response = self.root.post("/admin/ci/variables", json={"key": key, "value": "matrix-value-1"})
        assert response.status_code == 201, response.text
        return key

    def error_tracking_enabled(self) -> int:
        response = self.root.put(f"/projects/{self.project['id']}/error_tracking/settings",
                                 json={"active": True, "integrated": True})
        assert response.status_code == 200, response.text
        return self.project["id"]

    def client_key(self) -> int:
        self.value("project_with_error_tracking", "admin")
        response = self.root.post(f"/projects/{self.project['id']}/error_tracking/client_keys")
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def fresh_member(self, kind: str) -> int:
        user, _ = self.api.user()
        target = self.project["id"] if kind == "projects" else self.group["id"]
        self.api.member(kind, target, user["id"], access.GUEST)
        return user["id"]


SHARED_PLACEHOLDERS: dict[str, Callable[[World], object]] = {
    "user": lambda world: world.users["guest"]["id"],
    "group": lambda world: world.group["id"],
    "group_path": lambda world: world.group["path"],
    "project": lambda world: world.project["id"],
    "member": lambda world: world.fresh_member("projects"),
    "group_member": lambda world: world.fresh_member("groups"),
    "variable": World.variable,
    "vulnerability": lambda world: world.vulnerability(None),
    "export": World.finished_export,
    "archive_export": World.finished_archive_export,
    "project_with_error_tracking": World.error_tracking_enabled,
}

PER_CELL_PLACEHOLDERS: dict[str, Callable[[World, str], object]] = {
    "own_token": lambda world, actor: _second_token_id(world, actor),
    "fresh_member": lambda world, actor: world.fresh_member("projects"),
    "fresh_user": lambda world, actor: world.api.user()[0]["id"],
    "fresh_group": lambda world, actor: world.api.group(parent_id=world.group["id"])["id"],
    "fresh_project": lambda world, actor: world.api.project(group_id=world.group["id"])["id"],
    "fresh_group_member": lambda world, actor: world.fresh_member("groups"),
    "fresh_variable": lambda world, actor: world.variable(),
    "detected_vulnerability": lambda world, actor: world.vulnerability(None),
    "confirmed_vulnerability": lambda world, actor: world.vulnerability("confirm"),
    "fresh_client_key": lambda world, actor: world.client_key(),
}


def _second_token_id(world: World, actor: str) -> int:
    """Another token of the caller's own user, so revoking it leaves the caller's token working."""
    world.api.token(world.users[actor]["id"])
    tokens = world.root.get("/personal_access_tokens", params={"user_id": world.users[actor]["id"],
                                                               "per_page": 100}).json()
    return max(token["id"] for token in tokens)


def request_body(row: Row, world: World) -> dict | None:
    """What a caller with the permission would send (valid, so the status is the permission's)."""
    name = unique("m")
    # A body, or how to make one when it needs a fresh user or the current value of a setting.
    bodies: dict[str, dict | Callable[[], dict]] = {
        "POST /users": {"username": name, "name": name, "email": f"{name}@example.com", "password": "s3cret-pass-1"},
        "POST /users/{}/personal_access_tokens": {"name": name, "scopes": ["read_api"]},
        "POST /groups": {"name": name, "path": name},
        "POST /projects": {"name": name},
        "PUT /projects/{}": {"description": "changed by the authorization matrix"},
        "PUT /users/{}": {"bio": "changed by the authorization matrix"},
        "PUT /groups/{}": {"description": "changed by the authorization matrix"},
        "POST /projects/{}/members": lambda: {"user_id": world.api.user()[0]["id"], "access_level": access.GUEST},
        "POST /groups/{}/members": lambda: {"user_id": world.api.user()[0]["id"], "access_level": access.GUEST},
        "POST /admin/ci/variables": {"key": name.upper(), "value": "matrix-value-1"},
        "PUT /admin/ci/variables/{}": {"value": "matrix-value-2"},
        "PUT /application/plan_limits": lambda: {"plan_name": "default", "ci_instance_level_variables":
                                                 world.root.get("/application/plan_limits").json()
                                                 ["ci_instance_level_variables"]},
        "POST /projects/{}/security/reports": lambda: sast_report(1, tag=name),
        "POST /security/projects/{}/vulnerability_archive_exports": ARCHIVE_RANGE,
        "PATCH /projects/{}/error_tracking/settings": {"active": True},
        "PUT /projects/{}/error_tracking/settings": {"active": True, "integrated": True},
        "PUT /projects/{}/error_tracking/retention": {"retention_days": 60},
    }
    body = bodies.get(row.route)
    return body() if callable(body) else body


# Rows whose success revokes the token that sent them.
SPENDS_OWN_TOKEN = {"DELETE /personal_access_tokens/self", "POST /personal_access_tokens/self/rotate"}


def _needs_error_tracking(row: Row) -> bool:
    return "/error_tracking/" in row.path


@pytest.fixture(scope="module")
def world(api) -> World:
    return World(api)


@pytest.mark.parametrize(("row", "actor"), CELLS)
def test_status(world: World, row: Row, actor: str):
    if _needs_error_tracking(row):
        world.value("project_with_error_tracking", actor)
    path = re.sub(r"\{([^}]+)\}", lambda match: world.value(match.group(1), actor), row.path)
    body = request_body(row, world)
    with world.client(actor, fresh_token=row.route in SPENDS_OWN_TOKEN) as client:
        response = client.request(row.method, path, json=body)
    assert response.status_code == row.expected[actor], (
        f"{row.method} {path} as {actor}: {response.status_code} {response.text[:300]}")


# GitLab's GraphQL API answers authorization inside the body: what each caller gets for
# `project(fullPath:) { sentryErrors { errors { nodes { id } } } }` on the project above, with its
# error tracking enabled. "list" = the errors connection; "no-errors" = the project with
# `sentryErrors: null` (below Reporter); "no-project" = `project: null`; a number = that HTTP status.
GRAPHQL_MATRIX = {
    "anon": "no-project", "read_api": "list", "revoked": 401, "guest": "no-errors", "reporter": "list",
    "developer": "list", "maintainer": "list", "owner": "list", "admin": "list", "other_dev": "list",
    "outsider": "no-project",
}
GRAPHQL_ERRORS_QUERY = "query($p: ID!) { project(fullPath: $p) { sentryErrors { errors { nodes { id } } } } }"


@pytest.mark.parametrize("actor", ACTORS)
def test_graphql_error_tracking(world: World, actor: str):
    world.value("project_with_error_tracking", actor)
    token = world.tokens[actor]
    with httpx.Client(base_url=world.api.server.url, headers={"PRIVATE-TOKEN": token} if token else {},
                      timeout=30) as client:
        response = client.post("/api/graphql", json={"query": GRAPHQL_ERRORS_QUERY,
                                                     "variables": {"p": world.project["path_with_namespace"]}})
    expected = GRAPHQL_MATRIX[actor]
    if isinstance(expected, int):
        assert (response.status_code, response.json()) == (expected, {"errors": [{"message": "Invalid token"}]})
        return
    assert response.status_code == 200, response.text
    project = response.json()["data"]["project"]
    outcome = ("no-project" if project is None else "no-errors" if project["sentryErrors"] is None
               else "list" if isinstance(project["sentryErrors"]["errors"]["nodes"], list) else "?")
    assert outcome == expected, f"{actor}: {response.text[:300]}"

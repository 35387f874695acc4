"""Usernames and paths as GitLab has them: unique in any case in the database (a race cannot create
`racer0` and `RACER0`), found in any case, and held to Gitlab::PathRegex's rules with GitLab's messages."""

from __future__ import annotations

import threading
import unicodedata
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support import unique

OCI = ("can only include non-accented letters, digits, '_', '-' and '.'. It must not start with "
       "'-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'.")
NAMESPACE_FORMAT = ("can contain only letters, digits, '_', '-' and '.'. "
                    "Cannot start with '-' or end in '.', '.git' or '.atom'.")
PROJECT_FORMAT = ("can contain only letters, digits, '_', '-' and '.'. "
                  "Cannot start with '-', end in '.git' or end in '.atom'")
ROUNDS = 4


def _race(server, requests: list[tuple[str, dict]]) -> list[int]:
    """Sends the requests at once from as many threads, each through its own connection."""
    barrier = threading.Barrier(len(requests))

    def send(request: tuple[str, dict]) -> int:
        with server.client() as client:
            barrier.wait()
            return client.post(request[0], json=request[1]).status_code

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(send, requests))


def _user_body(username: str, n: int) -> dict:
    return {"username": username, "name": username, "email": f"{username.lower()}-{n}-{unique()}@example.com",
            "password": "s3cret-pass-1"}


def test_usernames_differing_only_in_case_race_to_one_user(server, root_client):
    for _ in range(ROUNDS):
        base = unique("racer")
        spellings = [base, base.upper(), base.title()] * 2
        statuses = _race(server, [("/users", _user_body(name, n)) for n, name in enumerate(spellings)])
        assert statuses.count(201) == 1 and set(statuses) <= {201, 400, 409}, statuses
        found = root_client.get("/users", params={"username": base.upper()}).json()
        assert [user["username"].lower() for user in found] == [base], found


def test_group_paths_differing_only_in_case_race_to_one_group(server, root_client):
    for _ in range(ROUNDS):
        base = unique("grp")
        spellings = [base, base.upper(), base.title()] * 2
        statuses = _race(server, [("/groups", {"name": name, "path": name}) for name in spellings])
        assert statuses.count(201) == 1 and set(statuses) <= {201, 400}, statuses


def test_a_project_is_found_by_its_path_in_any_case(server, api, root_client):
    username = unique("Racer").upper()
    _, token = api.user(username=username)
    with server.client(token) as client:
        created = client.post("/projects", json={"name": "p", "path": "p"})
    assert created.status_code == 201, created.text
    for spelling in (f"{username}%2Fp", f"{username.lower()}%2Fp", f"{username.title()}%2FP"):
        found = root_client.get(f"/projects/{spelling}")
        assert (found.status_code, found.json().get("id")) == (200, created.json()["id"]), spelling


@pytest.mark.parametrize(("username", "messages"), [
    ("Ölaf", [OCI, NAMESPACE_FORMAT]),
    (unicodedata.normalize("NFC", "müller"), [OCI, NAMESPACE_FORMAT]),
    (unicodedata.normalize("NFD", "müller"), [OCI, NAMESPACE_FORMAT]),
    ("ｆｕｌｌ", [OCI, NAMESPACE_FORMAT]),
    ("-dash", [OCI, NAMESPACE_FORMAT]),
    ("dot.", [OCI, NAMESPACE_FORMAT]),
    ("under_", [OCI]),
    ("two..dots", [OCI]),
    ("repo.git", [NAMESPACE_FORMAT]),
    ("feed.atom", [NAMESPACE_FORMAT]),
    ("x", ["is too short (minimum is 2 characters)"]),
    ("Api", ["Api is a reserved name"]),
    ("users", ["users is a reserved name"]),
])
def test_usernames_follow_gitlabs_path_rules(root_client, username, messages):
    suffix = unique()
    answer = root_client.post("/users", json={"username": username, "name": "n", "email": f"{suffix}@example.com",
                                              "password": "s3cret-pass-1"})
    assert (answer.status_code, answer.json()) == (400, {"message": {"username": messages}})


def test_a_renamed_user_is_held_to_the_rules_and_a_kept_name_is_not(api, root_client):
    user, _ = api.user()
    renamed = root_client.put(f"/users/{user['id']}", json={"username": "Ölaf"})
    assert (renamed.status_code, renamed.json()) == (400, {"message": {"username": [OCI, NAMESPACE_FORMAT]}})
    kept = root_client.put(f"/users/{user['id']}", json={"username": user["username"], "bio": "b"})
    assert kept.status_code == 200, kept.text


def test_group_and_project_paths_follow_gitlabs_rules(api, root_client):
    top = root_client.post("/groups", json={"name": "help", "path": "help"})
    assert (top.status_code, top.json()) == (400, {"message": {"path": ["help is a reserved name"]}})
    parent = api.group()
    # Reserved only at the top level: a subgroup may be called help, but not badges.
    sub = root_client.post("/groups", json={"name": "help", "path": "help", "parent_id": parent["id"]})
    assert sub.status_code == 201, sub.text
    badges = root_client.post("/groups", json={"name": "b", "path": "badges", "parent_id": parent["id"]})
    assert (badges.status_code, badges.json()) == (400, {"message": {"path": ["badges is a reserved name"]}})
    accented = root_client.post("/groups", json={"name": "g", "path": "grüppe"})
    assert (accented.status_code, accented.json()) == (400, {"message": {"path": [OCI, NAMESPACE_FORMAT]}})
    renamed = root_client.put(f"/groups/{parent['id']}", json={"path": "-x"})
    assert (renamed.status_code, renamed.json()) == (400, {"message": {"path": [OCI, NAMESPACE_FORMAT]}})
    project = root_client.post("/projects", json={"name": "p", "path": "blob"})
    assert (project.status_code, project.json()) == (400, {"message": {"path": ["blob is a reserved name"]}})
    dashed = root_client.post("/projects", json={"name": "p", "path": "-p.git"})
    assert (dashed.status_code, dashed.json()) == (400, {"message": {"path": [PROJECT_FORMAT, OCI]}})

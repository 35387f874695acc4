"""Searches take `%` and `_` literally, as GitLab's do (a LIKE wildcard in a search must not match everything)."""

from __future__ import annotations

import uuid


def test_user_search_takes_wildcards_literally(api):
    suffix = uuid.uuid4().hex[:8]
    plain, _ = api.user(username=f"wildA{suffix}")
    marked, _ = api.user(username=f"wild_{suffix}")

    def found(search: str) -> set[int]:
        return {user["id"] for user in api.root.get("/users", params={"search": search, "per_page": 100}).json()}

    # Taken as wildcards, "_" would match the "A" and "%" anything: both users would be found each time.
    assert found(f"wild_{suffix}") == {marked["id"]}
    assert found(f"wild%{suffix}") == set()
    assert found(f"wildA{suffix}") == {plain["id"]}


def test_token_search_takes_wildcards_literally(api):
    user, _ = api.user()
    for name in ("ci_deploy", "cideploy"):
        created = api.root.post(f"/users/{user['id']}/personal_access_tokens", json={"name": name, "scopes": ["api"]})
        assert created.status_code == 201, created.text
    found = api.root.get("/personal_access_tokens", params={"user_id": user["id"], "search": "_"}).json()
    assert sorted(token["name"] for token in found) == ["ci_deploy"]
    assert api.root.get("/personal_access_tokens", params={"user_id": user["id"], "search": "%"}).json() == []


def test_a_nul_byte_in_a_search_is_refused_as_gitlab_refuses_it(api):
    # PostgreSQL text cannot hold NUL: a 500 there once, for lists that read their filters together.
    for path in ("/projects", "/groups", "/users"):
        response = api.root.get(path, params={"search": "a\x00b"})
        assert (response.status_code, response.json()) == (400, {"error": "search is invalid"}), path

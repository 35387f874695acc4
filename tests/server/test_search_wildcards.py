"""Searches take `%` and `_` literally, as GitLab's do (a LIKE wildcard in a search must not match everything)."""

from __future__ import annotations

import uuid


def test_user_search_takes_wildcards_literally(api):
    plain, _ = api.user(username="plain" + uuid.uuid4().hex[:8])
    marked, _ = api.user(username="under_" + uuid.uuid4().hex[:8])
    everyone = {user["id"] for user in api.root.get("/users", params={"per_page": 100}).json()}
    assert {plain["id"], marked["id"]} <= everyone
    assert api.root.get("/users", params={"search": "%"}).json() == []
    underscored = api.root.get("/users", params={"search": "_", "per_page": 100}).json()
    assert marked["id"] in {user["id"] for user in underscored}
    assert plain["id"] not in {user["id"] for user in underscored}
    assert all("_" in user["username"] + user["name"] + user.get("email", "") for user in underscored)


def test_token_search_takes_wildcards_literally(api):
    user, _ = api.user()
    for name in ("ci_deploy", "cideploy"):
        created = api.root.post(f"/users/{user['id']}/personal_access_tokens", json={"name": name, "scopes": ["api"]})
        assert created.status_code == 201, created.text
    found = api.root.get("/personal_access_tokens", params={"user_id": user["id"], "search": "_"}).json()
    assert sorted(token["name"] for token in found) == ["ci_deploy"]
    assert api.root.get("/personal_access_tokens", params={"user_id": user["id"], "search": "%"}).json() == []

"""One token resolution for the three APIs: REST (`/api/v4`), GraphQL and Sentry's web API (`/api/0`).

Each call with a token moves its `last_used_at`; a revoked token and a blocked user are refused by
all three, each in its own API's body.
"""

from __future__ import annotations

import httpx
import pytest

GRAPHQL_QUERY = {"query": "{ currentUser { username } }"}


def _rest(server, token: str) -> httpx.Response:
    with httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": token}) as client:
        return client.get("/user")


def _graphql(server, token: str) -> httpx.Response:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as client:
        return client.post("/api/graphql", json=GRAPHQL_QUERY)


def _sentry(server, token: str) -> httpx.Response:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as client:
        return client.get("/api/0/projects/")


CALLS = {"rest": _rest, "graphql": _graphql, "sentry": _sentry}


def _token_row(api, user_id: int) -> dict:
    (row,) = api.root.get("/personal_access_tokens", params={"user_id": user_id}).json()
    return row


@pytest.mark.parametrize("kind", CALLS)
def test_a_call_moves_last_used_at(server, api, kind):
    user, token = api.user()
    assert _token_row(api, user["id"])["last_used_at"] is None
    response = CALLS[kind](server, token)
    assert response.status_code == 200
    assert _token_row(api, user["id"])["last_used_at"] is not None


def test_a_revoked_token_is_refused_by_every_api(server, api):
    user, token = api.user()
    row = _token_row(api, user["id"])
    assert api.root.delete(f"/personal_access_tokens/{row['id']}").status_code == 204
    rest = _rest(server, token)
    assert rest.status_code == 401 and rest.json()["error_description"].startswith("Token was revoked.")
    graphql = _graphql(server, token)
    assert (graphql.status_code, graphql.json()) == (401, {"errors": [{"message": "Invalid token"}]})
    sentry = _sentry(server, token)
    assert (sentry.status_code, sentry.json()) == (401, {"detail": "Invalid token"})


def test_a_blocked_user_is_refused_by_every_api(server, api):
    user, token = api.user()
    assert api.root.post(f"/users/{user['id']}/block").status_code == 201
    rest = _rest(server, token)
    assert (rest.status_code, rest.json()) == (403, {"message": "403 Forbidden - Your account has been blocked."})
    graphql = _graphql(server, token)
    assert (graphql.status_code, graphql.json()) == (403, {"errors": [{"message": "API not accessible for user"}]})
    sentry = _sentry(server, token)
    assert (sentry.status_code, sentry.json()) == (401, {"detail": "User inactive or deleted"})
    assert _token_row(api, user["id"])["last_used_at"] is None

"""Uniqueness with letters beyond ASCII: a second "Ö@example.com" is refused as GitLab refuses a taken email,
never with a 500, and case-folding agrees with uniqueness on SQLite as on PostgreSQL."""

from __future__ import annotations

import json
import uuid


def _user(api, username: str, email: str):
    return api.root.post("/users", json={"username": username, "name": username, "email": email,
                                         "password": "s3cret-pass-1"})


def test_a_taken_non_ascii_email_is_refused_not_a_500(api):
    # Usernames are ASCII (GitLab's path rules, test_name_rules.py); emails need not be.
    suffix = uuid.uuid4().hex[:6]
    first = _user(api, f"olaf{suffix}", f"Ö{suffix}@example.com")
    assert first.status_code == 201, first.text
    same_email = _user(api, f"olof{suffix}", f"ö{suffix}@example.com")
    assert (same_email.status_code, same_email.json()) == (409, {"message": "Email has already been taken"})


def test_a_taken_project_path_under_a_non_ascii_name_is_refused_not_a_500(api):
    path = f"buecher-{uuid.uuid4().hex[:6]}"
    first = api.root.post("/projects", json={"name": "Bücher", "path": path})
    assert first.status_code == 201, first.text
    again = api.root.post("/projects", json={"name": "Bücher 2", "path": path})
    assert again.status_code == 400, again.text
    assert "has already been taken" in str(again.json()["message"])
    upper = api.root.post("/projects", json={"name": "Bücher 3", "path": path.upper()})
    assert upper.status_code == 400, upper.text


def test_racing_creations_of_one_username_give_one_user_and_no_500(api):
    from concurrent.futures import ThreadPoolExecutor

    username = f"race{uuid.uuid4().hex[:6]}"
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda n: _user(api, username, f"{username}-{n}@example.com"), range(12)))
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses.count(201) == 1 and set(statuses) <= {201, 400, 409}, statuses
    for answer in answers:
        if answer.status_code == 400:
            assert answer.json() == {"message": {"username": ["has already been taken"]}}


def test_an_unpaired_surrogate_escape_in_a_json_body_is_never_a_500(server, api, root_client):
    # "\ud905" is valid JSON syntax but no text: it can be neither stored nor sent back as UTF-8.
    project = api.project()
    headers = {"Content-Type": "application/json"}
    settings = root_client.put(f"/projects/{project['id']}/error_tracking/settings", headers=headers,
                               content=b'{"active": true, "project_slug": "a\\ud905b"}')
    assert (settings.status_code, settings.json()) == (400, {"message": "400 Bad request - invalid JSON body"})
    user = root_client.post("/users", headers=headers,
                            content=b'{"username": "s\\udc00", "name": "x", "email": "s@example.com"}')
    assert user.status_code == 400, user.text
    variables = '{"q": "\\ud800"}'
    graphql = root_client.post(server.url + "/api/graphql", headers=headers, content=json.dumps(
        {"query": "query($q: ID!) { project(fullPath: $q) { id } }", "variables": variables}).encode())
    # GraphQL parses as Ruby does: the unpaired escape is read as U+FFFD.
    assert graphql.status_code == 200, graphql.text
    assert graphql.json() == {"data": {"project": None}}, graphql.text
    # A well-formed pair is one character and is kept.
    named = root_client.put(f"/projects/{project['id']}/error_tracking/settings", headers=headers,
                            content=b'{"active": true, "integrated": true, "project_slug": "\\ud83d\\ude00"}')
    assert named.status_code == 200, named.text

"""Uniqueness with letters beyond ASCII: a second "Ölaf" is refused as GitLab refuses a taken name, never
with a 500, and case-folding agrees with uniqueness on SQLite as on PostgreSQL."""

from __future__ import annotations

import uuid


def _user(api, username: str, email: str):
    return api.root.post("/users", json={"username": username, "name": username, "email": email,
                                         "password": "s3cret-pass-1"})


def test_a_taken_non_ascii_username_or_email_is_refused_not_a_500(api):
    suffix = uuid.uuid4().hex[:6]
    first = _user(api, f"Ölaf{suffix}", f"Ö{suffix}@example.com")
    assert first.status_code == 201, first.text
    same_name = _user(api, f"Ölaf{suffix}", f"other{suffix}@example.com")
    assert (same_name.status_code, same_name.json()) == (409, {"message": "Username has already been taken"})
    other_case = _user(api, f"ölaf{suffix}", f"third{suffix}@example.com")
    assert (other_case.status_code, other_case.json()) == (409, {"message": "Username has already been taken"})
    same_email = _user(api, f"Olaf{suffix}", f"ö{suffix}@example.com")
    assert (same_email.status_code, same_email.json()) == (409, {"message": "Email has already been taken"})


def test_a_taken_non_ascii_project_path_is_refused_not_a_500(api):
    path = f"bücher-{uuid.uuid4().hex[:6]}"
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

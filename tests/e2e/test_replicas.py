"""Two server processes on one PostgreSQL database behave as one server.

PostgreSQL only: marked `postgres`, so without OUTPOST_TEST_PG_ADMIN_URL these tests are
deselected (pytest reports them as deselected, not skipped). CI runs them in its PostgreSQL pass.
Both replicas start at the same moment, so the migrations race too.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.databases import rows, scalar, stored_event_ids
from tests.e2e.flows import (
    enable_error_tracking,
    sast_report,
    sentry_event,
    store_path,
    store_request,
    upload_report,
    wait_for_export,
)
from tests.e2e.senders import Senders
from tests.support import ApiHelper, RunningServer, database_url_for, launch_server

pytestmark = pytest.mark.postgres


@contextlib.contextmanager
def replicas(tmp_path, extra_env: dict[str, str] | None = None) -> Iterator[tuple[RunningServer, RunningServer]]:
    """Two servers sharing one fresh database and one secret key, started concurrently."""
    database_url = database_url_for(tmp_path)
    env = {"OUTPOST_SECRET_KEY": secrets.token_hex(32), **(extra_env or {})}
    root_token = "glpat-root-" + secrets.token_hex(8)
    started: dict[str, RunningServer] = {}
    failures: list[BaseException] = []

    def start(name: str) -> None:
        try:
            started[name] = launch_server(tmp_path / name, database_url=database_url, extra_env=env,
                                          root_token=root_token)
        except BaseException as exc:  # reported below, from the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=start, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not failures, failures
        yield started["a"], started["b"]
    finally:
        for server in started.values():
            server.stop()
    for server in started.values():
        assert "Traceback" not in server.log_text(), server.log_text()[-3000:]


def test_users_and_tokens_made_on_one_work_on_the_other(tmp_path):
    with replicas(tmp_path) as (a, b):
        api_a = ApiHelper(a)
        user, token = api_a.user()
        with b.client(token) as on_b:
            assert on_b.get("/user").json()["username"] == user["username"]
            assert on_b.delete("/personal_access_tokens/self").status_code == 204
        with a.client(token) as on_a:
            assert on_a.get("/user").status_code == 401


def test_events_sent_to_either_replica_are_all_stored_once(tmp_path):
    with replicas(tmp_path) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([a.url, b.url], project["id"], key["public_key"], count=8, max_events=400) as senders:
            senders.finish()
        assert senders.ledger.statuses == {200: 400}
        a.wait_for_digest()
        b.wait_for_digest()
        stored = stored_event_ids(a.env["OUTPOST_DATABASE_URL"], project["id"])
        assert sorted(stored) == sorted(senders.ledger.accepted)
        total = scalar(a.env["OUTPOST_DATABASE_URL"],
                       "SELECT SUM(count) FROM error_tracking_errors WHERE project_id = :p", p=project["id"])
        assert total == 400


def test_exports_requested_on_one_are_made_once_and_downloadable_from_the_other(tmp_path):
    with replicas(tmp_path) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        upload_report(api.root, project["id"], sast_report(300, tag="replica"))
        # Six exports waiting at once: one per requester, since GitLab allows each user one unfinished
        # export of a project at a time.
        requesters = []
        for _ in range(6):
            user, token = api.user()
            api.member("projects", project["id"], user["id"], 40)
            requesters.append(token)
        created = []
        for token in requesters:
            with a.client(token) as on_a:
                created.append(on_a.post(f"/security/projects/{project['id']}/vulnerability_exports").json())
        for token, export in zip(requesters, created, strict=True):
            with a.client(token) as on_a, b.client(token) as on_b:
                assert wait_for_export(on_b, export["id"])["status"] == "finished"
                from_b = on_b.get(f"/security/vulnerability_exports/{export['id']}/download")
                from_a = on_a.get(f"/security/vulnerability_exports/{export['id']}/download")
                assert from_b.status_code == from_a.status_code == 200
                assert from_b.content == from_a.content
                assert from_b.content.count(b"\n") >= 301
        url = a.env["OUTPOST_DATABASE_URL"]
        attempts = rows(url, "SELECT id, attempts FROM vulnerability_exports ORDER BY id")
        assert attempts == [(export["id"], 1) for export in created]
        logs = a.log_text() + b.log_text()
        produced = [logs.count(f"vulnerability export {export['id']} finished") for export in created]
        assert produced == [1] * len(created), "an export was produced by both replicas, or by neither"


def test_expired_exports_are_swept_once_for_both(tmp_path):
    with replicas(tmp_path, {"OUTPOST_VULNERABILITY_EXPORT_LIFETIME": "3"}) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        upload_report(api.root, project["id"], sast_report(5, tag="expiry"))
        url = a.env["OUTPOST_DATABASE_URL"]
        with a.client() as on_a, b.client() as on_b:
            export = on_b.post(f"/security/projects/{project['id']}/vulnerability_exports").json()
            assert wait_for_export(on_a, export["id"])["status"] == "finished"
            deadline = time.monotonic() + 30
            while scalar(url, "SELECT COUNT(*) FROM vulnerability_exports WHERE id = :id", id=export["id"]):
                assert time.monotonic() < deadline, "the expired export was never swept"
                time.sleep(0.2)
            for client in (on_a, on_b):
                assert client.get(f"/security/vulnerability_exports/{export['id']}").status_code == 404
                assert client.get(f"/security/vulnerability_exports/{export['id']}/download").status_code == 404
        assert scalar(url, "SELECT COUNT(*) FROM vulnerability_export_chunks WHERE export_id = :id",
                      id=export["id"]) == 0


def test_client_key_rotation_is_seen_by_both_within_a_second(tmp_path):
    with replicas(tmp_path) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        old = enable_error_tracking(api.root, project["id"])
        # Both replicas have just accepted the old key (and remember that decision).
        for server in (a, b):
            assert _send(server, project["id"], old["public_key"]) == 200
        with b.client() as on_b:
            new = on_b.post(f"/projects/{project['id']}/error_tracking/client_keys").json()
            assert on_b.delete(f"/projects/{project['id']}/error_tracking/client_keys/{old['id']}").status_code == 200
        # Sent before the deletion reached the other replica's collector: accepted, then dropped at digest.
        racing = [_send(server, project["id"], old["public_key"]) for server in (a, b)]
        assert set(racing) <= {200, 404}
        assert [_send(server, project["id"], new["public_key"]) for server in (a, b)] == [200, 200]
        time.sleep(1.0)
        assert [_send(server, project["id"], old["public_key"]) for server in (a, b)] == [404, 404]
        a.wait_for_digest()
        b.wait_for_digest()
        url = a.env["OUTPOST_DATABASE_URL"]
        # The two events sent before the deletion and the two with the new key; none sent after it.
        assert scalar(url, "SELECT COUNT(*) FROM error_tracking_error_events WHERE project_id = :p",
                      p=project["id"]) == 4


def _send(server: RunningServer, project_id: int, public_key: str) -> int:
    headers, body = store_request(public_key, sentry_event())
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return client.post(store_path(project_id), headers=headers, content=body).status_code


def test_two_replicas_digesting_the_same_errors_never_deadlock(tmp_path):
    """Both replicas digest events of the same three errors at once, each from its own spool: every writer
    locks the errors first and the rows under them after, in one order, so PostgreSQL detects no deadlock
    (one was seen between an error's tag counts and its row) and no batch falls back to one by one."""
    with replicas(tmp_path) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([a.url, b.url], project["id"], key["public_key"], count=16, groups=3,
                     max_events=3000) as senders:
            senders.finish()
        a.wait_for_digest(timeout=120)
        b.wait_for_digest(timeout=120)
        database_url = a.env["OUTPOST_DATABASE_URL"]
        assert sorted(stored_event_ids(database_url, project["id"])) == sorted(senders.ledger.accepted)
        total = scalar(database_url, "SELECT SUM(count) FROM error_tracking_errors WHERE project_id = :p",
                       p=project["id"])
        assert total == len(senders.ledger.accepted) > 0
    logs = a.log_text() + b.log_text()
    assert "deadlock detected" not in logs
    assert "could not serialize" not in logs
    assert "storing its entries one by one" not in logs
    # The replicas' connections report their counters as they close, so they are all in once both stopped.
    deadlocks = scalar(database_url, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
    assert deadlocks == 0

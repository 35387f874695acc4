"""Faults while events arrive: a full disk, a SQLite write lock held elsewhere, a full spool.

The collector answers from its local spool, so none of these may make it answer 200 for something it
cannot keep, and every event it did answer 200 must end up listed exactly once, with no restart.
Runs on SQLite, and on PostgreSQL when OUTPOST_TEST_PG_ADMIN_URL is set (the spool then lives in the
data dir and the database elsewhere). PostgreSQL restarts are in test_ingest_postgres_faults.py.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.e2e.databases import database_url, stored_event_ids
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.e2e.senders import Senders
from tests.support import ApiHelper, RunningServer, launch_server

ON_POSTGRES = bool(os.environ.get("OUTPOST_TEST_PG_ADMIN_URL"))


def wait_until_stored(server: RunningServer, project_id: int, expected: set[str], timeout: float = 60) -> list[str]:
    """The stored event ids once every expected one is there (or what is there after `timeout`)."""
    deadline = time.monotonic() + timeout
    url = database_url(server)
    while True:
        stored = stored_event_ids(url, project_id)
        if expected <= set(stored) or time.monotonic() > deadline:
            return stored
        time.sleep(0.2)


def assert_exactly_the_accepted(stored: list[str], accepted: list[str]) -> None:
    assert [event_id for event_id, count in Counter(stored).items() if count > 1] == []
    assert set(stored) == set(accepted)


def send_one(server: RunningServer, public_key: str, project_id: int) -> httpx.Response:
    headers, body = store_request(public_key, sentry_event())
    return httpx.post(server.url + store_path(project_id), headers=headers, content=body, timeout=30)


def tracked_project(server: RunningServer) -> tuple[int, str]:
    """A new project with error tracking on: its id and a client key."""
    api = ApiHelper(server)
    project = api.project()
    return project["id"], enable_error_tracking(api.root, project["id"])["public_key"]


def ingestion(server: RunningServer) -> dict:
    with server.client() as client:
        return client.get("/error_tracking/ingestion").json()


@pytest.fixture
def small_disk(tmp_path):
    """A 48 MB filesystem of its own (tmpfs), so filling it up touches nothing else."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount_point)], check=True)
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(disk: Path) -> Path:
    """Writes a file until the filesystem is full; deleting it gives the space back."""
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 4096, 1):  # the last bytes too
            chunk = os.urandom(size)
            try:
                while True:
                    os.write(descriptor, chunk)
            except OSError:
                pass
    finally:
        os.close(descriptor)
    return filler


def test_a_full_disk_refuses_with_retry_after_keeps_reads_and_recovers_without_restart(small_disk):
    server = launch_server(small_disk / "data")
    try:
        project_id, key = tracked_project(server)
        with Senders([server.url], project_id, key, count=8) as senders:
            senders.wait_for_accepted(200)
            filler = fill(small_disk)
            refused = send_one(server, key, project_id)
            for _ in range(50):  # a commit may still fit in what the filesystem had left
                if refused.status_code != 200:
                    break
                refused = send_one(server, key, project_id)
            assert refused.status_code in (429, 503), refused.text
            assert refused.headers["Retry-After"].isdigit()
            # Reads go on while nothing can be written.
            with server.client() as client:
                assert client.get(f"/projects/{project_id}").status_code == 200
                assert client.get("/version").status_code == 200
            time.sleep(1.0)
            filler.unlink()
            # Space is back: ingestion resumes by itself.
            deadline = time.monotonic() + 30
            while send_one(server, key, project_id).status_code != 200:
                assert time.monotonic() < deadline, "ingestion did not resume after space came back"
                time.sleep(0.2)
            accepted_before = len(senders.ledger.accepted)
            senders.wait_for_accepted(accepted_before + 100)
        ledger = senders.ledger
        assert ledger.without_retry_after == 0
        assert set(ledger.statuses) <= {200, 429, 503}, ledger.statuses
        stored = wait_until_stored(server, project_id, set(ledger.accepted))
        # The events sent one by one above were accepted too; only the senders' are compared.
        assert set(ledger.accepted) <= set(stored)
        assert [event_id for event_id, count in Counter(stored).items() if count > 1] == []
    finally:
        server.stop()


@pytest.mark.expected_log(
    r"the database is unreachable",
    r"the database is reachable again",
    r"works again after \d+ failures",
)
@pytest.mark.skipif(ON_POSTGRES, reason="the write lock in question is SQLite's (main database on SQLite)")
def test_a_sqlite_write_lock_held_15_s_keeps_the_collector_accepting_and_reads_answering(tmp_path):
    server = launch_server(tmp_path / "server")
    try:
        api = ApiHelper(server)
        project = api.project()
        kept = enable_error_tracking(api.root, project["id"])["public_key"]
        revoked = api.root.post(f"/projects/{project['id']}/error_tracking/client_keys").json()["public_key"]
        with server.client() as client:
            client.get("/version")  # the token's last use is recorded before the lock
        holder = sqlite3.connect(server.data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")
        held_since = time.monotonic()
        accepted: dict[str, list[str]] = {kept: [], revoked: []}
        with server.client() as client:
            while time.monotonic() - held_since < 15:
                for key in (kept, revoked):
                    headers, body = store_request(key, event := sentry_event())
                    answer = httpx.post(server.url + store_path(project["id"]), headers=headers, content=body)
                    assert answer.status_code == 200, answer.text
                    accepted[key].append(event["event_id"])
                assert client.get("/version").status_code == 200
                assert client.get(f"/projects/{project['id']}").status_code == 200
                time.sleep(0.2)
        # Another process revokes the second key in the very transaction that held the lock: its events,
        # accepted before the revocation could reach the collector, are dropped at digest and counted.
        holder.execute("UPDATE error_tracking_client_keys SET active = 0 WHERE public_key = ?", (revoked,))
        holder.execute("COMMIT")
        holder.close()
        wait_until_stored(server, project["id"], set(accepted[kept]))
        server.wait_for_digest()
        assert_exactly_the_accepted(stored_event_ids(database_url(server), project["id"]), accepted[kept])
        assert ingestion(server)["dropped"] == {"key_revoked": len(accepted[revoked])}
        time.sleep(1.0)
        assert send_one(server, revoked, project["id"]).status_code == 404
    finally:
        server.stop()


# The write lock the test holds may outlast a background worker's wait on a loaded machine, which it reports
# as an outage, and its end, as in the write-lock test above.
@pytest.mark.expected_log(
    r"the database is unreachable",
    r"the database is reachable again",
    r"works again after \d+ failures",
)
@pytest.mark.skipif(ON_POSTGRES, reason="holds SQLite's write lock to keep digest from draining the spool")
def test_a_full_spool_answers_429_with_retry_after_and_accepts_again_once_drained(tmp_path):
    server = launch_server(tmp_path / "server", extra_env={"OUTPOST_ERROR_TRACKING_SPOOL_MAX_BYTES": "5000"})
    try:
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])["public_key"]
        holder = sqlite3.connect(server.data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")
        answers = [send_one(server, key, project["id"]) for _ in range(40)]
        statuses = [answer.status_code for answer in answers]
        assert 200 in statuses and 429 in statuses, statuses
        # Once full, everything after is refused until the spool drains.
        assert statuses[statuses.index(429):] == [429] * (len(statuses) - statuses.index(429))
        refusal = answers[-1]
        assert refusal.json() == {"message": "429 Too Many Requests"}
        assert refusal.headers["Retry-After"].isdigit()
        assert refusal.headers["X-Sentry-Rate-Limits"] == f"{refusal.headers['Retry-After']}::organization"
        holder.execute("ROLLBACK")
        holder.close()
        server.wait_for_digest()
        time.sleep(0.6)  # the writer reads the spool's backlog again at most every half second
        assert send_one(server, key, project["id"]).status_code == 200
        server.wait_for_digest()
        accepted = [answer.json()["id"] for answer in answers if answer.status_code == 200]
        stored = stored_event_ids(database_url(server), project["id"])
        assert len(stored) == len(accepted) + 1 and set(accepted) <= set(stored)
        assert ingestion(server)["refused"]["queue_full"] == statuses.count(429)
    finally:
        server.stop()

"""The ingestion pipeline seen from outside: sealed spool, scrubbed store, revocation, metrics, status."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.support import REPO_ROOT, ApiHelper, RunningServer, start_server

from .conftest import make_tracked_project, server_sessionmaker

ON_POSTGRES = bool(os.environ.get("OUTPOST_TEST_PG_ADMIN_URL"))


def post_event(server: RunningServer, project_id: int, public_key: str, event: dict) -> httpx.Response:
    return httpx.post(f"{server.url}/api/v4/error_tracking/collector/api/{project_id}/store/",
                      content=json.dumps(event), timeout=30,
                      headers={"X-Sentry-Auth": f"Sentry sentry_key={public_key}, sentry_version=7",
                               "Content-Type": "application/json"})


def files_holding(directory: Path, needles: list[bytes]) -> dict[str, list[bytes]]:
    """Every file under `directory` (databases, their WAL and shared memory, logs) with the needles it holds."""
    found = {}
    for path in directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            held = [needle for needle in needles if needle in data]
            if held:
                found[path.name] = held
    return found


def test_secrets_reach_no_file_neither_queued_nor_stored(tmp_path):
    password, bearer, cookie = (f"{name}-{secrets.token_hex(12)}" for name in ("pw", "bearer", "cookie"))
    needles = [password.encode(), bearer.encode(), cookie.encode()]
    with start_server(tmp_path / "server") as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        event = {
            "event_id": uuid.uuid4().hex, "message": "login failed", "level": "error",
            "extra": {"password": password},
            "request": {"url": "https://shop.example.com/login", "method": "POST",
                        "headers": {"Authorization": f"Bearer {bearer}", "Cookie": f"sessionid={cookie}"}},
        }
        holder = None
        if not ON_POSTGRES:
            # Keeps the digest from storing it, so the spool is seen holding the request.
            holder = sqlite3.connect(server.data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
            holder.execute("BEGIN IMMEDIATE")
        assert post_event(server, tracked.id, tracked.public_key, event).status_code == 200
        if holder is not None:
            queued = server.data_dir / "ingest-spool.sqlite3"
            assert queued.exists()
            assert files_holding(server.data_dir, needles) == {}
            holder.execute("ROLLBACK")
            holder.close()
        server.wait_for_digest()
        [error] = tracked.errors()
        payload = tracked.latest_payload(error)
        assert payload is not None
        assert payload["extra"]["password"] == "[Filtered]"
        assert payload["request"]["headers"] == {"Authorization": "[Filtered]", "Cookie": "[Filtered]"}
        assert files_holding(server.data_dir, needles) == {}


def test_a_deleted_key_is_refused_by_every_worker_within_a_second(tmp_path):
    with start_server(tmp_path / "server", extra_env={"OUTPOST_WORKERS": "2"}) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        event = {"message": "before"}
        # Both workers have admitted the key (each connection may land on either).
        for _ in range(20):
            assert post_event(server, tracked.id, tracked.public_key, {**event, "event_id": uuid.uuid4().hex}
                              ).status_code == 200
        with server.client() as client:
            [key] = client.get(f"/projects/{tracked.id}/error_tracking/client_keys").json()
            assert client.delete(f"/projects/{tracked.id}/error_tracking/client_keys/{key['id']}").status_code == 200
        time.sleep(1.0)
        statuses = {post_event(server, tracked.id, tracked.public_key, {**event, "event_id": uuid.uuid4().hex}
                               ).status_code for _ in range(20)}
        assert statuses == {404}


def test_metrics_are_served_to_allowed_addresses_and_administrators_only(tmp_path):
    with start_server(tmp_path / "server", extra_env={"OUTPOST_METRICS_ALLOWED_IPS": "192.0.2.0/24"}) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        for _ in range(3):
            assert post_event(server, tracked.id, tracked.public_key, {"event_id": uuid.uuid4().hex}).status_code \
                == 200
        server.wait_for_digest()
        user, token = ApiHelper(server).user()
        anonymous = httpx.get(f"{server.url}/-/metrics")
        # 403, so a refused address is told apart from a wrong metrics_path (404).
        assert (anonymous.status_code, anonymous.json()) == (403, {"message": "403 Forbidden"})
        assert httpx.get(f"{server.url}/-/metrics", headers={"PRIVATE-TOKEN": token}).status_code == 403
        assert httpx.get(f"{server.url}/-/metric").status_code == 404
        answer = httpx.get(f"{server.url}/-/metrics", headers={"PRIVATE-TOKEN": server.root_token})
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
        lines = dict(line.rsplit(" ", 1) for line in answer.text.splitlines() if not line.startswith("#"))
        assert float(lines["outpost_ingest_accepted_total"]) == 3
        assert float(lines['outpost_ingest_digested_total{kind="events"}']) == 3
        assert float(lines["outpost_ingest_queue_entries"]) == 0
        assert float(lines["outpost_ingest_digest_batch_size_count"]) >= 1
        assert float(lines["outpost_ingest_lag_seconds_count"]) == 3
        unknown = post_event(server, tracked.id, "0" * 32, {"event_id": uuid.uuid4().hex})
        invalid = httpx.post(f"{server.url}/api/v4/error_tracking/collector/api/{tracked.id}/store/",
                             params={"sentry_key": tracked.public_key}, content=b"{not json")
        assert (unknown.status_code, invalid.status_code) == (404, 400)
        time.sleep(1.5)  # refusals without a commit after them are written within a second
        with server.client() as client:
            refused = client.get("/error_tracking/ingestion").json()["refused"]
        assert refused == {"unknown_key_or_project": 1, "invalid": 1}
        with server.client(token) as as_user:
            assert as_user.get("/error_tracking/ingestion").status_code == 403
        status = subprocess.run([sys.executable, "-m", "outpost_server", "status", "--data-dir", str(server.data_dir)],
                                capture_output=True, text=True, cwd=REPO_ROOT, env=server.env, check=True).stdout
        assert "Accepted:  3" in status and "Digested:  3 events" in status


@pytest.mark.expected_log(
    r"the database is unreachable",
    r"the database is reachable again",
    r"works again after \d+ failures",
    r"the digest stage was still storing a batch when the shutdown grace ended",
)
@pytest.mark.skipif(ON_POSTGRES, reason="a held SQLite lock keeps the digest waiting")
def test_sigterm_drains_the_spool_within_the_grace_and_the_rest_is_digested_at_the_next_start(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir, extra_env={"OUTPOST_SHUTDOWN_GRACE_SECONDS": "2"}) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        holder = sqlite3.connect(data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")
        ids = [uuid.uuid4().hex for _ in range(10)]
        for event_id in ids:
            assert post_event(server, tracked.id, tracked.public_key, {"event_id": event_id}).status_code == 200
        stopping = time.monotonic()
        server.process.terminate()
        assert server.process.wait(timeout=30) == 0
        # The grace ran out with the database locked: the entries stayed in the spool.
        assert time.monotonic() - stopping < 20
        holder.execute("ROLLBACK")
        holder.close()
        token = server.root_token
    with start_server(data_dir, root_token=token) as restarted:
        restarted.wait_for_digest()
        tracked.server, tracked.sessions = restarted, server_sessionmaker(restarted)
        assert sum(error.count for error in tracked.errors()) == len(ids)


@pytest.mark.skipif(ON_POSTGRES, reason="holds SQLite's write lock to keep the entry in the spool")
def test_a_batch_read_again_after_a_crash_stores_nothing_twice_sessions_included(tmp_path):
    data_dir = tmp_path / "server"
    session = json.dumps({"sid": uuid.uuid4().hex, "status": "crashed", "started": "2026-11-22T02:00:00Z",
                          "attrs": {"release": "shop@2.0", "environment": "production"}})
    aggregate = json.dumps({"attrs": {"release": "shop@2.0", "environment": "production"},
                            "aggregates": [{"started": "2026-11-22T02:00:00Z", "exited": 5, "crashed": 1}]})
    envelope = f'{{}}\n{{"type":"session"}}\n{session}\n{{"type":"sessions"}}\n{aggregate}\n'
    with start_server(data_dir) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        holder = sqlite3.connect(data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")
        answer = httpx.post(f"{server.url}/api/v4/error_tracking/collector/api/{tracked.id}/envelope/",
                            params={"sentry_key": tracked.public_key}, content=envelope)
        assert answer.status_code == 200
        spool = sqlite3.connect(data_dir / "ingest-spool.sqlite3")
        queued = spool.execute("SELECT * FROM entries").fetchall()
        assert len(queued) == 1
        holder.execute("ROLLBACK")
        holder.close()
        server.wait_for_digest()
        health = tracked.release_health()
        token = server.root_token
    # As if the server had died between storing the batch and removing it from the spool.
    spool.execute(f"INSERT INTO entries VALUES ({', '.join('?' * len(queued[0]))})", queued[0])
    spool.execute("UPDATE counters SET value = value + 1 WHERE name = 'queue_entries'")
    spool.execute("UPDATE counters SET value = value + ? WHERE name = 'queue_bytes'", (len(queued[0][-1]),))
    spool.commit()
    spool.close()
    with start_server(data_dir, root_token=token) as restarted:
        restarted.wait_for_digest()
        tracked.server, tracked.sessions = restarted, server_sessionmaker(restarted)
        assert tracked.release_health() == health
    assert health, "the sessions were stored once"

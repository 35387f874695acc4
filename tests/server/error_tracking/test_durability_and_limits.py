"""Private servers: "200 means durable" across kill -9, and the optional per-project rate limit."""

from __future__ import annotations

import json
import signal
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.support import start_server, start_well_inside

from .conftest import make_tracked_project, server_sessionmaker


def store(client: httpx.Client, tracked, event_id: str, group: int) -> httpx.Response:
    event = {"event_id": event_id, "platform": "python",
             "exception": {"values": [{"type": f"Error{group}", "value": "boom"}]}}
    return client.post(tracked.collector_path("store"), content=json.dumps(event),
                       headers={"X-Sentry-Auth": f"Sentry sentry_key={tracked.public_key}"})


def test_every_acknowledged_event_survives_kill_9(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        event_ids = [uuid.uuid4().hex for _ in range(300)]
        with httpx.Client(base_url=server.url, timeout=30) as client, ThreadPoolExecutor(16) as pool:
            responses = list(pool.map(lambda pair: store(client, tracked, pair[1], pair[0] % 7), enumerate(event_ids)))
        acknowledged = [response.json()["id"] for response in responses if response.status_code == 200]
        assert len(acknowledged) == len(event_ids)
        server.stop(signal.SIGKILL)
        env = {name: value for name, value in server.env.items() if name.startswith("OUTPOST_")}
    with start_server(data_dir, root_token=server.root_token, extra_env=env) as restarted:
        sessions = server_sessionmaker(restarted)
        tracked.sessions = sessions
        tracked.server = restarted
        errors = tracked.errors()
        assert sum(error.count for error in errors) == len(acknowledged)
        assert len(errors) == 7
        # Sending them all again after the restart stores nothing twice.
        with httpx.Client(base_url=restarted.url, timeout=30) as client:
            assert all(store(client, tracked, event_id, 0).status_code == 200 for event_id in acknowledged[:50])
        assert sum(error.count for error in tracked.errors()) == len(acknowledged)


def test_per_project_rate_limit(tmp_path):
    with start_server(tmp_path / "server", extra_env={"OUTPOST_ERROR_TRACKING_RATE_LIMIT_PER_MINUTE": "3"}) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        other = make_tracked_project(server, server_sessionmaker(server))
        start_well_inside(60, margin=10)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            statuses = [store(client, tracked, uuid.uuid4().hex, 0).status_code for _ in range(3)]
            assert statuses == [200, 200, 200]
            limited = store(client, tracked, uuid.uuid4().hex, 0)
            assert limited.status_code == 429
            assert limited.json() == {"message": "429 Too Many Requests"}
            retry_after = int(limited.headers["Retry-After"])
            assert 1 <= retry_after <= 60
            assert limited.headers["X-Sentry-Rate-Limits"] == f"{retry_after}:error;default;monitor:project"
            # A browser page may read the refusal: the CORS headers expose Retry-After and the limits.
            from_page = client.post(tracked.collector_path("store"), params={"sentry_key": tracked.public_key},
                                    content=json.dumps({"message": "from a page"}),
                                    headers={"Origin": "http://127.0.0.1:8123", "Content-Type": "text/plain"})
            assert (from_page.status_code, from_page.headers["Access-Control-Allow-Origin"]) == (
                429, "http://127.0.0.1:8123")
            assert {"retry-after", "x-sentry-rate-limits"} <= {
                name.strip() for name in from_page.headers["Access-Control-Expose-Headers"].split(",")}
            # The limit is per project, and sessions still go through.
            assert store(client, other, uuid.uuid4().hex, 0).status_code == 200
            session = json.dumps({"sid": "s1", "status": "exited", "started": "2026-11-22T02:00:00Z",
                                  "attrs": {"release": "r1"}})
            response = client.post(tracked.collector_path("envelope"), content=f'{{}}\n{{"type":"session"}}\n{session}',
                                   params={"sentry_key": tracked.public_key})
            assert (response.status_code, response.json()) == (200, {})
        assert sum(error.count for error in tracked.errors()) == 3


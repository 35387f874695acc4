"""The pipeline's counters reconcile: every accepted request is either digested (`digested_total{kind=
"requests"}`), dropped, or still queued, whatever it carried (an event, sessions alone, a check-in), and
check-ins are counted as a digested kind of their own."""

from __future__ import annotations

import json
import uuid

import httpx

from tests.support import start_server

from .conftest import make_tracked_project, server_sessionmaker
from .test_pipeline import post_event


def _envelope(server, tracked, *items: tuple[str, dict]) -> int:
    body = b"{}\n" + b"".join(json.dumps({"type": kind}).encode() + b"\n" + json.dumps(payload).encode() + b"\n"
                              for kind, payload in items)
    return httpx.post(f"{server.url}/api/v4/error_tracking/collector/api/{tracked.id}/envelope/", content=body,
                      headers={"X-Sentry-Auth": f"Sentry sentry_key={tracked.public_key}, sentry_version=7"},
                      timeout=30).status_code


def test_accepted_requests_are_digested_dropped_or_queued_whatever_they_carry(tmp_path):
    with start_server(tmp_path / "server") as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        assert post_event(server, tracked.id, tracked.public_key,
                          {"event_id": uuid.uuid4().hex, "message": "counted"}).status_code == 200
        session = {"sid": uuid.uuid4().hex, "init": True, "started": "2026-11-22T02:00:00Z", "status": "ok",
                   "attrs": {"release": "shop@1.0.0"}}
        assert _envelope(server, tracked, ("session", session)) == 200
        check_in = {"check_in_id": uuid.uuid4().hex, "monitor_slug": "counted-job", "status": "ok"}
        assert _envelope(server, tracked, ("check_in", check_in)) == 200
        server.wait_for_digest()
        with server.client() as client:
            figures = client.get("/error_tracking/ingestion").json()
    digested, dropped = figures["digested"], figures["dropped"]
    assert (figures["accepted"], figures["queue"]["entries"]) == (3, 0)
    assert digested["requests"] + sum(dropped.values()) == figures["accepted"]
    assert (digested["events"], digested["sessions"], digested["check_ins"]) == (1, 1, 1)

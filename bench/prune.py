"""Pruning benchmark: how much a pruning pass holds up ingestion, against the same load without one.

    .venv/bin/python -m bench.prune [--backlog 30000] [--database-url URL]

Loopback only and bounded. A fresh server gets a backlog of events in one error (written straight
into its database, as a busy project would have accumulated them). A single sender then posts one
SDK event at a time for a few seconds while nothing is pruned (the baseline), then again while the
pruner removes the backlog (events_per_error lowered to 10). Reported: latency p50/p99/max of each
phase, the ratio of their p99s, and how fast the pass deleted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import sqlalchemy

from outpost_server.db import make_engine
from outpost_server.error_tracking.digest.batch_store import Accepted, store_batch
from outpost_server.error_tracking.digest.decode import IngestRequest
from outpost_server.error_tracking.digest.normalize import normalize_event
from outpost_server.error_tracking.ingest.dsn import AuthInfo
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.support import ApiHelper, database_url_for, launch_server

PHASE_SECONDS = 6.0


def load_backlog(url: str, project_id: int, count: int) -> None:
    engine = make_engine(url)
    now = dt.datetime.now(dt.timezone.utc)
    with engine.begin() as connection:
        for start in range(0, count, 1000):
            batch = []
            for _ in range(min(1000, count - start)):
                raw = sentry_event(group=1)
                event = normalize_event(raw, received_at=now, raw_payload=json.dumps(raw).encode())
                batch.append(Accepted(project_id, IngestRequest(AuthInfo("bench", None), event.event_id, [event]), now))
            store_batch(connection, batch)
    engine.dispose()


def sender_latencies(client: httpx.Client, project_id: int, public_key: str, *, until) -> list[float]:
    latencies = []
    started = time.monotonic()
    while not until(time.monotonic() - started):
        headers, body = store_request(public_key, sentry_event(group=2, message=uuid.uuid4().hex))
        sent = time.perf_counter()
        response = client.post(store_path(project_id), headers=headers, content=body)
        latencies.append((time.perf_counter() - sent) * 1000)
        assert response.status_code == 200, response.text
    return latencies


def summary(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    return f"{len(ordered)} events, p50 {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms"


def p99(latencies: list[float]) -> float:
    return sorted(latencies)[int(len(latencies) * 0.99) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backlog", type=int, default=30_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        data_dir = Path(scratch)
        env = {"OUTPOST_ERROR_TRACKING_PRUNE_INTERVAL_SECONDS": "0.5", "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR": "0",
               "OUTPOST_ERROR_TRACKING_PROJECT_BYTES": "0", "OUTPOST_LOG_LEVEL": "WARNING"}
        server = launch_server(data_dir, extra_env=env)
        try:
            api = ApiHelper(server)
            project = api.project()
            key = enable_error_tracking(api.root, project["id"])["public_key"]
            url = database_url_for(data_dir) or f"sqlite:///{data_dir / 'outpost.sqlite3'}"
            print(f"loading a backlog of {args.backlog} events into one error…", flush=True)
            load_backlog(url, project["id"], args.backlog)
            retention = f"/projects/{project['id']}/error_tracking/retention"
            with httpx.Client(base_url=server.url, timeout=30) as client:
                baseline = sender_latencies(client, project["id"], key, until=lambda elapsed: elapsed > PHASE_SECONDS)
                api.root.put(retention, json={"events_per_error": 10}).raise_for_status()
                pass_started = time.monotonic()
                engine = sqlalchemy.create_engine(url)

                def pruned(_elapsed: float) -> bool:
                    with engine.connect() as connection:
                        left = connection.scalar(sqlalchemy.text(
                            "SELECT sum(events) FROM error_tracking_error_stored_days WHERE project_id = :p "
                            "GROUP BY error_id ORDER BY 1 DESC LIMIT 1"), {"p": project["id"]})
                    return left <= 10

                during = sender_latencies(client, project["id"], key, until=pruned)
                pass_seconds = time.monotonic() - pass_started
                engine.dispose()
        finally:
            server.stop()
    print(f"without pruning: {summary(baseline)}")
    print(f"while pruning:   {summary(during)}")
    print(f"p99 while pruning / p99 without: {p99(during) / p99(baseline):.2f}x; "
          f"extra p99 {p99(during) - p99(baseline):.1f} ms")
    print(f"the pass deleted {args.backlog - 10} events in {pass_seconds:.1f} s "
          f"({(args.backlog - 10) / pass_seconds:,.0f} events/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Sentry web API benchmark: one error with 100,000 events, its event pages and tag facets.

    .venv/bin/python -m bench.sentry_events [--events 100000] [--repeat 30] [--postgres ADMIN_URL]

A fresh database (SQLite in a temporary directory, or a new PostgreSQL database created through
ADMIN_URL and dropped afterwards) gets one project and one error whose events, event tags, tag value
counts and newest 100 payloads are written straight into it (ingestion has its own benchmark) and, on
PostgreSQL, analysed as autovacuum would have done by the time an error has that many events. The
requests then run through the ASGI app in this process, so the figures are server time, each next to
the baseline measured in the same run: `GET /api/v4/version`, the cheapest authenticated request.
The aim: the first page of events and the tag facets each within 50 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, insert, text

from outpost_server.error_tracking.digest.tag_store import COLUMN_TAGS
from outpost_server.error_tracking.models import (
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorStoredDay,
    ErrorTagValue,
    EventTag,
    ProjectStoredDay,
    TrackedError,
)

AIM_MS = 50
BROWSERS = ["Chrome 120", "Firefox 121", "Safari 17", "Edge 120", "Chrome 119"]
SYSTEMS = ["Windows 11", "macOS 14.2", "Linux 6.1", "iOS 17.2", "Android 14"]
RELEASES = ["shop@1.4.0", "shop@1.3.2", "shop@1.3.1"]
CHUNK = 20_000


def event_payload(number: int, browser: str, system: str) -> dict:
    frames = [{"filename": f"shop/module_{depth}.py", "module": f"shop.module_{depth}", "function": f"step_{depth}",
               "lineno": 10 + depth, "in_app": depth > 2, "pre_context": ["a = 1", "b = 2"],
               "context_line": "return a / 0", "post_context": ["pass"], "vars": {"a": "1", "order": f"{number}"}}
              for depth in range(10)]
    return {"event_id": f"{number:032x}", "platform": "python", "level": "error", "release": RELEASES[0],
            "environment": "production", "exception": {"values": [
                {"type": "ZeroDivisionError", "value": "division by zero", "stacktrace": {"frames": frames},
                 "mechanism": {"type": "django", "handled": False}}]},
            "breadcrumbs": {"values": [{"timestamp": 1_700_000_000 + i, "category": "query", "message": f"SELECT {i}"}
                                       for i in range(20)]},
            "request": {"url": "https://shop.example.com/cart", "method": "GET", "headers": {"User-Agent": browser}},
            "contexts": {"browser": {"name": browser.split()[0], "version": browser.split()[1]},
                         "os": {"name": system.split()[0], "version": system.split()[-1]}},
            "user": {"id": f"user-{number % 1000}"}, "sdk": {"name": "sentry.python", "version": "1.21.0"}}


def seed(database_url: str, project_id: int, events: int) -> int:
    """The error, its events and their tags; returns the error id."""
    engine = create_engine(database_url)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    first = now - dt.timedelta(seconds=events)
    with engine.begin() as connection:
        inserted = connection.execute(insert(TrackedError).values(
            project_id=project_id, fingerprint="f" * 40, title="ZeroDivisionError: division by zero", kind="error",
            exception_type="ZeroDivisionError", culprit="shop.module_9 in step_9", message="division by zero",
            level="error", platform="python", count=events, users_count=1000, first_seen_at=first,
            last_seen_at=now, status="unresolved", regressed=False, first_release=RELEASES[-1],
            last_release=RELEASES[0], last_environment="production", created_at=first,
            updated_at=now)).inserted_primary_key
        assert inserted is not None  # a single-row INSERT always reports its key
        error_id = inserted[0]
        counts: dict[tuple[str, str], list] = {}
        hourly: dict[dt.datetime, int] = {}
        stored_days: dict[dt.datetime, list[int]] = {}  # the storage counters the digest would keep
        event_rows, tag_rows, payloads = [], [], []
        for number in range(events):
            moment = first + dt.timedelta(seconds=number)
            browser, system = BROWSERS[number % 5], SYSTEMS[number % 7 % 5]
            release, user = RELEASES[number % 3], f"id:user-{number % 1000}"
            event_id = f"{number:032x}"
            event_rows.append({"project_id": project_id, "error_id": error_id, "event_id": event_id,
                               "occurred_at": moment, "received_at": moment, "level": "error", "release": release,
                               "environment": "production", "user_key": user})
            tags = [("level", "error"), ("release", release), ("environment", "production"), ("user", user),
                    ("browser", browser), ("browser.name", browser.split()[0]), ("os", system),
                    ("os.name", system.split()[0]), ("server_name", f"web-{number % 12}"), ("handled", "no"),
                    ("mechanism", "django"), ("url", "https://shop.example.com/cart")]
            for key, value in tags:
                if key not in COLUMN_TAGS:
                    tag_rows.append({"error_id": error_id, "event_id": event_id, "key": key, "value": value,
                                     "received_at": moment})
                seen = counts.setdefault((key, value), [0, moment, moment])
                seen[0] += 1
                seen[2] = moment
            hour = moment.replace(minute=0, second=0)
            hourly[hour] = hourly.get(hour, 0) + 1
            stored = stored_days.setdefault(hour.replace(hour=0), [0, 0])
            stored[0] += 1
            if number >= events - 100:
                payloads.append({"error_id": error_id, "event_id": event_id, "received_at": moment,
                                 "payload": json.dumps(event_payload(number, browser, system)).encode()})
                stored[1] += len(payloads[-1]["payload"])
            if len(tag_rows) >= CHUNK:
                connection.execute(insert(EventTag), tag_rows)
                tag_rows = []
            if len(event_rows) >= CHUNK:
                connection.execute(insert(ErrorEvent), event_rows)
                event_rows = []
        for rows, table in ((event_rows, ErrorEvent), (tag_rows, EventTag), (payloads, ErrorEventPayload)):
            if rows:
                connection.execute(insert(table), rows)
        connection.execute(insert(ErrorHourlyCount), [{"error_id": error_id, "hour": hour, "count": count}
                                                      for hour, count in hourly.items()])
        for counter, owner in ((ErrorStoredDay, {"error_id": error_id, "project_id": project_id}),
                               (ProjectStoredDay, {"project_id": project_id})):
            connection.execute(insert(counter), [{**owner, "received_day": day, "events": count, "bytes": size}
                                               for day, (count, size) in stored_days.items()])
        connection.execute(insert(ErrorTagValue), [
            {"error_id": error_id, "key": key, "value": value, "times_seen": times, "first_seen_at": low,
             "last_seen_at": high} for (key, value), (times, low, high) in counts.items()])
    if engine.dialect.name == "postgresql":
        # A live database has planner statistics (autovacuum analyses tables as they grow); a bulk load has none.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE"))
    engine.dispose()
    return error_id


def timed(client, url: str, repeat: int, **params) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url, params=params or None).raise_for_status()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def measure(data_dir: Path, database_url: str, events: int, repeat: int) -> tuple[dict[str, list[float]], float]:
    from fastapi.testclient import TestClient

    from outpost_server.app import create_app
    from outpost_server.config import ServerConfig

    token = "glpat-bench-" + uuid.uuid4().hex
    config = ServerConfig(data_dir=data_dir, database_url=database_url, root_token=token)
    with TestClient(create_app(config), headers={"Authorization": f"Bearer {token}"}) as client:
        project = client.post("/api/v4/projects", json={"name": "storefront"}).json()
        client.put(f"/api/v4/projects/{project['id']}/error_tracking/settings",
                   json={"active": True, "integrated": True}).raise_for_status()
        started = time.perf_counter()
        error_id = seed(database_url, project["id"], events)
        seeding = time.perf_counter() - started
        issue = f"/api/0/issues/{error_id}"
        assert len(client.get(f"{issue}/events/").json()) == 100
        figures = {"baseline: GET /api/v4/version": timed(client, "/api/v4/version", repeat),
                   "events, first page (100)": timed(client, f"{issue}/events/", repeat),
                   "tag facets (top 10 of every key)": timed(client, f"{issue}/tags/", repeat)}
        cursor = None
        for _ in range(50):
            response = client.get(f"{issue}/events/", params={"cursor": cursor} if cursor else None)
            cursor = response.headers["link"].rsplit('cursor="', 1)[1].rstrip('"')
        figures["events, page 51 (cursor)"] = timed(client, f"{issue}/events/", repeat, cursor=cursor)
        figures['events carrying browser:"Safari 17"'] = timed(client, f"{issue}/events/", repeat,
                                                               query='browser:"Safari 17"')
        figures["latest event in full"] = timed(client, f"{issue}/events/latest/", repeat)
        figures["user tag values, first page"] = timed(client, f"{issue}/tags/user/values/", repeat)
        figures["issue details"] = timed(client, f"{issue}/", repeat)
        # The console reads through the project (either backend): the same work plus finding the project.
        through_project = f"/api/0/projects/{project['path_with_namespace']}/issues/{error_id}"
        figures["events, first page, through the project"] = timed(client, f"{through_project}/events/", repeat)
        figures["tag facets, through the project"] = timed(client, f"{through_project}/tags/", repeat)
    return figures, seeding


def fresh_postgres(admin_url: str) -> tuple[str, str]:
    name = "outpost_bench_" + uuid.uuid4().hex[:10]
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin_url.rsplit("/", 1)[0] + "/" + name, name


def drop_postgres(admin_url: str, name: str) -> None:
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


def report(label: str, figures: dict[str, list[float]], seeding: float, events: int) -> bool:
    baseline = statistics.median(figures["baseline: GET /api/v4/version"])
    print(f"\n{label}: one error with {events} events (seeded in {seeding:.1f} s), server time in-process\n")
    print(f"{'what':40} {'median ms':>10} {'p95 ms':>8} {'x baseline':>11}")
    for name, samples in figures.items():
        ordered = sorted(samples)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        median = statistics.median(samples)
        print(f"{name:40} {median:10.1f} {p95:8.1f} {median / baseline:10.1f}x")
    page = statistics.median(figures["events, first page (100)"])
    facets = statistics.median(figures["tag facets (top 10 of every key)"])
    met = page <= AIM_MS and facets <= AIM_MS
    print(f"\naim (<= {AIM_MS} ms each): first page {page:.1f} ms, tag facets {facets:.1f} ms -> "
          f"{'met' if met else 'NOT met'}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--postgres", metavar="ADMIN_URL", help="also run on a fresh PostgreSQL database")
    args = parser.parse_args()
    met = True
    with tempfile.TemporaryDirectory(prefix="outpost-bench-sentry-") as workdir:
        database_url = f"sqlite:///{Path(workdir) / 'outpost.sqlite3'}"
        figures, seeding = measure(Path(workdir), database_url, args.events, args.repeat)
        met &= report("SQLite", figures, seeding, args.events)
    if args.postgres:
        url, name = fresh_postgres(args.postgres)
        try:
            with tempfile.TemporaryDirectory(prefix="outpost-bench-sentry-") as workdir:
                figures, seeding = measure(Path(workdir), url, args.events, args.repeat)
                met &= report("PostgreSQL", figures, seeding, args.events)
        finally:
            drop_postgres(args.postgres, name)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

"""Two replicas on one partitioned PostgreSQL database: an event sent to both is stored once, and their
pruners (one pass at a time between them) drop whole expired days while the aggregates stay exact."""

from __future__ import annotations

import datetime as dt
import threading

import httpx
import pytest

from outpost_server.db import make_engine
from outpost_server.error_tracking.retention import partitions
from tests.e2e.databases import rows, scalar
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.e2e.test_replicas import replicas
from tests.e2e.test_replicas_retention import finished_passes_once_pruned
from tests.server.error_tracking.partitioned_db import accepted, event, pruner_held, store
from tests.support import ApiHelper, RunningServer

pytestmark = pytest.mark.postgres

AGGREGATES = ("SELECT id, count, users_count, first_seen_at, last_seen_at FROM error_tracking_errors "
              "WHERE project_id = :p ORDER BY id",
              "SELECT h.error_id, h.hour, h.count FROM error_tracking_error_hourly_counts h "
              "JOIN error_tracking_errors e ON e.id = h.error_id WHERE e.project_id = :p ORDER BY 1, 2",
              "SELECT v.error_id, v.key, v.value, v.times_seen FROM error_tracking_error_tag_values v "
              "JOIN error_tracking_errors e ON e.id = v.error_id WHERE e.project_id = :p ORDER BY 1, 2, 3")


def _post(server: RunningServer, project_id: int, headers: dict[str, str], body: bytes, codes: list[int]) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        codes.append(client.post(store_path(project_id), headers=headers, content=body).status_code)


def test_replicas_store_an_event_once_and_drop_expired_days_once(tmp_path):
    env = {"OUTPOST_ERROR_TRACKING_PRUNE_INTERVAL_SECONDS": "1", "OUTPOST_ERROR_TRACKING_RETENTION_DAYS": "5",
           "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR": "0", "OUTPOST_ERROR_TRACKING_PROJECT_BYTES": "0"}
    with replicas(tmp_path, env) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])["public_key"]
        url = a.env["OUTPOST_DATABASE_URL"]
        # The same event (an SDK retrying through the load balancer) reaches both replicas at once.
        raw = sentry_event(group=1)
        headers, body = store_request(key, raw)
        codes: list[int] = []
        senders = [threading.Thread(target=_post, args=(server, project["id"], headers, body, codes))
                   for server in (a, b)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        assert codes == [200, 200]
        for server in (a, b):
            server.wait_for_digest()
        assert scalar(url, "SELECT count(*) FROM error_tracking_error_events WHERE event_id = :e",
                      e=raw["event_id"]) == 1

        # Events received 8 and 9 days ago (a replica's spool digested late, or a restored backup): no
        # partition exists for those days, so they wait in the DEFAULT one until a pass moves and drops them.
        # They are written while the test holds the pruning lease, so no pass is midway (it would delete
        # them row by row from the DEFAULT partition, rightly, but this test is about dropping days).
        engine = make_engine(url)
        now = dt.datetime.now(dt.timezone.utc)
        old = [(now - dt.timedelta(days=days)).replace(hour=12, minute=n) for days in (8, 9) for n in range(6)]
        with pruner_held(engine):
            store(engine, [accepted(project["id"], event(group=n % 3, number=n, moment=moment), moment)
                           for n, moment in enumerate(old)])
        engine.dispose()
        before = [rows(url, sql, p=project["id"]) for sql in AGGREGATES]
        finished = finished_passes_once_pruned(url, project["id"], kept=1)
        tables = {name for (name,) in rows(url, "SELECT relname FROM pg_class WHERE relname LIKE :p",
                                           p=partitions.EVENTS + "_p%")}
        logs = a.log_text() + b.log_text()
    assert sum(run[3] for run in finished) == len(old)
    for days in (8, 9):
        day = (now - dt.timedelta(days=days)).date()
        assert partitions.partition_name(partitions.EVENTS, day) not in tables
        # Moved out of the DEFAULT partition into its own day, then dropped whole (no row deletes).
        assert f"dropped the partitions of {day}: 6 events" in logs
    assert partitions.partition_name(partitions.EVENTS, now.date()) in tables
    assert [rows(url, sql, p=project["id"]) for sql in AGGREGATES] == before
    assert scalar(url, "SELECT sum(count) FROM error_tracking_errors WHERE project_id = :p",
                  p=project["id"]) == 1 + len(old)
    assert scalar(url, f"SELECT sum(events) FROM {partitions.PROJECT_DAYS} WHERE project_id = :p",
                  p=project["id"]) == 1
    assert scalar(url, f"SELECT count(*) FROM {partitions.KEYS} WHERE project_id = :p", p=project["id"]) == 1

"""Retention limits: the API, the background pruner, `outpost-server prune`, and aggregates that stay true."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time

import httpx
import pytest
import sqlalchemy

from outpost_server.db import make_engine, make_sessionmaker, utcnow
from outpost_server.error_tracking.retention import partitions
from outpost_server.error_tracking.retention.limits import RetentionPolicy
from tests.e2e.databases import database_url, rows, scalar
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.server.error_tracking.partitioned_db import accepted, pruner_held, store
from tests.server.error_tracking.stored_counters import kept, recount
from tests.support import REPO_ROOT, ApiHelper, RunningServer, start_server

WAIT_SECONDS = 60


@pytest.fixture(scope="module")
def pruning_server(tmp_path_factory):
    """A server that prunes every half second, with instance defaults small enough to test."""
    env = {"OUTPOST_ERROR_TRACKING_PRUNE_INTERVAL_SECONDS": "0.5",
           "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR": "0", "OUTPOST_ERROR_TRACKING_PROJECT_BYTES": "0"}
    with start_server(tmp_path_factory.mktemp("pruning"), extra_env=env) as server:
        yield server


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory):
    """A server that never prunes by itself, so `outpost-server prune` decides what goes."""
    env = {"OUTPOST_ERROR_TRACKING_PRUNER": "false", "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR": "0",
           "OUTPOST_ERROR_TRACKING_PROJECT_BYTES": "0"}
    with start_server(tmp_path_factory.mktemp("idle"), extra_env=env) as server:
        yield server


class Project:
    def __init__(self, server: RunningServer):
        self.server = server
        self.api = server.client()
        created = ApiHelper(server).project()
        self.id, self.full_path = created["id"], created["path_with_namespace"]
        self.public_key = enable_error_tracking(self.api, self.id)["public_key"]
        self.collector = httpx.Client(base_url=server.url, timeout=30)
        self.db = database_url(server)

    def send(self, count: int, *, group: int = 0, user_prefix: str = "user") -> list[str]:
        sent = []
        for index in range(count):
            event = sentry_event(group=group, message=f"failure {index}")
            event["user"] = {"id": f"{user_prefix}-{index}"}
            event["tags"] = {"shard": str(index % 3)}
            headers, body = store_request(self.public_key, event)
            response = self.collector.post(store_path(self.id), headers=headers, content=body)
            assert response.status_code == 200, response.text
            sent.append(event["event_id"])
        self.server.wait_for_digest()
        return sent

    def retention(self) -> dict:
        response = self.api.get(f"/projects/{self.id}/error_tracking/retention")
        assert response.status_code == 200, response.text
        return response.json()

    def set_retention(self, **limits) -> dict:
        response = self.api.put(f"/projects/{self.id}/error_tracking/retention", json=limits)
        assert response.status_code == 200, response.text
        return response.json()

    def wait_for_stored(self, expected: int) -> dict:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            body = self.retention()
            if body["stored_events"] == expected or time.monotonic() > deadline:
                assert body["stored_events"] == expected, body
                return body
            time.sleep(0.2)

    def error_details(self) -> list[dict]:
        """Every error of the project as the web JSON routes show it (list entry and details)."""
        listed = self.api.get(f"{self.server.url}/{self.full_path}/-/error_tracking.json").json()["errors"]
        return [{"listed": error, "details": self.api.get(
            f"{self.server.url}/{self.full_path}/-/error_tracking/{error['id']}/details.json").json()["error"]}
            for error in listed]

    def stored_event_ids(self) -> list[str]:
        return [row[0] for row in rows(self.db, "SELECT event_id FROM error_tracking_error_events "
                                                "WHERE project_id = :p ORDER BY id", p=self.id)]

    def hourly_total(self) -> int:
        return int(scalar(self.db, "SELECT coalesce(sum(h.count), 0) FROM error_tracking_error_hourly_counts h "
                                   "JOIN error_tracking_errors e ON e.id = h.error_id WHERE e.project_id = :p",
                          p=self.id))


def test_retention_api_shows_instance_defaults_and_project_overrides(idle_server):
    project = Project(idle_server)
    body = project.retention()
    assert body["instance_defaults"] == {"retention_days": 90, "events_per_error": 0, "max_stored_bytes": 0}
    assert (body["retention_days"], body["events_per_error"], body["overridden"]) == (90, 0, [])
    assert (body["stored_events"], body["stored_bytes"]) == (0, 0)

    changed = project.set_retention(events_per_error=250, max_stored_bytes=5 * 1024**3)
    assert (changed["events_per_error"], changed["max_stored_bytes"]) == (250, 5 * 1024**3)
    assert changed["overridden"] == ["events_per_error", "max_stored_bytes"]
    back = project.set_retention(events_per_error="")
    assert (back["events_per_error"], back["overridden"]) == (0, ["max_stored_bytes"])

    project.send(3)
    used = project.retention()
    assert used["stored_events"] == 3 and used["stored_bytes"] > 0


@pytest.mark.parametrize(("params", "error"), [
    ({"retention_days": "soon"}, "retention_days is invalid"),
    ({"events_per_error": -1}, "events_per_error is invalid"),
    ({"max_stored_bytes": 2**70}, "max_stored_bytes is invalid"),
    # Days and event counts are INTEGER columns: beyond them is as invalid as a word (a 500 on PostgreSQL once).
    ({"retention_days": 2**31}, "retention_days is invalid"),
    ({"events_per_error": 103234253785}, "events_per_error is invalid"),
    ({}, "retention_days, events_per_error, max_stored_bytes are missing, at least one parameter must be provided"),
])
def test_retention_api_refuses_bad_limits_and_changes_nothing(idle_server, params, error):
    project = Project(idle_server)
    response = project.api.put(f"/projects/{project.id}/error_tracking/retention", json=params)
    assert (response.status_code, response.json()) == (400, {"error": error})
    assert project.retention()["overridden"] == []


def test_retention_api_needs_maintainer(idle_server):
    helper = ApiHelper(idle_server)
    project, tokens = helper.project_with_roles({"developer": 30, "maintainer": 40})
    _, stranger = helper.user()
    path = f"/projects/{project['id']}/error_tracking/retention"
    assert idle_server.client(tokens["maintainer"]).get(path).status_code == 200
    assert idle_server.client(tokens["developer"]).get(path).json() == {"message": "403 Forbidden"}
    assert idle_server.client(stranger).put(path, json={"retention_days": 1}).json() == \
        {"message": "404 Project Not Found"}


def test_per_error_limit_keeps_the_first_and_latest_events_and_the_aggregates(pruning_server):
    project = Project(pruning_server)
    sent = project.send(12, group=1)
    other = project.send(2, group=2, user_prefix="other")
    before = project.error_details()

    project.set_retention(events_per_error=4)
    project.wait_for_stored(4 + 2)

    assert project.stored_event_ids() == [sent[0], *sent[-3:], *other]
    assert project.error_details() == before
    assert project.hourly_total() == 14
    stored = scalar(project.db, "SELECT sum(events) FROM error_tracking_error_stored_days WHERE project_id = :p "
                                "GROUP BY error_id ORDER BY 1 DESC LIMIT 1", p=project.id)
    assert stored == 4
    # The pruned events' tags go with them; the tag value counts, aggregates, stay.
    tagged = scalar(project.db, "SELECT count(DISTINCT t.event_id) FROM error_tracking_event_tags t JOIN "
                                "error_tracking_errors e ON e.id = t.error_id WHERE e.project_id = :p", p=project.id)
    assert tagged == 4 + 2
    for key in ("level", "shard"):
        seen = scalar(project.db, "SELECT sum(v.times_seen) FROM error_tracking_error_tag_values v JOIN "
                                  "error_tracking_errors e ON e.id = v.error_id WHERE e.project_id = :p "
                                  "AND v.key = :k", p=project.id, k=key)
        assert seen == 14


def test_events_older_than_the_retention_period_go(pruning_server):
    project = Project(pruning_server)
    # Received 31 days ago (a spool digested late, a restored backup), stored as the digest stores them,
    # with no pruning pass midway. On PostgreSQL they land in the DEFAULT partition; the pass's upkeep
    # moving them into their day's partition runs here too, before any read: a read planned while a
    # day is attached may miss the rows just moved (PostgreSQL plans and executes with two snapshots).
    long_ago = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=31)
    old_events = [sentry_event(group=3, message=f"failure {index}") for index in range(5)]
    engine = make_engine(project.db)
    with pruner_held(engine):
        store(engine, [accepted(project.id, raw, long_ago + dt.timedelta(seconds=index))
                       for index, raw in enumerate(old_events)])
        partitions.prepare(make_sessionmaker(engine), today=utcnow().date())
    engine.dispose()
    old = [raw["event_id"] for raw in old_events]
    recent = project.send(3, group=3, user_prefix="recent")
    assert sorted(project.stored_event_ids()) == sorted(old + recent)
    before = project.error_details()

    project.set_retention(retention_days=30)
    project.wait_for_stored(3)

    assert project.stored_event_ids() == recent
    assert project.error_details() == before


def test_disk_budget_removes_the_oldest_events_first(pruning_server):
    project = Project(pruning_server)
    sent = project.send(10, group=4)
    usage = project.retention()
    per_event = usage["stored_bytes"] / usage["stored_events"]
    before = project.error_details()

    project.set_retention(max_stored_bytes=int(per_event * 4.5))
    body = project.wait_for_stored(4)

    assert body["stored_bytes"] <= per_event * 4.5
    # The counters the pass corrected are the payloads' exact size.
    payload_bytes = scalar(project.db, "SELECT sum(length(p.payload)) FROM error_tracking_event_payloads p "
                              "JOIN error_tracking_errors e ON e.id = p.error_id WHERE e.project_id = :p", p=project.id)
    assert body["stored_bytes"] == payload_bytes
    engine = sqlalchemy.create_engine(project.db)
    assert kept(engine) == recount(engine)
    engine.dispose()
    assert project.stored_event_ids() == sent[-4:]
    assert project.error_details() == before


def prune_command(server: RunningServer, *args: str) -> subprocess.CompletedProcess:
    env = {**server.env, "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR": "0", "OUTPOST_ERROR_TRACKING_PROJECT_BYTES": "0"}
    return subprocess.run([sys.executable, "-m", "outpost_server", "prune", *args, "--data-dir", str(server.data_dir)],
                          capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=120)


def test_prune_dry_run_shows_what_would_go_and_deletes_nothing(idle_server):
    project = Project(idle_server)
    project.send(7, group=5)
    project.set_retention(events_per_error=3)

    dry = prune_command(idle_server, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    line = next(line for line in dry.stdout.splitlines() if project.full_path in line)
    assert "over the per-error limit 4 events" in line
    assert project.retention()["stored_events"] == 7

    real = prune_command(idle_server)
    assert real.returncode == 0, real.stderr
    assert f"{project.full_path}: by age 0 events (0 bytes), over the per-error limit 4 events" in real.stdout
    assert project.retention()["stored_events"] == 3
    again = prune_command(idle_server, "--dry-run")
    assert f"{project.full_path}: by age 0 events (0 bytes), over the per-error limit 0 events" in again.stdout


def test_events_arriving_while_pruning_are_stored_and_counted(pruning_server):
    project = Project(pruning_server)
    backlog = project.send(300, group=6)
    project.set_retention(events_per_error=2)
    during = project.send(20, group=7, user_prefix="during")
    project.wait_for_stored(4)
    assert project.stored_event_ids() == [backlog[0], backlog[-1], during[0], during[-1]]
    counts = sorted(error["listed"]["count"] for error in project.error_details())
    assert counts == [20, 300]


def test_a_limit_of_one_event_keeps_the_latest(pruning_server):
    project = Project(pruning_server)
    sent = project.send(5, group=8)
    project.set_retention(events_per_error=1)
    project.wait_for_stored(1)
    assert project.stored_event_ids() == [sent[-1]]


def test_a_retention_longer_than_the_calendar_keeps_everything():
    """The API accepts up to 2^31 - 1 days, more than lie between year 1 and now: such a policy keeps every
    event instead of failing the pruner's pass (the API fuzzer found it)."""
    now = dt.datetime(2026, 11, 26, tzinfo=dt.timezone.utc)
    for days in (2**31 - 1, 740_000):
        assert RetentionPolicy(retention_days=days, events_per_error=0, max_stored_bytes=0).cutoff(now) is None
    assert RetentionPolicy(retention_days=700_000, events_per_error=0, max_stored_bytes=0).cutoff(now) == (
        now - dt.timedelta(days=700_000))

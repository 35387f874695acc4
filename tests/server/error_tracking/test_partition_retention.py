"""PostgreSQL with partitions: an event id is stored once (also by two writers at once), and age-based
retention drops whole days while every aggregate on the errors stays what it was."""

from __future__ import annotations

import datetime as dt
import threading
import time

import sqlalchemy
from sqlalchemy import text

from outpost_server.db import session_scope
from outpost_server.error_tracking.digest.batch_store import store_batch
from outpost_server.error_tracking.models import RetentionOverride
from outpost_server.error_tracking.read import events
from outpost_server.error_tracking.retention import partition_retention, partitions, pruner
from outpost_server.error_tracking.retention.limits import RetentionPolicy
from tests.server.error_tracking.partitioned_db import accepted, event, factory_for, postgres_engine, projects, store
from tests.server.error_tracking.stored_counters import kept, recount

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def count(engine: sqlalchemy.Engine, sql: str, **params) -> int:
    with engine.connect() as connection:
        return int(connection.execute(text(sql), params).scalar() or 0)


def test_an_event_id_sent_twice_is_stored_once(tmp_path):
    engine = postgres_engine(tmp_path)
    [project_id] = projects(factory_for(engine), 1)
    raw = event(group=1, number=1, moment=NOW)
    first = engine.connect()
    transaction = first.begin()
    store_batch(first, [accepted(project_id, raw, NOW)])
    # A second writer (another replica's digest) gets the same event before the first one commits.
    second_done = threading.Event()

    def second_writer() -> None:
        with engine.begin() as connection:
            store_batch(connection, [accepted(project_id, dict(raw), NOW + dt.timedelta(seconds=2))])
        second_done.set()

    thread = threading.Thread(target=second_writer)
    thread.start()
    deadline = time.monotonic() + 30
    while not count(engine, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            "AND datname = current_database()"):
        assert time.monotonic() < deadline, "the second writer never waited for the first"
        assert not second_done.is_set(), "the second writer stored without waiting"
        time.sleep(0.05)
    transaction.commit()
    first.close()
    thread.join(30)
    assert second_done.is_set()
    # Sent again a day later: still known.
    store(engine, [accepted(project_id, dict(raw), NOW + dt.timedelta(days=1))])
    for table in (partitions.EVENTS, partitions.KEYS):
        assert count(engine, f"SELECT count(*) FROM {table} WHERE event_id = :e", e=raw["event_id"]) == 1, table
    assert count(engine, f"SELECT count(*) FROM {partitions.PAYLOADS} WHERE event_id = :e", e=raw["event_id"]) == 1
    assert count(engine, f"SELECT count(*) FROM {partitions.TAGS} WHERE event_id = :e",
                 e=raw["event_id"]) == len(raw["tags"])
    assert count(engine, "SELECT count FROM error_tracking_errors WHERE project_id = :p", p=project_id) == 1


AGGREGATES = {
    "errors": "SELECT id, project_id, count, users_count, first_seen_at, last_seen_at, status, first_release, "
              "last_release FROM error_tracking_errors ORDER BY id",
    "hourly": "SELECT error_id, hour, count FROM error_tracking_error_hourly_counts ORDER BY 1, 2",
    "tag values": "SELECT error_id, key, value, times_seen FROM error_tracking_error_tag_values ORDER BY 1, 2, 3",
    "users": "SELECT error_id, user_key FROM error_tracking_error_users ORDER BY 1, 2",
}


def aggregates(engine: sqlalchemy.Engine) -> dict[str, list[tuple]]:
    with engine.connect() as connection:
        return {name: [tuple(row) for row in connection.execute(text(sql))] for name, sql in AGGREGATES.items()}


def test_retention_drops_expired_days_and_keeps_the_aggregates(tmp_path):
    engine = postgres_engine(tmp_path)
    factory = factory_for(engine)
    default_project, long_project, short_project = projects(factory, 3)
    with session_scope(factory) as session:
        session.add(RetentionOverride(project_id=long_project, retention_days=30))
        session.add(RetentionOverride(project_id=short_project, retention_days=2))
    # Noon of each day, so every event sits well inside its day.
    noon = NOW.replace(hour=12, minute=0, second=0)
    sent = {(default_project, -10): 5, (default_project, -1): 5, (long_project, -12): 4, (long_project, -1): 3,
            (short_project, -3): 4, (short_project, -1): 2, (default_project, -12): 2}
    batch = []
    for (project_id, day), number in sent.items():
        moment = noon + dt.timedelta(days=day)
        batch += [accepted(project_id, event(group=n % 2, number=n, moment=moment), moment) for n in range(number)]
    store(engine, batch)
    before = aggregates(engine)

    owner = "test-pruner"
    with session_scope(factory) as session:
        assert pruner.claim(session, owner=owner, interval_seconds=0, now=NOW, force=True)
    results, _ = pruner.run_pass(factory, owner=owner, unused_bundle_days=0,
                                 defaults=RetentionPolicy(retention_days=5, events_per_error=0, max_stored_bytes=0))

    with engine.connect() as connection:
        days = set(partitions.attached_days(connection))
        assert partitions.default_days(connection) == []
        assert partitions.detached_days(connection) == []
    today = NOW.date()
    # Nothing of the long-retention project on day -10 nor of anyone keeping day -3: both dropped whole.
    assert today - dt.timedelta(days=10) not in days and today - dt.timedelta(days=3) not in days
    # The long-retention project keeps day -12, where the default project's events went by row deletes.
    assert today - dt.timedelta(days=12) in days
    assert set(partitions.days_ahead(today)) <= days
    remaining = {project_id: count(engine, f"SELECT count(*) FROM {partitions.EVENTS} WHERE project_id = :p",
                                   p=project_id) for project_id in (default_project, long_project, short_project)}
    assert remaining == {default_project: 5, long_project: 7, short_project: 2}
    assert aggregates(engine) == before
    # The storage counters stay the exact number and size of what is kept, per error, project and day.
    assert kept(engine) == recount(engine)
    for table in (partitions.PAYLOADS, partitions.KEYS):
        assert count(engine, f"SELECT count(*) FROM {table}") == sum(remaining.values()), table
    assert sum(result.by_age.events for result in results) == 5 + 4 + 2
    assert count(engine, "SELECT events_deleted FROM error_tracking_prune_runs") == 5 + 4 + 2


def test_rows_waiting_in_the_default_partition_move_into_their_own_day(tmp_path):
    engine = postgres_engine(tmp_path)
    factory = factory_for(engine)
    [project_id] = projects(factory, 1)
    today = NOW.date()
    # Received long ago (a restored backup), and beyond the days ahead (a replica's clock running fast).
    days = [today - dt.timedelta(days=40), today + dt.timedelta(days=partitions.DAYS_AHEAD + 2)]
    raws = [event(group=1, number=n, moment=NOW) for n in range(len(days))]
    store(engine, [accepted(project_id, raw, dt.datetime.combine(day, dt.time(12), dt.timezone.utc))
                   for raw, day in zip(raws, days, strict=True)])
    for table in (partitions.EVENTS, partitions.ERROR_DAYS, partitions.PROJECT_DAYS):
        default = partitions.partition_name(table, partitions.DEFAULT)
        assert count(engine, f"SELECT count(*) FROM {default}") == 2, table
    # Two days later the second day is among the days ahead: its rows must move before it can be created.
    created, moved = partitions.prepare(factory, today=today + dt.timedelta(days=2))
    assert moved == 2
    assert set(days) <= set(created)
    for table in partitions.DAY_TABLES:
        assert count(engine, f"SELECT count(*) FROM {partitions.partition_name(table, partitions.DEFAULT)}") == 0
    assert kept(engine) == recount(engine)
    with factory() as session:
        for raw, day in zip(raws, days, strict=True):
            found = events.find_event(session, project_id=project_id, event_id=raw["event_id"])
            assert found is not None and found.received_at.date() == day
            assert events.payloads(session, error_id=found.error_id, event_ids=[found.event_id],
                                   received=[found.received_at])


def test_a_day_dropped_whole_or_deleted_row_by_row_leaves_the_same_aggregates(tmp_path):
    engine = postgres_engine(tmp_path)
    factory = factory_for(engine)
    [project_id] = projects(factory, 1)
    noon = NOW.replace(hour=12, minute=0, second=0)
    moments = [noon - dt.timedelta(days=days, minutes=n) for days in (0, 2, 3) for n in range(20)]
    store(engine, [accepted(project_id, event(group=n % 4, number=n, moment=moment), moment)
                   for n, moment in enumerate(moments)])
    partitions.prepare(factory, today=NOW.date())  # the past days' partitions, out of the DEFAULT one
    before = aggregates(engine)
    dropped = partition_retention.drop_day(factory, (noon - dt.timedelta(days=3)).date())
    assert (dropped.events, list(dropped.by_project)) == (20, [project_id])
    assert partition_retention.delete_day_rows(factory, (noon - dt.timedelta(days=2)).date(), batch=7) == 20
    assert aggregates(engine) == before
    assert count(engine, f"SELECT count(*) FROM {partitions.EVENTS}") == 20
    assert kept(engine) == recount(engine)
    assert sum(events for events, _ in kept(engine)[1].values()) == 20
    for table in (partitions.PAYLOADS, partitions.KEYS):
        assert count(engine, f"SELECT count(*) FROM {table}") == 20, table


def test_a_day_detached_before_the_counters_were_partitioned_is_finished_from_its_rows(tmp_path):
    """A drop cut short by an upgrade across migration 0021: the day's event tables are detached, and
    the counters never had that day's partitions; the next pass still finishes it and reports it."""
    engine = postgres_engine(tmp_path)
    factory = factory_for(engine)
    [project_id] = projects(factory, 1)
    noon = NOW.replace(hour=12, minute=0, second=0)
    day = (noon - dt.timedelta(days=20)).date()
    moments = [noon - dt.timedelta(days=20, minutes=n) for n in range(6)] + [noon - dt.timedelta(minutes=n)
                                                                              for n in range(3)]
    store(engine, [accepted(project_id, event(group=n % 2, number=n, moment=moment), moment)
                   for n, moment in enumerate(moments)])
    partitions.prepare(factory, today=NOW.date())
    with engine.begin() as connection:
        for table in partitions.TABLES:
            partition = partitions.partition_name(table, day)
            connection.execute(text(f'ALTER TABLE "{table}" DETACH PARTITION "{partition}"'))
        for table in (partitions.ERROR_DAYS, partitions.PROJECT_DAYS):
            connection.execute(text(f'DROP TABLE "{partitions.partition_name(table, day)}"'))
    payload_bytes = count(engine, "SELECT sum(length(payload)) FROM "
                                  f'"{partitions.partition_name(partitions.PAYLOADS, day)}"')
    assert payload_bytes > 0
    dropped = partition_retention.drop_expired(factory, defaults=RetentionPolicy(
        retention_days=90, events_per_error=0, max_stored_bytes=0), now=NOW)
    assert [(found.day, found.by_project) for found in dropped] == [(day, {project_id: (6, payload_bytes)})]
    with engine.connect() as connection:
        assert partitions.detached_days(connection) == []
    assert count(engine, f"SELECT count(*) FROM {partitions.KEYS}") == 3
    assert kept(engine) == recount(engine)

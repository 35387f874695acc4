"""PostgreSQL with partitions: every read path's queries, as the services send them, are planned with
index scans, never a sequential scan of an event, payload or tag partition; a query that names an
event id or a time range is planned on its days' partitions only.

The database holds enough events (several days, two projects, a few hundred errors) and is
ANALYZEd, so the planner's choices are the ones it makes on a real table, not on an empty one.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import event as sql_event
from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.error_tracking.models import ErrorEvent, TrackedError
from outpost_server.error_tracking.read import events, integrated, tracked_errors
from outpost_server.error_tracking.read.search import parse_search
from outpost_server.error_tracking.retention import limits, partitions
from tests.server.error_tracking.partitioned_db import (
    accepted,
    event,
    factory_for,
    fill,
    postgres_engine,
    projects,
    store,
)
from tests.server.error_tracking.stored_counters import error_stored_events

PARTITIONED = partitions.DAY_TABLES
DAYS = 6
BURST = 999
NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Iterator[tuple[sqlalchemy.Engine, list[int]]]:
    engine = postgres_engine(tmp_path_factory.mktemp("plans"))
    factory = factory_for(engine)
    project_ids = projects(factory, 2)
    with engine.begin() as connection:
        partitions.create_days(connection, [NOW.date() - dt.timedelta(days=day) for day in range(DAYS + 1)])
    # Filled up to the end of yesterday, so each day's partition holds most of a day whatever the hour the
    # tests run at: a day holding only its last minutes is a page or two, which PostgreSQL rightly reads whole.
    yesterday_end = dt.datetime.combine(NOW.date(), dt.time(), dt.timezone.utc) - dt.timedelta(seconds=1)
    fill(engine, project_ids, days=DAYS, per_day=1_000, groups=150, now=yesterday_end)
    # One error whose events all arrived on one day (most errors are bursts like this one).
    burst = NOW - dt.timedelta(days=2)
    store(engine, [accepted(project_ids[0], event(group=BURST, number=n, moment=burst), burst - dt.timedelta(minutes=n))
                   for n in range(40)])
    with engine.connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    yield engine, project_ids
    engine.dispose()


@contextmanager
def captured(engine: sqlalchemy.Engine) -> Iterator[list[tuple[str, Any]]]:
    statements: list[tuple[str, Any]] = []

    def record(_conn, _cursor, statement, parameters, _context, _executemany):
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append((statement, parameters))

    sql_event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        sql_event.remove(engine, "before_cursor_execute", record)


def plans(engine: sqlalchemy.Engine, read: Callable[[Session], Any]) -> list[tuple[str, dict]]:
    """(statement, JSON plan) of every SELECT `read` sends."""
    with captured(engine) as statements, Session(engine) as session:
        read(session)
    assert statements, "the read sent no query"
    found = []
    with engine.connect() as connection:
        for statement, parameters in statements:
            found.append((statement, explain(connection, statement, parameters)))
    return found


def explain(connection: sqlalchemy.Connection, statement: str, parameters: Any) -> dict:
    plan = connection.exec_driver_sql("EXPLAIN (FORMAT JSON) " + statement, parameters).scalar()
    assert plan is not None
    return (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]


def nodes(plan: dict) -> Iterator[dict]:
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def partitions_scanned(plan: dict, table: str) -> set[str]:
    names = {node.get("Relation Name", "") for node in nodes(plan)}
    return {name for name in names if name.startswith(table + "_p") or name == table + "_default"}


def empty_partitions(engine: sqlalchemy.Engine) -> set[str]:
    """Partitions without a row (the days ahead, the DEFAULT one): reading one costs nothing, and the
    planner rightly scans them whole; every partition holding rows must be read through an index."""
    with engine.connect() as connection:
        names = connection.exec_driver_sql(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = ANY(%(tables)s)",
            {"tables": list(PARTITIONED)}).scalars().all()
        return {name for name in names
                if not connection.exec_driver_sql(f'SELECT EXISTS (SELECT 1 FROM "{name}")').scalar()}


def assert_no_sequential_scan(found: list[tuple[str, dict]], empty: set[str]) -> None:
    assert empty, "no empty partition: the days ahead should have one"
    for statement, plan in found:
        scans = [node["Relation Name"] for node in nodes(plan) if node["Node Type"] == "Seq Scan"
                 and node["Relation Name"].startswith(PARTITIONED) and node["Relation Name"] not in empty]
        assert not scans, f"sequential scan of {scans} in:\n{statement}\n{json.dumps(plan, indent=1)[:4000]}"


def busiest_error(engine: sqlalchemy.Engine, project_id: int) -> TrackedError:
    with Session(engine) as session:
        error = session.scalars(select(TrackedError).where(TrackedError.project_id == project_id)
                                .order_by(TrackedError.count.desc(), TrackedError.id)).first()
        assert error is not None and error_stored_events(engine, error.id) > DAYS
        session.expunge(error)
        return error


def test_the_database_is_partitioned_by_day(filled):
    engine, _ = filled
    with engine.connect() as connection:
        days = partitions.attached_days(connection)
        for table in PARTITIONED:
            assert partitions.attached_days(connection, table) == days
        default_rows = connection.exec_driver_sql(
            f"SELECT count(*) FROM {partitions.partition_name(partitions.EVENTS, 'default')}").scalar()
    assert {NOW.date() - dt.timedelta(days=day) for day in range(DAYS)} <= set(days)
    assert default_rows == 0


@pytest.mark.parametrize("sort", list(integrated.SORT_COLUMNS))
@pytest.mark.parametrize("search", ["", "release:shop@1.1.0", "environment:staging", "checkout_7",
                                    "release:shop@2.0.0 environment:production"])
def test_error_list_first_page(filled, sort, search):
    engine, project_ids = filled
    found = plans(engine, lambda session: integrated.list_errors(
        session, project_id=project_ids[0], status="unresolved", query=parse_search(search), sort=sort, cursor=None))
    assert_no_sequential_scan(found, empty_partitions(engine))


@pytest.mark.parametrize("sort", list(events.ERROR_SORTS))
def test_sentry_issue_list_first_page(filled, sort):
    engine, project_ids = filled

    def read(session: Session) -> None:
        for search in ("release:shop@1.1.0", "environment:staging checkout_7", "is:unresolved"):
            query = parse_search(search)
            events.errors_window(session, project_id=project_ids[1], sort=sort, limit=25,
                                 conditions=integrated.error_filters(project_ids[1], query.status, query))

    assert_no_sequential_scan(plans(engine, read), empty_partitions(engine))


def test_error_details_and_stack_trace(filled):
    engine, project_ids = filled
    error = busiest_error(engine, project_ids[0])

    def read(session: Session) -> None:
        assert tracked_errors.latest_event_payload(session, error=error) is not None
        assert integrated.error_releases(session, error)
        assert tracked_errors.error_events(session, error=error)
        tracked_errors.daily_counts(session, error=error)

    assert_no_sequential_scan(plans(engine, read), empty_partitions(engine))


def test_latest_and_oldest_event_with_neighbours_payload_and_tags(filled):
    engine, project_ids = filled
    error = busiest_error(engine, project_ids[0])

    def read(session: Session) -> None:
        for oldest in (False, True):
            row = events.edge_event(session, error=error, oldest=oldest)
            assert row is not None
            assert events.neighbours(session, event=row) != (None, None)
            assert events.payloads(session, error_id=error.id, event_ids=[row.event_id], received=[row.received_at])
            events.stored_tags(session, error_id=error.id, event_ids=[row.event_id], received=[row.received_at])

    assert_no_sequential_scan(plans(engine, read), empty_partitions(engine))


def test_an_event_page_by_cursor_and_tag_filters(filled):
    engine, project_ids = filled
    error = busiest_error(engine, project_ids[1])
    with Session(engine) as session:
        first = events.events_window(session, error=error, limit=10)
    boundary = first.rows[-1].id

    def read(session: Session) -> None:
        for tags in ({}, {"shard": "1"}, {"browser": "Firefox 101"}, {"release": "shop@1.1.0"},
                     {"environment": "staging", "shard": "2"}):
            for backwards in (False, True):
                window = events.events_window(session, error=error, limit=25, boundary_id=boundary,
                                              backwards=backwards, tags=tags)
                rows = window.rows
                events.stored_tags(session, error_id=error.id, event_ids=[row.event_id for row in rows],
                                   received=[row.received_at for row in rows])

    assert_no_sequential_scan(plans(engine, read), empty_partitions(engine))


def test_tag_facets(filled):
    engine, project_ids = filled
    error = busiest_error(engine, project_ids[0])
    found = plans(engine, lambda session: events.tag_facets(session, error=error))
    assert_no_sequential_scan(found, empty_partitions(engine))


def test_an_event_by_its_id_is_looked_for_in_its_day_only(filled):
    engine, project_ids = filled
    with Session(engine) as session:
        old = session.scalars(select(ErrorEvent).where(ErrorEvent.project_id == project_ids[0])
                              .order_by(ErrorEvent.received_at).limit(1)).one()
        session.expunge(old)
    found = plans(engine, lambda session: events.find_event(session, project_id=project_ids[0],
                                                             event_id=old.event_id))
    assert_no_sequential_scan(found, empty_partitions(engine))
    on_events = [partitions_scanned(plan, partitions.EVENTS) for _, plan in found]
    assert [scanned for scanned in on_events if scanned] == [
        {partitions.partition_name(partitions.EVENTS, old.received_at.astimezone(dt.timezone.utc).date())}]


def test_pruning_by_age_reads_only_the_days_before_the_cutoff(filled):
    engine, project_ids = filled
    cutoff = NOW - dt.timedelta(days=DAYS - 2)
    factory = factory_for(engine)
    with Session(engine) as session:
        project = session.get_one(Project, project_ids[0])
        session.expunge(project)
    policy = limits.RetentionPolicy(retention_days=DAYS - 2, events_per_error=0, max_stored_bytes=0)
    with captured(engine) as statements:
        result = limits.prune_project(factory, project=project, policy=policy, now=NOW, dry_run=True)
    assert result.by_age.events > 0
    with engine.connect() as connection:
        attached = set(partitions.attached_days(connection))
        victim_plans = [explain(connection, statement, parameters)
                        for statement, parameters in statements if "received_at <" in statement]
    assert victim_plans
    expected = {partitions.partition_name(partitions.EVENTS, day) for day in attached
                if partitions.day_range(day)[0] < cutoff} | {partitions.partition_name(partitions.EVENTS, "default")}
    for plan in victim_plans:
        scanned = partitions_scanned(plan, partitions.EVENTS)
        assert scanned and scanned <= expected
        assert len(scanned) < len(attached)


def test_the_reads_of_an_error_search_only_the_days_its_events_arrived_on(filled):
    engine, project_ids = filled
    with Session(engine) as session:
        error = session.scalars(select(TrackedError).where(TrackedError.project_id == project_ids[0],
                                                           TrackedError.title.contains(f"ValueError{BURST}"))).one()
        session.expunge(error)
    day = (NOW - dt.timedelta(days=2)).date()
    assert error_stored_events(engine, error.id) == 40
    assert error.first_received_at.date() == error.last_received_at.date() == day

    def read(session: Session) -> None:
        window = events.events_window(session, error=error, limit=10, tags={"shard": "2"})
        assert window.rows
        events.events_window(session, error=error, limit=10, boundary_id=window.rows[-1].id)
        latest = events.edge_event(session, error=error, oldest=False)
        assert latest is not None
        assert events.neighbours(session, event=latest, error=error)[0] is not None
        assert tracked_errors.latest_event_payload(session, error=error) is not None
        assert tracked_errors.error_events(session, error=error)
        assert integrated.error_releases(session, error)

    found = plans(engine, read)
    assert_no_sequential_scan(found, empty_partitions(engine))
    for table in PARTITIONED:
        scanned = set().union(*(partitions_scanned(plan, table) for _, plan in found))
        assert scanned <= {partitions.partition_name(table, day)}, table
    assert set().union(*(partitions_scanned(plan, partitions.EVENTS) for _, plan in found))


def test_a_page_sends_the_same_statements_whatever_its_size(filled):
    """Pages of 5 and of 12 events send the same statement texts (their ids and received times go as one
    array each), so a server's connection prepares each once and PostgreSQL keeps its plan instead of
    planning every day partition again on each call."""
    engine, project_ids = filled
    error = busiest_error(engine, project_ids[0])

    def texts(limit: int, tags: dict[str, str]) -> list[str]:
        with captured(engine) as statements, Session(engine) as session:
            window = events.events_window(session, error=error, limit=limit, tags=tags)
            rows = window.rows
            assert len(rows) == limit
            events.stored_tags(session, error_id=error.id, event_ids=[row.event_id for row in rows],
                               received=[row.received_at for row in rows])
            events.payloads(session, error_id=error.id, event_ids=[row.event_id for row in rows],
                            received=[row.received_at for row in rows])
        return [statement for statement, _ in statements]

    with Session(engine) as session:
        common = events.tag_values(session, error=error, key="tenant", offset=0, limit=1)[0][0].value
    for tags in ({}, {"tenant": common}):
        assert texts(5, tags) == texts(12, tags)

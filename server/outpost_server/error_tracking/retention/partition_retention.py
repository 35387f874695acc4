"""PostgreSQL: age-based retention by dropping whole day partitions.

A day's partitions (events, tags, payloads) go when no project that still keeps that day has an event
in it: every project's cutoff (its retention_days, else the instance default; no limit keeps all)
has passed the day's end, or the projects keeping it have nothing there. Projects with a shorter
retention than others lose their older events by row deletes as before (retention.py), and the
per-error and per-project byte limits always delete rows.

A drop takes two transactions. The first detaches the day's partitions (events, tags, payloads and
the storage counters), holding the parent tables' lock only for that. The second reads what the day
held per project from its detached counters, forgets its event ids in the key table and drops the
detached tables. The storage counters stay exact without updating any error or project row: the
dropped day's counters went with it. A process that dies between the two leaves the detached tables,
and the next pass finishes them (detached_days).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select, text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import read_only_scope, session_scope
from outpost_server.error_tracking.models import ErrorEvent, RetentionOverride
from outpost_server.error_tracking.retention import partitions
from outpost_server.error_tracking.retention.limits import (
    BATCH,
    ProjectPrune,
    RetentionPolicy,
    delete_victims,
    project_policy,
    select_victims,
)


@dataclass
class DroppedDay:
    day: dt.date
    events: int = 0
    # Per project: (events, payload bytes).
    by_project: dict[int, tuple[int, int]] = field(default_factory=dict)


def cutoffs(connection: Connection, *, defaults: RetentionPolicy, now: dt.datetime) -> dict[int, dt.datetime | None]:
    """Every project's age cutoff (None: kept forever)."""
    overrides = {row.project_id: row for row in connection.execute(select(
        RetentionOverride.project_id, RetentionOverride.retention_days, RetentionOverride.events_per_error,
        RetentionOverride.max_stored_bytes))}
    return {project_id: project_policy(defaults, overrides.get(project_id)).cutoff(now)  # type: ignore[arg-type]
            for project_id in connection.execute(select(Project.id)).scalars()}


def expired_days(connection: Connection, *, defaults: RetentionPolicy, now: dt.datetime) -> list[dt.date]:
    """The attached days that may be dropped now, oldest first (never today's or a later one)."""
    by_project = cutoffs(connection, defaults=defaults, now=now)
    found = []
    for day in partitions.attached_days(connection):
        start, end = partitions.day_range(day)
        if end > now - dt.timedelta(days=1):
            break
        keeping = sorted(project_id for project_id, cutoff in by_project.items() if cutoff is None or cutoff < end)
        if keeping and connection.execute(text(
                f'SELECT EXISTS (SELECT 1 FROM "{partitions.partition_name(partitions.EVENTS, day)}" '
                "WHERE project_id = ANY(:projects))"), {"projects": keeping}).scalar():
            continue
        found.append(day)
    return found


def detach_day(connection: Connection, day: dt.date) -> None:
    """The first transaction of a drop (the caller's): the day's partitions leave their tables."""
    connection.execute(text(f"SET LOCAL lock_timeout = '{partitions.LOCK_TIMEOUT}'"))
    for table in partitions.DAY_TABLES:
        connection.execute(text(f'ALTER TABLE "{table}" DETACH PARTITION "{partitions.partition_name(table, day)}"'))


def finish_day(connection: Connection, day: dt.date) -> DroppedDay:
    """The second transaction (the caller's): what the day held is read, its keys forgotten, its tables dropped."""
    dropped = DroppedDay(day)
    names = {table: partitions.partition_name(table, day) for table in partitions.DAY_TABLES}
    held = _HELD_BY_PROJECT if connection.execute(text("SELECT to_regclass(:name) IS NOT NULL"), {
        "name": names[partitions.PROJECT_DAYS]}).scalar() else _HELD_BY_PROJECT_IN_ROWS
    rows = connection.execute(text(held.format(counters=names[partitions.PROJECT_DAYS],
                                               events=names[partitions.EVENTS], payloads=names[partitions.PAYLOADS])))
    dropped.by_project = {project_id: (int(count), int(size)) for project_id, count, size in rows if count}
    dropped.events = sum(count for count, _ in dropped.by_project.values())
    start, end = partitions.day_range(day)
    connection.execute(text(f"DELETE FROM {partitions.KEYS} WHERE received_at >= :start AND received_at < :end"),
                       {"start": start, "end": end})
    for name in names.values():
        connection.execute(text(f'DROP TABLE IF EXISTS "{name}"'))
    return dropped


# Per project, the events and payload bytes of a detached day: from its counters, or, for a day detached
# before the counters were partitioned (a drop cut short across migration 0021), from its rows.
_HELD_BY_PROJECT = 'SELECT project_id, sum(events), sum(bytes) FROM "{counters}" GROUP BY project_id'
_HELD_BY_PROJECT_IN_ROWS = (
    'SELECT e.project_id, count(*), coalesce(sum(length(p.payload)), 0) FROM "{events}" e '
    'LEFT JOIN "{payloads}" p ON p.error_id = e.error_id AND p.event_id = e.event_id GROUP BY e.project_id')


def drop_day(factory: Callable[[], Session], day: dt.date) -> DroppedDay:
    """Removes one day of events, payloads and tags whole (the pass calls it for expired days)."""
    with session_scope(factory) as session:
        detach_day(session.connection(), day)
    with session_scope(factory) as session:
        return finish_day(session.connection(), day)


def delete_day_rows(factory: Callable[[], Session], day: dt.date, *, batch: int = BATCH) -> int:
    """The same day removed by row deletes instead, batch by batch as the pruner deletes rows (retention.py),
    for comparing with drop_day; the day's empty partitions stay. Returns the events deleted."""
    start, end = partitions.day_range(day)
    deleted = 0
    while True:
        with session_scope(factory) as session:
            victims = select_victims(session, (ErrorEvent.received_at >= start) & (ErrorEvent.received_at < end),
                                     (ErrorEvent.received_at, ErrorEvent.id), batch)
            delete_victims(session, victims)
        deleted += len(victims)
        if len(victims) < batch:
            return deleted


def drop_expired(factory: Callable[[], Session], *, defaults: RetentionPolicy, now: dt.datetime,
                 keep_going: Callable[[], bool] = lambda: True,
                 on_day: Callable[[Session], None] = lambda session: None) -> list[DroppedDay]:
    """The pass's partition retention: unfinished drops first, then every expired day.

    `on_day` runs in each day's second transaction (the pruner renews its lease there).
    """
    with read_only_scope(factory) as session:
        connection = session.connection()
        if not partitions.partitioned(connection):
            return []
        unfinished = partitions.detached_days(connection)
        expired = expired_days(connection, defaults=defaults, now=now)
    dropped = []
    for day in unfinished + expired:
        if not keep_going():
            break
        if day not in unfinished:
            with session_scope(factory) as session:
                detach_day(session.connection(), day)
        with session_scope(factory) as session:
            on_day(session)
            dropped.append(finish_day(session.connection(), day))
    return dropped


def with_dropped(factory: Callable[[], Session], results: list[ProjectPrune], dropped: list[DroppedDay]
                 ) -> list[ProjectPrune]:
    """The pass's results with the dropped days' events counted as removed by age, per project."""
    by_id = {result.project_id: result for result in results}
    gone: dict[int, tuple[int, int]] = {}
    for day in dropped:
        for project_id, (events, size) in day.by_project.items():
            before = gone.get(project_id, (0, 0))
            gone[project_id] = (before[0] + events, before[1] + size)
    missing = [project_id for project_id in gone if project_id not in by_id]
    if missing:
        with read_only_scope(factory) as session:
            for project_id, full_path in session.execute(select(Project.id, Project.full_path)
                                                         .where(Project.id.in_(missing))):
                by_id[project_id] = ProjectPrune(project_id=project_id, full_path=full_path)
    for project_id, (events, size) in gone.items():
        if project_id in by_id:
            by_id[project_id].by_age.events += events
            by_id[project_id].by_age.bytes += size
    return [by_id[project_id] for project_id in sorted(by_id)]

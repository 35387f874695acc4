"""PostgreSQL: events, their payloads and their tag rows in partitions by received day.

Why a day. Retention is counted in days and may differ per project: a day partition can be dropped
as soon as every project's cutoff has passed its end, so nothing is kept more than a day longer
than its retention allows, and removing a day of events is a DROP TABLE of its partitions
instead of row deletes, with their WAL and the bloat VACUUM must chase. The storage counters per
error and project (models.ErrorStoredDay) are partitioned the same way, so a drop updates no row
that stays. A week would keep up to seven days too long and make each drop seven times larger. At
the default retention (90 days) a day grain is about 95 partitions per table (with the days created
ahead), few enough for the planner; GlitchTip partitions its events by day too.

Partitions are created ahead of time by the pruner's pass (under its lease, so once across
replicas): today and DAYS_AHEAD days after it. An event received on a day without a partition
(a clock far off, a database restored from the past, demo data) lands in the DEFAULT partition,
so an insert never fails; the same pass moves such rows into their day's new partition
(drain_day), one day per transaction.

SQLite has none of this: its tables stay as they were, behind the same store functions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, any_, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from outpost_server.db import session_scope

if TYPE_CHECKING:
    from outpost_server.error_tracking.models import TrackedError

EVENTS = "error_tracking_error_events"
TAGS = "error_tracking_event_tags"
PAYLOADS = "error_tracking_event_payloads"
KEYS = "error_tracking_event_keys"
# The storage counters per error and per project and received day (models.ErrorStoredDay), partitioned
# with the events so a dropped day takes its counts along and no error or project row is updated.
ERROR_DAYS = "error_tracking_error_stored_days"
PROJECT_DAYS = "error_tracking_project_stored_days"
# The event tables, partitioned by migration 0019 (which, like partition_move.py, knows only these).
TABLES = (EVENTS, TAGS, PAYLOADS)
# Every table partitioned by day. Statements touching several take them in this order, the order
# store_batch writes in.
DAY_TABLES = (*TABLES, ERROR_DAYS, PROJECT_DAYS)
# Each table's partition key: the received time, or for the counters the first instant of its day.
KEY_COLUMN = {ERROR_DAYS: "received_day", PROJECT_DAYS: "received_day"}
DAYS_AHEAD = 3
DEFAULT = "default"
# DDL waits at most this long for a lock, then the pass tries again later: while a DETACH waits for a long
# read to finish, the reads and inserts that come after it queue behind it.
LOCK_TIMEOUT = "1s"
_DAY_SUFFIX = re.compile(r"_p(\d{8})$")


def partitioned(connection: Connection) -> bool:
    """Whether this database keeps its events in partitions (PostgreSQL after migration 0019)."""
    if connection.dialect.name != "postgresql":
        return False
    return bool(connection.execute(text(
        "SELECT EXISTS (SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid "
        "WHERE c.relname = :name AND c.relnamespace = current_schema()::regnamespace)"), {"name": EVENTS}).scalar())


def in_use(session: Session) -> bool:
    """Whether this session's database keeps events in partitions: PostgreSQL does (from migration 0019 on)."""
    return session.get_bind().dialect.name == "postgresql"


def received_in(session: Session, column, received: Sequence[dt.datetime] | None) -> list[ColumnElement[bool]]:
    """Conditions naming those received times (of the events read), so only their days' partitions are searched."""
    if received is None or not in_use(session):
        return []
    return [one_of(session, column, sorted(set(received)))]


def one_of(session: Session, column, values: Sequence) -> ColumnElement[bool]:
    """`column` is one of `values`. On PostgreSQL one array parameter (`= ANY`), so the statement's text is the
    same for any number of values: the driver prepares it once per connection and PostgreSQL keeps its plan,
    where planning a read over every day partition costs more than running it."""
    if not in_use(session):
        return column.in_(list(values))
    return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))


def error_days(session: Session, error: TrackedError, column) -> list[ColumnElement[bool]]:
    """Conditions keeping a read of an error's rows within its received range, so only the day partitions
    that can hold them are searched (the range is on the error, known before the query is planned)."""
    if not in_use(session) or error.first_received_at is None or error.last_received_at is None:
        return []
    return [column >= error.first_received_at, column <= error.last_received_at]


def partition_name(table: str, day: dt.date | str) -> str:
    return f"{table}_{DEFAULT}" if day == DEFAULT else f"{table}_p{day:%Y%m%d}"


def day_range(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime.combine(day, dt.time(), dt.timezone.utc)
    return start, start + dt.timedelta(days=1)


def _bound(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S+00")


def attached_days(connection: Connection, table: str = EVENTS) -> list[dt.date]:
    """The days that have a partition of `table`, oldest first."""
    names = connection.execute(text(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = :table"), {"table": table}).scalars()
    return sorted(_day_of(name) for name in names if _DAY_SUFFIX.search(name))


def detached_days(connection: Connection) -> list[dt.date]:
    """Days whose event partition was detached by a drop that did not finish (see partition_retention.py)."""
    names = connection.execute(text(
        "SELECT relname FROM pg_class WHERE relkind = 'r' AND NOT relispartition AND relname LIKE :pattern "
        "AND relnamespace = current_schema()::regnamespace"), {"pattern": EVENTS + "_p%"}).scalars()
    return sorted(_day_of(name) for name in names if _DAY_SUFFIX.search(name))


def _day_of(name: str) -> dt.date:
    match = _DAY_SUFFIX.search(name)
    assert match is not None
    return dt.datetime.strptime(match.group(1), "%Y%m%d").date()


def create_days(connection: Connection, days: Iterable[dt.date]) -> list[dt.date]:
    """Creates the missing partitions of those days (DAY_TABLES); returns the days created.

    Each is made a plain table, then attached: attaching locks the parent table only against other schema
    changes (CREATE TABLE .. PARTITION OF would lock out every read and insert while it waits for its turn).
    """
    have = set(attached_days(connection))
    created = []
    for day in sorted(set(days) - have):
        _attach_day(connection, day, move=False)
        created.append(day)
    return created


def days_ahead(today: dt.date) -> list[dt.date]:
    return [today + dt.timedelta(days=offset) for offset in range(DAYS_AHEAD + 1)]


def default_days(connection: Connection) -> list[dt.date]:
    """The received days of the rows waiting in the DEFAULT partitions (of events, or of counters that a
    migration counted for events still on their way into partitions)."""
    return list(connection.execute(text(
        f"SELECT (received_at AT TIME ZONE 'UTC')::date FROM \"{partition_name(EVENTS, DEFAULT)}\" UNION "
        f"SELECT (received_day AT TIME ZONE 'UTC')::date FROM \"{partition_name(ERROR_DAYS, DEFAULT)}\" "
        "ORDER BY 1")).scalars())


def drain_day(connection: Connection, day: dt.date) -> int:
    """Moves one day's rows out of the DEFAULT partitions into that day's new partitions; returns the events moved.

    In the caller's transaction. The new partitions are filled while still plain tables, then attached
    (which builds their indexes and checks that the DEFAULT partition holds nothing of that day anymore).
    """
    return _attach_day(connection, day, move=True)


def _attach_day(connection: Connection, day: dt.date, *, move: bool) -> int:
    start, end = day_range(day)
    connection.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
    moved = 0
    for table in DAY_TABLES:
        name, default = partition_name(table, day), partition_name(table, DEFAULT)
        key = KEY_COLUMN.get(table, "received_at")
        connection.execute(text(f'CREATE TABLE "{name}" (LIKE "{table}" INCLUDING DEFAULTS)'))
        if move:
            result = connection.execute(text(
                f'WITH moved AS (DELETE FROM "{default}" WHERE {key} >= :start AND {key} < :end '
                f'RETURNING *) INSERT INTO "{name}" SELECT * FROM moved'), {"start": start, "end": end})
            moved = result.rowcount if table == EVENTS else moved
        connection.execute(text(f'ALTER TABLE "{table}" ATTACH PARTITION "{name}" '
                                f"FOR VALUES FROM ('{_bound(start)}') TO ('{_bound(end)}')"))
    return moved


def prepare(factory: Callable[[], Session], *, today: dt.date) -> tuple[list[dt.date], int]:
    """The pass's partition upkeep: the DEFAULT partition is emptied, today and the days ahead exist.

    Emptied first: a day cannot get its partition while the DEFAULT one holds rows of it (received
    ahead of time by a replica whose clock runs fast), and moving them is what creates it then.
    Each step is a transaction of its own. Returns (the days created, the events moved).
    """
    with session_scope(factory) as session:
        connection = session.connection()
        if not partitioned(connection):
            return [], 0
        waiting = default_days(connection)
    created, moved = [], 0
    for day in waiting:
        with session_scope(factory) as session:
            moved += drain_day(session.connection(), day)
        created.append(day)
    with session_scope(factory) as session:
        created += create_days(session.connection(), days_ahead(today))
    return created, moved

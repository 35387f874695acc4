"""The batch store's SQL, built once per dialect; each table's rows of a batch written in one statement.

On the hot path, building SQLAlchemy statements costs more than executing them, so each statement is
compiled once per dialect and fed plain parameter rows through the driver, as many rows per statement
as the database's parameter limit allows.
"""


import datetime as dt
import re
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import and_, bindparam, case, column, func, insert, or_, select, table, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from outpost_server.error_tracking.digest.tag_store import COUNT_KEYS, EVENT_TAG_KEYS, EVENT_TAGS, count_upsert
from outpost_server.error_tracking.models import (
    ClientKey,
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorStoredDay,
    ErrorUser,
    EventKey,
    ProjectStoredDay,
    ReleaseSession,
    SessionAggregate,
    TrackedError,
)

LOOKUP_CHUNK = 500
# Bound parameters per multi-row statement: under SQLite's limit (32,766 since 3.32) and PostgreSQL's (65,535).
MAX_PARAMETERS = 30_000

EVENTS = ErrorEvent.__table__
PAYLOADS = ErrorEventPayload.__table__
ERRORS = TrackedError.__table__
USERS = ErrorUser.__table__
HOURLY = ErrorHourlyCount.__table__
SESSIONS = ReleaseSession.__table__
AGGREGATES = SessionAggregate.__table__
KEYS = EventKey.__table__
ERROR_DAYS = ErrorStoredDay.__table__
PROJECT_DAYS = ProjectStoredDay.__table__


def _sqlite_datetime(value):
    """SQLAlchemy's SQLite storage format for UTC datetimes (what UTCDateTime writes); other values as is."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not dt.timezone.utc:  # the hot path's values are UTC already
            value = value.astimezone(dt.timezone.utc)
        # "YYYY-MM-DD HH:MM:SS.ffffff" without the "+00:00" isoformat appends.
        return value.isoformat(" ", "microseconds")[:26]
    return value


class _MultiRowStatement:
    """An INSERT (… ON CONFLICT …) compiled once and run on the DBAPI cursor as one statement for a batch's
    rows of its table (more only past MAX_PARAMETERS on SQLite), instead of one execution per row: a VALUES
    list of rows on SQLite, unnested arrays on PostgreSQL. Rows an upsert adds to are aggregated per key
    first: ON CONFLICT DO UPDATE on PostgreSQL cannot touch a row twice in one statement.

    The rows skip SQLAlchemy's per-value type processing, which dominates the cost on the hot path;
    datetimes are converted the way UTCDateTime stores them.
    """

    def __init__(self, statement, dialect, keys: list[str]):
        compiled = statement.compile(dialect=dialect, column_keys=keys)
        # A lone INSERT compiles with PostgreSQL's implicit RETURNING of the key; none is needed.
        head, values = compiled.string.split(" RETURNING ", 1)[0].split(" VALUES ", 1)
        self.defaults = dict(compiled.params)
        self.text_datetimes = dialect.name == "sqlite"
        row, conflict, tail = values.partition(" ON CONFLICT ")  # one row of placeholders, then the upsert's
        tail = conflict + tail
        if compiled.positional:
            self.order = list(compiled.positiontup or [])
        else:  # named (PostgreSQL): positional from here on, in the row's order
            self.order = re.findall(r"%\((\w+)\)s", row)
            row = re.sub(r"%\(\w+\)s", "%s", row)
        assert len(self.order) == row.count("?") + row.count("%s"), "parameters outside the VALUES row"
        self.head, self.row, self.tail = head + " VALUES ", row, tail
        self.rows_per_statement = max(1, MAX_PARAMETERS // len(self.order))
        arrays = _arrays(dialect, [statement.table.c[name] for name in self.order])
        self.unnest = f"{head} SELECT * FROM unnest({arrays}){tail}" if dialect.name == "postgresql" else None

    def run(self, connection: Connection, rows: list[dict]) -> None:
        order, defaults = self.order, self.defaults
        if self.unnest is not None:  # PostgreSQL: one array per column, in a statement that stays the same
            if rows:
                connection.exec_driver_sql(self.unnest, tuple(
                    [row[name] if name in row else defaults[name] for row in rows] for name in order))
            return
        texts: dict[dt.datetime, str] = {}

        def value(found: Any) -> Any:
            if not self.text_datetimes or type(found) is not dt.datetime:
                return found
            converted = texts.get(found)
            if converted is None:  # each distinct datetime converted once
                converted = texts[found] = _sqlite_datetime(found)
            return converted

        for chunk in chunks(rows, self.rows_per_statement):
            params = tuple(value(row[name] if name in row else defaults[name]) for row in chunk for name in order)
            connection.exec_driver_sql(self.head + ", ".join([self.row] * len(chunk)) + self.tail, params)


def _arrays(dialect, columns) -> str:
    """unnest()'s arguments on PostgreSQL: a typed array parameter per column. A statement of arrays keeps one
    text whatever the rows, so the driver parses it once and the server prepares it once; a VALUES list of
    thousands of parameters is parsed again by both for every batch, and cost more CPU than one execution
    per row."""
    return ", ".join(f"%s::{column.type.compile(dialect=dialect)}[]" for column in columns)


EVENT_KEYS = ["project_id", "error_id", "event_id", "occurred_at", "received_at", "level", "release", "environment",
              "user_key"]


class BatchStatements:
    """The writer's statements for one SQL dialect."""

    def __init__(self, dialect_obj):
        dialect_name = dialect_obj.name
        dialect = postgresql if dialect_name == "postgresql" else sqlite
        self.known_event_ids = select(EVENTS.c.event_id).where(
            EVENTS.c.project_id == bindparam("project_id"),
            EVENTS.c.event_id.in_(bindparam("event_ids", expanding=True)),
        )
        # PostgreSQL keeps event ids unique in the key table beside its partitioned events (models.EventKey).
        claim = postgresql.insert(KEYS).on_conflict_do_nothing(index_elements=["project_id", "event_id"])
        self.claim_event_ids = (claim.returning(KEYS.c.project_id, KEYS.c.event_id)
                                if dialect_name == "postgresql" else None)
        # A merged error's fingerprint groups into the error it was merged into: one probe of the unique
        # (project, fingerprint) index either way.
        self.errors_by_fingerprint = select(func.coalesce(ERRORS.c.merged_into_id, ERRORS.c.id),
                                            ERRORS.c.fingerprint).where(
            ERRORS.c.project_id == bindparam("project_id"),
            ERRORS.c.fingerprint.in_(bindparam("fingerprints", expanding=True)),
        )
        error_states = select(ERRORS.c.id, ERRORS.c.status, ERRORS.c.count, ERRORS.c.merged_into_id).where(
            ERRORS.c.id.in_(bindparam("ids", expanding=True))).order_by(ERRORS.c.id)
        # PostgreSQL: locked in id order, the order update_errors takes them in, with the lock the update takes
        # (FOR NO KEY UPDATE), which the foreign keys of rows referring to an error do not wait for.
        self.error_states = (error_states.with_for_update(key_share=True) if dialect_name == "postgresql"
                             else error_states)
        self.create_errors = dialect.insert(ERRORS).on_conflict_do_nothing(index_elements=["project_id", "fingerprint"])
        self.insert_events = _MultiRowStatement(insert(EVENTS), dialect_obj, EVENT_KEYS)
        self.insert_payloads = _MultiRowStatement(insert(PAYLOADS), dialect_obj,
                                               ["error_id", "event_id", "payload", "received_at"])
        hourly = dialect.insert(HOURLY)
        self.count_hours = _MultiRowStatement(hourly.on_conflict_do_update(
            index_elements=["error_id", "hour"], set_={"count": HOURLY.c.count + hourly.excluded.count}
        ), dialect_obj, ["error_id", "hour", "count"])
        self.count_error_days = _MultiRowStatement(
            _add_counts(dialect, ERROR_DAYS, ["error_id", "received_day"]), dialect_obj,
            ["error_id", "received_day", "project_id", "events", "bytes"])
        self.count_project_days = _MultiRowStatement(
            _add_counts(dialect, PROJECT_DAYS, ["project_id", "received_day"]), dialect_obj,
            ["project_id", "received_day", "events", "bytes"])
        self.add_users = (dialect.insert(USERS).on_conflict_do_nothing(index_elements=["error_id", "user_key"])
                          .returning(USERS.c.error_id, USERS.c.user_key))
        self.update_errors = _ErrorUpdate(dialect_obj)
        self.insert_event_tags = _MultiRowStatement(insert(EVENT_TAGS), dialect_obj, EVENT_TAG_KEYS)
        self.count_tag_values = _MultiRowStatement(count_upsert(dialect_name), dialect_obj, COUNT_KEYS)
        sessions = dialect.insert(SESSIONS)
        self.upsert_sessions = sessions.on_conflict_do_update(
            index_elements=["project_id", "sid"],
            set_={
                # A session that left "ok" is final; late "ok" updates do not reopen it.
                "status": case((SESSIONS.c.status == "ok", sessions.excluded.status), else_=SESSIONS.c.status),
                "errors": case((sessions.excluded.errors > SESSIONS.c.errors, sessions.excluded.errors),
                               else_=SESSIONS.c.errors),
                "updated_at": sessions.excluded.updated_at,
            },
        )
        self.insert_aggregates = insert(AGGREGATES)
        self.active_keys = select(ClientKey.project_id, ClientKey.public_key).where(
            ClientKey.public_key.in_(bindparam("keys", expanding=True)), ClientKey.active.is_(True))


class _ErrorUpdate(_MultiRowStatement):
    """One statement for every touched error of a batch: increments, and the latest event's fields when newer.

    The batch's rows are a table the UPDATE joins: `WITH b (…) AS (VALUES …) UPDATE … FROM b` (SQLite has
    UPDATE … FROM since 3.33), on PostgreSQL its arrays unnested. SET expressions all see the row as it was,
    so `status` and `regressed` agree. On PostgreSQL the rows were locked in id order before (error_states),
    so the join's order takes no lock.
    """

    COLUMNS = {"b_id": ERRORS.c.id, "b_count": ERRORS.c.count, "b_new_users": ERRORS.c.users_count,
               "b_first_seen": ERRORS.c.first_seen_at, "b_first_received": ERRORS.c.first_received_at,
               "b_last_received": ERRORS.c.last_received_at, "b_last_seen": ERRORS.c.last_seen_at,
               **{f"b_{name}": ERRORS.c[name] for name in ("title", "culprit", "message", "level", "platform",
                                                           "kind", "exception_type")},
               "b_last_release": ERRORS.c.last_release, "b_last_environment": ERRORS.c.last_environment,
               "b_updated_at": ERRORS.c.updated_at}

    def __init__(self, dialect):
        batch = table("b", *(column(name, source.type) for name, source in self.COLUMNS.items()))
        newer = batch.c.b_last_seen >= ERRORS.c.last_seen_at

        def if_newer(name: str):
            return case((newer, batch.c[f"b_{name}"]), else_=ERRORS.c[name])

        resolved = ERRORS.c.status == "resolved"
        statement = update(ERRORS).where(ERRORS.c.id == batch.c.b_id).values(
            count=ERRORS.c.count + batch.c.b_count,
            users_count=ERRORS.c.users_count + batch.c.b_new_users,
            first_seen_at=case((batch.c.b_first_seen < ERRORS.c.first_seen_at, batch.c.b_first_seen),
                               else_=ERRORS.c.first_seen_at),
            first_received_at=case((or_(ERRORS.c.first_received_at.is_(None),
                                        batch.c.b_first_received < ERRORS.c.first_received_at),
                                    batch.c.b_first_received), else_=ERRORS.c.first_received_at),
            last_received_at=case((or_(ERRORS.c.last_received_at.is_(None),
                                       batch.c.b_last_received > ERRORS.c.last_received_at),
                                   batch.c.b_last_received), else_=ERRORS.c.last_received_at),
            last_seen_at=case((newer, batch.c.b_last_seen), else_=ERRORS.c.last_seen_at),
            **{name: if_newer(name) for name in ("title", "culprit", "message", "level", "platform", "kind",
                                                 "exception_type")},
            last_release=case((and_(newer, batch.c.b_last_release.is_not(None)), batch.c.b_last_release),
                              else_=ERRORS.c.last_release),
            last_environment=case((and_(newer, batch.c.b_last_environment.is_not(None)),
                                   batch.c.b_last_environment), else_=ERRORS.c.last_environment),
            # A resolved error that happens again is a regression.
            status=case((resolved, "unresolved"), else_=ERRORS.c.status),
            regressed=case((resolved, True), else_=ERRORS.c.regressed),
            updated_at=batch.c.b_updated_at,
        )
        names = list(self.COLUMNS)
        update_sql = str(statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
        self.head = f"WITH b ({', '.join(names)}) AS (VALUES "
        self.row = f"({', '.join('?' for _ in names)})"
        self.tail = ") " + update_sql
        self.unnest = (f"WITH b AS (SELECT * FROM unnest({_arrays(dialect, self.COLUMNS.values())}) AS b"
                       f"({', '.join(names)})) {update_sql}" if dialect.name == "postgresql" else None)
        self.order, self.defaults = names, {}
        self.text_datetimes = dialect.name == "sqlite"
        self.rows_per_statement = MAX_PARAMETERS // len(names)


def _add_counts(dialect, table, key: list[str]):
    """Adds a row's events and bytes to the storage counter of its key (ErrorStoredDay, ProjectStoredDay)."""
    statement = dialect.insert(table)
    return statement.on_conflict_do_update(index_elements=key, set_={
        "events": table.c.events + statement.excluded.events, "bytes": table.c.bytes + statement.excluded.bytes})


_BY_DIALECT: dict[str, BatchStatements] = {}


def statements_for(dialect) -> BatchStatements:
    if dialect.name not in _BY_DIALECT:
        _BY_DIALECT[dialect.name] = BatchStatements(dialect)
    return _BY_DIALECT[dialect.name]


def chunks(items: Sequence, size: int) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def hour_of(moment: dt.datetime) -> dt.datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def day_of(moment: dt.datetime) -> dt.datetime:
    """The first instant of the moment's UTC day (the storage counters' key)."""
    return moment.astimezone(dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)

"""The batch store's SQL, built once per dialect and run as executemany.

On the hot path, building SQLAlchemy statements costs more than executing them, so each statement is
compiled once per dialect and fed plain parameter rows through the driver.
"""


import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import and_, bindparam, case, func, insert, or_, select, update
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


class _DriverStatement:
    """A statement compiled once and run as executemany on the DBAPI cursor.

    The rows skip SQLAlchemy's per-value type processing, which dominates the cost of the
    per-event statements; datetimes are converted the way UTCDateTime stores them.
    """

    def __init__(self, statement, dialect, keys: list[str]):
        compiled = statement.compile(dialect=dialect, column_keys=keys)
        # A lone INSERT compiles with PostgreSQL's implicit RETURNING of the key; executemany needs none.
        self.sql = compiled.string.split(" RETURNING ", 1)[0]
        self.defaults = dict(compiled.params)
        self.order = list(compiled.positiontup) if compiled.positional else None
        self.text_datetimes = dialect.name == "sqlite"

    def run(self, connection: Connection, rows: list[dict]) -> None:
        if not rows:
            return
        if self.order is not None:
            defaults, order = self.defaults, self.order
            if self.text_datetimes:
                # Each distinct datetime converted once: an event's tag rows all carry its received_at.
                texts: dict[dt.datetime, str] = {}

                def text(value: Any) -> Any:
                    if type(value) is not dt.datetime:
                        return value
                    converted = texts.get(value)
                    if converted is None:
                        converted = texts[value] = _sqlite_datetime(value)
                    return converted

                params: list[Any] = [
                    tuple(text(row[name] if name in row else defaults[name]) for name in order) for row in rows]
            else:
                params = [tuple(row[name] if name in row else defaults[name] for name in order) for row in rows]
        else:
            params = [{**self.defaults, **row} for row in rows]
        connection.exec_driver_sql(self.sql, params)


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
        self.insert_events = _DriverStatement(insert(EVENTS), dialect_obj, EVENT_KEYS)
        self.insert_payloads = _DriverStatement(insert(PAYLOADS), dialect_obj,
                                               ["error_id", "event_id", "payload", "received_at"])
        hourly = dialect.insert(HOURLY)
        self.count_hours = _DriverStatement(hourly.on_conflict_do_update(
            index_elements=["error_id", "hour"], set_={"count": HOURLY.c.count + hourly.excluded.count}
        ), dialect_obj, ["error_id", "hour", "count"])
        self.count_error_days = _DriverStatement(
            _add_counts(dialect, ERROR_DAYS, ["error_id", "received_day"]), dialect_obj,
            ["error_id", "received_day", "project_id", "events", "bytes"])
        self.count_project_days = _DriverStatement(
            _add_counts(dialect, PROJECT_DAYS, ["project_id", "received_day"]), dialect_obj,
            ["project_id", "received_day", "events", "bytes"])
        self.add_users = (dialect.insert(USERS).on_conflict_do_nothing(index_elements=["error_id", "user_key"])
                          .returning(USERS.c.error_id, USERS.c.user_key))
        self.update_errors = _DriverStatement(self._update_errors(), dialect_obj, [])
        self.insert_event_tags = _DriverStatement(insert(EVENT_TAGS), dialect_obj, EVENT_TAG_KEYS)
        self.count_tag_values = _DriverStatement(count_upsert(dialect_name), dialect_obj, COUNT_KEYS)
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

    @staticmethod
    def _update_errors():
        """One statement for every touched error: increments, and the latest event's fields when newer.

        SET expressions all see the row as it was, so `status` and `regressed` agree.
        """
        newer = bindparam("b_last_seen", type_=ERRORS.c.last_seen_at.type) >= ERRORS.c.last_seen_at

        def if_newer(column: str):
            return case((newer, bindparam(f"b_{column}", type_=ERRORS.c[column].type)), else_=ERRORS.c[column])

        resolved = ERRORS.c.status == "resolved"
        first_seen = bindparam("b_first_seen", type_=ERRORS.c.first_seen_at.type)
        first_received = bindparam("b_first_received", type_=ERRORS.c.first_received_at.type)
        last_received = bindparam("b_last_received", type_=ERRORS.c.last_received_at.type)
        release = bindparam("b_last_release", type_=ERRORS.c.last_release.type)
        environment = bindparam("b_last_environment", type_=ERRORS.c.last_environment.type)
        return (
            update(ERRORS)
            .where(ERRORS.c.id == bindparam("b_id"))
            .values(
                count=ERRORS.c.count + bindparam("b_count"),
                users_count=ERRORS.c.users_count + bindparam("b_new_users"),
                first_seen_at=case((first_seen < ERRORS.c.first_seen_at, first_seen), else_=ERRORS.c.first_seen_at),
                first_received_at=case((or_(ERRORS.c.first_received_at.is_(None),
                                            first_received < ERRORS.c.first_received_at), first_received),
                                       else_=ERRORS.c.first_received_at),
                last_received_at=case((or_(ERRORS.c.last_received_at.is_(None),
                                           last_received > ERRORS.c.last_received_at), last_received),
                                      else_=ERRORS.c.last_received_at),
                last_seen_at=case((newer, bindparam("b_last_seen", type_=ERRORS.c.last_seen_at.type)),
                                  else_=ERRORS.c.last_seen_at),
                title=if_newer("title"),
                culprit=if_newer("culprit"),
                message=if_newer("message"),
                level=if_newer("level"),
                platform=if_newer("platform"),
                kind=if_newer("kind"),
                exception_type=if_newer("exception_type"),
                last_release=case((and_(newer, release.is_not(None)), release), else_=ERRORS.c.last_release),
                last_environment=case((and_(newer, environment.is_not(None)), environment),
                                      else_=ERRORS.c.last_environment),
                # A resolved error that happens again is a regression.
                status=case((resolved, "unresolved"), else_=ERRORS.c.status),
                regressed=case((resolved, True), else_=ERRORS.c.regressed),
                updated_at=bindparam("b_updated_at", type_=ERRORS.c.updated_at.type),
            )
        )


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

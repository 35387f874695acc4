"""Storing accepted events and sessions, batched by a single writer (group commit).

Each collector request hands its parsed content to the writer and waits; the writer takes
everything queued, stores it in ONE transaction and only then wakes the waiting requests. So a
200 is answered after the commit ("200 means durable") while the database sees a few large
transactions instead of thousands of small ones.

The statements are built once per dialect and run as executemany: on the hot path, building
SQLAlchemy statements costs more than executing them.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections import OrderedDict, defaultdict
from collections.abc import Container, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from sqlalchemy import and_, bindparam, case, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .models import (
    ClientKey,
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorUser,
    ReleaseSession,
    SessionAggregate,
    TrackedError,
)
from .normalize import NormalizedEvent
from .protocol import IngestRequest
from .tag_store import COUNT_KEYS, EVENT_TAG_KEYS, EVENT_TAGS, count_upsert, tag_rows

log = logging.getLogger("outpost.error_tracking.ingest")

MAX_BATCH = 2000
LOOKUP_CHUNK = 500

EVENTS = ErrorEvent.__table__
PAYLOADS = ErrorEventPayload.__table__
ERRORS = TrackedError.__table__
USERS = ErrorUser.__table__
HOURLY = ErrorHourlyCount.__table__
SESSIONS = ReleaseSession.__table__
AGGREGATES = SessionAggregate.__table__


def _sqlite_datetime(value):
    """SQLAlchemy's SQLite storage format for UTC datetimes (what UTCDateTime writes); other values as is."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not dt.timezone.utc:  # the hot path's values are UTC already
            value = value.astimezone(dt.timezone.utc)
        # "YYYY-MM-DD HH:MM:SS.ffffff" without the "+00:00" isoformat appends.
        return value.isoformat(" ", "microseconds")[:26]
    return value


def _unchanged(value):
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
            convert = _sqlite_datetime if self.text_datetimes else _unchanged
            params = [tuple(convert(row[name]) if name in row else defaults[name] for name in order) for row in rows]
        else:
            params = [{**self.defaults, **row} for row in rows]
        connection.exec_driver_sql(self.sql, params)


EVENT_KEYS = ["project_id", "error_id", "event_id", "occurred_at", "received_at", "level", "release", "environment",
              "user_key"]


class _Statements:
    """The writer's statements for one SQL dialect."""

    def __init__(self, dialect_obj):
        dialect_name = dialect_obj.name
        dialect = postgresql if dialect_name == "postgresql" else sqlite
        self.known_event_ids = select(EVENTS.c.event_id).where(
            EVENTS.c.project_id == bindparam("project_id"), EVENTS.c.event_id.in_(bindparam("event_ids", expanding=True))
        )
        self.errors_by_fingerprint = select(ERRORS.c.id, ERRORS.c.fingerprint).where(
            ERRORS.c.project_id == bindparam("project_id"),
            ERRORS.c.fingerprint.in_(bindparam("fingerprints", expanding=True)),
        )
        self.create_errors = dialect.insert(ERRORS).on_conflict_do_nothing(index_elements=["project_id", "fingerprint"])
        self.insert_events = _DriverStatement(insert(EVENTS), dialect_obj, EVENT_KEYS)
        self.insert_payloads = _DriverStatement(insert(PAYLOADS), dialect_obj, ["error_id", "event_id", "payload"])
        hourly = dialect.insert(HOURLY)
        self.count_hours = _DriverStatement(hourly.on_conflict_do_update(
            index_elements=["error_id", "hour"], set_={"count": HOURLY.c.count + hourly.excluded.count}
        ), dialect_obj, ["error_id", "hour", "count"])
        self.known_users = select(USERS.c.user_key).where(
            USERS.c.error_id == bindparam("error_id"), USERS.c.user_key.in_(bindparam("user_keys", expanding=True))
        )
        self.add_users = dialect.insert(USERS).on_conflict_do_nothing(index_elements=["error_id", "user_key"])
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
        release = bindparam("b_last_release", type_=ERRORS.c.last_release.type)
        environment = bindparam("b_last_environment", type_=ERRORS.c.last_environment.type)
        return (
            update(ERRORS)
            .where(ERRORS.c.id == bindparam("b_id"))
            .values(
                count=ERRORS.c.count + bindparam("b_count"),
                users_count=ERRORS.c.users_count + bindparam("b_new_users"),
                stored_events=ERRORS.c.stored_events + bindparam("b_count"),
                first_seen_at=case((first_seen < ERRORS.c.first_seen_at, first_seen), else_=ERRORS.c.first_seen_at),
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


_STATEMENTS: dict[str, _Statements] = {}


def _statements(dialect) -> _Statements:
    if dialect.name not in _STATEMENTS:
        _STATEMENTS[dialect.name] = _Statements(dialect)
    return _STATEMENTS[dialect.name]


def _chunks(items: Sequence, size: int) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _hour(moment: dt.datetime) -> dt.datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


@dataclass
class BatchResult:
    # (error id, user key) pairs now known to exist; cached by the writer after the commit.
    user_pairs: set[tuple[int, str]] = field(default_factory=set)


@dataclass
class Accepted:
    """One accepted request's content, as the writer stores it."""

    project_id: int
    content: IngestRequest
    received_at: dt.datetime
    # The key that admitted it; re-checked in the writing transaction (None: stored by the server itself).
    public_key: str | None = None


@dataclass
class _Received:
    project_id: int
    event: NormalizedEvent
    received_at: dt.datetime


def store_batch(
    connection: Connection,
    batch: Sequence[Accepted],
    *,
    known_users: Container[tuple[int, str]] = frozenset(),
) -> BatchResult:
    """Store the accepted requests in the caller's transaction."""
    sql = _statements(connection.dialect)
    result = BatchResult()
    _store_sessions(connection, sql, batch)
    received = _new_events(connection, sql, batch)
    if not received:
        return result
    errors = _find_or_create_errors(connection, sql, received)
    grouped: dict[int, list[_Received]] = defaultdict(list)
    for item in received:
        grouped[errors[(item.project_id, item.event.fingerprint)]].append(item)
    # Rows are locked in one order (error id, then hour or user key) by every writer, so concurrent
    # writers (worker processes, replicas) on PostgreSQL wait for each other instead of deadlocking.
    by_error = {error_id: grouped[error_id] for error_id in sorted(grouped)}

    sql.insert_events.run(
        connection,
        [
            {
                "project_id": item.project_id,
                "error_id": error_id,
                "event_id": item.event.event_id,
                "occurred_at": item.event.occurred_at,
                "received_at": item.received_at,
                "level": item.event.level,
                "release": item.event.release,
                "environment": item.event.environment,
                "user_key": item.event.user_key,
            }
            for error_id, items in by_error.items()
            for item in items
        ],
    )
    event_tags, tag_counts = tag_rows((error_id, item.event) for error_id, items in by_error.items() for item in items)
    sql.insert_event_tags.run(connection, event_tags)
    sql.count_tag_values.run(connection, tag_counts)
    # Every event is stored with its payload; the pruner (retention.py) enforces the limits later,
    # in small batches, so the hot path never deletes.
    sql.insert_payloads.run(connection, [
        {"error_id": error_id, "event_id": item.event.event_id, "payload": item.event.raw_payload or b"{}"}
        for error_id, items in by_error.items()
        for item in items
    ])
    hourly: dict[tuple[int, dt.datetime], int] = defaultdict(int)
    for error_id, items in by_error.items():
        for item in items:
            hourly[(error_id, _hour(item.event.occurred_at))] += 1
    sql.count_hours.run(
        connection,
        [{"error_id": error_id, "hour": hour, "count": count} for (error_id, hour), count in sorted(hourly.items())],
    )
    updates = []
    for error_id, items in by_error.items():
        users = _record_users(connection, sql, error_id, items, known_users)
        result.user_pairs.update((error_id, key) for key in users.all)
        latest = max(items, key=lambda item: item.event.occurred_at).event
        released = [item.event for item in items if item.event.release]
        updates.append(
            {
                "b_id": error_id,
                "b_count": len(items),
                "b_new_users": len(users.new),
                "b_first_seen": min(item.event.occurred_at for item in items),
                "b_last_seen": latest.occurred_at,
                "b_title": latest.title,
                "b_culprit": latest.culprit,
                "b_message": latest.message,
                "b_level": latest.level,
                "b_platform": latest.platform,
                "b_kind": latest.kind,
                "b_exception_type": latest.exception_type,
                "b_last_release": max(released, key=lambda event: event.occurred_at).release if released else None,
                "b_last_environment": latest.environment,
                "b_updated_at": max(item.received_at for item in items),
            }
        )
    sql.update_errors.run(connection, updates)
    return result


def _store_sessions(connection: Connection, sql: _Statements, batch: Sequence[Accepted]) -> None:
    updates, buckets = [], []
    for accepted in batch:
        for session in accepted.content.sessions:
            updates.append(
                {
                    "project_id": accepted.project_id,
                    "sid": session.sid,
                    "release": session.release,
                    "environment": session.environment,
                    "started_at": session.started,
                    "status": session.status,
                    "errors": session.errors,
                    "updated_at": accepted.received_at,
                }
            )
        for bucket in accepted.content.session_buckets:
            buckets.append(
                {
                    "project_id": accepted.project_id,
                    "release": bucket.release,
                    "environment": bucket.environment,
                    "started_at": bucket.started,
                    "exited": bucket.exited,
                    "errored": bucket.errored,
                    "abnormal": bucket.abnormal,
                    "crashed": bucket.crashed,
                }
            )
    if updates:
        updates.sort(key=lambda row: (row["project_id"], row["sid"]))  # one lock order for all writers
        connection.execute(sql.upsert_sessions, updates)
    if buckets:
        connection.execute(sql.insert_aggregates, buckets)


def _new_events(connection: Connection, sql: _Statements, batch: Sequence[Accepted]) -> list[_Received]:
    """Events of the batch not stored before (event ids are unique per project)."""
    pending: dict[tuple[int, str], _Received] = {}
    for accepted in batch:
        for event in accepted.content.events:
            pending.setdefault((accepted.project_id, event.event_id),
                               _Received(accepted.project_id, event, accepted.received_at))
    by_project: dict[int, list[str]] = defaultdict(list)
    for project_id, event_id in pending:
        by_project[project_id].append(event_id)
    for project_id, event_ids in by_project.items():
        for chunk in _chunks(event_ids, LOOKUP_CHUNK):
            existing = connection.execute(sql.known_event_ids, {"project_id": project_id, "event_ids": list(chunk)})
            for (event_id,) in existing:
                del pending[(project_id, event_id)]
    return list(pending.values())


def _find_or_create_errors(connection: Connection, sql: _Statements, received: list[_Received]
                           ) -> dict[tuple[int, str], int]:
    """(project id, fingerprint) → error id, creating the missing errors."""
    first_by_key: dict[tuple[int, str], _Received] = {}
    for item in received:
        first_by_key.setdefault((item.project_id, item.event.fingerprint), item)
    errors = _lookup_errors(connection, sql, first_by_key)
    missing = [item for key, item in sorted(first_by_key.items()) if key not in errors]  # one lock order
    if missing:
        connection.execute(sql.create_errors, [_new_error_row(item) for item in missing])
        errors.update(_lookup_errors(connection, sql, {(i.project_id, i.event.fingerprint) for i in missing}))
    return errors


def _lookup_errors(connection: Connection, sql: _Statements, keys) -> dict[tuple[int, str], int]:
    by_project: dict[int, list[str]] = defaultdict(list)
    for project_id, fingerprint in keys:
        by_project[project_id].append(fingerprint)
    found = {}
    for project_id, fingerprints in by_project.items():
        for chunk in _chunks(fingerprints, LOOKUP_CHUNK):
            rows = connection.execute(sql.errors_by_fingerprint, {"project_id": project_id, "fingerprints": list(chunk)})
            for error_id, fingerprint in rows:
                found[(project_id, fingerprint)] = error_id
    return found


def _new_error_row(item: _Received) -> dict:
    event = item.event
    return {
        "project_id": item.project_id,
        "fingerprint": event.fingerprint,
        "title": event.title,
        "kind": event.kind,
        "exception_type": event.exception_type,
        "culprit": event.culprit,
        "message": event.message,
        "level": event.level,
        "platform": event.platform,
        "count": 0,
        "users_count": 0,
        "first_seen_at": event.occurred_at,
        "last_seen_at": event.occurred_at,
        "status": "unresolved",
        "regressed": False,
        "first_release": event.release,
        "last_release": event.release,
        "last_environment": event.environment,
        "stored_events": 0,
        "created_at": item.received_at,
        "updated_at": item.received_at,
    }


@dataclass
class _Users:
    new: set[str]
    all: set[str]


def _record_users(connection: Connection, sql: _Statements, error_id: int, items: list[_Received],
                  known: Container[tuple[int, str]]) -> _Users:
    """Insert the batch's users not yet recorded for this error."""
    candidates = {item.event.user_key for item in items if item.event.user_key}
    unknown = [key for key in candidates if (error_id, key) not in known]
    if not unknown:
        return _Users(set(), candidates)
    existing = {key for (key,) in connection.execute(sql.known_users, {"error_id": error_id, "user_keys": unknown})}
    new = set(unknown) - existing
    if new:
        connection.execute(sql.add_users, [{"error_id": error_id, "user_key": key} for key in sorted(new)])
    return _Users(new, candidates)


# --- the writer -----------------------------------------------------------------------------

_STOP = object()


class _KnownUsers:
    """A bounded cache of (error id, user key) pairs already stored, to skip their lookups."""

    def __init__(self, capacity: int = 200_000):
        self._pairs: OrderedDict[tuple[int, str], None] = OrderedDict()
        self._capacity = capacity

    def __contains__(self, pair: object) -> bool:
        return pair in self._pairs

    def add(self, pairs: Iterable[tuple[int, str]]) -> None:
        for pair in pairs:
            self._pairs[pair] = None
            self._pairs.move_to_end(pair)
        while len(self._pairs) > self._capacity:
            self._pairs.popitem(last=False)


@dataclass(eq=False)  # compared by identity
class _Waiting:
    accepted: Accepted
    future: asyncio.Future


class KeyNoLongerActive(Exception):
    """The request's client key was deleted or deactivated (possibly by another replica) before its commit."""


class IngestWriter:
    """The single writer; `await writer.store(...)` returns once the data is committed.

    A task on the event loop gathers what is queued into a batch and hands it to one dedicated
    thread for the database work; while SQLite writes, the loop goes on reading and parsing the
    requests that form the next batch. Futures are settled back on the loop.
    """

    def __init__(self, engine: Engine, *, max_batch: int = MAX_BATCH):
        self._engine = engine
        self._max_batch = max_batch
        self._queue: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="error-tracking-writer")
        self._known_users = _KnownUsers()

    def start(self) -> None:
        self._queue = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="error-tracking-writer")

    async def stop(self) -> None:
        if self._task is None:
            return
        await self._queue.put(_STOP)
        await self._task
        self._task = None
        self._executor.shutdown()

    async def store(self, accepted: Accepted) -> None:
        """Returns once committed; raises KeyNoLongerActive when the request's key stopped being active."""
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Waiting(accepted, future))
        await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            first = await self._queue.get()
            if first is _STOP:
                return
            batch = [first]
            stop = False
            while len(batch) < self._max_batch and not self._queue.empty():
                item = self._queue.get_nowait()
                if item is _STOP:
                    stop = True
                    break
                batch.append(item)
            # The database work runs on the writer's own thread, so the loop keeps reading and
            # parsing requests (which form the next batch) while SQLite writes.
            for part, error in await loop.run_in_executor(self._executor, self._write, batch):
                _settle(part, error)
            if stop:
                return

    def _write(self, batch: list[_Waiting]) -> list[tuple[list[_Waiting], Exception | None]]:
        """Commit the batch; returns (requests, error) pairs to settle on the loop."""
        try:
            refused = self._commit(batch)
        except Exception:
            if len(batch) == 1:
                log.exception("storing an accepted request failed")
                return [(batch, RuntimeError("the event could not be stored"))]
            # Store one by one so a single bad request cannot fail the others.
            log.warning("batch of %d failed; retrying its requests one by one", len(batch), exc_info=True)
            return [outcome for item in batch for outcome in self._write([item])]
        stored = [item for item in batch if item not in refused]
        return [(stored, None), (refused, KeyNoLongerActive())]

    def _commit(self, batch: list[_Waiting]) -> list[_Waiting]:
        """Stores the batch in one transaction; returns the items refused because their key is gone."""
        with self._engine.begin() as connection:
            # The collector decided access before the request was queued (authentication.py), from a
            # cache that may be seconds old and, with replicas, from before another process deleted
            # the key. Project and setting changes may lag that long; a deleted key may not, since
            # deleting it is how a leaked DSN is revoked. So only the key is checked again, here,
            # in the transaction that stores its events.
            keys = {item.accepted.public_key for item in batch if item.accepted.public_key is not None}
            active = set(connection.execute(_statements(connection.dialect).active_keys,
                                            {"keys": list(keys)}).all()) if keys else set()
            refused = [item for item in batch if item.accepted.public_key is not None
                       and (item.accepted.project_id, item.accepted.public_key) not in active]
            result = store_batch(
                connection,
                [item.accepted for item in batch if item not in refused],
                known_users=self._known_users,
            )
        self._known_users.add(result.user_pairs)
        return refused


def _settle(batch: list[_Waiting], error: Exception | None) -> None:
    for item in batch:
        if item.future.done():  # the client went away
            continue
        if error is None:
            item.future.set_result(None)
        else:
            item.future.set_exception(error)

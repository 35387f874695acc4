"""Storing accepted events and sessions, batched by a single writer (group commit).

Each collector request hands its parsed content to the writer and waits; the writer thread takes
everything queued, stores it in ONE transaction and only then wakes the waiting requests. So a
200 is answered after the commit ("200 means durable") while the database sees a few large
transactions instead of thousands of small ones.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import queue
import threading
import zlib
from collections import OrderedDict, defaultdict
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import case, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .models import (
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorUser,
    ReleaseSession,
    SessionAggregate,
    TrackedError,
)
from .normalize import NormalizedEvent
from .parsing import IngestRequest

log = logging.getLogger("outpost.error_tracking.ingest")

MAX_BATCH = 2000
LOOKUP_CHUNK = 500


def _upsert(connection: Connection, table):
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def _chunks(items: Sequence, size: int) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _hour(moment: dt.datetime) -> dt.datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


@dataclass
class BatchResult:
    stored_events: int = 0
    # (error id, user key) pairs now known to exist; cached by the writer after the commit.
    user_pairs: set[tuple[int, str]] = field(default_factory=set)


@dataclass
class _Received:
    project_id: int
    event: NormalizedEvent
    received_at: dt.datetime


def store_batch(
    connection: Connection,
    batch: Sequence[tuple[int, IngestRequest, dt.datetime]],
    *,
    payloads_per_error: int,
    known_users: Container[tuple[int, str]] = frozenset(),
) -> BatchResult:
    """Store (project id, parsed request, received at) triples in the caller's transaction."""
    result = BatchResult()
    _store_sessions(connection, batch)
    received = _new_events(connection, batch)
    if not received:
        return result
    groups = _find_or_create_errors(connection, received)
    by_error: dict[int, list[_Received]] = defaultdict(list)
    for item in received:
        by_error[groups[(item.project_id, item.event.fingerprint)]].append(item)

    event_rows = [
        {
            "project_id": item.project_id,
            "error_id": groups[(item.project_id, item.event.fingerprint)],
            "event_id": item.event.event_id,
            "occurred_at": item.event.occurred_at,
            "received_at": item.received_at,
            "level": item.event.level,
            "release": item.event.release,
            "environment": item.event.environment,
            "user_key": item.event.user_key,
        }
        for item in received
    ]
    row_ids = connection.execute(
        insert(ErrorEvent).returning(ErrorEvent.id, sort_by_parameter_order=True), event_rows
    ).scalars().all()
    if payloads_per_error > 0:
        connection.execute(
            insert(ErrorEventPayload),
            [
                {"event_row_id": row_id, "error_id": row["error_id"], "payload": zlib.compress(item.event.raw_payload or b"{}", 1)}
                for row_id, row, item in zip(row_ids, event_rows, received)
            ],
        )
    hourly: dict[tuple[int, dt.datetime], int] = defaultdict(int)
    for row in event_rows:
        hourly[(row["error_id"], _hour(row["occurred_at"]))] += 1
    stmt = _upsert(connection, ErrorHourlyCount)
    connection.execute(
        stmt.on_conflict_do_update(
            index_elements=["error_id", "hour"], set_={"count": ErrorHourlyCount.count + stmt.excluded.count}
        ),
        [{"error_id": error_id, "hour": hour, "count": count} for (error_id, hour), count in hourly.items()],
    )
    for error_id, items in by_error.items():
        new_users = _record_users(connection, error_id, items, known_users)
        result.user_pairs.update((error_id, key) for key in new_users)
        _update_error(connection, error_id, items, new_users=len(new_users), payloads_per_error=payloads_per_error)
    result.stored_events = len(received)
    return result


def _store_sessions(connection: Connection, batch) -> None:
    updates, buckets = [], []
    for project_id, request, received_at in batch:
        for session in request.sessions:
            updates.append(
                {
                    "project_id": project_id,
                    "sid": session.sid,
                    "release": session.release,
                    "environment": session.environment,
                    "started_at": session.started,
                    "status": session.status,
                    "errors": session.errors,
                    "updated_at": received_at,
                }
            )
        for bucket in request.session_buckets:
            buckets.append({"project_id": project_id, **{k: getattr(bucket, k) for k in (
                "release", "environment", "exited", "errored", "abnormal", "crashed")}, "started_at": bucket.started})
    if updates:
        stmt = _upsert(connection, ReleaseSession)
        table = ReleaseSession.__table__.c
        connection.execute(
            stmt.on_conflict_do_update(
                index_elements=["project_id", "sid"],
                set_={
                    # A session that left "ok" is final; late "ok" updates do not reopen it.
                    "status": case((table.status == "ok", stmt.excluded.status), else_=table.status),
                    "errors": case((stmt.excluded.errors > table.errors, stmt.excluded.errors), else_=table.errors),
                    "updated_at": stmt.excluded.updated_at,
                },
            ),
            updates,
        )
    if buckets:
        connection.execute(insert(SessionAggregate), buckets)


def _new_events(connection: Connection, batch) -> list[_Received]:
    """Events of the batch not stored before (event ids are unique per project)."""
    pending: dict[tuple[int, str], _Received] = {}
    for project_id, request, received_at in batch:
        for event in request.events:
            pending.setdefault((project_id, event.event_id), _Received(project_id, event, received_at))
    by_project: dict[int, list[str]] = defaultdict(list)
    for project_id, event_id in pending:
        by_project[project_id].append(event_id)
    for project_id, event_ids in by_project.items():
        for chunk in _chunks(event_ids, LOOKUP_CHUNK):
            existing = connection.scalars(
                select(ErrorEvent.event_id).where(ErrorEvent.project_id == project_id, ErrorEvent.event_id.in_(chunk))
            )
            for event_id in existing:
                del pending[(project_id, event_id)]
    return list(pending.values())


def _find_or_create_errors(connection: Connection, received: list[_Received]) -> dict[tuple[int, str], int]:
    first_by_key: dict[tuple[int, str], _Received] = {}
    for item in received:
        first_by_key.setdefault((item.project_id, item.event.fingerprint), item)
    groups = _lookup_errors(connection, first_by_key)
    missing = [item for key, item in first_by_key.items() if key not in groups]
    if missing:
        stmt = _upsert(connection, TrackedError).on_conflict_do_nothing(index_elements=["project_id", "fingerprint"])
        connection.execute(stmt, [_new_error_row(item) for item in missing])
        groups.update(_lookup_errors(connection, {(i.project_id, i.event.fingerprint): i for i in missing}))
    return groups


def _lookup_errors(connection: Connection, keys) -> dict[tuple[int, str], int]:
    by_project: dict[int, list[str]] = defaultdict(list)
    for project_id, fingerprint in keys:
        by_project[project_id].append(fingerprint)
    found = {}
    for project_id, fingerprints in by_project.items():
        for chunk in _chunks(fingerprints, LOOKUP_CHUNK):
            rows = connection.execute(
                select(TrackedError.id, TrackedError.fingerprint).where(
                    TrackedError.project_id == project_id, TrackedError.fingerprint.in_(chunk)
                )
            )
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
        "payloads_kept": 0,
        "created_at": item.received_at,
        "updated_at": item.received_at,
    }


def _record_users(connection: Connection, error_id: int, items: list[_Received], known: Container[tuple[int, str]]) -> set[str]:
    """Insert the batch's users not yet recorded for this error; returns the new ones."""
    candidates = {item.event.user_key for item in items if item.event.user_key}
    candidates = {key for key in candidates if (error_id, key) not in known}
    if not candidates:
        return set()
    existing = set(
        connection.scalars(
            select(ErrorUser.user_key).where(ErrorUser.error_id == error_id, ErrorUser.user_key.in_(list(candidates)))
        )
    )
    new = candidates - existing
    if new:
        stmt = _upsert(connection, ErrorUser).on_conflict_do_nothing(index_elements=["error_id", "user_key"])
        connection.execute(stmt, [{"error_id": error_id, "user_key": key} for key in sorted(new)])
    return new | existing


def _update_error(connection: Connection, error_id: int, items: list[_Received], *, new_users: int,
                  payloads_per_error: int) -> None:
    current = connection.execute(
        select(
            TrackedError.status,
            TrackedError.first_seen_at,
            TrackedError.last_seen_at,
            TrackedError.payloads_kept,
            TrackedError.count,
        ).where(TrackedError.id == error_id)
    ).one()
    latest = max(items, key=lambda item: item.event.occurred_at)
    earliest = min(item.event.occurred_at for item in items)
    values: dict = {
        "count": TrackedError.count + len(items),
        "users_count": TrackedError.users_count + new_users,
        "updated_at": latest.received_at,
    }
    if earliest < current.first_seen_at:
        values["first_seen_at"] = earliest
    if current.count == 0 or latest.event.occurred_at >= current.last_seen_at:
        event = latest.event
        values.update(
            last_seen_at=event.occurred_at,
            title=event.title,
            culprit=event.culprit,
            message=event.message,
            level=event.level,
            platform=event.platform,
            kind=event.kind,
            exception_type=event.exception_type,
        )
        if event.environment:
            values["last_environment"] = event.environment
        released = [item for item in items if item.event.release]
        if released:
            values["last_release"] = max(released, key=lambda item: item.event.occurred_at).event.release
    if current.status == "resolved":
        # A resolved error that happens again is a regression.
        values.update(status="unresolved", regressed=True)
    kept = current.payloads_kept + len(items) if payloads_per_error > 0 else 0
    if kept > payloads_per_error:
        oldest = (
            select(ErrorEventPayload.event_row_id)
            .where(ErrorEventPayload.error_id == error_id)
            .order_by(ErrorEventPayload.event_row_id)
            .limit(kept - payloads_per_error)
            .scalar_subquery()
        )
        connection.execute(delete(ErrorEventPayload).where(ErrorEventPayload.event_row_id.in_(oldest)))
        kept = payloads_per_error
    values["payloads_kept"] = kept
    connection.execute(update(TrackedError).where(TrackedError.id == error_id).values(**values))


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

    def clear(self) -> None:
        self._pairs.clear()


class IngestWriter:
    """The single writer thread; `await writer.store(...)` returns once the data is committed."""

    def __init__(self, engine: Engine, *, payloads_per_error: int, max_batch: int = MAX_BATCH):
        self._engine = engine
        self._payloads_per_error = payloads_per_error
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._known_users = _KnownUsers()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="error-tracking-writer", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        if self._thread is None:
            return
        self._queue.put(_STOP)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join)
        self._thread = None

    async def store(self, project_id: int, request: IngestRequest, received_at: dt.datetime) -> None:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.put((project_id, request, received_at, future, loop))
        await future

    def forget_users(self) -> None:
        """Drop the user cache (after errors were deleted)."""
        self._known_users.clear()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            batch = [first]
            stop = False
            while len(batch) < self._max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stop = True
                    break
                batch.append(item)
            self._write(batch)
            if stop:
                return

    def _write(self, batch: list) -> None:
        try:
            self._commit(batch)
        except Exception:
            if len(batch) == 1:
                log.exception("storing an accepted request failed")
                self._resolve(batch, RuntimeError("the event could not be stored"))
                return
            # Store one by one so a single bad request cannot fail the others.
            log.warning("batch of %d failed; retrying its requests one by one", len(batch), exc_info=True)
            for item in batch:
                self._write([item])
            return
        self._resolve(batch, None)

    def _commit(self, batch: list) -> None:
        with self._engine.begin() as connection:
            result = store_batch(
                connection,
                [(project_id, request, received_at) for project_id, request, received_at, _, _ in batch],
                payloads_per_error=self._payloads_per_error,
                known_users=self._known_users,
            )
        self._known_users.add(result.user_pairs)

    @staticmethod
    def _resolve(batch: list, error: Exception | None) -> None:
        by_loop: dict = defaultdict(list)
        for *_, future, loop in batch:
            by_loop[loop].append(future)
        for loop, futures in by_loop.items():
            loop.call_soon_threadsafe(_settle, futures, error)


def _settle(futures: list[asyncio.Future], error: Exception | None) -> None:
    for future in futures:
        if future.done():  # the client went away
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

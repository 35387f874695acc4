"""Storing one batch of accepted events and sessions in the caller's transaction.

Events are matched to their errors (created when new), stored with their payloads and tags, and the
error's aggregates (count, users, first and last seen, hourly counts) are updated in the same statement
per error, so they are exact whatever is pruned later. The storage counters per error and per project
and received day (models.ErrorStoredDay) get the batch's events and payload bytes.
"""


import datetime as dt
from collections import defaultdict
from collections.abc import Container, Sequence
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection

from outpost_server.db import utcnow
from outpost_server.error_tracking.digest import batch_outcome, snoozes
from outpost_server.error_tracking.digest.batch_outcome import ErrorActivity, EventFacts, ReceivedCheckIns
from outpost_server.error_tracking.digest.batch_sql import (
    LOOKUP_CHUNK,
    BatchStatements,
    chunks,
    day_of,
    hour_of,
    statements_for,
)
from outpost_server.error_tracking.digest.decode import IngestRequest
from outpost_server.error_tracking.digest.normalize import NormalizedEvent
from outpost_server.error_tracking.digest.tag_store import tag_rows


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
    sql = statements_for(connection.dialect)
    result = BatchResult()
    _store_sessions(connection, sql, batch)
    check_ins = [ReceivedCheckIns(item.project_id, item.received_at, tuple(item.content.check_ins))
                 for item in batch if item.content.check_ins]
    if check_ins:
        batch_outcome.report_check_ins(connection, check_ins)
    received = _new_events(connection, sql, batch)
    if not received:
        return result
    # Read (and on PostgreSQL lock) the errors first, before any row referring to them is written: a
    # concurrent writer of the same error waits here, so "new" and "regressed" are seen by exactly one of
    # them. Locked later, after the tag counts, a writer holding an error's tag count row waited for the
    # error row while the other, holding the error row's key share (its events' foreign keys), waited for
    # that tag count: a deadlock. An error merged while this writer waited for it is looked up again, so
    # its events join the error it was merged into.
    while True:
        by_error = _grouped(received, _find_or_create_errors(connection, sql, received))
        before = _states_before(connection, sql, list(by_error))
        if not any(merged_into is not None for _status, _count, merged_into in before.values()):
            break

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
    event_tags, tag_counts = tag_rows((error_id, item.event, item.received_at)
                                      for error_id, items in by_error.items() for item in items)
    sql.insert_event_tags.run(connection, event_tags)
    sql.count_tag_values.run(connection, tag_counts)
    # Every event is stored with its payload; the pruner (retention.py) enforces the limits later,
    # in small batches, so the hot path never deletes.
    sql.insert_payloads.run(connection, [
        {"error_id": error_id, "event_id": item.event.event_id, "payload": stored_payload(item.event),
         "received_at": item.received_at}
        for error_id, items in by_error.items()
        for item in items
    ])
    hourly: dict[tuple[int, dt.datetime], int] = defaultdict(int)
    for error_id, items in by_error.items():
        for item in items:
            hourly[(error_id, hour_of(item.event.occurred_at))] += 1
    sql.count_hours.run(
        connection,
        [{"error_id": error_id, "hour": hour, "count": count} for (error_id, hour), count in sorted(hourly.items())],
    )
    users_by_error = _record_users(connection, sql, by_error, known_users)
    updates = []
    for error_id, items in by_error.items():
        users = users_by_error[error_id]
        result.user_pairs.update((error_id, key) for key in users.all)
        latest = max(items, key=lambda item: item.event.occurred_at).event
        released = [item.event for item in items if item.event.release]
        updates.append(
            {
                "b_id": error_id,
                "b_count": len(items),
                "b_new_users": len(users.new),
                "b_first_seen": min(item.event.occurred_at for item in items),
                "b_first_received": min(item.received_at for item in items),
                "b_last_received": max(item.received_at for item in items),
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
    # Ignored errors whose conditions this batch met come back; alert rules see them as regressions.
    woken = snoozes.wake_met(connection, [error_id for error_id, state in before.items() if state[0] == "ignored"],
                             utcnow())
    batch_outcome.report(connection, [
        ErrorActivity(
            project_id=items[0].project_id, error_id=error_id, title=items[0].event.title,
            new=before[error_id][1] == 0, regressed=before[error_id][0] == "resolved" or error_id in woken,
            events=tuple(EventFacts(item.event.environment, item.event.level, item.event.release,
                                    item.event.user_key) for item in items))
        for error_id, items in by_error.items()])
    _count_stored(connection, sql, by_error)
    return result


def _count_stored(connection: Connection, sql: BatchStatements, by_error: dict[int, list[_Received]]) -> None:
    """The batch's events and payload bytes added to the storage counters, per error and per project and day.

    Last of the batch's writes, in key order: a project's counter row is the one other writers of that
    project wait for, so it is held for as short a time as the transaction allows.
    """
    per_error: dict[tuple[int, dt.datetime], list[int]] = defaultdict(lambda: [0, 0, 0])
    per_project: dict[tuple[int, dt.datetime], list[int]] = defaultdict(lambda: [0, 0])
    for error_id, items in by_error.items():
        for item in items:
            day, size = day_of(item.received_at), len(stored_payload(item.event))
            counts = per_error[(error_id, day)]
            counts[0], counts[1], counts[2] = item.project_id, counts[1] + 1, counts[2] + size
            project = per_project[(item.project_id, day)]
            project[0], project[1] = project[0] + 1, project[1] + size
    sql.count_error_days.run(connection, [
        {"error_id": error_id, "received_day": day, "project_id": project_id, "events": events, "bytes": size}
        for (error_id, day), (project_id, events, size) in sorted(per_error.items())])
    sql.count_project_days.run(connection, [
        {"project_id": project_id, "received_day": day, "events": events, "bytes": size}
        for (project_id, day), (events, size) in sorted(per_project.items())])


def stored_payload(event: NormalizedEvent) -> bytes:
    return event.raw_payload or b"{}"


def _grouped(received: list[_Received], errors: dict[tuple[int, str], int]) -> dict[int, list[_Received]]:
    """The events by error id. Rows are locked in one order (error id, then hour or user key) by every writer,
    so concurrent writers (worker processes, replicas) on PostgreSQL wait for each other instead of deadlocking."""
    grouped: dict[int, list[_Received]] = defaultdict(list)
    for item in received:
        grouped[errors[(item.project_id, item.event.fingerprint)]].append(item)
    return {error_id: grouped[error_id] for error_id in sorted(grouped)}


def _states_before(connection: Connection, sql: BatchStatements, error_ids: list[int]
                   ) -> dict[int, tuple[str, int, int | None]]:
    """error id -> (status, count, the error it was merged into) before this batch's update."""
    states = {}
    for chunk in chunks(error_ids, LOOKUP_CHUNK):
        for error_id, status, count, merged_into in connection.execute(sql.error_states, {"ids": list(chunk)}):
            states[error_id] = (status, count, merged_into)
    return states


def _store_sessions(connection: Connection, sql: BatchStatements, batch: Sequence[Accepted]) -> None:
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


def _new_events(connection: Connection, sql: BatchStatements, batch: Sequence[Accepted]) -> list[_Received]:
    """Events of the batch not stored before (event ids are unique per project)."""
    pending: dict[tuple[int, str], _Received] = {}
    for accepted in batch:
        for event in accepted.content.events:
            pending.setdefault((accepted.project_id, event.event_id),
                               _Received(accepted.project_id, event, accepted.received_at))
    if sql.claim_event_ids is not None:
        claimed = _claim(connection, sql, pending)
        return [item for key, item in pending.items() if key in claimed]  # in the batch's order, as below
    by_project: dict[int, list[str]] = defaultdict(list)
    for project_id, event_id in pending:
        by_project[project_id].append(event_id)
    for project_id, event_ids in by_project.items():
        for chunk in chunks(event_ids, LOOKUP_CHUNK):
            existing = connection.execute(sql.known_event_ids, {"project_id": project_id, "event_ids": list(chunk)})
            for (event_id,) in existing:
                del pending[(project_id, event_id)]
    return list(pending.values())


def _claim(connection: Connection, sql: BatchStatements, pending: dict[tuple[int, str], _Received]
           ) -> set[tuple[int, str]]:
    """PostgreSQL: the event ids this transaction claimed in the key table.

    A key another transaction inserted and has not committed yet makes this one wait for it, then
    skip the id: two replicas digesting the same event store it once.
    """
    claimed: set[tuple[int, str]] = set()
    for chunk in chunks(sorted(pending), LOOKUP_CHUNK):  # one lock order for every writer
        rows = [{"project_id": project_id, "event_id": event_id, "received_at": pending[(project_id, event_id)]
                 .received_at} for project_id, event_id in chunk]
        claimed.update((project_id, event_id) for project_id, event_id in connection.execute(sql.claim_event_ids, rows))
    return claimed


def _find_or_create_errors(connection: Connection, sql: BatchStatements, received: list[_Received]
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


def _lookup_errors(connection: Connection, sql: BatchStatements, keys) -> dict[tuple[int, str], int]:
    by_project: dict[int, list[str]] = defaultdict(list)
    for project_id, fingerprint in keys:
        by_project[project_id].append(fingerprint)
    found = {}
    for project_id, fingerprints in by_project.items():
        for chunk in chunks(fingerprints, LOOKUP_CHUNK):
            rows = connection.execute(sql.errors_by_fingerprint,
                                      {"project_id": project_id, "fingerprints": list(chunk)})
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
        "created_at": item.received_at,
        "updated_at": item.received_at,
    }


@dataclass
class _Users:
    new: set[str]
    all: set[str]


def _record_users(connection: Connection, sql: BatchStatements, by_error: dict[int, list[_Received]],
                  known: Container[tuple[int, str]]) -> dict[int, _Users]:
    """Insert the batch's users not yet recorded for their errors; the rows inserted are the new ones.

    One statement for the whole batch: a pair another writer inserts meanwhile waits for it and is not
    returned here, so each new user is counted once.
    """
    candidates = {error_id: {item.event.user_key for item in items if item.event.user_key}
                  for error_id, items in by_error.items()}
    unknown = sorted((error_id, key) for error_id, keys in candidates.items() for key in keys
                     if (error_id, key) not in known)  # sorted: one lock order for every writer
    new: dict[int, set[str]] = defaultdict(set)
    if unknown:
        for error_id, key in connection.execute(sql.add_users, [{"error_id": error_id, "user_key": key}
                                                                for error_id, key in unknown]):
            new[error_id].add(key)
    return {error_id: _Users(new.get(error_id, set()), keys) for error_id, keys in candidates.items()}

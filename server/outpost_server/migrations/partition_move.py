"""Moving the events of a PostgreSQL database migrated by 0019 into their partitions, batch by batch.

Each batch is its own short transaction: BATCH events (oldest ids first) leave the `_legacy` table
with their tag and payload rows, which take the event's received time on the way. Nothing is
locked for longer than a batch, so a large table moves while other replicas keep serving. Rows that
no event claims (tags or payloads whose event row is gone) move with their error's last received
time. The legacy tables are dropped once empty. It runs under the
migration lock (migrations/__init__.py), one process at a time; the event keys were filled by the
revision.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from outpost_server.error_tracking.retention import partitions

BATCH = 5_000
LEGACY = "_legacy"
EVENT_COLUMNS = "id, project_id, error_id, event_id, occurred_at, received_at, level, release, environment, user_key"

_MOVE_EVENTS = f"""
WITH moved AS (
    DELETE FROM {partitions.EVENTS}{LEGACY} WHERE id IN (
        SELECT id FROM {partitions.EVENTS}{LEGACY} ORDER BY id LIMIT :batch)
    RETURNING {EVENT_COLUMNS}),
inserted AS (INSERT INTO {partitions.EVENTS} ({EVENT_COLUMNS}) SELECT {EVENT_COLUMNS} FROM moved RETURNING 1),
tags AS (
    DELETE FROM {partitions.TAGS}{LEGACY} t USING moved m WHERE t.error_id = m.error_id AND t.event_id = m.event_id
    RETURNING t.id, t.error_id, t.event_id, t.key, t.value, m.received_at),
tags_in AS (INSERT INTO {partitions.TAGS} (id, error_id, event_id, key, value, received_at) SELECT * FROM tags),
payloads AS (
    DELETE FROM {partitions.PAYLOADS}{LEGACY} p USING moved m
    WHERE p.error_id = m.error_id AND p.event_id = m.event_id
    RETURNING p.id, p.error_id, p.event_id, p.payload, m.received_at),
payloads_in AS (INSERT INTO {partitions.PAYLOADS} (id, error_id, event_id, payload, received_at)
                SELECT * FROM payloads)
SELECT count(*) FROM inserted
"""

# Rows whose event row is gone: the error's last received time stands in for theirs.
_MOVE_STRAYS = {
    partitions.TAGS: ("id, error_id, event_id, key, value", "t.id, t.error_id, t.event_id, t.key, t.value"),
    partitions.PAYLOADS: ("id, error_id, event_id, payload", "t.id, t.error_id, t.event_id, t.payload"),
}


def legacy_left(connection: Connection) -> bool:
    return connection.dialect.name == "postgresql" and connection.execute(text(
        "SELECT to_regclass(:name) IS NOT NULL"), {"name": partitions.EVENTS + LEGACY}).scalar() is True


def count_legacy(connection: Connection) -> int:
    return int(connection.execute(text(f"SELECT count(*) FROM {partitions.EVENTS}{LEGACY}")).scalar() or 0)


def move_legacy_rows(engine: Engine, *, batch: int = BATCH, report: Callable[[str], None] = lambda line: None) -> int:
    """Moves every legacy row into the partitioned tables; returns the events moved by this call."""
    with engine.connect() as connection:
        if not legacy_left(connection):
            return 0
        total = count_legacy(connection)
        connection.rollback()
        if total:
            report(f"Moving {total} error tracking events into partitions, {batch} per transaction")
        moved = 0
        while True:
            with connection.begin():
                # Rows of a day without a partition land in the DEFAULT one; the pruner's pass drains it.
                count = int(connection.execute(text(_MOVE_EVENTS), {"batch": batch}).scalar() or 0)
            if count == 0:
                break
            moved += count
            report(f"  {moved} of {total} events moved ({100 * moved // max(total, 1)} %)")
        with connection.begin():
            for table, (columns, selected) in _MOVE_STRAYS.items():
                strays = connection.execute(text(
                    f"WITH gone AS (DELETE FROM {table}{LEGACY} t RETURNING {selected}) "
                    f"INSERT INTO {table} ({columns}, received_at) "
                    "SELECT gone.*, coalesce(e.last_received_at, e.last_seen_at) FROM gone "
                    "JOIN error_tracking_errors e ON e.id = gone.error_id")).rowcount
                if strays:
                    report(f"  {strays} {table} rows without an event moved")
            left = count_legacy(connection)
            if left == 0:
                for table in partitions.TABLES:
                    connection.execute(text(f"DROP TABLE {table}{LEGACY}"))
        if left == 0 and total:
            report("Every error tracking event is in its partition")
        return moved

"""Retention for bench.storage_scale: removing a day of events by rows and by partition.

Rows: the pruner's own pass (retention.prune_all) with a cutoff at the end of the oldest day and no
other limit, its pauses between batches set to zero. Partitions: when the events table is a
PostgreSQL partitioned table, the next day goes as the pruner's pass drops an expired day
(partition_retention.drop_day: detach the day's partitions, forget its event keys, drop them);
otherwise "n/a". On PostgreSQL both report the WAL written (pg_current_wal_lsn() before and after). That position is the
whole cluster's: the figure holds only while nothing else writes to the same PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from sqlalchemy import func, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from outpost_server.db import make_sessionmaker
from outpost_server.error_tracking.models import ErrorEvent
from outpost_server.error_tracking.retention import limits, partition_retention, partitions

from .storage_fill import Plan


@dataclass
class DayRemoval:
    rows: int
    delete_seconds: float
    delete_wal: int | None
    drop_seconds: float | None = None
    drop_wal: int | None = None
    drop_rows: int = 0


def partitioned(engine: Engine) -> bool:
    with engine.connect() as connection:
        return partitions.partitioned(connection)


def prepare(engine: Engine, plan: Plan) -> None:
    """Before a fill: the day partitions of the plan's days and those ahead, as the pruner's pass keeps them."""
    if not partitioned(engine):
        return
    days = [plan.start.date() + dt.timedelta(days=offset) for offset in range((plan.end - plan.start).days)]
    with engine.begin() as connection:
        partitions.create_days(connection, days + partitions.days_ahead(plan.end.date()))


def analyze(engine: Engine) -> None:
    """Fresh planner statistics after a fill, as autovacuum would gather them."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE"))
    else:
        with engine.begin() as connection:
            connection.execute(text("ANALYZE"))


def _wal_position(engine: Engine) -> str | None:
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as connection:
        return connection.scalar(text("SELECT pg_current_wal_lsn()::text"))


def _wal_since(engine: Engine, start: str | None) -> int | None:
    if start is None:
        return None
    with engine.connect() as connection:
        return int(connection.scalar(text("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), CAST(:s AS pg_lsn))"),
                                     {"s": start}))


def _oldest_day(engine: Engine) -> tuple[dt.datetime, int]:
    with engine.connect() as connection:
        oldest = connection.scalar(select(func.min(ErrorEvent.received_at)))
        assert oldest is not None, "no events stored"
        day_end = dt.datetime.combine(oldest.date() + dt.timedelta(days=1), dt.time(), dt.timezone.utc)
        rows = connection.scalar(select(func.count()).select_from(ErrorEvent).where(ErrorEvent.received_at < day_end))
    return day_end, int(rows or 0)


def delete_day(engine: Engine) -> tuple[int, float, int | None]:
    """The pruner removes every event received before the end of the oldest day: (rows, seconds, WAL bytes)."""
    day_end, rows = _oldest_day(engine)
    policy = limits.RetentionPolicy(retention_days=1, events_per_error=0, max_stored_bytes=0)
    pause, limits.PAUSE_SECONDS = limits.PAUSE_SECONDS, 0.0
    start = _wal_position(engine)
    started = time.perf_counter()
    try:
        limits.prune_all(make_sessionmaker(engine), defaults=policy, now=day_end + dt.timedelta(days=1),
                         dry_run=False)
    finally:
        limits.PAUSE_SECONDS = pause
    return rows, time.perf_counter() - started, _wal_since(engine, start)


def drop_day(engine: Engine) -> tuple[int, float, int | None]:
    """The oldest day that has a partition goes whole: (events, seconds, WAL bytes)."""
    with engine.connect() as connection:
        day = partitions.attached_days(connection)[0]
    start = _wal_position(engine)
    started = time.perf_counter()
    dropped = partition_retention.drop_day(make_sessionmaker(engine), day)
    return dropped.events, time.perf_counter() - started, _wal_since(engine, start)


def remove_oldest_day(engine: Engine) -> DayRemoval:
    """Rows of the oldest day deleted, then (partitioned) the next day dropped: a day each way."""
    day_end, _rows = _oldest_day(engine)
    rows, seconds, wal = delete_day(engine)
    removal = DayRemoval(rows, seconds, wal)
    if partitioned(engine):
        with engine.connect() as connection:
            emptied = [day for day in partitions.attached_days(connection) if day < day_end.date()]
        # The days just emptied by deletes go first, untimed, so the timed drop removes a full day.
        for day in emptied:
            _drop_untimed(engine, day)
        removal.drop_rows, removal.drop_seconds, removal.drop_wal = drop_day(engine)
    return removal


def clear_day(engine: Engine, day: dt.date) -> None:
    """Removes every event received on `day`, leaving its partitions in place (PostgreSQL): the insert
    rounds write a day of their own, cleared before and after them, so a kept database keeps the events it
    was filled with (the errors' aggregates keep counting what was inserted, as they would)."""
    if not partitioned(engine):
        partition_retention.delete_day_rows(make_sessionmaker(engine), day)
        return
    with engine.connect() as connection:
        attached = day in partitions.attached_days(connection)
    if attached:
        _drop_untimed(engine, day)
    with engine.begin() as connection:
        partitions.create_days(connection, [day])


def _drop_untimed(engine: Engine, day: dt.date) -> None:
    # Autovacuum may be cleaning the partition after the deletes: its detach then waits out its lock
    # timeout, and the pruner's next pass would try again; here, a few seconds later.
    for attempt in range(10):
        try:
            partition_retention.drop_day(make_sessionmaker(engine), day)
            return
        except OperationalError:
            if attempt == 9:
                raise
            time.sleep(3)


def day_seconds(removal: DayRemoval | None) -> float | None:
    """How long the server's own way took: dropping partitions when there are any, else deleting rows."""
    if removal is None:
        return None
    return removal.drop_seconds if removal.drop_seconds is not None else removal.delete_seconds


def cell(removal: DayRemoval | None, pick: str) -> str:
    if removal is None:
        return "n/a"
    seconds = removal.delete_seconds if pick == "delete" else removal.drop_seconds
    return "n/a" if seconds is None else f"{seconds:.2f} s"


def wal_text(removal: DayRemoval) -> str:
    def amount(count: int | None) -> str:
        return "n/a" if count is None else f"{count / 2**20:,.1f} MiB"

    text_ = f"WAL deleting rows {amount(removal.delete_wal)}"
    if removal.drop_seconds is not None:
        text_ += f", dropping the partition ({removal.drop_rows:,} events) {amount(removal.drop_wal)}"
    else:
        text_ += ", no partitions (n/a)"
    return text_

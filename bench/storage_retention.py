"""Retention for bench.storage_scale: removing the oldest day of events by rows and by partition.

Rows: the pruner's own pass (retention.prune_all) with a cutoff at the end of the oldest day and no
other limit, its pauses between batches set to zero. Partitions: only when the events table is a
PostgreSQL partitioned table; otherwise "n/a". On PostgreSQL both report the WAL written
(pg_current_wal_lsn() before and after).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from sqlalchemy import func, select, text
from sqlalchemy.engine import Engine

from outpost_server.db import make_sessionmaker
from outpost_server.error_tracking import retention
from outpost_server.error_tracking.models import ErrorEvent

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
    if engine.dialect.name != "postgresql":
        return False
    with engine.connect() as connection:
        kind = connection.scalar(text("SELECT relkind FROM pg_class WHERE relname = 'error_tracking_error_events'"))
    return kind == "p"


def prepare(engine: Engine, plan: Plan) -> None:
    """Before a fill: nothing to do on an unpartitioned schema."""


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
        oldest = oldest.replace(tzinfo=dt.timezone.utc) if oldest.tzinfo is None else oldest
        day_end = dt.datetime.combine(oldest.date() + dt.timedelta(days=1), dt.time(), dt.timezone.utc)
        rows = connection.scalar(select(func.count()).select_from(ErrorEvent).where(ErrorEvent.received_at < day_end))
    return day_end, int(rows)


def delete_day(engine: Engine) -> tuple[int, float, int | None]:
    """The pruner removes every event received before the end of the oldest day: (rows, seconds, WAL bytes)."""
    day_end, rows = _oldest_day(engine)
    policy = retention.RetentionPolicy(retention_days=1, events_per_error=0, max_stored_bytes=0)
    pause, retention.PAUSE_SECONDS = retention.PAUSE_SECONDS, 0.0
    start = _wal_position(engine)
    started = time.perf_counter()
    try:
        retention.prune_all(make_sessionmaker(engine), defaults=policy, now=day_end + dt.timedelta(days=1),
                            dry_run=False)
    finally:
        retention.PAUSE_SECONDS = pause
    return rows, time.perf_counter() - started, _wal_since(engine, start)


def remove_oldest_day(engine: Engine) -> DayRemoval:
    rows, seconds, wal = delete_day(engine)
    return DayRemoval(rows, seconds, wal)


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

"""Ignore conditions (Sentry's GroupSnooze): when an ignored error comes back unresolved.

An error ignored with conditions comes back once any one is met: its `until` moment has passed, or
`count` events (`user_count` users) happened within the last `window` (`user_window`) minutes, or,
without a window, since it was ignored. The digest checks the errors of each stored batch that were
ignored, in the batch's transaction, and reports those that came back as regressions; the pruner's
pass wakes the errors whose moment passed without events.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, delete, distinct, func, select, update
from sqlalchemy.engine import Connection

from outpost_server.error_tracking.models import ErrorEvent, ErrorSnooze, TrackedError

SNOOZES = cast(Table, ErrorSnooze.__table__)
ERRORS = cast(Table, TrackedError.__table__)
EVENTS = cast(Table, ErrorEvent.__table__)
# Sentry's bound on both windows: a week, in minutes.
MAX_WINDOW_MINUTES = 7 * 24 * 60


@dataclass(frozen=True)
class Totals:
    """What an error had when its conditions are checked."""

    count: int
    users: int


@dataclass(frozen=True)
class Conditions:
    """One error's ignore conditions (an ErrorSnooze row's fields)."""

    error_id: int
    until: dt.datetime | None
    count: int | None
    window: int | None
    user_count: int | None
    user_window: int | None
    times_seen: int
    users_seen: int

    @classmethod
    def of(cls, row: Any) -> Conditions:
        """From a snooze, as a row mapping or an ErrorSnooze."""
        get = row.__getitem__ if hasattr(row, "keys") else lambda name: getattr(row, name)
        return cls(**{name: get(name) for name in cls.__dataclass_fields__})


def _since(now: dt.datetime, minutes: int) -> dt.datetime:
    return now - dt.timedelta(minutes=minutes)


def _recent(connection: Connection, error_id: int, since: dt.datetime, *, users: bool) -> int:
    """The error's events (or distinct users) since `since`: its time-ordered index, and on PostgreSQL the
    day partitions received since then."""
    counted = func.count(distinct(EVENTS.c.user_key)) if users else func.count()
    return connection.execute(select(counted).where(
        EVENTS.c.error_id == error_id, EVENTS.c.occurred_at >= since, EVENTS.c.received_at >= since)).scalar_one()


def condition_met(connection: Connection, snooze: Conditions, totals: Totals, now: dt.datetime) -> bool:
    if snooze.until is not None and snooze.until <= now:
        return True
    if snooze.count:
        seen = (_recent(connection, snooze.error_id, _since(now, snooze.window), users=False) if snooze.window
                else totals.count - snooze.times_seen)
        if seen >= snooze.count:
            return True
    if snooze.user_count:
        seen = (_recent(connection, snooze.error_id, _since(now, snooze.user_window), users=True)
                if snooze.user_window else totals.users - snooze.users_seen)
        if seen >= snooze.user_count:
            return True
    return False


def wake_met(connection: Connection, ignored_ids: Collection[int], now: dt.datetime) -> set[int]:
    """Of these ignored errors, those whose conditions are now met, turned unresolved (and marked regressed,
    as the console and alert rules read them) with their conditions deleted."""
    if not ignored_ids:
        return set()
    rows = connection.execute(
        select(SNOOZES, ERRORS.c.count.label("error_count"), ERRORS.c.users_count)
        .join(ERRORS, ERRORS.c.id == SNOOZES.c.error_id)
        .where(SNOOZES.c.error_id.in_(sorted(ignored_ids)), ERRORS.c.status == "ignored")).mappings().all()
    woken = {row["error_id"] for row in rows
             if condition_met(connection, Conditions.of(row), Totals(row["error_count"], row["users_count"]), now)}
    _unresolve(connection, woken)
    return woken


def wake_expired(connection: Connection, now: dt.datetime) -> set[int]:
    """The ignored errors whose `until` passed, whether or not they happened since (the pruner's pass)."""
    expired = set(connection.execute(select(SNOOZES.c.error_id).join(ERRORS, ERRORS.c.id == SNOOZES.c.error_id)
                                     .where(SNOOZES.c.until <= now, ERRORS.c.status == "ignored")).scalars())
    _unresolve(connection, expired)
    return expired


def _unresolve(connection: Connection, error_ids: set[int]) -> None:
    if not error_ids:
        return
    ids = sorted(error_ids)
    connection.execute(update(ERRORS).where(ERRORS.c.id.in_(ids)).values(status="unresolved", regressed=True))
    connection.execute(delete(SNOOZES).where(SNOOZES.c.error_id.in_(ids)))

"""Merging errors (Sentry's merge): the children's events, counts, users, tags and first and last seen
join the parent, the error seen most often (then the newest).

The children stay as rows pointing at the parent (`merged_into_id`), emptied of counts: lists leave
them out, their ids answer as the parent (Sentry's GroupRedirect), and the digest groups their
fingerprints into the parent from then on. A child merged before follows its parent, so every
redirect is one step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, case, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from outpost_server.db import utcnow
from outpost_server.error_tracking.models import (
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorSnooze,
    ErrorStoredDay,
    ErrorTagValue,
    ErrorUser,
    EventTag,
    TrackedError,
)

# The tables whose rows simply move: each row belongs to one event.
MOVED = (ErrorEvent, ErrorEventPayload, EventTag)


def _table(model: type) -> Table:
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


def merge(session: Session, errors: Sequence[TrackedError]) -> tuple[TrackedError, list[TrackedError]]:
    """Merges the errors (two or more, of one project) into one; answers (parent, children)."""
    ids = sorted(error.id for error in errors)
    # Locked in id order, as the digest locks the errors it writes, so the two wait for each other.
    locked = list(session.scalars(select(TrackedError).where(TrackedError.id.in_(ids)).order_by(TrackedError.id)
                                  .with_for_update()))
    ordered = sorted(locked, key=lambda error: (error.count, error.id), reverse=True)
    parent, children = ordered[0], ordered[1:]
    child_ids = [child.id for child in children]
    for model in MOVED:
        table = _table(model)
        session.execute(update(table).where(table.c.error_id.in_(child_ids)).values(error_id=parent.id))
    _fold(session, _table(ErrorTagValue), parent.id, child_ids, keys=("key", "value"), sums=("times_seen",),
          firsts=("first_seen_at",), lasts=("last_seen_at",))
    _fold(session, _table(ErrorHourlyCount), parent.id, child_ids, keys=("hour",), sums=("count",))
    _fold(session, _table(ErrorStoredDay), parent.id, child_ids, keys=("received_day", "project_id"),
          sums=("events", "bytes"))
    users = _table(ErrorUser)
    _insert(session, users, [{"error_id": parent.id, "user_key": key} for key in session.scalars(
        select(users.c.user_key).where(users.c.error_id.in_(child_ids)).distinct())], keys=("user_key",))
    session.execute(delete(users).where(users.c.error_id.in_(child_ids)))
    session.execute(delete(ErrorSnooze).where(ErrorSnooze.error_id.in_(child_ids)))
    _join_aggregates(session, parent, children)
    # Errors merged into a child before now point at the parent: a redirect is always one step.
    session.execute(update(TrackedError).where(TrackedError.merged_into_id.in_(child_ids))
                    .values(merged_into_id=parent.id))
    now = utcnow()
    for child in children:
        child.merged_into_id, child.count, child.users_count, child.updated_at = parent.id, 0, 0, now
    session.flush()
    return parent, children


def _join_aggregates(session: Session, parent: TrackedError, children: list[TrackedError]) -> None:
    every = [parent, *children]
    earliest = min(every, key=lambda error: error.first_seen_at)
    latest = max(every, key=lambda error: error.last_seen_at)
    parent.count = sum(error.count for error in every)
    parent.users_count = session.scalar(select(func.count()).where(ErrorUser.error_id == parent.id)) or 0
    parent.first_seen_at, parent.first_release = earliest.first_seen_at, earliest.first_release
    parent.last_seen_at = latest.last_seen_at
    parent.last_release = latest.last_release or parent.last_release
    parent.last_environment = latest.last_environment or parent.last_environment
    received = [error for error in every if error.first_received_at is not None]
    if received:
        parent.first_received_at = min(error.first_received_at for error in received if error.first_received_at)
        parent.last_received_at = max(error.last_received_at for error in received if error.last_received_at)
    parent.updated_at = utcnow()


def _fold(session: Session, table: Table, parent_id: int, child_ids: list[int], *, keys: tuple[str, ...],
          sums: tuple[str, ...], firsts: tuple[str, ...] = (), lasts: tuple[str, ...] = ()) -> None:
    """The children's counter rows added into the parent's, key by key, then deleted."""
    columns = [table.c[name] for name in keys]
    aggregated = ([func.sum(table.c[name]) for name in sums] + [func.min(table.c[name]) for name in firsts]
                  + [func.max(table.c[name]) for name in lasts])
    names = [*keys, *sums, *firsts, *lasts]
    rows = [{"error_id": parent_id, **dict(zip(names, row, strict=True))} for row in session.execute(
        select(*columns, *aggregated).where(table.c.error_id.in_(child_ids)).group_by(*columns))]
    _insert(session, table, rows, keys=tuple(name for name in keys if name != "project_id"), sums=sums,
            firsts=firsts, lasts=lasts)
    session.execute(delete(table).where(table.c.error_id.in_(child_ids)))


def _insert(session: Session, table: Table, rows: list[dict], *, keys: tuple[str, ...], sums: tuple[str, ...] = (),
            firsts: tuple[str, ...] = (), lasts: tuple[str, ...] = ()) -> None:
    if not rows:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = dialect.insert(table)
    new = statement.excluded
    changes = ({name: table.c[name] + new[name] for name in sums}
               | {name: case((new[name] < table.c[name], new[name]), else_=table.c[name]) for name in firsts}
               | {name: case((new[name] > table.c[name], new[name]), else_=table.c[name]) for name in lasts})
    index = ["error_id", *keys]
    session.execute(statement.on_conflict_do_update(index_elements=index, set_=changes) if changes
                    else statement.on_conflict_do_nothing(index_elements=index), rows)

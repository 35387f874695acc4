"""Reading the events of an error: pages in time order, neighbours, payloads and tag facets.

Pages use keyset pagination on (occurred at, id) — one range scan of the timeline index however deep
the page — and tag facets read the per-error value counts kept at ingestion (tag_store.py).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, func, select, tuple_
from sqlalchemy.orm import QueryableAttribute, Session

from outpost_server.error_tracking.models import (
    ErrorEvent,
    ErrorEventPayload,
    ErrorTagValue,
    EventKey,
    EventTag,
    TrackedError,
)
from outpost_server.error_tracking.retention import partitions

TOP_VALUES = 10


class UnknownBoundary(Exception):
    """A cursor names a row that is not part of the listed set."""


@dataclass(frozen=True)
class Window:
    """One page in display (descending) order, and whether rows exist before and after it."""

    rows: list[Any]
    has_before: bool
    has_after: bool


def keyset_window(session: Session, stmt: Select, columns: Sequence[ColumnElement | QueryableAttribute], *,
                  boundary: tuple | None, backwards: bool, limit: int) -> Window:
    """Rows of `stmt` in descending `columns` order, after `boundary` (before it when `backwards`)."""
    key = tuple_(*columns)
    if boundary is not None:
        stmt = stmt.where(key > boundary if backwards else key < boundary)
    order = [column.asc() for column in columns] if backwards else [column.desc() for column in columns]
    rows = list(session.scalars(stmt.order_by(*order).limit(limit + 1)))
    return _window(rows, limit=limit, boundary=boundary, backwards=backwards)


def _window(rows: list[Any], *, limit: int, boundary: tuple | None, backwards: bool) -> Window:
    """The Window of up to `limit` + 1 rows read in walking order (ascending when `backwards`)."""
    more = len(rows) > limit
    rows = rows[:limit]
    if backwards:
        rows.reverse()
        return Window(rows, has_before=more, has_after=boundary is not None)
    return Window(rows, has_before=boundary is not None, has_after=more)


# --- errors ---------------------------------------------------------------------------------

ERROR_SORTS = {
    "date": TrackedError.last_seen_at,
    "new": TrackedError.first_seen_at,
    "freq": TrackedError.count,
    "user": TrackedError.users_count,
}


def errors_window(session: Session, *, project_id: int, conditions: Sequence[ColumnElement[bool]], sort: str,
                  limit: int, boundary_id: int | None = None, backwards: bool = False) -> Window:
    """The project's errors matching `conditions` in Sentry's `sort` order (date, new, freq, user), then by id.

    The boundary row only has to belong to the project: an error resolved since the previous page
    still marks where the next one starts.
    """
    columns = (ERROR_SORTS[sort], TrackedError.id)
    boundary = None
    if boundary_id is not None:
        row = session.execute(select(*columns).where(TrackedError.id == boundary_id,
                                                     TrackedError.project_id == project_id)).first()
        if row is None:
            raise UnknownBoundary()
        boundary = tuple(row)
    return keyset_window(session, select(TrackedError).where(*conditions), columns, boundary=boundary,
                         backwards=backwards, limit=limit)


# --- events ---------------------------------------------------------------------------------

TIMELINE = (ErrorEvent.occurred_at, ErrorEvent.id)


# Tags held as columns of the event row (tag_store.COLUMN_TAGS), and those columns.
TAG_COLUMNS = {"level": ErrorEvent.level, "release": ErrorEvent.release, "environment": ErrorEvent.environment,
               "user": ErrorEvent.user_key}


# A page filtered by tag rows walks the timeline in chunks when its values are common enough that a chunk
# of at most this many events is expected to fill it; rarer values are searched through their tag rows.
CHUNK_MAX = 20_000
CHUNK_MARGIN = 1.25


def _carried_by_rows(session: Session, error: TrackedError, tags: dict[str, str]) -> list[ColumnElement[bool]]:
    """Conditions on events: their tag rows hold every one of `tags` (one query over the values' rows)."""
    return [ErrorEvent.event_id.in_(select(EventTag.event_id).where(
        EventTag.error_id == error.id, EventTag.key == key, EventTag.value == value,
        *partitions.error_days(session, error, EventTag.received_at))) for key, value in tags.items()]


def _chunk_size(session: Session, error: TrackedError, tags: dict[str, str], limit: int) -> int | None:
    """How many events a timeline chunk should hold to fill a page, from the values' counts (the values
    taken as independent); None when that is more than CHUNK_MAX, or a value was never seen."""
    share = 1.0
    for key, value in tags.items():
        seen = session.scalar(select(ErrorTagValue.times_seen).where(
            ErrorTagValue.error_id == error.id, ErrorTagValue.key == key, ErrorTagValue.value == value))
        if not seen:
            return None
        share *= min(1.0, seen / max(error.count, 1))
    size = (limit + 1) * CHUNK_MARGIN / share
    return None if size > CHUNK_MAX else max(limit + 1, int(size))


def _carrying(session: Session, error: TrackedError, tags: dict[str, str], rows: list[Any]) -> set[str]:
    """The ids of those events (rows with event_id and received_at) whose tag rows hold every one of `tags`.

    On PostgreSQL the value's rows are read over the events' received range rather than by their ids: the
    range names the chunk's day partitions, and a thousand ids would cost more to send than the few rows
    of other events in the same range cost to read. SQLite takes the ids.
    """
    carrying = {row.event_id for row in rows}
    if not rows:
        return carrying
    if partitions.in_use(session):
        received = [row.received_at for row in rows]
        within = [EventTag.received_at >= min(received), EventTag.received_at <= max(received)]
    else:
        within = [EventTag.event_id.in_(sorted(carrying))]
    for key, value in tags.items():
        if not carrying:
            break
        carrying &= set(session.scalars(select(EventTag.event_id).where(
            EventTag.error_id == error.id, EventTag.key == key, EventTag.value == value, *within)))
    return carrying


def _walk_timeline(session: Session, *, error: TrackedError, conditions: list[ColumnElement[bool]],
                   tags: dict[str, str], boundary: tuple | None, backwards: bool, limit: int, chunk: int) -> Window:
    """The page of events carrying `tags`: chunks of the timeline (their keys only) from the boundary on,
    each checked against the tag rows in one query, until the page is full (each chunk four times the
    last, up to CHUNK_MAX); then the page's events."""
    key = tuple_(*TIMELINE)
    order = [column.asc() if backwards else column.desc() for column in TIMELINE]
    found: list[Any] = []
    position = boundary
    while len(found) <= limit:
        stmt = select(*TIMELINE, ErrorEvent.event_id, ErrorEvent.received_at).where(*conditions)
        if position is not None:
            stmt = stmt.where(key > position if backwards else key < position)
        rows = list(session.execute(stmt.order_by(*order).limit(chunk)))
        carrying = _carrying(session, error, tags, rows)
        found.extend(row for row in rows if row.event_id in carrying)
        if len(rows) < chunk:
            break
        position = (rows[-1].occurred_at, rows[-1].id)
        chunk = min(chunk * 4, CHUNK_MAX)
    found = found[:limit + 1]
    by_id = {event.id: event for event in session.scalars(select(ErrorEvent).where(
        ErrorEvent.error_id == error.id, partitions.one_of(session, ErrorEvent.id, [row.id for row in found]),
        *partitions.received_in(session, ErrorEvent.received_at, [row.received_at for row in found])))}
    # An event pruned since the walk read it is left out, as a later page would not show it either.
    return _window([by_id[row.id] for row in found if row.id in by_id], limit=limit, boundary=boundary,
                   backwards=backwards)


def column_tags(event: ErrorEvent) -> list[tuple[str, str]]:
    return [(key, value) for key, column in TAG_COLUMNS.items() if (value := getattr(event, column.key))]


def events_window(session: Session, *, error: TrackedError, limit: int, boundary_id: int | None = None,
                  backwards: bool = False, tags: dict[str, str] | None = None) -> Window:
    """The error's events, newest first; `boundary_id` is the row id a cursor carries."""
    days = partitions.error_days(session, error, ErrorEvent.received_at)
    tags = tags or {}
    conditions = [ErrorEvent.error_id == error.id, *days,
                  *(TAG_COLUMNS[key] == value for key, value in tags.items() if key in TAG_COLUMNS)]
    row_tags = {key: value for key, value in tags.items() if key not in TAG_COLUMNS}
    boundary = None
    if boundary_id is not None:
        row = session.execute(select(*TIMELINE).where(ErrorEvent.id == boundary_id,
                                                      ErrorEvent.error_id == error.id, *days)).first()
        if row is None:
            raise UnknownBoundary()
        boundary = tuple(row)
    if row_tags:
        chunk = _chunk_size(session, error, row_tags, limit)
        if chunk is not None:
            return _walk_timeline(session, error=error, conditions=conditions, tags=row_tags, boundary=boundary,
                                  backwards=backwards, limit=limit, chunk=chunk)
        conditions.extend(_carried_by_rows(session, error, row_tags))
    return keyset_window(session, select(ErrorEvent).where(*conditions), TIMELINE, boundary=boundary,
                         backwards=backwards, limit=limit)


def edge_event(session: Session, *, error: TrackedError, oldest: bool) -> ErrorEvent | None:
    order = [column.asc() if oldest else column.desc() for column in TIMELINE]
    return session.scalar(select(ErrorEvent).where(ErrorEvent.error_id == error.id,
                                                   *partitions.error_days(session, error, ErrorEvent.received_at))
                          .order_by(*order).limit(1))


def find_event(session: Session, *, project_id: int, event_id: str, error: TrackedError | None = None
               ) -> ErrorEvent | None:
    stmt = select(ErrorEvent).where(ErrorEvent.project_id == project_id, ErrorEvent.event_id == event_id.lower())
    if partitions.in_use(session):
        # The key table knows when the event arrived: only that day's partition is searched.
        received = session.scalar(select(EventKey.received_at).where(EventKey.project_id == project_id,
                                                                     EventKey.event_id == event_id.lower()))
        if received is None:
            return None
        stmt = stmt.where(ErrorEvent.received_at == received)
    if error is not None:
        stmt = stmt.where(ErrorEvent.error_id == error.id)
    return session.scalar(stmt)


def neighbours(session: Session, *, event: ErrorEvent, error: TrackedError | None = None
               ) -> tuple[str | None, str | None]:
    """(the previous — older — event id, the next — newer — event id) of the same error (`error`, when given,
    is the event's: its received range narrows the search)."""
    key = tuple_(*TIMELINE)
    here = (event.occurred_at, event.id)
    days = partitions.error_days(session, error, ErrorEvent.received_at) if error is not None else []
    base = select(ErrorEvent.event_id).where(ErrorEvent.error_id == event.error_id, *days)
    older = session.scalar(base.where(key < here).order_by(*(c.desc() for c in TIMELINE)).limit(1))
    newer = session.scalar(base.where(key > here).order_by(*(c.asc() for c in TIMELINE)).limit(1))
    return older, newer


def payloads(session: Session, *, error_id: int, event_ids: Sequence[str],
             received: Sequence[dt.datetime] | None = None) -> dict[str, dict[str, Any]]:
    """The kept (scrubbed) JSON of those events that still have it; `received`: their received times."""
    if not event_ids:
        return {}
    rows = session.execute(select(ErrorEventPayload.event_id, ErrorEventPayload.payload).where(
        ErrorEventPayload.error_id == error_id, partitions.one_of(session, ErrorEventPayload.event_id, event_ids),
        *partitions.received_in(session, ErrorEventPayload.received_at, received)))
    found = {}
    for event_id, blob in rows:
        try:
            document = json.loads(blob)
        except ValueError:
            continue
        if isinstance(document, dict):
            found[event_id] = document
    return found


def stored_tags(session: Session, *, error_id: int, event_ids: Sequence[str],
                received: Sequence[dt.datetime] | None = None) -> dict[str, list[tuple[str, str]]]:
    """The tags recorded at ingestion as rows for each of those events (column_tags() gives the others);
    `received`: their received times."""
    found: dict[str, list[tuple[str, str]]] = {event_id: [] for event_id in event_ids}
    if event_ids:
        # Selected by event id alone so the planner takes the event index, not the error's (much longer) tag list.
        rows = session.execute(select(EventTag.event_id, EventTag.error_id, EventTag.key, EventTag.value)
                               .where(partitions.one_of(session, EventTag.event_id, event_ids),
                                      *partitions.received_in(session, EventTag.received_at, received)))
        for event_id, row_error_id, key, value in rows:
            if row_error_id == error_id:
                found[event_id].append((key, value))
    return found


# --- tag facets -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TagFacet:
    key: str
    unique_values: int
    total: int
    top: list[ErrorTagValue]


def tag_facets(session: Session, *, error: TrackedError, keys: Sequence[str] | None = None,
               value_limit: int = TOP_VALUES) -> list[TagFacet]:
    """Per tag key: distinct values, events carrying it and its most frequent values (ties by value)."""
    totals_stmt = (select(ErrorTagValue.key, func.count(), func.sum(ErrorTagValue.times_seen))
                   .where(ErrorTagValue.error_id == error.id).group_by(ErrorTagValue.key))
    if keys:
        totals_stmt = totals_stmt.where(ErrorTagValue.key.in_(list(keys)))
    totals = {key: (unique, total or 0) for key, unique, total in session.execute(totals_stmt)}
    if not totals:
        return []
    top: dict[str, list[ErrorTagValue]] = {key: [] for key in totals}
    if value_limit > 0:
        for row in _top_values(session, error=error, keys=list(totals), value_limit=value_limit):
            top[row.key].append(row)
    facets = [TagFacet(key, unique, total, top[key]) for key, (unique, total) in totals.items()]
    facets.sort(key=lambda facet: (-facet.total, facet.key))
    return facets


def _top_values(session: Session, *, error: TrackedError, keys: list[str], value_limit: int) -> list[ErrorTagValue]:
    """The `value_limit` most frequent values of each key, in one query (a window function per key)."""
    rank = func.row_number().over(partition_by=ErrorTagValue.key,
                                  order_by=(ErrorTagValue.times_seen.desc(), ErrorTagValue.value)).label("rank")
    ranked = (select(ErrorTagValue, rank).where(ErrorTagValue.error_id == error.id, ErrorTagValue.key.in_(keys))
              .subquery())
    rows = session.execute(select(ranked).where(ranked.c.rank <= value_limit).order_by(ranked.c.key, ranked.c.rank))
    return [ErrorTagValue(error_id=row.error_id, key=row.key, value=row.value, times_seen=row.times_seen,
                          first_seen_at=row.first_seen_at, last_seen_at=row.last_seen_at) for row in rows]


def tag_values(session: Session, *, error: TrackedError, key: str, offset: int, limit: int
               ) -> tuple[list[ErrorTagValue], bool]:
    """One page of a tag's values, most frequent first; and whether more follow."""
    rows = list(session.scalars(
        select(ErrorTagValue).where(ErrorTagValue.error_id == error.id, ErrorTagValue.key == key)
        .order_by(ErrorTagValue.times_seen.desc(), ErrorTagValue.value).offset(offset).limit(limit + 1)))
    return rows[:limit], len(rows) > limit


def has_tag(session: Session, *, error: TrackedError, key: str) -> bool:
    return session.scalar(select(ErrorTagValue.key).where(ErrorTagValue.error_id == error.id,
                                                          ErrorTagValue.key == key).limit(1)) is not None

"""Reading errors of the integrated backend (for `reading.py`, which the web endpoints and GraphQL share).

The list uses keyset pagination: the cursor holds the sort value and id of the boundary row and
the direction, so every page is one indexed range scan however deep the user pages.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, exists, func, or_, select, tuple_
from sqlalchemy.orm import Session

from outpost_model.error_tracking import ExceptionFrame, ExceptionValue, StackFrame
from outpost_server.accounts.models import User
from outpost_server.db import LIKE_ESCAPE, contains_pattern, utcnow
from outpost_server.error_tracking.digest.event_tags import tag_text
from outpost_server.error_tracking.digest.grouping import exception_values, frames_of
from outpost_server.error_tracking.models import ErrorHourlyCount, ErrorTagValue, TrackedError
from outpost_server.error_tracking.read.search import ASSIGNED_TO_ME, SearchQuery

PAGE_SIZE = 20
SORT_COLUMNS = {
    "last_seen": TrackedError.last_seen_at,
    "first_seen": TrackedError.first_seen_at,
    "frequency": TrackedError.count,
}
MAX_RELEASES = 10
# A search walks the errors in a chunk of this many, then one CHUNK_GROWTH times larger, then checks the
# rest in one query (see _walk).
FIRST_CHUNK = 50
CHUNK_GROWTH = 4
WALKED_CHUNKS = 2


class InvalidCursor(Exception):
    pass


@dataclass
class ErrorPage:
    errors: list[TrackedError]
    pagination: dict[str, dict[str, str]]
    frequencies: dict[int, list[list[int]]]


# --- cursor ---------------------------------------------------------------------------------


def _encode_cursor(sort: str, row: TrackedError, direction: str) -> str:
    value = getattr(row, SORT_COLUMNS[sort].key)
    if isinstance(value, dt.datetime):
        value = value.astimezone(dt.timezone.utc).isoformat()
    raw = json.dumps([sort, value, row.id, direction], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, sort: str) -> tuple[Any, int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        cursor_sort, value, row_id, direction = json.loads(raw)
    except (ValueError, TypeError, binascii.Error):
        raise InvalidCursor() from None
    if cursor_sort != sort or direction not in ("next", "previous") or not isinstance(row_id, int):
        raise InvalidCursor()
    if sort == "frequency":
        if not isinstance(value, int):
            raise InvalidCursor()
    else:
        try:
            value = dt.datetime.fromisoformat(value)
        except (TypeError, ValueError):
            raise InvalidCursor() from None
        if value.tzinfo is None:
            raise InvalidCursor()
    return value, row_id, direction


# --- list -----------------------------------------------------------------------------------


def error_filters(project_id: int, status: str | None, query: SearchQuery) -> list[ColumnElement[bool]]:
    """The project's errors matching the search; every status when `status` is None."""
    return [*_listed(project_id, status), *_matching(query)]


def _listed(project_id: int, status: str | None) -> list[ColumnElement[bool]]:
    # Merged errors live on in the error they joined.
    conditions: list[ColumnElement[bool]] = [TrackedError.project_id == project_id,
                                             TrackedError.merged_into_id.is_(None)]
    if status is not None:
        conditions.append(TrackedError.status == status)
    return conditions


def _matching(query: SearchQuery) -> list[ColumnElement[bool]]:
    """The search's own conditions (words, level, release, environment)."""
    conditions: list[ColumnElement[bool]] = []
    if query.text:
        pattern = contains_pattern(query.text)
        conditions.append(or_(*(column.ilike(pattern, escape=LIKE_ESCAPE) for column in
                                (TrackedError.title, TrackedError.message, TrackedError.culprit,
                                 TrackedError.exception_type))))
    if query.assigned is not None:
        assignee = TrackedError.assignee_id
        conditions.append(assignee.is_not(None) if query.assigned else assignee.is_(None))
    if query.assignee is not None:
        conditions.append(TrackedError.assignee_id == (
            (query.viewer_id or 0) if query.assignee == ASSIGNED_TO_ME else
            select(User.id).where(func.lower(User.username) == query.assignee.lower()).scalar_subquery()))
    if "level" in query.filters:
        conditions.append(TrackedError.level == query.filters["level"].lower())
    for name in ("release", "environment"):
        if name in query.filters:
            # The error's value counts (kept at ingestion for every event, pruned or not) answer "seen in
            # this release" with one index probe per error, where its events would be a scan of each.
            conditions.append(exists().where(ErrorTagValue.error_id == TrackedError.id, ErrorTagValue.key == name,
                                             ErrorTagValue.value == tag_text(query.filters[name])))
    return conditions


def list_errors(session: Session, *, project_id: int, status: str | None, query: SearchQuery, sort: str,
                cursor: str | None, limit: int = PAGE_SIZE) -> ErrorPage:
    column = SORT_COLUMNS[sort]
    listed = _listed(project_id, status)
    direction = "next"
    if cursor:
        value, row_id, direction = _decode_cursor(cursor, sort)
        key = tuple_(column, TrackedError.id)
        bound = (value, row_id)
        listed.append(key < bound if direction == "next" else key > bound)
    ascending = direction == "previous"
    order = (column.asc(), TrackedError.id.asc()) if ascending else (column.desc(), TrackedError.id.desc())
    matching = _matching(query)
    if matching:
        rows = _walk(session, listed, matching, column, order, ascending, limit + 1)
    else:
        rows = list(session.scalars(select(TrackedError).where(*listed).order_by(*order).limit(limit + 1)))
    has_more = len(rows) > limit
    rows = rows[:limit]
    if ascending:
        rows.reverse()
    pagination: dict[str, dict[str, str]] = {}
    if rows:
        more_after = has_more if direction == "next" else True
        more_before = bool(cursor) if direction == "next" else has_more
        if more_after:
            pagination["next"] = {"cursor": _encode_cursor(sort, rows[-1], "next")}
        if more_before:
            pagination["previous"] = {"cursor": _encode_cursor(sort, rows[0], "previous")}
    return ErrorPage(rows, pagination, hourly_frequency(session, [row.id for row in rows]))


def _walk(session: Session, listed: list[ColumnElement[bool]], matching: list[ColumnElement[bool]], column,
          order: tuple, ascending: bool, wanted: int) -> list[TrackedError]:
    """The first `wanted` errors that match, walking the listed ones in the page's order by growing chunks.

    The planner cannot tell how many errors words or tag filters keep; guessing few, it checks every
    error of the project and sorts the matches, which at thousands of errors (each with its tag value
    probes) costs more than walking the sort's index until a page is full. Common matches fill a page
    from the first chunk; for rare ones, after WALKED_CHUNKS chunks, the rest is checked in one query as
    before, so a search matching nothing costs little more than it did.
    """
    found: list[TrackedError] = []
    after: tuple | None = None  # the sort key of the last error walked
    size = FIRST_CHUNK

    def beyond() -> list[ColumnElement[bool]]:
        if after is None:
            return listed
        key = tuple_(column, TrackedError.id)
        return [*listed, key > after if ascending else key < after]

    for _ in range(WALKED_CHUNKS):
        chunk = select(TrackedError.id).where(*beyond()).order_by(*order).limit(size).scalar_subquery()
        found += session.scalars(select(TrackedError).where(TrackedError.id.in_(chunk), *matching)
                                 .order_by(*order).limit(wanted - len(found)))
        if len(found) >= wanted:
            return found
        last = session.execute(select(column, TrackedError.id).where(*beyond()).order_by(*order)
                               .offset(size - 1).limit(1)).first()
        if last is None:  # the chunk held every error left
            return found
        after, size = tuple(last), size * CHUNK_GROWTH
    return found + list(session.scalars(select(TrackedError).where(*beyond(), *matching).order_by(*order)
                                        .limit(wanted - len(found))))


# --- frequencies ----------------------------------------------------------------------------


def _hour_floor(moment: dt.datetime) -> dt.datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def hourly_frequency(session: Session, error_ids: list[int], *, now: dt.datetime | None = None
                     ) -> dict[int, list[list[int]]]:
    """Per error, Sentry's `stats.24h` shape: 24 `[hour_epoch, count]` pairs, oldest first."""
    if not error_ids:
        return {}
    end = _hour_floor(now or utcnow())
    start = end - dt.timedelta(hours=23)
    first_epoch = int(start.timestamp())
    counts = {error_id: [0] * 24 for error_id in error_ids}
    rows = session.execute(select(ErrorHourlyCount.error_id, ErrorHourlyCount.hour, ErrorHourlyCount.count).where(
        ErrorHourlyCount.error_id.in_(error_ids), ErrorHourlyCount.hour >= start))
    for error_id, hour, count in rows:
        slot = (int(hour.timestamp()) - first_epoch) // 3600
        if 0 <= slot < 24:
            counts[error_id][slot] += count
    epochs = [first_epoch + 3600 * slot for slot in range(24)]
    return {error_id: [[epoch, count] for epoch, count in zip(epochs, buckets, strict=True)]
            for error_id, buckets in counts.items()}


def error_releases(session: Session, error: TrackedError) -> list[str]:
    """The releases the error was seen in, the latest first (from its value counts, not its events)."""
    found = list(session.scalars(select(ErrorTagValue.value).where(
        ErrorTagValue.error_id == error.id, ErrorTagValue.key == "release")
        .order_by(ErrorTagValue.last_seen_at.desc(), ErrorTagValue.value).limit(MAX_RELEASES)))
    for release in (error.first_release, error.last_release):
        if release and release not in found:
            found.append(release)
    return found


# --- stack trace ----------------------------------------------------------------------------


def frame_context(frame: dict[str, Any]) -> list[tuple[int, str]]:
    """GitLab's `[[line_number, code], ...]` from pre_context, context_line and post_context."""
    line = frame.get("lineno")
    if not isinstance(line, int):
        return []
    pre = [text for text in frame.get("pre_context") or [] if isinstance(text, str)]
    post = [text for text in frame.get("post_context") or [] if isinstance(text, str)]
    context = [(line - len(pre) + index, text) for index, text in enumerate(pre)]
    if isinstance(frame.get("context_line"), str):
        context.append((line, frame["context_line"]))
    context.extend((line + 1 + index, text) for index, text in enumerate(post))
    return context


def _column(frame: dict[str, Any]) -> int:
    """GitLab sends `colNo` 0 always ("not supported yet"); the column is given where the event has it, and 0
    where it has none, so readers of GitLab's shape see an integer."""
    column = frame.get("colno")
    return column if isinstance(column, int) and not isinstance(column, bool) else 0


def gitlab_frame(frame: dict[str, Any]) -> StackFrame:
    """GitLab's StacktraceBuilder entry."""
    return StackFrame(lineNo=frame.get("lineno"), context=frame_context(frame), filename=frame.get("filename"),
                      abs_path=frame.get("abs_path"), function=frame.get("function"), colNo=_column(frame))


def _full_frame(frame: dict[str, Any]) -> ExceptionFrame:
    data = frame.get("data")
    reason = data.get("unmapped_reason") if isinstance(data, dict) else None
    return ExceptionFrame(lineNo=frame.get("lineno"), context=frame_context(frame), filename=frame.get("filename"),
                          abs_path=frame.get("abs_path"), function=frame.get("function"), colNo=_column(frame),
                          module=frame.get("module"), in_app=frame.get("in_app") is True,
                          # Source maps: why a JavaScript frame stayed minified.
                          unmapped_reason=reason if isinstance(reason, str) else None)


def stack_trace(payload: dict[str, Any]) -> tuple[list[StackFrame], list[ExceptionValue]]:
    """(GitLab's entries: the first exception value with frames; every exception in order, with frames)."""
    values = exception_values(payload)
    if not values:
        threads = payload.get("threads")
        threads = threads.get("values") if isinstance(threads, dict) else threads
        values = [value for value in threads or [] if isinstance(value, dict)]
    entries: list[StackFrame] = []
    for value in values:
        frames = frames_of(value)
        if frames:
            entries = [gitlab_frame(frame) for frame in frames]
            break
    exceptions = []
    for value in exception_values(payload):
        mechanism = value.get("mechanism")
        if not isinstance(mechanism, dict):
            mechanism = {}
        raw = value.get("raw_stacktrace")
        exceptions.append(ExceptionValue(
            type=value.get("type"), value=value.get("value"), module=value.get("module"),
            handled=mechanism.get("handled"), frames=[_full_frame(frame) for frame in frames_of(value)],
            # The frames as the SDK sent them, before source maps were applied (Sentry's raw_stacktrace);
            # empty when nothing was mapped.
            raw_frames=[_full_frame(frame) for frame in frames_of({"stacktrace": raw})]))
    return entries, exceptions

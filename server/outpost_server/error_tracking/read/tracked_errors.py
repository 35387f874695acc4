"""Single errors: lookup (a merged error's id leads to the error it joined), latest payload, events, status
changes and daily counts.

Listing errors (keyset pagination, its cursor codec, the 24-hour frequencies) lives in
`web/integrated.py`; `web/reading.py` is the one read path the web endpoints and GraphQL share.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.accounts.models import Project
from outpost_server.db import parse_id, utcnow
from outpost_server.error_tracking.models import (
    ERROR_STATUSES,
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    TrackedError,
)
from outpost_server.error_tracking.retention import partitions


def get_error(session: Session, *, project: Project, error_id: int | str) -> TrackedError | None:
    """The error, or the one it was merged into (its id answers as that one's, as Sentry redirects it)."""
    if (row_id := parse_id(error_id)) is None:
        return None
    error = session.scalar(select(TrackedError).where(TrackedError.project_id == project.id,
                                                      TrackedError.id == row_id))
    return merged_target(session, error) if error is not None else None


def merged_target(session: Session, error: TrackedError) -> TrackedError:
    """The error itself, or the error it was merged into."""
    if error.merged_into_id is None:
        return error
    return session.get_one(TrackedError, error.merged_into_id)


def latest_event_payload(session: Session, *, error: TrackedError) -> dict[str, Any] | None:
    """The newest kept event JSON of the error (as the SDK sent it), or None."""
    blob = session.scalar(
        select(ErrorEventPayload.payload)
        .where(ErrorEventPayload.error_id == error.id,
               *partitions.error_days(session, error, ErrorEventPayload.received_at))
        .order_by(ErrorEventPayload.id.desc())
        .limit(1)
    )
    if blob is None:
        return None
    return json.loads(blob)


def error_events(session: Session, *, error: TrackedError, limit: int = 20) -> list[ErrorEvent]:
    return list(session.scalars(
        select(ErrorEvent).where(ErrorEvent.error_id == error.id,
                                 *partitions.error_days(session, error, ErrorEvent.received_at))
        .order_by(ErrorEvent.id.desc()).limit(limit)))


def update_error_status(session: Session, *, error: TrackedError, status: str) -> TrackedError:
    if status not in ERROR_STATUSES:
        raise domain.InvalidValue("status")
    error.status = status
    if status != "unresolved":
        error.regressed = False
    error.updated_at = utcnow()
    session.flush()
    return error


def daily_counts(session: Session, *, error: TrackedError, now: dt.datetime | None = None) -> list[tuple[dt.date, int]]:
    """Events per day (UTC) over the last 30 days, oldest first, zero-filled (30 buckets)."""
    today = (now or utcnow()).date()
    first_day = today - dt.timedelta(days=29)
    start = dt.datetime.combine(first_day, dt.time(), dt.timezone.utc)
    by_day: dict[dt.date, int] = {}
    for hour, count in session.execute(select(ErrorHourlyCount.hour, ErrorHourlyCount.count).where(
            ErrorHourlyCount.error_id == error.id, ErrorHourlyCount.hour >= start)):
        day = hour.astimezone(dt.timezone.utc).date()
        by_day[day] = by_day.get(day, 0) + count
    return [(first_day + dt.timedelta(days=i), by_day.get(first_day + dt.timedelta(days=i), 0)) for i in range(30)]

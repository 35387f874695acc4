"""The storage counters (per error and per project and received day) against the rows they count.

`recount` counts the stored events and payload bytes from the rows themselves, in Python, so a test
compares the counters the writers keep with a computation that shares no SQL with them.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import sqlalchemy
from sqlalchemy import func, select

from outpost_server.error_tracking.models import ErrorEvent, ErrorEventPayload, ErrorStoredDay, ProjectStoredDay

Counts = dict[tuple[int, dt.datetime], tuple[int, int]]


def _day(moment: dt.datetime) -> dt.datetime:
    return moment.astimezone(dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)


def recount(engine: sqlalchemy.Engine) -> tuple[Counts, Counts]:
    """(per error and day, per project and day) -> (events, payload bytes), from the event and payload rows."""
    with engine.connect() as connection:
        sizes = {(error_id, event_id): size for error_id, event_id, size in connection.execute(
            select(ErrorEventPayload.error_id, ErrorEventPayload.event_id, func.length(ErrorEventPayload.payload)))}
        rows = connection.execute(select(ErrorEvent.error_id, ErrorEvent.project_id, ErrorEvent.event_id,
                                         ErrorEvent.received_at)).all()
    per_error: dict[tuple[int, dt.datetime], list[int]] = defaultdict(lambda: [0, 0])
    per_project: dict[tuple[int, dt.datetime], list[int]] = defaultdict(lambda: [0, 0])
    for error_id, project_id, event_id, received_at in rows:
        size = sizes.get((error_id, event_id), 0)
        for counts in (per_error[(error_id, _day(received_at))], per_project[(project_id, _day(received_at))]):
            counts[0] += 1
            counts[1] += size
    return ({key: tuple(value) for key, value in per_error.items()},  # type: ignore[misc]
            {key: tuple(value) for key, value in per_project.items()})  # type: ignore[misc]


def kept(engine: sqlalchemy.Engine) -> tuple[Counts, Counts]:
    """The counters as the writers left them (a row that came down to zero is deleted, so none is expected)."""
    with engine.connect() as connection:
        per_error = {(error_id, day): (events, size) for error_id, day, events, size in connection.execute(
            select(ErrorStoredDay.error_id, ErrorStoredDay.received_day, ErrorStoredDay.events, ErrorStoredDay.bytes))}
        per_project = {(project_id, day): (events, size) for project_id, day, events, size in connection.execute(
            select(ProjectStoredDay.project_id, ProjectStoredDay.received_day, ProjectStoredDay.events,
                   ProjectStoredDay.bytes))}
    return per_error, per_project


def error_stored_events(engine: sqlalchemy.Engine, error_id: int) -> int:
    with engine.connect() as connection:
        return int(connection.scalar(select(func.coalesce(func.sum(ErrorStoredDay.events), 0))
                                     .where(ErrorStoredDay.error_id == error_id)) or 0)


"""Error tracking service functions: settings, client keys, the collector's access check, single
errors (lookup, latest payload, events, status changes, daily counts) and release health.

Listing errors (keyset pagination, its cursor codec, the 24-hour frequencies) lives in
`web/integrated.py`; `web/reading.py` is the one read path the web endpoints and GraphQL share.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts.models import Project
from outpost_server.db import parse_id, utcnow

from .models import (
    ERROR_STATUSES,
    ClientKey,
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorTrackingSetting,
    ReleaseSession,
    SessionAggregate,
    TrackedError,
)
from .origins import split_stored

PUBLIC_KEY_PREFIX = "glet_"


# --- settings -------------------------------------------------------------------------------


def get_setting(session: Session, *, project: Project) -> ErrorTrackingSetting | None:
    return session.scalar(select(ErrorTrackingSetting).where(ErrorTrackingSetting.project_id == project.id))


def save_setting(
    session: Session,
    *,
    project: Project,
    enabled: bool,
    integrated: bool | None = None,
    create: bool = False,
) -> ErrorTrackingSetting | None:
    """Update (or with `create`, upsert) the project's setting; None when it does not exist.

    As GitLab does after saving, an enabled integrated setting gets its first client key.
    """
    setting = get_setting(session, project=project)
    if setting is None:
        if not create:
            return None
        setting = ErrorTrackingSetting(project_id=project.id, enabled=False, integrated=True)
        session.add(setting)
    setting.enabled = enabled
    if integrated is not None:
        setting.integrated = integrated
    setting.updated_at = utcnow()
    session.flush()
    if setting.integrated_enabled and not session.scalar(
        select(ClientKey.id).where(ClientKey.project_id == project.id).limit(1)
    ):
        create_client_key(session, project=project)
    return setting


# --- client keys ----------------------------------------------------------------------------


def new_public_key() -> str:
    return PUBLIC_KEY_PREFIX + secrets.token_hex(16)


def create_client_key(session: Session, *, project: Project) -> ClientKey:
    key = ClientKey(project_id=project.id, public_key=new_public_key(), active=True)
    session.add(key)
    session.flush()
    return key


def client_keys_query(*, project: Project):
    return select(ClientKey).where(ClientKey.project_id == project.id).order_by(ClientKey.id)


def find_client_key(session: Session, *, project: Project, key_id: str) -> ClientKey | None:
    if (row_id := parse_id(key_id)) is None:
        return None
    return session.scalar(select(ClientKey).where(ClientKey.project_id == project.id, ClientKey.id == row_id))


def delete_client_key(session: Session, *, key: ClientKey) -> None:
    session.delete(key)
    session.flush()


# --- the collector's access check -----------------------------------------------------------


PUBLIC_KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,255}")


@dataclass(frozen=True)
class CollectorTarget:
    """Outcome of checking a collector request: the project and its allowed origins, or GitLab's refusal."""

    project_id: int | None
    refusal: http_errors.ApiError | None
    allowed_origins: tuple[str, ...] = ()


def collector_target(session: Session, *, project_ident: str, public_key: str | None) -> CollectorTarget:
    """GitLab's collector `before` filter: project, integrated setting enabled, then (given a key) an active key."""
    from outpost_server.accounts.service import find_project

    project = find_project(session, project_ident)
    if project is None:
        return CollectorTarget(None, http_errors.not_found("Project"))
    setting = get_setting(session, project=project)
    if setting is None or not setting.integrated_enabled:
        return CollectorTarget(None, http_errors.not_found())
    allowed = tuple(split_stored(setting.allowed_origins))
    if public_key is None:
        return CollectorTarget(project.id, None, allowed)
    if not PUBLIC_KEY_SHAPE.fullmatch(public_key):
        # Not a key we could have issued (and NUL bytes would not even reach PostgreSQL).
        return CollectorTarget(None, http_errors.not_found())
    active_key = session.scalar(
        select(ClientKey.id).where(
            ClientKey.project_id == project.id, ClientKey.public_key == public_key, ClientKey.active.is_(True)
        )
    )
    if active_key is None:
        return CollectorTarget(None, http_errors.not_found())
    return CollectorTarget(project.id, None, allowed)


def record_rejected_origins(session: Session, *, project_id: int, count: int, origin: str,
                            at: dt.datetime) -> None:
    """Count browser requests refused for their origin, the latest being `origin` at `at` (shown with the settings)."""
    session.execute(
        update(ErrorTrackingSetting)
        .where(ErrorTrackingSetting.project_id == project_id)
        .values(rejected_origin_count=ErrorTrackingSetting.rejected_origin_count + count,
                last_rejected_origin=origin[:255], last_rejected_at=at)
    )


def save_allowed_origins(session: Session, *, setting: ErrorTrackingSetting, origins: list[str]) -> None:
    setting.allowed_origins = "\n".join(origins) or None
    session.flush()


# --- single errors --------------------------------------------------------------------------


def get_error(session: Session, *, project: Project, error_id: int | str) -> TrackedError | None:
    if (row_id := parse_id(error_id)) is None:
        return None
    return session.scalar(select(TrackedError).where(TrackedError.project_id == project.id,
                                                     TrackedError.id == row_id))


def latest_event_payload(session: Session, *, error: TrackedError) -> dict[str, Any] | None:
    """The newest kept event JSON of the error (as the SDK sent it), or None."""
    blob = session.scalar(
        select(ErrorEventPayload.payload)
        .where(ErrorEventPayload.error_id == error.id)
        .order_by(ErrorEventPayload.id.desc())
        .limit(1)
    )
    if blob is None:
        return None
    return json.loads(blob)


def error_events(session: Session, *, error: TrackedError, limit: int = 20) -> list[ErrorEvent]:
    return list(session.scalars(select(ErrorEvent).where(ErrorEvent.error_id == error.id)
                                .order_by(ErrorEvent.id.desc()).limit(limit)))


def update_error_status(session: Session, *, error: TrackedError, status: str) -> TrackedError:
    if status not in ERROR_STATUSES:
        raise http_errors.invalid_value("status")
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


# --- release health -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseHealth:
    release: str
    environment: str
    sessions: int
    crashed: int
    errored: int
    abnormal: int

    @property
    def crash_free_rate(self) -> float | None:
        """Share of sessions that did not crash, from 0 to 1; None without sessions."""
        return None if self.sessions == 0 else 1 - self.crashed / self.sessions


def release_health(session: Session, *, project: Project) -> list[ReleaseHealth]:
    """Sessions started, crashed, errored (had errors but did not crash) per release and environment."""
    totals: dict[tuple[str, str], list[int]] = {}
    single = session.execute(
        select(
            ReleaseSession.release,
            ReleaseSession.environment,
            func.count(),
            func.sum(case((ReleaseSession.status == "crashed", 1), else_=0)),
            func.sum(case((and_(ReleaseSession.status != "crashed",
                                or_(ReleaseSession.errors > 0, ReleaseSession.status == "errored")), 1), else_=0)),
            func.sum(case((ReleaseSession.status == "abnormal", 1), else_=0)),
        )
        .where(ReleaseSession.project_id == project.id)
        .group_by(ReleaseSession.release, ReleaseSession.environment)
    )
    for release, environment, started, crashed, errored, abnormal in single:
        totals[(release, environment)] = [started, crashed or 0, errored or 0, abnormal or 0]
    aggregated = session.execute(
        select(
            SessionAggregate.release,
            SessionAggregate.environment,
            func.sum(SessionAggregate.exited + SessionAggregate.errored + SessionAggregate.abnormal
                     + SessionAggregate.crashed),
            func.sum(SessionAggregate.crashed),
            func.sum(SessionAggregate.errored),
            func.sum(SessionAggregate.abnormal),
        )
        .where(SessionAggregate.project_id == project.id)
        .group_by(SessionAggregate.release, SessionAggregate.environment)
    )
    for release, environment, *counts in aggregated:
        row = totals.setdefault((release, environment), [0, 0, 0, 0])
        for index, value in enumerate(counts):
            row[index] += value or 0
    return [
        ReleaseHealth(release, environment, *values)
        for (release, environment), values in sorted(totals.items())
    ]

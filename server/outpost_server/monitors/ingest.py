"""Storing digested check-ins, in the digest's transaction (registered by app.py with error tracking's
batch_outcome), as Sentry's check-in consumer does.

A monitor environment takes at most 6 check-ins a minute (check_in_rate.py); the rest are dropped
before anything is looked up. A check-in with a `monitor_config` creates its monitor or updates its
configuration; a configuration
Sentry's validator refuses leaves an existing monitor as it was and creates none, and so does a project
at its monitor limit, or one whose check-ins created their most monitors of the minute. A check-in for no
monitor, or for a paused one, is dropped. A check-in id seen before updates that check-in while it is
in progress (a finished one is never changed); the nil id finishes the environment's latest check-in in
progress, or stands for a new one. Each new check-in moves the environment's next expected time; each
finished one settles its status (state.py).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid

from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from outpost_server.db import utcnow
from outpost_server.domain_errors import Invalid
from outpost_server.error_tracking.digest.batch_outcome import ReceivedCheckIns
from outpost_server.error_tracking.ingest.check_in_items import CheckInItem

from .check_in_rate import CheckInRate
from .models import Monitor, MonitorCheckIn, MonitorEnvironment
from .schedule import parse_config
from .state import settle

log = logging.getLogger("outpost.monitors.ingest")

DEFAULT_ENVIRONMENT = "production"
# Sentry refuses an organization's monitor past MAX_MONITORS_PER_ORG (10,000); a project here is the
# unit a public key reaches, so the bound is per project, and smaller.
MAX_MONITORS_PER_PROJECT = 1000
# New monitors a project's check-ins may create per minute; further new slugs are dropped until the
# minute has passed (their jobs' next check-ins create them), existing monitors are unaffected.
MAX_CREATED_PER_WINDOW = 20
CREATION_WINDOW = dt.timedelta(minutes=1)
RATE = CheckInRate()


def store_check_ins(connection: Connection, received: list[ReceivedCheckIns]) -> None:
    session = Session(bind=connection)
    try:
        for request in received:
            for item in request.check_ins:
                if RATE.admit(project_id=request.project_id, slug=item.monitor_slug, environment=item.environment,
                              received_at=request.received_at):
                    _store(session, request.project_id, item, request.received_at)
                else:
                    log.info("check-in for monitor %r of project %d dropped: its environment had %d check-ins "
                             "this minute", item.monitor_slug, request.project_id, RATE.limit)
        session.flush()
    finally:
        session.close()


def _monitor(session: Session, project_id: int, item: CheckInItem) -> Monitor | None:
    monitor = session.scalars(select(Monitor).where(Monitor.project_id == project_id,
                                                    Monitor.slug == item.monitor_slug)).first()
    if item.monitor_config is None:
        return monitor
    try:
        config = parse_config(item.monitor_config)
    except Invalid as refused:
        log.info("check-in for monitor %r of project %d: monitor_config refused (%s)", item.monitor_slug, project_id,
                 refused.messages)
        return monitor
    if monitor is None:
        refusal = _creation_refused(session, project_id)
        if refusal:
            log.info("check-in for monitor %r of project %d: no monitor created (%s)", item.monitor_slug, project_id,
                     refusal)
            return None
        monitor = Monitor(guid=uuid.uuid4().hex, project_id=project_id, slug=item.monitor_slug, name=item.monitor_slug,
                          status="active", is_muted=False)
        session.add(monitor)
    monitor.configure(config)
    session.flush()
    return monitor


def _creation_refused(session: Session, project_id: int) -> str | None:
    """Why a check-in may not create the project's next monitor, if it may not: a public key ships in
    browser apps, so what its check-ins create is bounded in number and in rate."""
    existing = session.scalar(select(func.count()).select_from(Monitor).where(Monitor.project_id == project_id))
    if (existing or 0) >= MAX_MONITORS_PER_PROJECT:
        return f"the project has {MAX_MONITORS_PER_PROJECT} monitors already"
    recent = session.scalar(select(func.count()).select_from(Monitor).where(
        Monitor.project_id == project_id, Monitor.created_at >= utcnow() - CREATION_WINDOW))
    if (recent or 0) >= MAX_CREATED_PER_WINDOW:
        return f"{MAX_CREATED_PER_WINDOW} monitors were created in the last minute"
    return None


def environment_of(session: Session, monitor: Monitor, name: str) -> MonitorEnvironment:
    """The monitor's environment `name`, created when new; locked for this transaction on PostgreSQL."""
    found = session.scalars(select(MonitorEnvironment).where(
        MonitorEnvironment.monitor_id == monitor.id, MonitorEnvironment.environment == name).with_for_update()).first()
    if found is None:
        found = MonitorEnvironment(monitor_id=monitor.id, environment=name, status="active")
        session.add(found)
        session.flush()
    return found


def _existing(session: Session, environment: MonitorEnvironment, item: CheckInItem) -> MonitorCheckIn | None:
    query = select(MonitorCheckIn).where(MonitorCheckIn.monitor_environment_id == environment.id)
    if item.check_in_id is not None:
        return session.scalars(query.where(MonitorCheckIn.guid == item.check_in_id)).first()
    if item.status == "in_progress":
        return None
    return session.scalars(query.where(MonitorCheckIn.status == "in_progress")
                           .order_by(MonitorCheckIn.id.desc()).limit(1)).first()


def _milliseconds(seconds: float | None) -> int | None:
    return None if seconds is None else int(max(0.0, min(seconds * 1000, 2**31 - 1)))


def _store(session: Session, project_id: int, item: CheckInItem, received_at: dt.datetime) -> None:
    monitor = _monitor(session, project_id, item)
    if monitor is None or monitor.status != "active":
        return
    environment = environment_of(session, monitor, item.environment or DEFAULT_ENVIRONMENT)
    check_in = _existing(session, environment, item)
    if check_in is not None:
        if check_in.status != "in_progress" or item.status in ("in_progress", "unknown"):
            return  # Sentry never changes a finished check-in, nor reopens one
        check_in.status = item.status
        check_in.duration = _milliseconds(item.duration) if item.duration is not None else int(
            (received_at - check_in.created_at).total_seconds() * 1000)
        check_in.updated_at = received_at
        check_in.timeout_at = None
        settle(session, monitor, environment, check_in)
        return
    config = monitor.config()
    minute = received_at.replace(second=0, microsecond=0)
    check_in = MonitorCheckIn(
        guid=item.check_in_id or uuid.uuid4().hex, monitor_id=monitor.id, monitor_environment_id=environment.id,
        project_id=project_id, status=item.status, duration=_milliseconds(item.duration), created_at=received_at,
        updated_at=received_at, expected_time=environment.next_checkin,
        timeout_at=minute + config.runtime() if item.status == "in_progress" else None)
    session.add(check_in)
    environment.last_checkin = received_at
    environment.next_checkin = config.next_after(received_at)
    environment.next_checkin_latest = environment.next_checkin + config.margin()
    if item.status in ("ok", "error"):
        settle(session, monitor, environment, check_in)

"""Reading and changing monitors for Sentry's web API: an organization's monitors, one monitor by slug,
its check-ins; muting, pausing, configuration and deletion. Keyword-only, HTTP-free."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import utcnow
from outpost_server.domain_errors import Invalid, NotFound
from outpost_server.error_tracking.ingest.check_in_items import SLUG_LENGTH

from .models import Monitor, MonitorCheckIn, MonitorEnvironment
from .schedule import parse_config

STATUSES = ("active", "disabled")
# Sentry's slug field (SentrySerializerSlugField): lower case letters, digits, `_` and `-`, not all digits.
SLUG_PATTERN = re.compile(r"(?![0-9]+$)[a-z0-9_-]+")
SLUG_REFUSED = ("Enter a valid slug consisting of lowercase letters, numbers, underscores or hyphens. "
                "It cannot be entirely numeric.")


@dataclass(frozen=True)
class MonitorView:
    monitor: Monitor
    project: Project
    environments: list[MonitorEnvironment]


def list_monitors(session: Session, *, projects: Sequence[Project]) -> list[MonitorView]:
    """The monitors of `projects`, by name; each with its environments, latest check-in first."""
    by_id = {project.id: project for project in projects}
    monitors = list(session.scalars(select(Monitor).where(Monitor.project_id.in_(list(by_id)))
                                    .order_by(Monitor.name, Monitor.id)))
    environments: dict[int, list[MonitorEnvironment]] = {monitor.id: [] for monitor in monitors}
    for environment in session.scalars(select(MonitorEnvironment)
                                       .where(MonitorEnvironment.monitor_id.in_(list(environments)))
                                       .order_by(MonitorEnvironment.last_checkin.desc(), MonitorEnvironment.id)):
        environments[environment.monitor_id].append(environment)
    return [MonitorView(monitor, by_id[monitor.project_id], environments[monitor.id]) for monitor in monitors]


class Ambiguous(Exception):
    """Several of the projects have a monitor of this slug."""


def find_monitor(session: Session, *, projects: Sequence[Project], slug: str) -> MonitorView:
    """The monitor `slug` (or its guid) among `projects`; NotFound when none has it, Ambiguous when several
    have the slug."""
    found = [view for view in list_monitors(session, projects=projects)
             if slug in (view.monitor.slug, view.monitor.guid)]
    if not found:
        raise NotFound("Monitor")
    if len(found) > 1:
        raise Ambiguous(slug)
    return found[0]


def _flag(changes: dict[str, Any], name: str) -> bool:
    value = changes[name]
    if not isinstance(value, bool):
        raise Invalid({name: ["Must be a valid boolean."]})
    return value


def update_monitor(session: Session, *, view: MonitorView, changes: dict[str, Any]) -> MonitorView:
    """Sentry's PUT: `name`, `slug`, `status` (active or disabled), `isMuted`, `config` (merged)."""
    monitor = view.monitor
    if "name" in changes:
        name = changes["name"]
        if not isinstance(name, str) or not name.strip() or len(name) > 128:
            raise Invalid({"name": ["Ensure this field has no more than 128 characters."]})
        monitor.name = name
    if "slug" in changes:
        slug = changes["slug"]
        if not isinstance(slug, str) or len(slug) > SLUG_LENGTH:
            raise Invalid({"slug": [f"Ensure this field has no more than {SLUG_LENGTH} characters."]})
        if not SLUG_PATTERN.fullmatch(slug):
            raise Invalid({"slug": [SLUG_REFUSED]})
        taken = session.scalars(select(Monitor.id).where(Monitor.project_id == monitor.project_id,
                                                         Monitor.slug == slug, Monitor.id != monitor.id)).first()
        if taken is not None:
            raise Invalid({"slug": [f'The slug "{slug}" is already in use.']})
        monitor.slug = slug
    if "config" in changes:
        monitor.configure(parse_config({**monitor.config().as_json(), **(changes["config"] or {})}))
    if "isMuted" in changes:
        monitor.is_muted = _flag(changes, "isMuted")
    if "status" in changes:
        if changes["status"] not in STATUSES:
            raise Invalid({"status": [f'"{changes["status"]}" is not a valid choice.']})
        if monitor.status == "disabled" and changes["status"] == "active":
            _restart_schedule(monitor, view.environments)
        monitor.status = changes["status"]
    session.flush()
    return view


def _restart_schedule(monitor: Monitor, environments: list[MonitorEnvironment]) -> None:
    """A monitor taken out of pause expects its next check-in from now on, not from before the pause."""
    config, now = monitor.config(), utcnow()
    for environment in environments:
        environment.next_checkin = config.next_after(now)
        environment.next_checkin_latest = environment.next_checkin + config.margin()


def delete_monitor(session: Session, *, view: MonitorView) -> None:
    session.execute(delete(MonitorCheckIn).where(MonitorCheckIn.monitor_id == view.monitor.id))
    session.execute(delete(MonitorEnvironment).where(MonitorEnvironment.monitor_id == view.monitor.id))
    session.delete(view.monitor)
    session.flush()


def list_check_ins(session: Session, *, view: MonitorView, environments: Sequence[str], offset: int, limit: int
                   ) -> tuple[list[tuple[MonitorCheckIn, str]], bool]:
    """The monitor's check-ins, newest first, with their environment's name; and whether more follow."""
    query = (select(MonitorCheckIn, MonitorEnvironment.environment)
             .join(MonitorEnvironment, MonitorEnvironment.id == MonitorCheckIn.monitor_environment_id)
             .where(MonitorCheckIn.monitor_id == view.monitor.id))
    if environments:
        query = query.where(MonitorEnvironment.environment.in_(list(environments)))
    rows = session.execute(query.order_by(MonitorCheckIn.created_at.desc(), MonitorCheckIn.id.desc())
                           .offset(offset).limit(limit + 1)).all()
    return [(row[0], row[1]) for row in rows[:limit]], len(rows) > limit

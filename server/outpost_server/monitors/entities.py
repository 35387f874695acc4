"""Sentry's JSON of a monitor, its environments and its check-ins (MonitorSerializer,
MonitorEnvironmentSerializer, MonitorCheckInSerializer): dates ISO 8601 in UTC, ids the public guids."""

from __future__ import annotations

from collections.abc import Set

from outpost_model.monitors import Monitor, MonitorCheckIn, MonitorConfig, MonitorEnvironment
from outpost_server.compat.gitlab_time import iso
from outpost_server.sentry_api.serializers import project_json

from .models import MonitorCheckIn as CheckInRow
from .models import MonitorEnvironment as EnvironmentRow
from .service import MonitorView


def _date(value) -> str | None:
    return iso(value) if value is not None else None


def config_json(view: MonitorView) -> MonitorConfig:
    return MonitorConfig(**view.monitor.config().as_json())


def environment_json(view: MonitorView, environment: EnvironmentRow) -> MonitorEnvironment:
    return MonitorEnvironment(name=environment.environment, status=environment.status,
                              isMuted=view.monitor.is_muted, dateCreated=_date(environment.created_at),
                              lastCheckIn=_date(environment.last_checkin), nextCheckIn=_date(environment.next_checkin),
                              nextCheckInLatest=_date(environment.next_checkin_latest))


def monitor_json(view: MonitorView, environments: Set[str]) -> Monitor:
    """`environments` narrows the environments shown (empty: all)."""
    monitor = view.monitor
    return Monitor(id=monitor.guid, status=monitor.status, isMuted=monitor.is_muted, type="cron_job",
                   name=monitor.name, slug=monitor.slug, config=config_json(view),
                   dateCreated=_date(monitor.created_at), project=project_json(view.project), owner=None,
                   environments=[environment_json(view, environment) for environment in view.environments
                                 if not environments or environment.environment in environments])


def check_in_json(check_in: CheckInRow, environment: str, config: MonitorConfig) -> MonitorCheckIn:
    return MonitorCheckIn(id=check_in.guid, environment=environment, status=check_in.status,
                          duration=check_in.duration, dateCreated=_date(check_in.created_at),
                          dateUpdated=_date(check_in.updated_at), attachmentId=None,
                          expectedTime=_date(check_in.expected_time), monitorConfig=config)

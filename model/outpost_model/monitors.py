"""Sentry's cron monitors as /api/0/organizations/{org}/monitors/ renders them (MonitorSerializer,
MonitorEnvironmentSerializer, MonitorCheckInSerializer): dates ISO 8601 in UTC, ids the public guids."""

from __future__ import annotations

from typing import Any

from outpost_model.base import Entity, Text, Time
from outpost_model.sentry_projects import SentryProject


class MonitorConfig(Entity):
    # "crontab" or "interval".
    schedule_type: str
    # A crontab line, or an interval as [count, unit].
    schedule: str | list[Any]
    checkin_margin: int | None
    max_runtime: int | None
    timezone: str
    failure_issue_threshold: int | None
    recovery_threshold: int | None
    alert_rule_id: int | None


class MonitorEnvironment(Entity):
    name: str
    # "active", "ok", "error", "missed_checkin", "timeout", ...
    status: str
    isMuted: bool
    dateCreated: Time
    lastCheckIn: Time
    nextCheckIn: Time
    nextCheckInLatest: Time


class Monitor(Entity):
    id: str
    # "active" or "disabled" (paused).
    status: str
    isMuted: bool
    type: str
    name: str
    slug: str
    config: MonitorConfig
    dateCreated: Time
    project: SentryProject
    owner: dict[str, Any] | None
    environments: list[MonitorEnvironment]


class MonitorCheckIn(Entity):
    id: str
    environment: str
    # "in_progress", "ok", "error", "missed", "timeout".
    status: str
    duration: int | None
    dateCreated: Time
    dateUpdated: Time
    attachmentId: Text
    expectedTime: Time
    monitorConfig: MonitorConfig

"""Check-ins follow their project's error tracking retention; monitors stay."""

from __future__ import annotations

import datetime as dt

import httpx
from sqlalchemy import select

from outpost_server.db import session_scope, utcnow
from outpost_server.error_tracking.retention.limits import RetentionPolicy
from outpost_server.monitors.clock import prune_check_ins
from outpost_server.monitors.models import Monitor, MonitorCheckIn
from tests.server.error_tracking.conftest import make_tracked_project

from .monitors_api import MonitorsApi

DEFAULTS = RetentionPolicy(retention_days=90, events_per_error=0, max_stored_bytes=0)


def _check_in(monitors: MonitorsApi) -> None:
    # The margin outlasts the test: with the default minute, a check-in in the last seconds before 02:00 UTC
    # got a missed one beside it from the server's clock a minute past it, one more than counted.
    response = httpx.post(monitors.cron_url("nightly"), json={"status": "ok", "monitor_config": {
        "schedule": {"type": "crontab", "value": "0 2 * * *"}, "checkin_margin": 10}})
    assert response.status_code == 202


def test_check_ins_go_with_their_projects_retention(server, monitor_sessions):
    short = make_tracked_project(server, monitor_sessions)
    default = make_tracked_project(server, monitor_sessions)
    with server.client() as client:
        client.put(f"/projects/{short.id}/error_tracking/retention", json={"retention_days": 3}).raise_for_status()
    for tracked in (short, default):
        _check_in(MonitorsApi.of(server, tracked))
    server.wait_for_digest()
    projects = [short.id, default.id]

    def check_ins() -> dict[int, int]:
        with monitor_sessions() as session:
            return {project: len(session.scalars(select(MonitorCheckIn.id).where(
                MonitorCheckIn.project_id == project)).all()) for project in projects}

    assert check_ins() == {short.id: 1, default.id: 1}
    with session_scope(monitor_sessions) as session:
        assert prune_check_ins(session, defaults=DEFAULTS, now=utcnow() + dt.timedelta(days=2)) == 0
    with session_scope(monitor_sessions) as session:
        prune_check_ins(session, defaults=DEFAULTS, now=utcnow() + dt.timedelta(days=4))
    assert check_ins() == {short.id: 0, default.id: 1}
    with session_scope(monitor_sessions) as session:
        prune_check_ins(session, defaults=DEFAULTS, now=utcnow() + dt.timedelta(days=91))
    assert check_ins() == {short.id: 0, default.id: 0}
    with monitor_sessions() as session:
        assert len(session.scalars(select(Monitor.id).where(Monitor.project_id.in_(projects))).all()) == 2

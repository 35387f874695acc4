"""Two replicas on one PostgreSQL database: a missed check-in is marked once and notified once, whichever
replica holds the monitor clock's lease.

PostgreSQL only (marked `postgres`). Real time: the monitor expects a check-in a minute after its last one
and gives a minute of margin, so the miss comes about two minutes after the check-in.
"""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.test_replicas import replicas
from tests.server.alerts.flows import allow_local_requests
from tests.server.alerts.receivers import eventually, receiver  # noqa: F401 (the fixture)
from tests.server.error_tracking.conftest import make_tracked_project, server_sessionmaker
from tests.server.monitors.monitors_api import MonitorsApi

pytestmark = pytest.mark.postgres

MISS_WAIT_SECONDS = 200


# Sentry's smallest interval and margin are a minute each, so the miss comes two minutes after the check-in.
@pytest.mark.budget(240)
def test_two_replicas_mark_a_missed_check_in_once(tmp_path, receiver):  # noqa: F811
    env = {"OUTPOST_MONITOR_CLOCK_INTERVAL_SECONDS": "1"}
    with replicas(tmp_path, env) as (a, b):
        allow_local_requests(a)
        tracked = make_tracked_project(a, server_sessionmaker(a))
        on_a, on_b = MonitorsApi.of(a, tracked), MonitorsApi.of(b, tracked)
        rule = httpx.post(f"{a.url}/api/0/projects/{on_a.organization}/{on_a.project_slug}/alerts/",
                          headers={"Authorization": f"Bearer {a.root_token}"}, json={
                              "name": "jobs", "onMonitorFailure": True, "monitorSlug": "replicated-job",
                              "alertRecipients": [{"recipientType": "json_webhook", "url": receiver.url + "/hook"}]})
        assert rule.status_code == 201, rule.text
        check_in = httpx.post(on_b.cron_url("replicated-job"), json={"status": "ok", "monitor_config": {
            "schedule": {"type": "interval", "value": 1, "unit": "minute"}, "checkin_margin": 1}})
        assert check_in.status_code == 202
        b.wait_for_digest()
        on_a.wait_for_statuses("replicated-job", ["missed", "ok"], timeout=MISS_WAIT_SECONDS)
        # Both replicas' clocks look every second; a few more looks mark nothing more.
        time.sleep(5)
        assert [c["status"] for c in on_b.check_ins("replicated-job")] == ["missed", "ok"]
        hooks = eventually(lambda: receiver.at("/hook"), what="the failure's webhook")
        time.sleep(3)
        assert [hook.json()["trigger"]["kind"] for hook in receiver.at("/hook")] == ["monitor_failure"]
        assert hooks[0].json()["trigger"]["monitor"] == "replicated-job"

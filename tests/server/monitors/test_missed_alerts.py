"""Missed check-ins in real time, and the alert rule "a monitor fails": an interval monitor of one minute with
a one-minute margin that gets no check-in is marked missed by the clock; the rule mails the project's
Maintainer through a real SMTP server (aiosmtpd) and posts to a real webhook receiver, each exactly once,
and once more each when the monitor recovers. A muted monitor misses without notifying; a paused one
gets no missed check-ins at all."""

from __future__ import annotations

import httpx
import pytest

from tests.server.alerts.flows import allow_local_requests
from tests.server.alerts.receivers import MailBox, eventually, mailbox, receiver  # noqa: F401 (fixtures)
from tests.server.error_tracking.conftest import make_tracked_project, server_sessionmaker
from tests.support import ApiHelper, start_server

from .monitors_api import MonitorsApi

EVERY_MINUTE = {"schedule": {"type": "interval", "value": 1, "unit": "minute"}, "checkin_margin": 1}
# The expected time is a minute after the check-in, the miss a minute after that; the clock looks every
# two seconds: three minutes leave room for a slow machine.
MISS_WAIT_SECONDS = 200


@pytest.fixture(scope="module")
def server(tmp_path_factory, mailbox: MailBox):  # noqa: F811 (the fixture)
    env = {"OUTPOST_SMTP_HOST": "127.0.0.1", "OUTPOST_SMTP_PORT": str(mailbox.port),
           "OUTPOST_MAIL_FROM": "alerts@outpost.example.com", "OUTPOST_ALERT_RETRY_SECONDS": "0.5",
           "OUTPOST_MONITOR_CLOCK_INTERVAL_SECONDS": "2"}
    with start_server(tmp_path_factory.mktemp("monitor-alerts"), extra_env=env) as running:
        allow_local_requests(running)
        yield running


def _check_in(monitors: MonitorsApi, slug: str) -> None:
    response = httpx.post(monitors.cron_url(slug), json={"status": "ok", "monitor_config": EVERY_MINUTE}, timeout=30)
    assert response.status_code == 202, response.text


# Sentry's smallest interval and margin are a minute each, so the miss comes two minutes after the check-in.
@pytest.mark.budget(240)
def test_a_missed_check_in_notifies_once_and_its_recovery_once(server, mailbox, receiver):  # noqa: F811
    helper = ApiHelper(server)
    tracked = make_tracked_project(server, server_sessionmaker(server))
    maintainer, _ = helper.user()
    helper.member("projects", tracked.id, maintainer["id"], 40)
    monitors = MonitorsApi.of(server, tracked)
    alerts = f"/api/0/projects/{monitors.organization}/{monitors.project_slug}/alerts/"
    rule = httpx.post(server.url + alerts, headers={"Authorization": f"Bearer {server.root_token}"}, json={
        "name": "jobs", "onMonitorFailure": True, "environments": ["production"],
        "alertRecipients": [{"recipientType": "email"},
                            {"recipientType": "json_webhook", "url": receiver.url + "/hook"}]})
    assert rule.status_code == 201, rule.text
    assert (rule.json()["onMonitorFailure"], rule.json()["monitorSlug"]) == (True, None)
    for slug in ("hourly-sync", "muted-sync", "paused-sync"):
        _check_in(monitors, slug)
    monitors.all()
    assert monitors.request("PUT", "muted-sync/", json={"isMuted": True}).status_code == 200
    assert monitors.request("PUT", "paused-sync/", json={"status": "disabled"}).status_code == 200

    monitors.wait_for_statuses("hourly-sync", ["missed", "ok"], timeout=MISS_WAIT_SECONDS)
    monitors.wait_for_statuses("muted-sync", ["missed", "ok"], timeout=30)
    assert monitors.get("hourly-sync")["environments"][0]["status"] == "error"
    failure = eventually(lambda: receiver.at("/hook"), what="the failure's webhook")
    assert [request.json()["trigger"]["kind"] for request in failure] == ["monitor_failure"]
    trigger = failure[0].json()["trigger"]
    assert (trigger["monitor"], trigger["environment"], trigger["status"]) == ("hourly-sync", "production", "missed")
    mails = eventually(lambda: [m for m in mailbox.received if "hourly-sync" in m["Subject"]], what="the mail")
    assert len(mails) == 1
    assert maintainer["email"] in mails[0]["To"]
    assert "is failing in production" in mails[0]["Subject"]

    _check_in(monitors, "hourly-sync")
    monitors.wait_for_statuses("hourly-sync", ["ok", "missed", "ok"], timeout=30)
    assert monitors.get("hourly-sync")["environments"][0]["status"] == "ok"
    kinds = eventually(lambda: (found := [r.json()["trigger"]["kind"] for r in receiver.at("/hook")])
                       and len(found) == 2 and found, what="the recovery's webhook")
    assert kinds == ["monitor_failure", "monitor_recovery"]
    recovered = eventually(lambda: [m for m in mailbox.received if "recovered" in m["Subject"]], what="the mail")
    assert len(recovered) == 1
    # The muted monitor missed without a word; the paused one was not marked at all.
    assert all("muted-sync" not in message["Subject"] for message in mailbox.received)
    assert [c["status"] for c in monitors.check_ins("paused-sync")] == ["ok"]
    assert len([m for m in mailbox.received if "hourly-sync" in m["Subject"]]) == 2

"""Sentry's HTTP check-in endpoint, called by a real `curl`, and the check-in envelope item as Relay
refuses or accepts it."""

from __future__ import annotations

import subprocess
import uuid

import httpx

from tests.server.error_tracking.toolchains import require_tool

BACKUP_CONFIG = {"schedule": {"type": "crontab", "value": "30 2 * * *"}, "timezone": "Europe/Berlin",
                 "checkin_margin": 5, "max_runtime": 20}


def _curl(*args: str) -> str:
    curl = require_tool("curl", "curl")
    result = subprocess.run([curl, "-sS", "-w", "%{http_code}", *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_curl_heartbeat_creates_and_updates_its_monitor(monitors):
    url = monitors.cron_url("db-backup")
    # A JSON body carries the configuration that creates the monitor, as Sentry's docs show.
    body = '{"status": "in_progress", "monitor_config": %s}' % httpx.Response(200, json=BACKUP_CONFIG).text
    assert _curl("-X", "POST", "-H", "Content-Type: application/json", "-d", body, url) == "202"
    monitor = monitors.all()["db-backup"]
    assert monitor["config"] == {
        "schedule_type": "crontab", "schedule": "30 2 * * *", "checkin_margin": 5, "max_runtime": 20,
        "timezone": "Europe/Berlin", "failure_issue_threshold": None, "recovery_threshold": None,
        "alert_rule_id": None}
    assert (monitor["status"], monitor["isMuted"], monitor["type"]) == ("active", False, "cron_job")
    # A plain GET with the status in the query finishes the check-in in progress.
    assert _curl(url + "?status=ok&duration=12.5") == "202"
    [check_in] = monitors.check_ins("db-backup")
    assert (check_in["status"], check_in["duration"], check_in["environment"]) == ("ok", 12500, "production")
    [environment] = monitors.get("db-backup")["environments"]
    assert (environment["name"], environment["status"]) == ("production", "ok")
    # The next expected run is 02:30 in Berlin, whatever the day.
    assert environment["nextCheckIn"][11:16] in ("00:30", "01:30")


def test_a_check_in_without_a_monitor_is_dropped_and_one_with_a_bad_config_creates_none(monitors):
    assert _curl(monitors.cron_url("nobody-configured-me") + "?status=ok") == "202"
    bad = '{"status": "ok", "monitor_config": {"schedule": {"type": "crontab", "value": "61 * * * *"}}}'
    assert _curl("-X", "POST", "-H", "Content-Type: application/json", "-d", bad,
                 monitors.cron_url("bad-schedule")) == "202"
    assert monitors.all() == {}


def test_the_endpoint_checks_the_key_and_the_status(monitors, tracked, server):
    wrong_key = monitors.cron_url("db-backup").replace(tracked.public_key, uuid.uuid4().hex)
    assert httpx.get(wrong_key, params={"status": "ok"}).status_code == 404
    missing_status = httpx.get(monitors.cron_url("db-backup"))
    assert missing_status.status_code == 400
    assert "status" in missing_status.headers["X-Sentry-Error"]
    too_long = "x" * 65
    assert httpx.get(monitors.cron_url("db-backup"), params={"status": "ok", "environment": too_long}
                     ).status_code == 400
    # The key may come as a query parameter instead of the path's last segment.
    url = f"{server.url}/api/v4/error_tracking/collector/api/{tracked.id}/cron/db-backup/"
    assert httpx.post(url, params={"status": "ok", "sentry_key": tracked.public_key}).status_code == 202


def test_thresholds_decide_failing_and_recovered(monitors):
    url = monitors.cron_url("flaky-job")
    # The margin outlasts the test: with the default minute, a sequence begun in an hour's last seconds and
    # still running a minute past it got a missed check-in from the server's clock between its own.
    config = {"schedule": {"type": "crontab", "value": "0 * * * *"}, "failure_issue_threshold": 2,
              "recovery_threshold": 2, "checkin_margin": 10}
    expected = [("error", "active"), ("error", "error"), ("ok", "error"), ("ok", "ok"), ("error", "ok")]
    seen = []
    for status, _ in expected:
        assert httpx.post(url, json={"status": status, "monitor_config": config}).status_code == 202
        monitors.server.wait_for_digest()
        seen.append((status, monitors.get("flaky-job")["environments"][0]["status"]))
    # One error is not yet failing (the new environment stays "active", as in Sentry); two in a row are;
    # one ok is not yet recovered; two are; a single error after that is not failing again.
    assert seen == expected


def test_environments_are_kept_apart(monitors):
    url = monitors.cron_url("per-env")
    config = {"schedule": {"type": "interval", "value": 1, "unit": "hour"}}
    for environment, status in (("production", "ok"), ("staging", "error")):
        assert httpx.post(url, json={"status": status, "environment": environment,
                                     "monitor_config": config}).status_code == 202
    environments = {env["name"]: env["status"] for env in monitors.all()["per-env"]["environments"]}
    assert environments == {"production": "ok", "staging": "error"}
    staging = monitors.request("GET", "per-env/checkins/", params={"environment": "staging"}).json()
    assert [(c["environment"], c["status"]) for c in staging] == [("staging", "error")]

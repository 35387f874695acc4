"""Rules fire on real events and notifications arrive at real receivers: aiosmtpd for email, an HTTP server on
127.0.0.1 (local requests allowed by an administrator) for the webhooks."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
from urllib.parse import urlsplit

import pytest
import sqlalchemy

from outpost_server.alerts.models import AlertErrorState
from tests.server.alerts.flows import AlertProject, alert_project, allow_local_requests, database
from tests.server.alerts.receivers import HttpReceiver, MailBox, eventually, mailbox, receiver  # noqa: F401
from tests.support import ApiHelper, RunningServer, start_server, start_well_inside


@pytest.fixture(scope="module")
def server(tmp_path_factory, mailbox: MailBox):  # noqa: F811 (the fixture)
    env = {"OUTPOST_SMTP_HOST": "127.0.0.1", "OUTPOST_SMTP_PORT": str(mailbox.port),
           "OUTPOST_MAIL_FROM": "alerts@outpost.example.com", "OUTPOST_ALERT_RETRY_SECONDS": "0.5"}
    with start_server(tmp_path_factory.mktemp("alerts-delivery"), extra_env=env) as running:
        allow_local_requests(running)
        yield running


@pytest.fixture
def project(server) -> AlertProject:
    return alert_project(server, ApiHelper(server))


def _sent(project: AlertProject, rule_id: int, count: int = 1) -> list[dict]:
    def probe():
        rows = project.deliveries(rule_id)
        finished = [row for row in rows if row["status"] in ("sent", "failed")]
        return rows if len(finished) >= count else None
    return eventually(probe, what=f"{count} finished deliveries of rule {rule_id}")


def test_a_new_error_sends_one_email_and_one_signed_webhook(server: RunningServer, project, mailbox, receiver):  # noqa: F811
    rule = project.create_rule({"name": "New errors", "onNewError": True, "alertRecipients": [
        {"recipientType": "email", "addresses": ["oncall@example.com"]},
        {"recipientType": "json_webhook", "url": receiver.url + "/json"}]})
    secret = rule["alertRecipients"][1]["secret"]
    before = len(mailbox.received)
    project.send("Checkout exploded")
    project.send("Checkout exploded")  # the same error again: not new any more
    deliveries = _sent(project, rule["id"], 2)
    assert sorted((row["channel"], row["status"], row["trigger"]) for row in deliveries) == [
        ("email", "sent", "new_error"), ("json_webhook", "sent", "new_error")]

    [message] = eventually(lambda: [m for m in mailbox.received[before:] if "Checkout exploded" in m["Subject"]],
                           what="the email")
    assert message["Subject"].strip() == f"[Outpost] {project.path}: New error: RuntimeError: Checkout exploded"
    assert message["To"] == "oncall@example.com"
    # Globally unique: the delivery id and a part keyed with the installation's secret, at the mail domain.
    assert re.fullmatch(rf"<alert-{deliveries[0]['id']}\.[0-9a-f]{{20}}@outpost\.example\.com>|"
                        rf"<alert-{deliveries[1]['id']}\.[0-9a-f]{{20}}@outpost\.example\.com>", message["Message-ID"])
    assert message["List-Unsubscribe"]
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    link = f"{server.url}/{project.path}/-/error_tracking/{deliveries[0]['issueId']}/details"
    assert link in text and link in html
    # The mail opens the error in the console; the API link stays beside it for scripts.
    console = f"outpost://127.0.0.1:{urlsplit(server.url).port}/{project.path}/-/error_tracking/{deliveries[0]['issueId']}"
    assert f"Open in Outpost: {console}" in text and f"API: {link}" in text
    assert f'<a href="{console}">Open in Outpost</a> (<a href="{link}">API</a>)' in html
    assert "charge (shop/payment.py:7)" in text and "Environment: production" in text

    [hook] = receiver.at("/json")
    expected = "sha256=" + hmac.new(secret.encode(), hook.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(hook.headers["x-outpost-signature"], expected)
    payload = hook.json()
    assert payload["version"] == "1" and payload["trigger"] == {
        "kind": "new_error", "description": "New error", "events": 1, "users": 0, "window_minutes": None,
        "environment": "production", "level": "error", "release": None, "suppressed": 0}
    assert payload["rule"] == {"id": rule["id"], "name": "New errors", "url": payload["rule"]["url"]}
    assert payload["error"]["title"] == "RuntimeError: Checkout exploded" and payload["error"]["url"] == link
    assert payload["error"]["consoleUrl"] == console
    assert payload["project"]["path"] == project.path
    assert [frame["function"] for frame in payload["error"]["frames"]] == ["charge", "checkout"]


def test_slack_discord_and_gitlab_shapes(project, receiver):  # noqa: F811
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/slack"},
        {"recipientType": "discord", "url": receiver.url + "/discord"},
        {"recipientType": "gitlab", "url": receiver.url + "/gitlab", "authorizationKey": "gl-alert-key-42"}]})
    project.send("Inventory out of sync", environment="staging", level="warning")
    _sent(project, rule["id"], 3)
    [slack] = receiver.at("/slack")
    assert slack.json()["text"].startswith("Outpost alert: New error")
    [attachment] = slack.json()["attachments"]
    assert attachment["title"] == "RuntimeError: Inventory out of sync" and attachment["title_link"]
    assert {"title": "Environment", "value": "staging", "short": True} in attachment["fields"]
    [console] = [field["value"] for field in attachment["fields"] if field["title"] == "Open in Outpost"]
    assert console.startswith("outpost://127.0.0.1:") and "/-/error_tracking/" in console
    [discord] = receiver.at("/discord")
    [embed] = discord.json()["embeds"]
    assert discord.json()["content"].startswith("Outpost alert") and embed["title"].endswith("Inventory out of sync")
    assert isinstance(embed["color"], int) and embed["fields"]
    assert {"name": "Open in Outpost", "value": console, "inline": False} in embed["fields"]
    [gitlab] = receiver.at("/gitlab")
    assert gitlab.headers["authorization"] == "Bearer gl-alert-key-42"
    alert = gitlab.json()
    assert alert["monitoring_tool"] == "Outpost" and alert["severity"] == "medium"
    assert alert["gitlab_environment_name"] == "staging" and alert["fingerprint"].startswith("outpost-error-")
    assert {"title", "description", "start_time"} <= set(alert)
    assert f"Open in Outpost: {console}" in alert["description"]


def test_a_production_rule_ignores_staging(project, receiver):  # noqa: F811
    staging_rule = project.create_rule({"onNewError": True, "environments": ["staging"], "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/staging"}]})
    production_rule = project.create_rule({"onNewError": True, "environments": ["production"], "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/production"}]})
    project.send("Only in staging", environment="staging")
    _sent(project, staging_rule["id"])
    project.send("Marker in production", environment="production")
    _sent(project, production_rule["id"])
    assert [r.json()["attachments"][0]["title"] for r in receiver.at("/production")] == [
        "RuntimeError: Marker in production"]


def test_n_events_within_m_minutes_fire_once_then_the_cooldown_holds(server, project, receiver):  # noqa: F811
    rule = project.create_rule({"timespanMinutes": 10, "quantity": 3, "cooldownMinutes": 60, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/burst"}]})
    for _ in range(2):
        project.send("Burst")
    server.wait_for_digest()
    assert project.deliveries(rule["id"]) == []
    project.send("Burst")
    [fired] = _sent(project, rule["id"])
    assert fired["trigger"] == "frequency"
    for _ in range(4):
        project.send("Burst")
    server.wait_for_digest()
    assert len(project.deliveries(rule["id"])) == 1
    assert "3 events within 10 minutes" in receiver.at("/burst")[0].json()["text"]


def test_distinct_users_condition(server, project, receiver):  # noqa: F811
    rule = project.create_rule({"timespanMinutes": 10, "users": 2, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/users"}]})
    project.send("Login fails", user="ada")
    project.send("Login fails", user="ada")
    server.wait_for_digest()
    assert project.deliveries(rule["id"]) == []
    project.send("Login fails", user="grace")
    assert _sent(project, rule["id"])[0]["trigger"] == "users"


def test_a_regression_fires(server, project, receiver):  # noqa: F811
    rule = project.create_rule({"onRegression": True, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/regression"}]})
    project.send("Fixed once")
    server.wait_for_digest()
    with project.sentry() as client:
        [issue] = [i for i in client.get(project.alerts_path.replace("alerts/", "issues/")).json()
                   if i["title"].endswith("Fixed once")]
        assert client.put(f"/issues/{issue['id']}/", json={"status": "resolved"}).status_code == 200
    assert project.deliveries(rule["id"]) == []
    project.send("Fixed once")
    [fired] = _sent(project, rule["id"])
    assert fired["trigger"] == "regression" and fired["issueId"] == int(issue["id"])


def test_a_500_is_retried_then_succeeds(project, receiver: HttpReceiver):  # noqa: F811
    receiver.statuses[:] = [500, 503]
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/flaky"}]})
    project.send("Flaky receiver")
    [row] = _sent(project, rule["id"])
    assert row["status"] == "sent" and row["attempts"] == 3 and row["lastError"] is None
    assert len(receiver.at("/flaky")) == 3


def test_a_failing_delivery_shows_its_reason(server, project, receiver):  # noqa: F811
    receiver.statuses[:] = [404] * 50
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/gone"}]})
    project.send("Receiver gone")
    row = eventually(lambda: next((r for r in project.deliveries(rule["id"]) if r["lastError"]), None),
                     what="a failed attempt")
    assert row["lastError"] == "the receiver answered 404" and row["status"] in ("pending", "sending")


def test_loopback_is_refused_again_at_send_time(server, project, receiver):  # noqa: F811
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/later-refused"}]})
    allow_local_requests(server, False)
    try:
        project.send("Sent after the permission went")
        row = eventually(lambda: next((r for r in project.deliveries(rule["id"]) if r["lastError"]), None),
                         what="a refused attempt")
        assert row["lastError"] == ("url is blocked: Requests to localhost are not allowed. An administrator allows "
                                    "it with the application setting allow_local_requests_from_web_hooks_and_services.")
        assert receiver.at("/later-refused") == []
    finally:
        allow_local_requests(server)


def test_the_hourly_cap_holds_back_and_schedules_one_summary(server, project, receiver):  # noqa: F811
    # The cap counts per UTC clock hour: a storm begun in an hour's last seconds was split across two hours,
    # each under the cap, and held nothing back.
    start_well_inside(3600, margin=150)
    rule = project.create_rule({"onNewError": True, "hourlyCap": 2, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/storm"}]})
    for number in range(5):
        project.send(f"Storm {number}")
    server.wait_for_digest()
    rows = eventually(lambda: (r := project.deliveries(rule["id"])) and
                      sum(row["status"] == "sent" for row in r) == 2 and r, what="two sent deliveries")
    assert sorted(row["trigger"] for row in rows) == ["new_error", "new_error", "summary"]
    [summary] = [row for row in rows if row["trigger"] == "summary"]
    due = dt.datetime.fromisoformat(summary["nextAttempt"].replace("Z", "+00:00"))
    assert summary["status"] == "pending" and (due.minute, due.second) == (0, 0)
    assert due > dt.datetime.now(dt.timezone.utc)
    # The hour ends (moved forward in the database rather than waited for): the summary goes out.
    with database(server) as connection:
        connection.execute(sqlalchemy.text("UPDATE alert_deliveries SET next_attempt_at = created_at WHERE id = :id"),
                           {"id": summary["id"]})
        connection.commit()
    eventually(lambda: all(row["status"] == "sent" for row in project.deliveries(rule["id"])), what="the summary")
    texts = [request.json()["text"] for request in receiver.at("/storm")]
    assert texts[-1] == f'Outpost alert: 3 more notifications held back by the hourly cap of rule "#{rule["id"]}"'
    assert len(texts) == 3


def test_send_test_notification(project, receiver):  # noqa: F811
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "webhook", "url": receiver.url + "/test"},
        {"recipientType": "email", "addresses": ["oncall@example.com"]}]})
    with project.sentry() as client:
        response = client.post(f"{project.alerts_path}{rule['id']}/test/")
    assert response.status_code == 200, response.text
    assert response.json() == [{"recipientType": "webhook", "status": "sent", "message": None},
                               {"recipientType": "email", "status": "sent", "message": None}]
    assert receiver.at("/test")[0].json()["text"] == "Outpost alert: Test notification"
    assert {row["trigger"] for row in project.deliveries(rule["id"])} == {"test"}


# What docs/error-tracking.md says a signed webhook's `trigger` holds, per kind.
TRIGGER_KEYS = {"kind", "description", "events", "users", "window_minutes", "environment", "level", "release",
                "suppressed"}


def _trigger(receiver: HttpReceiver, path: str) -> dict:  # noqa: F811
    [hook] = eventually(lambda: receiver.at(path), what=f"the webhook at {path}")
    return hook.json()["trigger"]


def test_every_trigger_carries_its_documented_figures(server, project, receiver):  # noqa: F811
    """new_error, regression, frequency, users, summary and test, each through the signed webhook."""
    def rule_to(path: str, **conditions) -> dict:
        return project.create_rule({**conditions, "alertRecipients": [
            {"recipientType": "json_webhook", "url": receiver.url + path}]})

    frequency = rule_to("/frequency", timespanMinutes=10, quantity=3)
    for user in ("ada", "grace", "ada"):
        project.send("Cart total wrong", user=user, release="shop@2")
    _sent(project, frequency["id"])
    assert _trigger(receiver, "/frequency") == {
        "kind": "frequency", "description": "3 events within 10 minutes", "events": 3, "users": 2,
        "window_minutes": 10, "environment": "production", "level": "error", "release": "shop@2", "suppressed": 0}

    users = rule_to("/users", timespanMinutes=5, users=2)
    for user in ("linus", "margaret"):
        project.send("Search times out", user=user, level="warning")
    _sent(project, users["id"])
    assert _trigger(receiver, "/users") == {
        "kind": "users", "description": "2 users within 5 minutes", "events": 2, "users": 2, "window_minutes": 5,
        "environment": "production", "level": "warning", "release": None, "suppressed": 0}

    regression = rule_to("/regression", onRegression=True)
    project.send("Refund twice")
    server.wait_for_digest()
    with project.sentry() as client:
        [issue] = [i for i in client.get(project.alerts_path.replace("alerts/", "issues/")).json()
                   if i["title"].endswith("Refund twice")]
        assert client.put(f"/issues/{issue['id']}/", json={"status": "resolved"}).status_code == 200
    project.send("Refund twice", user="ada")
    _sent(project, regression["id"])
    assert _trigger(receiver, "/regression") == {
        "kind": "regression", "description": "Regression: a resolved error happened again", "events": 1,
        "users": 1, "window_minutes": None, "environment": "production", "level": "error", "release": None,
        "suppressed": 0}

    capped = rule_to("/capped", onNewError=True, hourlyCap=1)
    for number in range(3):
        project.send(f"Flood {number}")
    server.wait_for_digest()
    [summary] = eventually(lambda: [row for row in project.deliveries(capped["id"]) if row["trigger"] == "summary"],
                           what="the summary's delivery")
    with database(server) as connection:
        connection.execute(sqlalchemy.text("UPDATE alert_deliveries SET next_attempt_at = created_at WHERE id = :id"),
                           {"id": summary["id"]})
        connection.commit()
    eventually(lambda: len(receiver.at("/capped")) == 2, what="the summary")
    summary_trigger = receiver.at("/capped")[-1].json()["trigger"]
    assert {key: value for key, value in summary_trigger.items() if key != "hour"} == {
        "kind": "summary", "description": f'2 more notifications held back by the hourly cap of rule "#{capped["id"]}"',
        "suppressed": 2}

    tested = rule_to("/tested", onNewError=True)
    with project.sentry() as client:
        assert client.post(f"{project.alerts_path}{tested['id']}/test/").status_code == 200
    assert _trigger(receiver, "/tested") == {"kind": "test", "description": "Test notification"}
    for path in ("/frequency", "/users", "/regression"):
        assert set(_trigger(receiver, path)) == TRIGGER_KEYS


def test_the_next_notification_counts_what_the_cooldown_held_back(server, project, receiver):  # noqa: F811
    rule = project.create_rule({"timespanMinutes": 10, "quantity": 1, "cooldownMinutes": 60, "alertRecipients": [
        {"recipientType": "json_webhook", "url": receiver.url + "/cooldown"}]})
    project.send("Held back")
    _sent(project, rule["id"])
    for _ in range(2):  # two batches, each a notification the cooldown holds back
        project.send("Held back")
        server.wait_for_digest()
    assert len(project.deliveries(rule["id"])) == 1
    # The cooldown ends (moved back in the database rather than waited for).
    with database(server) as connection:
        connection.execute(sqlalchemy.update(AlertErrorState).where(AlertErrorState.rule_id == rule["id"])
                           .values(last_fired_at=dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)))
        connection.commit()
    project.send("Held back")
    _sent(project, rule["id"], 2)
    eventually(lambda: len(receiver.at("/cooldown")) == 2, what="the second notification")
    first, second = (request.json()["trigger"] for request in receiver.at("/cooldown"))
    assert (first["suppressed"], second["suppressed"]) == (0, 2)


def test_secrets_stay_out_of_the_log_and_the_delivery_log(server, project, receiver):  # noqa: F811
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "json_webhook", "url": receiver.url + "/private-path-token-abc"},
        {"recipientType": "gitlab", "url": receiver.url + "/gitlab-path", "authorizationKey": "gl-secret-key-99"}]})
    secret = rule["alertRecipients"][0]["secret"]
    receiver.statuses[:] = [500, 500]
    project.send("Secret keeper")
    rows = _sent(project, rule["id"], 2)
    text = str(rows) + server.log_text()
    for private in (secret, "gl-secret-key-99", "private-path-token-abc"):
        assert private not in text
    assert {row["target"] for row in rows} == {receiver.url}


def test_administrators_see_the_mail_settings_and_send_a_test_email(server, mailbox):  # noqa: F811
    with server.client() as client:
        shown = client.get("/application/mail")
        assert shown.status_code == 200
        assert shown.json() == {"configured": True, "host": "127.0.0.1", "port": mailbox.port, "security": "none",
                                "from": "alerts@outpost.example.com", "authentication": False}
        sent = client.post("/application/mail/test", json={"to": "admin-check@example.com"})
        assert sent.status_code == 201, sent.text
    [message] = eventually(lambda: [m for m in mailbox.received if m["To"] == "admin-check@example.com"],
                           what="the test email")
    assert message["Subject"].strip() == "[Outpost] Test email"
    _, token = ApiHelper(server).user()
    with server.client(token) as client:
        assert client.get("/application/mail").status_code == 403
        assert client.post("/application/mail/test").status_code == 403

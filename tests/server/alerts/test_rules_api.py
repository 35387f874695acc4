"""GlitchTip's project alerts API on the real server: shapes, validation, permissions, secrets, cascade."""

from __future__ import annotations

import pytest
import sqlalchemy

from outpost_server.accounts import access
from tests.server.alerts.flows import alert_project, allow_local_requests, database
from tests.support import ApiHelper, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("alerts-api"), extra_env={"OUTPOST_ALERT_SENDER": "false"}) as running:
        yield running


@pytest.fixture(scope="module")
def helper(server):
    return ApiHelper(server)


def test_glitchtip_shapes_round_trip(server, helper):
    project = alert_project(server, helper)
    with project.sentry() as client:
        created = client.post(project.alerts_path, json={
            "name": "Checkout errors", "timespan_minutes": 5, "quantity": 10,
            "alertRecipients": [{"recipientType": "discord", "url": "https://93.184.215.14/api/webhooks/1/x"}]})
        assert created.status_code == 201, created.text
        rule = created.json()
        assert rule["name"] == "Checkout errors"
        assert (rule["timespanMinutes"], rule["quantity"], rule["uptime"]) == (5, 10, False)
        [recipient] = rule["alertRecipients"]
        assert recipient["recipientType"] == "discord"
        assert recipient["url"] == "https://93.184.215.14/api/webhooks/1/x"
        assert {"id", "config", "tagsToAdd"} <= set(recipient)
        # Outpost's extension fields, with their defaults.
        assert (rule["onNewError"], rule["onRegression"], rule["cooldownMinutes"], rule["environments"]) == (
            False, False, 60, [])

        updated = client.put(f"{project.alerts_path}{rule['id']}/", json={
            "name": "Checkout errors in production", "environments": ["production"], "minLevel": "error",
            "onNewError": True, "alertRecipients": [
                {"recipientType": "discord", "url": "https://93.184.215.14/api/webhooks/1/x"},
                {"recipientType": "email", "url": "", "addresses": ["ops@example.com"]}]})
        assert updated.status_code == 200, updated.text
        body = updated.json()
        assert body["environment"] == "production" and body["minLevel"] == "error"
        assert body["timespanMinutes"] == 5  # absent fields stay, as GlitchTip's exclude_unset
        assert body["alertRecipients"][0]["id"] == recipient["id"]  # kept: same type and url
        assert body["alertRecipients"][1]["addresses"] == ["ops@example.com"]

        listed = client.get(project.alerts_path)
        assert listed.status_code == 200 and [r["id"] for r in listed.json()] == [rule["id"]]
        assert client.delete(f"{project.alerts_path}{rule['id']}/").status_code == 204
        assert client.get(project.alerts_path).json() == []
        assert client.put(f"{project.alerts_path}{rule['id']}/", json={"name": "x"}).status_code == 404


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"name": "nothing"}, "non_field_errors", "A rule needs a condition"),
    ({"quantity": 5}, "timespanMinutes", "Required with quantity"),
    ({"timespanMinutes": 0, "quantity": 1}, "timespanMinutes", "between 1 and"),
    ({"onNewError": True, "minLevel": "loud"}, "minLevel", "not a valid choice"),
    ({"onNewError": True, "alertRecipients": [{"recipientType": "pager", "url": "https://93.184.215.17"}]},
     "alertRecipients", "'pager' is not supported"),
    ({"onNewError": True, "alertRecipients": [{"recipientType": "email", "addresses": ["not-an-address"]}]},
     "alertRecipients", "not an email address"),
    ({"onNewError": True, "alertRecipients": [{"recipientType": "gitlab", "url": "https://93.184.215.16/a"}]},
     "alertRecipients", "authorizationKey is required"),
    ({"onNewError": True, "uptime": True}, "uptime", "no uptime monitors"),
])
def test_invalid_rules_get_a_400_naming_the_field(server, helper, body, field, message):
    project = alert_project(server, helper)
    with project.sentry() as client:
        response = client.post(project.alerts_path, json=body)
    assert response.status_code == 400, response.text
    assert message in " ".join(response.json()[field]), response.json()


def test_a_loopback_webhook_needs_the_administrators_permission(server, helper):
    project = alert_project(server, helper)
    body = {"onNewError": True, "alertRecipients": [{"recipientType": "webhook", "url": "http://127.0.0.1:9/hook"}]}
    with project.sentry() as client:
        refused = client.post(project.alerts_path, json=body)
        assert refused.status_code == 400
        assert refused.json() == {"alertRecipients": [
            "recipient 1: url is blocked: Requests to localhost are not allowed. An administrator allows it with "
            "the application setting allow_local_requests_from_web_hooks_and_services."]}
        allow_local_requests(server)
        try:
            assert client.post(project.alerts_path, json=body).status_code == 201
        finally:
            allow_local_requests(server, False)


def test_maintainers_edit_developers_may_not_and_non_members_see_nothing(server, helper):
    project = alert_project(server, helper)
    roles = {}
    for role, level in (("maintainer", access.MAINTAINER), ("developer", access.DEVELOPER),
                        ("reporter", access.REPORTER)):
        user, token = helper.user()
        helper.member("projects", project.id, user["id"], level)
        roles[role] = token
    _, roles["outsider"] = helper.user()
    body = {"name": "new errors", "onNewError": True}
    with project.sentry(roles["maintainer"]) as client:
        rule = client.post(project.alerts_path, json=body)
        assert rule.status_code == 201, rule.text
    with project.sentry(roles["developer"]) as client:
        assert client.get(project.alerts_path).status_code == 200
        refused = client.post(project.alerts_path, json=body)
        assert refused.status_code == 403
        assert refused.json() == {"detail": "You do not have permission to perform this action."}
        assert client.delete(f"{project.alerts_path}{rule.json()['id']}/").status_code == 403
    with project.sentry(roles["reporter"]) as client:
        assert [r["name"] for r in client.get(project.alerts_path).json()] == ["new errors"]
    with project.sentry(roles["outsider"]) as client:
        for response in (client.get(project.alerts_path), client.post(project.alerts_path, json=body)):
            assert response.status_code == 404
            assert response.json() == {"detail": "The requested resource does not exist"}


def test_a_webhook_secret_is_shown_once_and_stored_encrypted(server, helper):
    project = alert_project(server, helper)
    rule = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "json_webhook", "url": "https://93.184.215.15/outpost"},
        {"recipientType": "gitlab", "url": "https://93.184.215.16/p/alerts/notify.json",
         "authorizationKey": "gitlab-key-0123456789"}]})
    webhook, gitlab = rule["alertRecipients"]
    assert webhook["secret"].startswith("whsec_") and webhook["hasSecret"]
    assert "secret" not in gitlab and gitlab["hasSecret"] and "authorizationKey" not in gitlab
    with project.sentry() as client:
        [listed] = client.get(project.alerts_path).json()
        assert all("secret" not in recipient for recipient in listed["alertRecipients"])
        # Saving the same recipients again keeps them and their secrets (no key needed again).
        again = client.put(f"{project.alerts_path}{rule['id']}/", json={"alertRecipients": [
            {"recipientType": "json_webhook", "url": "https://93.184.215.15/outpost"},
            {"recipientType": "gitlab", "url": "https://93.184.215.16/p/alerts/notify.json"}]})
        assert again.status_code == 200, again.text
        assert [r["id"] for r in again.json()["alertRecipients"]] == [webhook["id"], gitlab["id"]]
    with database(server) as connection:
        stored = connection.execute(sqlalchemy.text(
            "SELECT encrypted_secret FROM alert_recipients WHERE id IN (:a, :b)"),
            {"a": webhook["id"], "b": gitlab["id"]}).scalars().all()
    assert len(stored) == 2 and all(stored)
    assert not any(webhook["secret"] in value or "gitlab-key-0123456789" in value for value in stored)


def test_deleting_a_project_deletes_its_rules(server, helper):
    project = alert_project(server, helper)
    project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "email", "addresses": ["ops@example.com"]}]})
    count = sqlalchemy.text("SELECT count(*) FROM alert_rules WHERE project_id = :id")
    orphans = sqlalchemy.text("SELECT count(*) FROM alert_recipients WHERE rule_id NOT IN (SELECT id FROM alert_rules)")
    with database(server) as connection:
        assert connection.execute(count, {"id": project.id}).scalar() == 1
    with server.client() as client:
        assert client.delete(f"/projects/{project.id}").status_code == 202
    with database(server) as connection:
        assert connection.execute(count, {"id": project.id}).scalar() == 0
        assert connection.execute(orphans).scalar() == 0


def test_without_smtp_the_mail_settings_say_so(server):
    with server.client() as client:
        assert client.get("/application/mail").json()["configured"] is False
        refused = client.post("/application/mail/test")
        assert refused.status_code == 400
        assert "OUTPOST_SMTP_HOST is unset" in refused.json()["message"]


def test_hostile_values_are_refused_with_a_400(server, helper):
    project = alert_project(server, helper)
    with project.sentry() as client:
        for body in ({"onNewError": True, "name": "bad\x00name"}, {"quantity": "9" * 5000, "timespanMinutes": 5},
                     {"onNewError": True, "alertRecipients": [{"recipientType": "email", "addresses": [7]}]},
                     {"onNewError": True, "alertRecipients": "all"}, ["not", "an", "object"]):
            response = client.post(project.alerts_path, json=body)
            assert response.status_code == 400, (body, response.text)

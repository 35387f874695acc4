"""A webhook URL carries a token in its path (Slack's, Discord's): a Reporter or Developer reading the rules
sees only its scheme and host, a Maintainer the whole URL; the database keeps it encrypted, and an older
database's URLs are encrypted by migration 0024."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy
from alembic import command

from outpost_server.accounts import access
from outpost_server.db import make_engine
from outpost_server.migrations import alembic_config, upgrade_database
from outpost_server.security import SecretBox
from tests.server.alerts.flows import alert_project, database
from tests.server.migrations.reflection import reflect_tables
from tests.server.migrations.test_lower_names_migration import _namespace, _project, _user
from tests.support import ApiHelper, database_url_for, start_server

SLACK = "https://93.184.215.20/services/T0001/B0001/slacktokenslacktoken"
DISCORD = "https://93.184.215.21/api/webhooks/123/discordtokendiscordtoken"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("alert-urls"), extra_env={"OUTPOST_ALERT_SENDER": "false"}) as running:
        yield running


def test_readers_see_a_masked_url_and_maintainers_the_whole_one(server):
    helper = ApiHelper(server)
    project = alert_project(server, helper)
    tokens = {}
    for role, level in (("maintainer", access.MAINTAINER), ("developer", access.DEVELOPER),
                        ("reporter", access.REPORTER)):
        user, token = helper.user(scopes=("read_api",) if role == "reporter" else ("api",))
        helper.member("projects", project.id, user["id"], level)
        tokens[role] = token
    created = project.create_rule({"onNewError": True, "alertRecipients": [
        {"recipientType": "webhook", "url": SLACK}, {"recipientType": "discord", "url": DISCORD},
        {"recipientType": "email", "addresses": ["ops@example.com"]}]})
    assert [r["url"] for r in created["alertRecipients"]] == [SLACK, DISCORD, ""]
    shown = {}
    for role, token in tokens.items():
        with project.sentry(token) as client:
            answer = client.get(project.alerts_path)
        assert answer.status_code == 200, answer.text
        shown[role] = [r["url"] for r in answer.json()[0]["alertRecipients"]]
    masked = ["https://93.184.215.20/*****", "https://93.184.215.21/*****", ""]
    assert shown == {"maintainer": [SLACK, DISCORD, ""], "developer": masked, "reporter": masked}

    with database(server) as connection:
        stored = [str(value) for row in connection.execute(sqlalchemy.text(
            "SELECT * FROM alert_recipients WHERE rule_id = :id"), {"id": created["id"]}) for value in row]
    assert not any("slacktoken" in value or "discordtoken" in value for value in stored), stored
    # Unchanged recipients keep their ids when a Maintainer saves the rule again.
    with project.sentry(tokens["maintainer"]) as client:
        again = client.put(f"{project.alerts_path}{created['id']}/", json={"alertRecipients": [
            {"recipientType": "webhook", "url": SLACK}, {"recipientType": "discord", "url": DISCORD}]})
    assert again.status_code == 200, again.text
    assert [r["id"] for r in again.json()["alertRecipients"]] == [r["id"] for r in created["alertRecipients"][:2]]


def test_migration_0024_encrypts_the_stored_urls(tmp_path):
    engine = make_engine(database_url_for(tmp_path) or f"sqlite:///{tmp_path}/outpost.db")
    for revision in ("0022_lower_unique_names", "0017_alerts_autoincrement"):
        command.upgrade(alembic_config(engine), revision)
    tables = reflect_tables(engine, only=["users", "namespaces", "projects", "alert_rules", "alert_recipients"])
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    with engine.begin() as connection:
        connection.execute(tables.tables["users"].insert(), [_user(1, "owner")])
        connection.execute(tables.tables["namespaces"].insert(), [_namespace(1, "user", "owner", owner_id=1)])
        connection.execute(tables.tables["projects"].insert(), [_project(1, 1, "owner/shop")])
        connection.execute(tables.tables["alert_rules"].insert(), [{
            "id": 1, "project_id": 1, "name": "r", "on_new_error": True, "on_regression": False, "environments": [],
            "cooldown_minutes": 60, "hourly_cap": 30, "link_base": "", "created_at": now, "updated_at": now}])
        connection.execute(tables.tables["alert_recipients"].insert(), [
            {"id": 1, "rule_id": 1, "recipient_type": "webhook", "url": SLACK, "addresses": []},
            {"id": 2, "rule_id": 1, "recipient_type": "email", "url": "", "addresses": ["ops@example.com"]}])
    with pytest.raises(RuntimeError, match="needs the server's secret key"):
        upgrade_database(engine)
    upgrade_database(engine, secret_key="the-servers-key")
    with engine.connect() as connection:
        rows = connection.execute(sqlalchemy.text(
            "SELECT recipient_type, encrypted_url, target FROM alert_recipients ORDER BY id")).all()
    engine.dispose()
    assert [(kind, target) for kind, _, target in rows] == [("webhook", "https://93.184.215.20"),
                                                            ("email", "ops@example.com")]
    assert SLACK not in rows[0][1] and SecretBox("the-servers-key").decrypt(rows[0][1]) == SLACK
    assert rows[1][1] == ""

"""Merging and ignoring until a condition through Sentry's bulk update, with events the real Python SDK
sends before and after: what joins the parent, where a merged id leads, and when an ignored error comes
back (as a regression, for alert rules)."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy

from outpost_server.error_tracking.models import ErrorSnooze
from tests.server.alerts.flows import database, mailing_server
from tests.server.alerts.receivers import MailBox, eventually, mailbox  # noqa: F401
from tests.server.error_tracking.triage_support import TriageProject, triage_project
from tests.server.graphql.support import data_of, graphql


@pytest.fixture(scope="module")
def server(tmp_path_factory, mailbox: MailBox):  # noqa: F811 (the fixture)
    with mailing_server(tmp_path_factory.mktemp("triage"), mailbox.port) as running:
        yield running


def test_merging_joins_events_counts_users_and_tags_and_redirects_the_children(server):
    shop = triage_project(server)
    shop.send(("payment declined", "ada"), ("payment declined", "bob"), ("card rejected", "bob"),
              ("card rejected", "cyd"), ("card rejected", "cyd"), ("gateway timeout", "dee"))
    before = shop.by_title()
    declined, rejected, timeout = (before[title] for title in ("payment declined", "card rejected", "gateway timeout"))

    answer = shop.bulk([declined["id"], rejected["id"], timeout["id"]], {"merge": 1})
    assert answer.status_code == 200, answer.text
    # The parent is the issue seen most often; the others are its children, most often seen first.
    assert answer.json() == {"merge": {"parent": rejected["id"], "children": [declined["id"], timeout["id"]]}}
    [parent] = shop.issues()
    assert parent["id"] == rejected["id"]
    assert (parent["count"], parent["userCount"]) == ("6", 4)
    assert parent["firstSeen"] == min(issue["firstSeen"] for issue in before.values())
    assert parent["lastSeen"] == max(issue["lastSeen"] for issue in before.values())
    with shop.sentry() as client:
        events = client.get(f"/issues/{parent['id']}/events/").json()
        assert len(events) == 6
        users = client.get(f"/issues/{parent['id']}/tags/user/values/").json()
        assert sorted(value["value"] for value in users) == ["id:ada", "id:bob", "id:cyd", "id:dee"]
        step = client.get(f"/issues/{parent['id']}/tags/checkout_step/values/").json()
        assert [(value["value"], value["count"]) for value in step] == [("payment", 6)]
        # A merged issue's old id answers as the issue it joined, on every path that names it.
        redirected = client.get(f"/issues/{declined['id']}/")
        assert (redirected.status_code, redirected.json()["id"]) == (200, rejected["id"])
        assert client.get(f"{shop.issues_path}{timeout['id']}/").json()["id"] == rejected["id"]
    with shop.web() as web:
        details = web.get(f"/{shop.project['path_with_namespace']}/-/error_tracking/{declined['id']}/details.json")
        assert details.json()["error"]["id"] == rejected["id"]
        listed = web.get(f"/{shop.project['path_with_namespace']}/-/error_tracking.json").json()["errors"]
        assert [(error["id"], error["count"]) for error in listed] == [(rejected["id"], 6)]
    nodes = data_of(graphql(server, "query($p: ID!) { project(fullPath: $p) { sentryErrors { errors { nodes "
                                    "{ title count } } } } }", {"p": shop.project["path_with_namespace"]},
                            token=shop.members["developer"][1]))["project"]["sentryErrors"]["errors"]["nodes"]
    assert len(nodes) == 1 and nodes[0]["count"] == 6

    # New events of the children's fingerprints group into the parent from now on.
    shop.send(("payment declined", "eve"), ("gateway timeout", "ada"))
    [parent] = shop.issues()
    assert (parent["id"], parent["count"], parent["userCount"]) == (rejected["id"], "8", 5)

    # One issue has nothing to merge with: Sentry answers the flag as given.
    assert shop.bulk([rejected["id"]], {"merge": True}).json() == {"merge": True}


def test_ignored_until_two_more_events_comes_back_unresolved_as_a_regression(server):
    shop = triage_project(server, "inventory drift")
    [issue] = shop.issues()
    rule = _rule(shop, "Regressions", onRegression=True)

    answer = shop.bulk([issue["id"]], {"status": "ignored", "statusDetails": {"ignoreCount": 2}})
    developer = shop.members["developer"][0]
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["statusDetails"]["actor"]["username"] == developer["username"]
    assert body == {"status": "ignored", "inbox": None, "statusDetails": {
        "ignoreCount": 2, "ignoreUntil": None, "ignoreUserCount": None, "ignoreUserWindow": None,
        "ignoreWindow": None, "actor": body["statusDetails"]["actor"]}}

    shop.send(("inventory drift", None))
    [still] = shop.issues("is:ignored")
    # Without a window the count shown is what remains of it.
    assert (still["status"], still["statusDetails"]["ignoreCount"]) == ("ignored", 1)
    assert _deliveries(shop, rule) == []

    shop.send(("inventory drift", None))
    [back] = shop.issues()
    assert (back["id"], back["status"], back["substatus"], back["statusDetails"]) == (
        issue["id"], "unresolved", "regressed", {})
    assert shop.issues("is:ignored") == []
    deliveries = eventually(lambda: _deliveries(shop, rule), what="the regression's delivery")
    assert [row["trigger"] for row in deliveries] == ["regression"]


def test_ignored_until_users_or_a_window_or_a_moment(server):
    shop = triage_project(server, "users affected", "burst", "for an hour")
    issues = shop.by_title()
    users, burst, hour = (issues[title]["id"] for title in ("users affected", "burst", "for an hour"))
    assert shop.bulk([users], {"status": "ignored", "ignoreUserCount": 2}).status_code == 200
    assert shop.bulk([burst], {"status": "ignored", "statusDetails": {"ignoreCount": 4, "ignoreWindow": 60}}
                     ).status_code == 200
    # An hour from the moment the server took the request, whatever the load (times are sent to the millisecond).
    asked = dt.datetime.now(dt.timezone.utc) - dt.timedelta(milliseconds=1)
    timed = shop.bulk([hour], {"status": "ignored", "statusDetails": {"ignoreDuration": 60}}).json()
    answered = dt.datetime.now(dt.timezone.utc)
    until = dt.datetime.fromisoformat(timed["statusDetails"]["ignoreUntil"].replace("Z", "+00:00"))
    assert asked + dt.timedelta(minutes=60) <= until <= answered + dt.timedelta(minutes=60)

    # One user again and a second one: the user condition is met; the burst's three events within the hour
    # (the first sent before it was ignored) are not four.
    shop.send(("users affected", "ada"), ("users affected", "ada"), ("users affected", "bob"),
              ("burst", None), ("burst", None), ("for an hour", None))
    assert {issue["title"] for issue in shop.issues()} == {"users affected"}
    shop.send(("burst", None))  # the fourth within the hour
    assert {issue["title"] for issue in shop.issues()} == {"users affected", "burst"}

    # The moment passes (moved into the past here): the issue shows unresolved, and an event wakes it.
    with database(server) as connection:
        connection.execute(sqlalchemy.update(ErrorSnooze).where(ErrorSnooze.error_id == int(hour))
                           .values(until=dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=1)))
        connection.commit()
    with shop.sentry() as client:
        assert client.get(f"/issues/{hour}/").json()["status"] == "unresolved"
    shop.send(("for an hour", None))
    assert {issue["title"] for issue in shop.issues()} == {"users affected", "burst", "for an hour"}


def test_a_rule_notifies_the_assignee_by_email(server, mailbox):  # noqa: F811
    shop = triage_project(server, "refund loop")
    [issue] = shop.issues()
    rule = _rule(shop, "Tell the assignee", onRegression=True, recipients=[{"recipientType": "assignee"}])
    reporter = shop.members["reporter"][0]
    assert shop.bulk([issue["id"]], {"status": "resolved", "assignedTo": reporter["username"]}).status_code == 200
    shop.send(("refund loop", None))
    [row] = eventually(lambda: [row for row in _deliveries(shop, rule) if row["status"] == "sent"],
                       what="the assignee's email")
    assert (row["channel"], row["target"]) == ("assignee", "the error's assignee")
    [message] = eventually(lambda: [m for m in mailbox.received if "refund loop" in m["Subject"]],
                           what="the email")
    assert message["To"] == reporter["email"]


def _rule(shop: TriageProject, name: str, *, recipients: list[dict] | None = None, **conditions) -> dict:
    body = {"name": name, **conditions,
            "alertRecipients": recipients or [{"recipientType": "email", "addresses": ["oncall@example.com"]}]}
    with shop.sentry("root") as client:
        response = client.post(f"/projects/{shop.slugs}/alerts/", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _deliveries(shop: TriageProject, rule: dict) -> list[dict]:
    with shop.sentry("root") as client:
        response = client.get(f"/projects/{shop.slugs}/alerts/{rule['id']}/deliveries/")
    assert response.status_code == 200, response.text
    return response.json()

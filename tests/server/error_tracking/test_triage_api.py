"""Triage through Sentry's web API, against errors the real Python SDK sent: the bulk update by ids and by
query, assignment and its search, who may triage, and Sentry's answers and error bodies."""

from __future__ import annotations

import pytest

from tests.server.error_tracking.triage_support import TriageProject, triage_project
from tests.server.graphql.support import data_of, graphql

NO_PERMISSION = {"detail": "You do not have permission to perform this action."}


@pytest.fixture(scope="module")
def shop(server) -> TriageProject:
    return triage_project(server, "cart total negative", "coupon expired", "stock went missing")


def _ids(shop: TriageProject, *titles: str) -> list[str]:
    issues = shop.by_title("is:all")
    return [issues[title]["id"] for title in titles]


def test_bulk_assignment_answers_the_actor_and_every_serializer_shows_it(shop):
    reporter = shop.members["reporter"][0]
    cart, coupon = _ids(shop, "cart total negative", "coupon expired")
    answer = shop.bulk([cart, coupon], {"assignedTo": reporter["username"]})
    assert answer.status_code == 200, answer.text
    actor = {"type": "user", "id": str(reporter["id"]), "name": reporter["name"], "email": reporter["email"]}
    assert answer.json() == {"assignedTo": actor}

    listed = shop.by_title()
    assert listed["cart total negative"]["assignedTo"] == actor
    assert listed["coupon expired"]["assignedTo"] == actor
    assert listed["stock went missing"]["assignedTo"] is None
    with shop.sentry() as client:
        assert client.get(f"/issues/{cart}/").json()["assignedTo"] == actor
        assert client.get(f"{shop.issues_path}{coupon}/").json()["assignedTo"] == actor

    # user:<id> and an email name members too; "" and null unassign.
    developer = shop.members["developer"][0]
    assert shop.bulk([coupon], {"assignedTo": f"user:{developer['id']}"}).json()["assignedTo"]["id"] == str(
        developer["id"])
    assert shop.bulk([coupon], {"assignedTo": developer["email"].upper()}).json()["assignedTo"]["id"] == str(
        developer["id"])
    assert shop.bulk([coupon], {"assignedTo": ""}).json() == {"assignedTo": None}
    assert shop.by_title()["coupon expired"]["assignedTo"] is None
    assert shop.bulk([coupon], {"assignedTo": str(developer["id"])}).status_code == 200
    assert shop.bulk([coupon], {"assignedTo": None}).json() == {"assignedTo": None}


@pytest.mark.parametrize(("who", "message"), [
    ("outsider", "Cannot assign to non-team member"),
    ("guest", "Cannot assign to non-team member"),
    ("nobody-by-this-name", "Could not parse actor. Format should be `type:id` where type is `team` or `user`."),
    ("user:987654321", "User does not exist"),
    ("team:3", "Team does not exist"),
])
def test_assigning_anyone_but_a_member_answers_sentrys_400(shop, who, message):
    name = shop.members[who][0]["username"] if who in shop.members else who
    [stock] = _ids(shop, "stock went missing")
    answer = shop.bulk([stock], {"assignedTo": name})
    assert answer.status_code == 400
    assert answer.json() == {"assignedTo": [message]}
    assert shop.by_title()["stock went missing"]["assignedTo"] is None


def test_search_by_assignee_on_every_list(shop):
    reporter, developer = shop.members["reporter"][0], shop.members["developer"][0]
    cart, coupon, stock = _ids(shop, "cart total negative", "coupon expired", "stock went missing")
    assert shop.bulk([cart], {"assignedTo": reporter["username"]}).status_code == 200
    assert shop.bulk([coupon], {"assignedTo": developer["username"]}).status_code == 200
    assert shop.bulk([stock], {"assignedTo": None}).status_code == 200

    def titles(query: str, role: str = "developer") -> set[str]:
        return {issue["title"] for issue in shop.issues(query, role)}

    assert titles(f"assigned:{reporter['username']}") == {"cart total negative"}
    assert titles("assigned:me") == {"coupon expired"}
    assert titles("assigned:me", role="reporter") == {"cart total negative"}
    assert titles("is:assigned") == {"cart total negative", "coupon expired"}
    assert titles("is:unassigned") == {"stock went missing"}
    assert titles("is:unassigned coupon") == set()
    # GitLab's list and GraphQL read the same search.
    with shop.web() as web:
        body = web.get(f"/{shop.project['path_with_namespace']}/-/error_tracking.json",
                       params={"search_term": "assigned:me"}).json()
    assert [error["title"] for error in body["errors"]] == ["coupon expired"]
    query = ("query($p: ID!) { project(fullPath: $p) { sentryErrors { errors(searchTerm: \"is:assigned\") "
             "{ nodes { title } } } } }")
    nodes = data_of(graphql(shop.server, query, {"p": shop.project["path_with_namespace"]},
                            token=shop.members["developer"][1]))["project"]["sentryErrors"]["errors"]["nodes"]
    assert {node["title"] for node in nodes} == {"cart total negative", "coupon expired"}


def test_reporters_read_and_developers_triage_on_every_route(shop):
    [cart] = _ids(shop, "cart total negative")
    path = shop.project["path_with_namespace"]
    assert shop.issues(role="reporter")
    refused = shop.bulk([cart], {"status": "resolved"}, role="reporter")
    assert (refused.status_code, refused.json()) == (403, NO_PERMISSION)
    with shop.sentry("reporter") as client:
        single = client.put(f"/issues/{cart}/", json={"status": "resolved"})
    assert (single.status_code, single.json()) == (403, NO_PERMISSION)
    with shop.web("reporter") as web:
        assert web.get(f"/{path}/-/error_tracking/{cart}/details.json").status_code == 200
        gitlab = web.put(f"/{path}/-/error_tracking/{cart}.json", json={"status": "resolved"})
    assert gitlab.status_code == 404
    assert shop.by_title("is:all")["cart total negative"]["status"] == "unresolved"
    outsider = shop.bulk([cart], {"status": "resolved"}, role="outsider")
    assert outsider.status_code == 404

    with shop.web("developer") as web:
        done = web.put(f"/{path}/-/error_tracking/{cart}.json", json={"status": "resolved"})
    assert done.json()["result"]["updated"] is True
    assert shop.bulk([cart], {"status": "unresolved"}).json() == {"status": "unresolved", "statusDetails": {}}


def test_bulk_status_by_ids_and_by_query_bounded_and_answered_as_sentry(shop):
    cart, coupon = _ids(shop, "cart total negative", "coupon expired")
    resolved = shop.bulk([cart, coupon, "999999999", "not-a-number"], {"status": "resolved"})
    assert resolved.json() == {"status": "resolved", "statusDetails": {}, "inbox": None}
    assert {issue["title"] for issue in shop.issues("is:resolved")} == {"cart total negative", "coupon expired"}
    # No ids: the query names them (Sentry's default is:unresolved when none is given).
    unresolved = shop.bulk([], {"status": "unresolved"}, query="is:resolved")
    assert unresolved.json() == {"status": "unresolved", "statusDetails": {}}
    assert len(shop.issues("is:resolved")) == 0
    nothing = shop.bulk([], {"status": "resolved"}, query="is:resolved")
    assert nothing.status_code == 204
    assert shop.bulk(["999999999"], {"status": "resolved"}).status_code == 204

    bad = shop.bulk([cart], {"status": "solved"})
    assert (bad.status_code, bad.json()) == (400, {"status": ['"solved" is not a valid choice.']})
    bad = shop.bulk([cart], {"merge": "perhaps"})
    assert (bad.status_code, bad.json()) == (400, {"merge": ["Must be a valid boolean."]})
    bad = shop.bulk([cart], {"status": "ignored", "statusDetails": {"ignoreWindow": 10081, "ignoreCount": "x"}})
    assert (bad.status_code, bad.json()) == (400, {"statusDetails": {
        "ignoreWindow": ["Ensure this value is less than or equal to 10080."],
        "ignoreCount": ["A valid integer is required."]}})
    assert shop.by_title()["cart total negative"]["status"] == "unresolved"


def test_the_project_says_which_scopes_each_member_may_use_and_the_list_reads_chosen_issues(shop):
    def access(role: str) -> list[str]:
        with shop.sentry(role) as client:
            response = client.get(f"/projects/{shop.slugs}/")
        assert response.status_code == 200, response.text
        return response.json()["access"]

    assert "event:write" in access("developer")
    assert "event:read" in access("reporter") and "event:write" not in access("reporter")
    cart, stock = _ids(shop, "cart total negative", "stock went missing")
    with shop.sentry("reporter") as client:
        chosen = client.get(shop.issues_path, params={"query": "is:all", "group": [cart, stock, "x"]}).json()
    assert sorted(issue["id"] for issue in chosen) == sorted([cart, stock])

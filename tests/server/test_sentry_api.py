"""Sentry's web API (`/api/0/`) of the real server: shapes, pagination, tag facets, auth and scrubbing.

Events are posted to the collector as an SDK would; the rich event carries a breadcrumb trail, a
request, a user, contexts, tags, extra and frame variables, plus one secret in every place Sentry's
default scrubbing covers.
"""

from __future__ import annotations

import re
import time
import uuid

import httpx
import pytest
import sqlalchemy

from outpost_server.accounts import access
from tests.support import ApiHelper, start_server

SECRETS = {name: f"SECRET-{name.upper()}-{uuid.uuid4().hex[:8]}" for name in (
    "authorization", "cookie", "set_cookie", "x_api_key", "password", "secret", "passwd", "api_key", "apikey",
    "access_token", "auth", "credentials", "mysql_pwd", "privatekey", "private_key", "token", "session",
    "csrftoken", "sessionid", "query_token", "url_token", "form_password", "cookie_session", "tag_token")}
LINK = re.compile(r'<(?P<url>[^>]+)>; rel="(?P<rel>\w+)"; results="(?P<results>true|false)"; '
                  r'cursor="(?P<cursor>[^"]+)"')


def rich_event(number: int, *, browser: str = "Firefox", release: str = "shop@2.0.0") -> dict:
    """A Python-SDK-like event; every secret of SECRETS sits where scrubbing must find it."""
    frame_vars = {name: SECRETS[name] for name in ("password", "secret", "passwd", "api_key", "apikey",
                                                   "access_token", "auth", "credentials", "mysql_pwd")}
    return {
        "event_id": uuid.uuid4().hex, "timestamp": time.time() - 1000 + number, "platform": "python",
        "level": "error", "release": release, "environment": "production", "server_name": "web-1",
        "logger": "shop.checkout",
        "exception": {"values": [
            {"type": "ZeroDivisionError", "value": "division by zero", "module": None,
             "mechanism": {"type": "logging", "handled": True}},
            {"type": "ValueError", "value": "order could not be loaded",
             "mechanism": {"type": "excepthook", "handled": False},
             "stacktrace": {"frames": [
                 {"filename": "threading.py", "function": "run", "module": "threading", "lineno": 10,
                  "in_app": False},
                 {"filename": "shop/checkout.py", "abs_path": "/srv/shop/checkout.py", "function": "load_order",
                  "module": "shop.checkout", "lineno": 42, "pre_context": ["def load_order(text):", "    try:"],
                  "context_line": "        return parse(text)", "post_context": ["    except Exception:"],
                  "in_app": True, "vars": {**frame_vars, "text": "'12'"}}]}}]},
        "breadcrumbs": {"values": [
            {"timestamp": time.time() - 1001 + number, "category": "http", "type": "http", "level": "info",
             "data": {"url": "/cart", "status_code": 200}},
            {"timestamp": time.time() - 1000.5 + number, "category": "shop", "level": "warning",
             "message": "cart is large", "data": {"privatekey": SECRETS["privatekey"]}}]},
        "request": {"url": f"https://shop.example.com/checkout?token={SECRETS['url_token']}&step=2",
                    "method": "POST", "query_string": f"token={SECRETS['query_token']}&step=2",
                    "data": f"sku=7&password={SECRETS['form_password']}",
                    "cookies": f"theme=dark; session={SECRETS['cookie_session']}",
                    "headers": {"Authorization": SECRETS["authorization"], "Cookie": SECRETS["cookie"],
                                "Set-Cookie": SECRETS["set_cookie"], "X-Api-Key": SECRETS["x_api_key"],
                                "User-Agent": "Firefox/120"}},
        "user": {"id": f"user-{number % 3}", "email": f"user{number % 3}@example.com",
                 "data": {"private_key": SECRETS["private_key"]}},
        "contexts": {"os": {"name": "Linux", "version": "6.1"}, "runtime": {"name": "CPython", "version": "3.11.4"},
                     "browser": {"name": browser, "version": "120"}, "device": {"model": "Desktop", "family": "PC"},
                     "app": {"app_name": "shop"}},
        "tags": {"customer_tier": "gold", "token": SECRETS["tag_token"]},
        "extra": {"cart_size": 3, "csrftoken": SECRETS["csrftoken"], "nested": {"sessionid": SECRETS["sessionid"],
                                                                                 "session": SECRETS["session"]}},
        "sdk": {"name": "sentry.python", "version": "1.21.0"},
        "modules": {"token_bucket": "0.3"},
        "credentials": SECRETS["credentials"], "token": SECRETS["token"],
    }


@pytest.fixture(scope="module")
def server_b(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("sentry-api")) as running:
        yield running


@pytest.fixture(scope="module")
def setup(server_b):
    helper = ApiHelper(server_b)
    group = helper.group()
    project = helper.project(group_id=group["id"])
    helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                    json={"active": True, "integrated": True}).raise_for_status()
    key = helper.root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()[0]["public_key"]
    reader, read_token = helper.user(scopes=("read_api",))
    writer, write_token = helper.user(scopes=("api",))
    outsider, outsider_token = helper.user(scopes=("api",))
    # Reporters read; changing an issue takes a Developer (GitLab's update_sentry_issue).
    helper.member("projects", project["id"], reader["id"], access.REPORTER)
    helper.member("projects", project["id"], writer["id"], access.DEVELOPER)
    sent = []
    with httpx.Client(base_url=server_b.url, timeout=30) as collector:
        for number in range(7):
            event = rich_event(number, browser="Chrome" if number % 2 else "Firefox")
            response = collector.post(f"/api/v4/error_tracking/collector/api/{project['id']}/store",
                                      json=event, headers={"X-Sentry-Auth": f"Sentry sentry_key={key}"})
            assert response.status_code == 200, response.text
            sent.append(event["event_id"])
    return {"project": project, "group": group, "read": read_token, "write": write_token,
            "outsider": outsider_token, "sent": sent, "helper": helper}


def sentry(server, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.url + "/api/0", headers=headers, timeout=30)


def links(response: httpx.Response) -> dict[str, dict[str, str]]:
    return {match["rel"]: match.groupdict() for match in LINK.finditer(response.headers["link"])}


def the_issue(client: httpx.Client, setup) -> dict:
    organization, slug = setup["project"]["path_with_namespace"].split("/")
    issues = client.get(f"/projects/{organization}/{slug}/issues/").json()
    assert len(issues) == 1, issues
    return issues[0]


def test_projects_and_issues_in_sentry_shapes(server_b, setup):
    with sentry(server_b, setup["read"]) as client:
        projects = client.get("/projects/").json()
        organization, slug = setup["project"]["path_with_namespace"].split("/")
        assert [(p["slug"], p["organization"]["slug"]) for p in projects] == [(slug, organization)]
        assert {"id", "name", "slug", "status", "organization"} <= set(projects[0])
        response = client.get(f"/projects/{organization}/{slug}/issues/", params={"limit": 5})
        issue = response.json()[0]
        assert issue["count"] == "7" and issue["userCount"] == 3 and issue["status"] == "unresolved"
        assert issue["title"] == "ValueError: order could not be loaded"
        assert issue["metadata"]["type"] == "ValueError" and issue["project"]["slug"] == slug
        assert len(issue["stats"]["24h"]) == 24 and issue["id"].isdigit()
        pages = links(response)
        assert pages["previous"]["results"] == "false" and pages["next"]["results"] == "false"
        assert pages["next"]["url"].startswith(f"{server_b.url}/api/0/projects/{organization}/{slug}/issues/?limit=5")
        assert client.get(f"/projects/{organization}/{slug}/issues/", params={"query": "is:resolved"}).json() == []

        details = client.get(f"/issues/{issue['id']}/").json()
        assert details["firstRelease"]["version"] == "shop@2.0.0" and len(details["stats"]["30d"]) == 30
        assert {"key": "browser", "name": "Browser", "totalValues": 7} in details["tags"]


def test_events_paginate_oldest_to_latest(server_b, setup):
    with sentry(server_b, setup["read"]) as client:
        issue_id = the_issue(client, setup)["id"]
        first = client.get(f"/issues/{issue_id}/events/", params={"per_page": 3})
        assert [event["eventID"] for event in first.json()] == setup["sent"][::-1][:3]
        seen = [event["eventID"] for event in first.json()]
        cursor = links(first)["next"]
        while cursor["results"] == "true":
            page = client.get(cursor["url"])
            seen += [event["eventID"] for event in page.json()]
            cursor = links(page)["next"]
        assert seen == setup["sent"][::-1]
        back = client.get(links(page)["previous"]["url"]).json()
        assert [event["eventID"] for event in back] == seen[3:6]

        latest = client.get(f"/issues/{issue_id}/events/latest/").json()
        oldest = client.get(f"/issues/{issue_id}/events/oldest/").json()
        assert (latest["eventID"], oldest["eventID"]) == (setup["sent"][-1], setup["sent"][0])
        assert latest["nextEventID"] is None and latest["previousEventID"] == setup["sent"][-2]
        assert oldest["previousEventID"] is None and oldest["nextEventID"] == setup["sent"][1]

        chrome = client.get(f"/issues/{issue_id}/events/", params={"query": "browser:\"Chrome 120\""}).json()
        assert [event["eventID"] for event in chrome] == setup["sent"][1::2][::-1]
        by_user = client.get(f"/issues/{issue_id}/events/", params={"query": 'user.id:"user-0"'}).json()
        assert len(by_user) == 3
        full = client.get(f"/issues/{issue_id}/events/", params={"full": "true", "per_page": 2}).json()
        assert [event["eventID"] for event in full] == setup["sent"][::-1][:2]
        assert {entry["type"] for entry in full[0]["entries"]} == {"exception", "breadcrumbs", "request"}
        # Sentry's group events read only "1" and "true" as full; any other value lists summaries.
        other = client.get(f"/issues/{issue_id}/events/", params={"full": "maybe", "per_page": 2})
        assert other.status_code == 200 and "entries" not in other.json()[0]
        assert client.get(f"/issues/{issue_id}/events/", params={"query": "free text"}).status_code == 400


def test_event_in_full(server_b, setup):
    organization, slug = setup["project"]["path_with_namespace"].split("/")
    with sentry(server_b, setup["read"]) as client:
        event = client.get(f"/projects/{organization}/{slug}/events/{setup['sent'][3]}/").json()
    entries = {entry["type"]: entry["data"] for entry in event["entries"]}
    chain = entries["exception"]["values"]
    assert [value["type"] for value in chain] == ["ZeroDivisionError", "ValueError"]
    frame = chain[1]["stacktrace"]["frames"][1]
    assert frame["inApp"] is True and frame["lineNo"] == 42 and frame["function"] == "load_order"
    assert frame["context"] == [[40, "def load_order(text):"], [41, "    try:"], [42, "        return parse(text)"],
                                [43, "    except Exception:"]]
    assert frame["vars"]["text"] == "'12'" and frame["vars"]["password"] == "[Filtered]"
    crumbs = entries["breadcrumbs"]["values"]
    assert [crumb["category"] for crumb in crumbs] == ["http", "shop"] and crumbs[1]["level"] == "warning"
    assert crumbs[0]["timestamp"].endswith("Z")
    request = entries["request"]
    assert request["method"] == "POST" and request["url"] == "https://shop.example.com/checkout"
    assert ["step", "2"] in request["query"] and ["token", "[Filtered]"] in request["query"]
    assert dict(request["headers"])["Authorization"] == "[Filtered]"
    assert dict(request["headers"])["User-Agent"] == "Firefox/120"
    assert event["user"]["id"] == "user-0" and event["user"]["email"] == "user0@example.com"
    assert set(event["contexts"]) == {"os", "runtime", "browser", "device", "app"}
    assert event["context"]["cart_size"] == 3 and event["sdk"] == {"name": "sentry.python", "version": "1.21.0"}
    tags = {tag["key"]: tag["value"] for tag in event["tags"]}
    assert tags["release"] == "shop@2.0.0" and tags["environment"] == "production" and tags["level"] == "error"
    assert tags["browser"] == "Chrome 120" and tags["os.name"] == "Linux" and tags["customer_tier"] == "gold"
    assert tags["user"] == "id:user-0" and tags["handled"] == "no" and tags["token"] == "[Filtered]"
    assert event["release"]["version"] == "shop@2.0.0" and event["dateCreated"].endswith("Z")
    assert event["groupID"] == the_issue(sentry(server_b, setup["read"]), setup)["id"]


def test_tag_facets_and_values(server_b, setup):
    with sentry(server_b, setup["read"]) as client:
        issue_id = the_issue(client, setup)["id"]
        facets = {facet["key"]: facet for facet in client.get(f"/issues/{issue_id}/tags/").json()}
        browser = facets["browser"]
        assert (browser["totalValues"], browser["uniqueValues"], browser["name"]) == (7, 2, "Browser")
        assert [(v["value"], v["count"]) for v in browser["topValues"]] == [("Firefox 120", 4), ("Chrome 120", 3)]
        assert {"release", "environment", "os", "server_name", "user", "customer_tier"} <= set(facets)
        users = client.get(f"/issues/{issue_id}/tags/user/values/", params={"per_page": 2})
        assert [value["count"] for value in users.json()] == [3, 2]
        assert users.json()[0]["query"] == 'user.id:"user-0"' and users.json()[0]["name"] == "user-0"
        assert links(users)["next"]["results"] == "true"
        rest = client.get(links(users)["next"]["url"]).json()
        assert [value["value"] for value in rest] == ["id:user-2"]
        assert client.get(f"/issues/{issue_id}/tags/nope/values/").status_code == 404


def test_auth_scopes_and_errors(server_b, setup):
    organization, slug = setup["project"]["path_with_namespace"].split("/")
    with sentry(server_b, None) as anonymous:
        response = anonymous.get("/projects/")
        assert response.status_code == 401
        assert response.json() == {"detail": "Authentication credentials were not provided."}
        # Paths end with a slash: a GET without it is redirected (as Django's APPEND_SLASH does); unknown ones 404.
        assert anonymous.get("/projects").headers["location"] == "/api/0/projects/"
        unknown = anonymous.get("/no-such-resource/")
        assert unknown.status_code == 404 and unknown.json() == {"detail": "The requested resource does not exist"}
    with sentry(server_b, "glpat-wrong") as wrong:
        assert wrong.get("/projects/").json() == {"detail": "Invalid token"}
    with sentry(server_b, setup["read"]) as reader:
        issue_id = the_issue(reader, setup)["id"]
        refused = reader.put(f"/issues/{issue_id}/", json={"status": "resolved"})
        assert refused.status_code == 403
        assert refused.json() == {"detail": "You do not have permission to perform this action."}
        assert reader.get("/issues/999999/").json() == {"detail": "The requested resource does not exist"}
        assert reader.get(f"/issues/{issue_id}/events/", params={"cursor": "x"}).status_code == 400
    with sentry(server_b, setup["outsider"]) as outsider:
        assert outsider.get("/projects/").json() == []
        assert outsider.get(f"/issues/{issue_id}/").status_code == 404
        assert outsider.get(f"/projects/{organization}/{slug}/issues/").status_code == 404
    with sentry(server_b, setup["write"]) as writer:
        invalid = writer.put(f"/issues/{issue_id}/", json={"status": "nope"})
        assert invalid.status_code == 400 and invalid.json() == {"status": ['"nope" is not a valid choice.']}
        resolved = writer.put(f"/issues/{issue_id}/", json={"status": "resolvedInNextRelease"})
        assert resolved.status_code == 200 and resolved.json()["status"] == "resolved"
        assert writer.put(f"/issues/{issue_id}/", json={"status": "unresolved"}).json()["status"] == "unresolved"


def test_nested_group_slug(server_b, setup):
    helper: ApiHelper = setup["helper"]
    subgroup = helper.group(parent_id=setup["group"]["id"])
    project = helper.project(group_id=subgroup["id"])
    organization, *below = project["path_with_namespace"].split("/")
    slug = "~".join(below)
    with sentry(server_b, server_b.root_token) as root:
        listed = {(p["organization"]["slug"], p["slug"]) for p in root.get("/projects/").json()}
        assert (organization, slug) in listed
        assert root.get(f"/projects/{organization}/{slug}/issues/").status_code == 200
        assert root.get(f"/projects/{organization}/{below[-1]}/issues/").status_code == 404


def _stored_text(server) -> bytes:
    """Everything the database holds: the SQLite files' bytes, or every PostgreSQL table dumped as text."""
    url = server.env.get("OUTPOST_DATABASE_URL")
    if not url:
        return b"".join(path.read_bytes() for path in server.data_dir.glob("*.sqlite3*"))
    engine = sqlalchemy.create_engine(url)
    chunks = []
    with engine.connect() as connection:
        tables = connection.execute(sqlalchemy.text(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars().all()
        for table in tables:
            for row in connection.execute(sqlalchemy.text(f'SELECT t::text FROM "{table}" t')).scalars():
                chunks.append(row.encode())
            for row in connection.execute(sqlalchemy.text(f'SELECT * FROM "{table}"')):
                chunks.extend(bytes(value) for value in row if isinstance(value, (bytes, memoryview)))
    engine.dispose()
    return b"\n".join(chunks)


def test_no_secret_reaches_the_database(server_b, setup):
    stored = _stored_text(server_b)
    assert b"order could not be loaded" in stored and b"[Filtered]" in stored
    leaked = [name for name, value in SECRETS.items() if value.encode() in stored]
    assert leaked == []

"""A fake of Sentry's web API (the calls GitLab makes), serving the JSON shapes of the protocol reference §11.

It is a real HTTP server on 127.0.0.1 in a background thread. Issues live in memory; status updates
stick. Knobs for failure tests: `delay` (seconds to wait before answering), `tokens` (accepted
bearer tokens; others get 401) and `override` (a function of (method, path) returning a
(status, body, headers) answer, or None for the normal one). `requests` records (method, path,
query, authorization, host) of each call.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from copy import deepcopy
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.http_double import BackgroundHttpServer

ORGANIZATION = {"id": "1", "slug": "acme", "name": "Acme", "dateCreated": "2018-11-06T21:19:55.101Z",
                "isEarlyAdopter": False, "require2FA": False, "status": {"id": "active", "name": "active"},
                "avatar": {"avatarUuid": None, "avatarType": "letter_avatar"}}


def _project(project_id: str, slug: str, name: str, platform: str) -> dict[str, Any]:
    return {"id": project_id, "slug": slug, "name": name, "status": "active", "platform": platform,
            "dateCreated": "2018-12-11T10:41:22.476Z", "firstEvent": "2018-12-12T15:07:18Z", "isPublic": False,
            "isInternal": False, "isMember": True, "hasAccess": True, "isBookmarked": False, "color": "#5c3fbf",
            "features": ["data-forwarding", "rate-limits", "releases"],
            "avatar": {"avatarUuid": None, "avatarType": "letter_avatar"}, "organization": deepcopy(ORGANIZATION)}


def _stats(hours: int, step: int, seed: int) -> list[list[int]]:
    now = int(time.time()) // step * step
    return [[now - (hours - 1 - i) * step, (i * seed) % 5] for i in range(hours)]


def _issue(issue_id: str, short_id: str, title: str, exc_type: str, value: str, culprit: str, count: int,
           users: int, first_seen: str, last_seen: str, project: dict[str, Any]) -> dict[str, Any]:
    return {"id": issue_id, "shortId": short_id, "title": title, "culprit": culprit, "type": "error",
            "level": "error", "logger": None, "status": "unresolved", "statusDetails": {}, "isPublic": False,
            "hasSeen": False, "isBookmarked": False, "isSubscribed": True, "subscriptionDetails": None,
            "shareId": None, "assignedTo": None, "annotations": [], "numComments": 0, "count": str(count),
            "userCount": users, "firstSeen": first_seen, "lastSeen": last_seen,
            "permalink": f"https://sentry.example.com/acme/{project['slug']}/issues/{issue_id}/",
            "platform": project["platform"], "metadata": {"type": exc_type, "value": value},
            "stats": {"24h": _stats(24, 3600, int(issue_id))},
            "project": {"id": project["id"], "name": project["name"], "slug": project["slug"]}}


def _release(version: str) -> dict[str, Any]:
    return {"version": version, "shortVersion": version, "lastCommit": None, "dateCreated": "2019-01-01T00:00:00Z",
            "dateReleased": None, "firstEvent": "2019-01-01T00:00:00Z", "lastEvent": "2019-01-02T00:00:00Z",
            "projects": []}


def _event(issue: dict[str, Any]) -> dict[str, Any]:
    frames = [
        {"filename": "puma/thread_pool.rb", "absPath": "/gems/puma/thread_pool.rb", "function": "block in spawn_thread",
         "module": None, "lineNo": 135, "colNo": None, "inApp": False,
         "context": [[134, "          begin\n"], [135, "            block.call(work)\n"], [136, "          end\n"]],
         "vars": None, "package": None, "platform": None, "instructionAddr": None, "symbolAddr": None,
         "symbol": None, "rawFunction": None, "trust": None, "errors": None},
        {"filename": "app/models/order.rb", "absPath": "/srv/app/models/order.rb", "function": "total",
         "module": None, "lineNo": 42, "colNo": None, "inApp": True,
         "context": [[41, "  def total\n"], [42, "    lines.sum(&:price) / count\n"], [43, "  end\n"]],
         "vars": None, "package": None, "platform": None, "instructionAddr": None, "symbolAddr": None,
         "symbol": None, "rawFunction": None, "trust": None, "errors": None},
    ]
    metadata = issue["metadata"]
    return {"id": "333b98e3b91341d8a6247edff171d8cf", "eventID": "333b98e3b91341d8a6247edff171d8cf",
            "groupID": issue["id"], "projectID": issue["project"]["id"], "title": issue["title"], "message": None,
            "culprit": issue["culprit"], "location": "app/models/order.rb", "type": "error",
            "platform": issue["platform"], "dateCreated": issue["lastSeen"], "dateReceived": issue["lastSeen"],
            "metadata": {"type": metadata["type"], "value": metadata["value"], "filename": "app/models/order.rb",
                         "function": "total"},
            "tags": [{"key": "environment", "value": "production", "_meta": None}],
            "user": {"id": None, "email": None, "username": None, "ip_address": "::1", "name": None, "data": None},
            "entries": [{"type": "exception", "data": {"values": [
                {"type": metadata["type"], "value": metadata["value"], "module": None, "mechanism": None,
                 "threadId": None, "stacktrace": {"frames": frames, "framesOmitted": None, "registers": None,
                                                  "hasSystemFrames": False}, "rawStacktrace": None}],
                "excOmitted": None, "hasSystemFrames": False}},
                {"type": "request", "data": {"url": "http://localhost:3001/", "method": "GET", "headers": [],
                                             "query": [], "cookies": [], "env": {}, "data": None, "fragment": None,
                                             "inferredContentType": None}}],
            "contexts": {}, "context": {}, "sdk": {"name": "raven-ruby", "version": "2.12.3"}, "packages": {},
            "release": None, "fingerprints": ["6aa133ea51857634f2d113de52b5cc61"],
            "groupingConfig": {"id": "newstyle:2019-05-08", "enhancements": ""}, "errors": [], "size": 7202,
            "dist": None, "previousEventID": None, "nextEventID": None, "userReport": None, "crashFile": None,
            "sdkUpdates": [], "_meta": {}}


class FakeSentry(BackgroundHttpServer):
    def __init__(self, *, tokens: tuple[str, ...] = ("sntrys-good-token",)):
        self.tokens = set(tokens)
        self.delay = 0.0
        self.override: Any = None
        self.requests: list[tuple[str, str, dict[str, list[str]], str | None, str | None]] = []
        self.projects = [_project("2", "storefront", "Storefront", "ruby"),
                         _project("3", "billing-api", "Billing API", "python")]
        store = self.projects[0]
        self.issues: dict[str, dict[str, Any]] = {}
        for number in range(1, 31):
            issue_id = str(1000 + number)
            self.issues[issue_id] = _issue(
                issue_id, f"STOREFRONT-{number}", f"ZeroDivisionError: divided by 0 (#{number})", "ZeroDivisionError",
                f"divided by 0 (#{number})", "app/models/order.rb in total", count=number * 3, users=number,
                first_seen=(dt.datetime(2024, 1, 1) + dt.timedelta(hours=number)).isoformat() + "Z",
                last_seen=(dt.datetime(2024, 2, 1) + dt.timedelta(hours=number)).isoformat() + "Z", project=store)
        billing = self.projects[1]
        self.issues["2001"] = _issue("2001", "BILLING-1", "KeyError: 'currency'", "KeyError", "'currency'",
                                     "billing.invoices in total", count=4, users=2, first_seen="2024-03-01T10:00:00Z",
                                     last_seen="2024-03-02T10:00:00Z", project=billing)
        super().__init__()

    def api_url(self, project_slug: str = "storefront") -> str:
        return f"{self.url}/api/0/projects/acme/{project_slug}/"

    # --- the API --------------------------------------------------------------------------------

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: Any
               ) -> tuple[int, Any, dict[str, str]]:
        parts = [unquote(part) for part in path.strip("/").split("/")]
        if parts[:2] != ["api", "0"]:
            return 404, {"detail": "Not found"}, {}
        parts = parts[2:]
        if method == "GET" and parts == ["projects"]:
            return 200, self.projects, {}
        if method == "GET" and len(parts) == 4 and parts[0] == "projects" and parts[3] == "issues":
            return self._list_issues(parts[1], parts[2], query)
        if method == "PUT" and len(parts) == 4 and parts[0] == "projects" and parts[3] == "issues":
            return self._update_issues(parts[2], query, body)
        if len(parts) >= 2 and parts[0] == "issues":
            issue = self.issues.get(parts[1])
            if issue is None:
                return 404, {"detail": "The requested resource does not exist"}, {}
            if method == "GET" and len(parts) == 2:
                return 200, self._details(issue), {}
            if method == "GET" and parts[2:] == ["events", "latest"]:
                return 200, _event(issue), {}
            if method == "PUT" and len(parts) == 2:
                if not isinstance(body, dict) or body.get("status") not in (
                        "resolved", "resolvedInNextRelease", "unresolved", "ignored"):
                    return 400, {"status": ['"invalid" is not a valid choice.']}, {}
                issue["status"] = body["status"]
                return 200, issue, {}
        return 404, {"detail": "The requested resource does not exist"}, {}

    def _update_issues(self, slug: str, query: dict[str, list[str]], body: Any) -> tuple[int, Any, dict[str, str]]:
        """Sentry's bulk status change of the project's issues named by `id` (204 when none is the project's)."""
        chosen = [self.issues[i] for i in query.get("id", []) if i in self.issues
                  and self.issues[i]["project"]["slug"] == slug]
        if not chosen:
            return 204, b"", {}
        status = body.get("status") if isinstance(body, dict) else None
        if status not in ("resolved", "unresolved", "ignored"):
            return 400, {"status": [f'"{status}" is not a valid choice.']}, {}
        for issue in chosen:
            issue["status"] = status
        return 200, {"status": status, "statusDetails": {}}, {}

    def _list_issues(self, org: str, slug: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        if org != "acme" or slug not in {p["slug"] for p in self.projects}:
            return 404, {"detail": "The requested resource does not exist"}, {}
        words = (query.get("query") or ["is:unresolved"])[0].split()
        status = next((w[3:] for w in words if w.startswith("is:")), "unresolved")
        text = " ".join(w for w in words if not w.startswith("is:")).lower()
        found = [i for i in self.issues.values() if i["project"]["slug"] == slug and i["status"] == status
                 and text in i["title"].lower()]
        sort = (query.get("sort") or ["date"])[0]
        key = {"new": "firstSeen", "freq": "count", "date": "lastSeen"}.get(sort, "lastSeen")
        found.sort(key=lambda i: int(i[key]) if key == "count" else i[key], reverse=True)
        limit = int((query.get("limit") or ["100"])[0])
        offset = int((query.get("cursor") or ["0:0:0"])[0].split(":")[1])
        page = found[offset:offset + limit]
        base = f"{self.url}/api/0/projects/{org}/{slug}/issues/"
        previous = f"0:{max(offset - limit, 0)}:1"
        following = f"0:{offset + limit}:0"
        link = (f'<{base}?cursor={previous}>; rel="previous"; results="{str(offset > 0).lower()}"; '
                f'cursor="{previous}", <{base}?cursor={following}>; rel="next"; '
                f'results="{str(offset + limit < len(found)).lower()}"; cursor="{following}"')
        return 200, page, {"Link": link}

    def _details(self, issue: dict[str, Any]) -> dict[str, Any]:
        return issue | {"activity": [], "participants": [], "seenBy": [], "userReportCount": 0,
                        "tags": [{"key": "level", "name": "Level", "totalValues": int(issue["count"])}],
                        "firstRelease": _release("storefront@1.0.0"), "lastRelease": _release("storefront@1.2.0"),
                        "pluginActions": [], "pluginContexts": [], "pluginIssues": [],
                        "stats": {"24h": issue["stats"]["24h"], "30d": _stats(30, 86400, int(issue["id"]))}}

    def _handler_class(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _serve(self) -> None:
                split = urlsplit(self.path)
                query = parse_qs(split.query)
                authorization = self.headers.get("Authorization")
                fake.requests.append((self.command, split.path, query, authorization, self.headers.get("Host")))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if fake.delay:
                    time.sleep(fake.delay)
                token = (authorization or "").removeprefix("Bearer ")
                if token not in fake.tokens:
                    status, body, headers = 401, {"detail": "Invalid token"}, {}
                else:
                    try:
                        document = json.loads(raw) if raw else None
                    except ValueError:
                        document = None
                    special = fake.override(self.command, split.path) if fake.override else None
                    status, body, headers = special or fake.answer(self.command, split.path, query, document)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            do_GET = do_PUT = _serve

        return Handler

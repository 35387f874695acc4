"""A whole event as Sentry's EventSerializer writes it (every field outpost_model.sentry_events.Event declares),
for tests that read one without a server; the entries and the other fields the test cares about are given."""

from __future__ import annotations

import json
from typing import Any

from outpost_model import decode
from outpost_model.sentry_events import Event, EventSummary
from outpost_model.sentry_issues import IssueDetails, TagKey


def frame(filename: str, function: str, line: int, *, in_app: bool) -> dict[str, Any]:
    return {"filename": filename, "absPath": None, "module": None, "package": None, "platform": None,
            "instructionAddr": None, "symbolAddr": None, "function": function, "rawFunction": None, "symbol": None,
            "context": [], "lineNo": line, "colNo": None, "inApp": in_app, "trust": None, "errors": None,
            "lock": None, "vars": None}


def exception_entry(*values: tuple[str, str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"type": "exception", "data": {"excOmitted": None, "hasSystemFrames": True, "values": [
        {"type": kind, "value": text, "module": None, "mechanism": None, "threadId": None, "rawStacktrace": None,
         "stacktrace": {"frames": frames, "framesOmitted": None, "registers": None, "hasSystemFrames": True}}
        for kind, text, frames in values]}}


def breadcrumb(timestamp: str, category: str, level: str, message: str | None, data: Any) -> dict[str, Any]:
    return {"type": "default", "category": category, "level": level, "message": message, "data": data,
            "timestamp": timestamp, "event_id": None}


def request_entry(url: str, method: str, *, headers: list[list[str]], query: list[list[str]]) -> dict[str, Any]:
    return {"type": "request", "data": {"url": url, "method": method, "headers": headers, "query": query,
                                        "fragment": None, "data": None, "cookies": [], "env": None,
                                        "inferredContentType": None, "apiTarget": None}}


def sentry_event(event_id: str, *, entries: tuple[dict[str, Any], ...] = (), **fields: Any) -> Event:
    body: dict[str, Any] = {
        "id": event_id, "groupID": "7", "eventID": event_id, "projectID": "1", "size": 100, "entries": list(entries),
        "dist": None, "message": "", "title": "ValueError", "location": None, "user": None, "contexts": {},
        "sdk": None, "context": {}, "packages": {}, "type": "error", "metadata": {"title": "ValueError"},
        "tags": [], "platform": "python", "dateReceived": None, "dateCreated": None, "errors": [],
        "occurrence": None, "_meta": {}, "crashFile": None, "culprit": None, "fingerprints": [],
        "groupingConfig": None, "release": None, "userReport": None, "sdkUpdates": [], "resolvedWith": [],
        "nextEventID": None, "previousEventID": None}
    return decode(json.dumps({**body, **fields}), Event)


def release(version: str) -> dict[str, Any]:
    return {"version": version, "shortVersion": version, "ref": None, "url": None, "dateCreated": None,
            "dateReleased": None, "lastCommit": None, "lastDeploy": None, "firstEvent": None, "lastEvent": None,
            "projects": []}


def event_row(event_id: str, **fields: Any) -> EventSummary:
    """A row of an error's event list (SimpleEventSerializer)."""
    body: dict[str, Any] = {
        "id": event_id, "event.type": "error", "groupID": "7", "eventID": event_id, "projectID": "1", "message": "",
        "title": "ValueError", "location": None, "culprit": None, "user": None, "tags": [], "platform": "python",
        "dateCreated": None, "crashFile": None, "metadata": {"title": "ValueError"}}
    return decode(json.dumps({**body, **fields}), EventSummary)


def sentry_issue(issue_id: str, **fields: Any) -> IssueDetails:
    """An error as Sentry's issue details answer it (GroupDetails)."""
    body: dict[str, Any] = {
        "id": issue_id, "shareId": None, "shortId": f"SHOP-{issue_id}", "title": "ValueError", "culprit": None,
        "permalink": f"https://o.example/issues/{issue_id}/", "logger": None, "level": "error",
        "status": "unresolved", "statusDetails": {}, "substatus": None, "isPublic": False, "platform": "python",
        "project": {"id": "1", "name": "shop", "slug": "shop", "platform": None}, "type": "error",
        "metadata": {"title": "ValueError"}, "numComments": 0, "assignedTo": None, "isBookmarked": False,
        "isSubscribed": False, "subscriptionDetails": None, "hasSeen": False, "annotations": [],
        "issueType": "error", "issueCategory": "error", "isUnhandled": False, "count": "1", "userCount": 1,
        "firstSeen": None, "lastSeen": None, "stats": {"24h": []}, "activity": [], "seenBy": [],
        "participants": [], "pluginActions": [], "pluginIssues": [], "pluginContexts": [], "userReportCount": 0,
        "firstRelease": None, "lastRelease": None, "tags": []}
    return decode(json.dumps({**body, **fields}), IssueDetails)


def tag_value(key: str, value: str, name: str, count: int, query: str | None = None) -> dict[str, Any]:
    return {"key": key, "value": value, "name": name, "count": count, "lastSeen": None, "firstSeen": None,
            **({"query": query} if query else {})}


def tag_key(key: str, name: str, total: int, values: list[dict[str, Any]]) -> TagKey:
    return decode(json.dumps({"key": key, "name": name, "uniqueValues": len(values), "totalValues": total,
                              "topValues": values}), TagKey)

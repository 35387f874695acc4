"""Sentry's event JSON (EventSerializer and SimpleEventSerializer) from a stored event.

The payload kept for the newest events of each error (already scrubbed at ingestion) gives the
`entries` — exception chain with frames, context lines and local variables, message, breadcrumbs,
request, threads — and the user, contexts, extra, sdk and tags. An event whose payload is no longer
kept still answers, from what its row keeps: level, release, environment, user and time.
"""

from __future__ import annotations

from typing import Any

from outpost_model.sentry_events import Event, EventEntry, EventSummary, EventTag, Metadata, Sdk, SentryFrame
from outpost_server.accounts.models import Project
from outpost_server.compat.gitlab_time import iso
from outpost_server.error_tracking.digest.event_messages import message_template, message_text
from outpost_server.error_tracking.digest.event_tags import event_tags
from outpost_server.error_tracking.digest.grouping import exception_values, frames_of
from outpost_server.error_tracking.digest.normalize import normalize_event, parse_timestamp
from outpost_server.error_tracking.models import ErrorEvent, TrackedError
from outpost_server.error_tracking.read.integrated import frame_context

from .serializers import metadata, release_json

USER_FIELDS = ("id", "email", "username", "ip_address", "name", "data")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _pairs(value: Any) -> list[list[Any]]:
    """A dict or a list of pairs, as Sentry's `[[name, value], ...]`."""
    if isinstance(value, dict):
        return [[name, item] for name, item in value.items()]
    if isinstance(value, list):
        return [list(pair) for pair in value if isinstance(pair, list) and len(pair) == 2]
    return []


def _query_pairs(value: Any) -> list[list[Any]]:
    if isinstance(value, str):
        pairs = []
        for part in value.lstrip("?").split("&"):
            if part:
                name, _, item = part.partition("=")
                pairs.append([name, item])
        return pairs
    return _pairs(value)


def frame_json(frame: dict[str, Any]) -> SentryFrame:
    return SentryFrame(
        filename=frame.get("filename"), absPath=frame.get("abs_path"), module=frame.get("module"),
        package=frame.get("package"), platform=frame.get("platform"),
        instructionAddr=frame.get("instruction_addr"), symbolAddr=frame.get("symbol_addr"),
        function=frame.get("function"), rawFunction=frame.get("raw_function"), symbol=frame.get("symbol"),
        context=frame_context(frame), lineNo=frame.get("lineno"), colNo=frame.get("colno"),
        inApp=frame.get("in_app") is True, trust=frame.get("trust"), errors=None, lock=None,
        vars=frame.get("vars") if isinstance(frame.get("vars"), dict) else None)


def _stacktrace(stacktrace: Any) -> dict[str, Any] | None:
    """StacktraceInterface's API context, or None without frames."""
    frames = frames_of({"stacktrace": stacktrace})
    if not frames:
        return None
    return {"frames": [frame_json(frame) for frame in frames], "framesOmitted": None,
            "registers": _dict(stacktrace).get("registers"),
            "hasSystemFrames": any(frame.get("in_app") is not True for frame in frames)}


def _exception_entry(payload: dict[str, Any]) -> EventEntry | None:
    values = exception_values(payload)
    if not values:
        return None
    serialized = [{"type": value.get("type"), "value": value.get("value"), "module": value.get("module"),
                   "mechanism": value.get("mechanism") if isinstance(value.get("mechanism"), dict) else None,
                   "threadId": value.get("thread_id"), "stacktrace": _stacktrace(value.get("stacktrace")),
                   # The frames as sent, before source maps applied (None when nothing was mapped).
                   "rawStacktrace": _stacktrace(value.get("raw_stacktrace"))}
                  for value in values]
    return EventEntry(type="exception", data={
        "values": serialized, "excOmitted": None,
        "hasSystemFrames": any((value["stacktrace"] or {}).get("hasSystemFrames") for value in serialized)})


def _message_entry(payload: dict[str, Any]) -> EventEntry | None:
    text = message_text(payload)
    if not text:
        return None
    entry = _dict(payload.get("logentry")) or _dict(payload.get("message"))
    return EventEntry(type="message", data={"formatted": text, "message": message_template(payload),
                                            "params": entry.get("params")})


def _breadcrumbs_entry(payload: dict[str, Any]) -> EventEntry | None:
    crumbs = payload.get("breadcrumbs")
    crumbs = crumbs.get("values") if isinstance(crumbs, dict) else crumbs
    values = [crumb for crumb in crumbs if isinstance(crumb, dict)] if isinstance(crumbs, list) else []
    if not values:
        return None
    return EventEntry(type="breadcrumbs", data={"values": [
        {"type": crumb.get("type") or "default", "category": crumb.get("category"),
         "level": crumb.get("level") or "info", "message": crumb.get("message"), "data": crumb.get("data"),
         "timestamp": iso(parse_timestamp(crumb.get("timestamp"))), "event_id": crumb.get("event_id")}
        for crumb in values]})


def _request_entry(payload: dict[str, Any]) -> EventEntry | None:
    request = _dict(payload.get("request"))
    if not request:
        return None
    url = request.get("url") if isinstance(request.get("url"), str) else None
    query = request.get("query_string")
    fragment = None
    if url and "#" in url:
        url, _, fragment = url.partition("#")
    if url and "?" in url:
        # The URL's own query is only used when the SDK sent no separate query string.
        url, _, url_query = url.partition("?")
        query = url_query if query is None else query
    headers = sorted(_pairs(request.get("headers")), key=lambda pair: str(pair[0]))
    return EventEntry(type="request", data={
        "url": url, "method": request.get("method"), "headers": headers, "query": _query_pairs(query),
        "fragment": fragment or request.get("fragment"), "data": request.get("data"),
        "cookies": _query_pairs(request.get("cookies")) if isinstance(request.get("cookies"), str)
        else _pairs(request.get("cookies")),
        "env": request.get("env") if isinstance(request.get("env"), dict) else None,
        "inferredContentType": None, "apiTarget": None})


def _threads_entry(payload: dict[str, Any]) -> EventEntry | None:
    threads = payload.get("threads")
    threads = threads.get("values") if isinstance(threads, dict) else threads
    values = [thread for thread in threads if isinstance(thread, dict)] if isinstance(threads, list) else []
    if not values:
        return None
    return EventEntry(type="threads", data={"values": [
        {"id": thread.get("id"), "name": thread.get("name"), "crashed": thread.get("crashed"),
         "current": thread.get("current"), "stacktrace": _stacktrace(thread.get("stacktrace"))} for thread in values]})


def entries(payload: dict[str, Any]) -> list[EventEntry]:
    built = (_exception_entry(payload), _message_entry(payload), _threads_entry(payload),
             _breadcrumbs_entry(payload), _request_entry(payload))
    return [entry for entry in built if entry is not None]


def _user(payload: dict[str, Any], row: ErrorEvent) -> dict[str, Any] | None:
    user = _dict(payload.get("user"))
    if not user and row.user_key:
        field, _, value = row.user_key.partition(":")
        user = {"ip_address" if field == "ip" else field: value}
    if not user:
        return None
    return {field: user.get(field) for field in USER_FIELDS}


def _tags(payload: dict[str, Any], row: ErrorEvent) -> list[EventTag]:
    tags = event_tags(payload, level=row.level, release=row.release, environment=row.environment,
                      user_key=row.user_key)
    return [EventTag(key=key, value=value) for key, value in sorted(tags)]


def _derived(payload: dict[str, Any], row: ErrorEvent, error: TrackedError) -> dict[str, Any]:
    """Title, message, culprit, type and metadata of this event (the error's when its payload is gone)."""
    if not payload:
        return {"title": error.title, "message": "", "culprit": error.culprit, "location": None,
                "type": error.kind, "metadata": metadata(error), "platform": error.platform}
    # Only the derived fields are used: the payload was scrubbed when it was stored.
    event = normalize_event(dict(payload), received_at=row.received_at, raw_payload=b"")
    frames = frames_of(exception_values(payload)[-1]) if exception_values(payload) else []
    location = next((frame.get("filename") for frame in reversed(frames) if frame.get("in_app") is True), None)
    body = Metadata(type=event.exception_type, value=event.message, title=event.title)
    return {"title": event.title, "message": message_text(payload) or "", "culprit": event.culprit,
            "location": location, "type": event.kind,
            "metadata": body if event.kind == "error" else Metadata(title=event.title), "platform": event.platform}


def summary_json(project: Project, error: TrackedError, row: ErrorEvent, tags: list[tuple[str, str]]
                 ) -> EventSummary:
    """SimpleEventSerializer: one row of an issue's event list, without reading payloads.

    Title, culprit, message and metadata are the error's (what grouped the events); user, time and
    tags are the event's own. The full event derives everything from its own payload.
    """
    return EventSummary(
        id=row.event_id, event_type=error.kind, groupID=str(error.id), eventID=row.event_id,
        projectID=str(project.id), message=error.message or "", title=error.title, location=None,
        culprit=error.culprit, user=_user({}, row),
        tags=[EventTag(key=key, value=value) for key, value in sorted(tags)],
        platform=error.platform, dateCreated=iso(row.occurred_at), crashFile=None, metadata=metadata(error))


def event_json(project: Project, error: TrackedError, row: ErrorEvent, payload: dict[str, Any], *,
               size: int, previous_id: str | None, next_id: str | None) -> Event:
    """EventSerializer: one event in full."""
    derived = _derived(payload, row, error)
    sdk = _dict(payload.get("sdk"))
    contexts = {name: value for name, value in _dict(payload.get("contexts")).items() if isinstance(value, dict)}
    return Event(
        id=row.event_id, groupID=str(error.id), eventID=row.event_id, projectID=str(project.id),
        size=size, entries=entries(payload) if payload else [], dist=payload.get("dist"),
        message=derived["message"], title=derived["title"], location=derived["location"],
        user=_user(payload, row), contexts=contexts,
        sdk=Sdk(name=sdk.get("name"), version=sdk.get("version")) if sdk else None,
        context=_dict(payload.get("extra")), packages=_dict(payload.get("modules")), type=derived["type"],
        metadata=derived["metadata"], tags=_tags(payload, row), platform=derived["platform"],
        dateReceived=iso(row.received_at), dateCreated=iso(row.occurred_at), errors=[],
        occurrence=None, meta={}, crashFile=None, culprit=derived["culprit"],
        fingerprints=[error.fingerprint], groupingConfig=None, release=release_json(row.release, project),
        userReport=None, sdkUpdates=[], resolvedWith=[], nextEventID=next_id, previousEventID=previous_id)

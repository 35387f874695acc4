"""Sentry's event JSON as /api/0 answers it: EventSerializer (one event in full) and SimpleEventSerializer
(a row of an issue's event list), with the parts the console reads typed.

An entry's `data` stays an object on the wire entity: its shape depends on its `type` (exception, message,
threads, breadcrumbs, request), as in Sentry. The `...EntryData` entities declare the shapes of the types a
reader turns it into (`msgspec.convert(entry.data, ExceptionEntryData)`); the frames inside are SentryFrame
values.
"""

from __future__ import annotations

from typing import Any

import msgspec

from outpost_model.base import UNSET, Entity, Loose, Text, Time, UnsetType


class ProjectReference(Entity):
    id: str
    name: str
    slug: str
    platform: Text


class ReleaseReference(Entity):
    version: str
    shortVersion: str
    ref: Text
    url: Text
    dateCreated: Time
    dateReleased: Time
    lastCommit: dict[str, Any] | None
    lastDeploy: dict[str, Any] | None
    firstEvent: Time
    lastEvent: Time
    projects: list[ProjectReference]


class Metadata(Entity):
    """An error's or event's metadata: the title, and for an exception its type and value."""

    title: str
    type: Text | UnsetType = UNSET
    value: Text | UnsetType = UNSET


class EventTag(Entity):
    key: str
    value: str
    meta: dict[str, Any] | None = msgspec.field(default=None, name="_meta")


class EventEntry(Entity):
    type: str
    data: dict[str, Any]


class SentryFrame(Entity):
    """A frame of a stack trace inside an event's entries: `context` is [[line number, code], ...]."""

    filename: Text
    absPath: Text
    module: Text
    package: Text
    platform: Text
    instructionAddr: Text
    symbolAddr: Text
    function: Text
    rawFunction: Text
    symbol: Text
    context: list[tuple[int, str]]
    lineNo: Loose
    colNo: Loose
    inApp: bool
    trust: Text
    errors: list[Any] | None
    lock: Any
    vars: dict[str, Any] | None


class SentryStacktrace(Entity):
    """StacktraceInterface's API context inside an exception or thread entry."""

    frames: list[SentryFrame]
    framesOmitted: Any
    registers: dict[str, Any] | None
    hasSystemFrames: bool


class SentryException(Entity):
    """One exception of an exception entry's `values` (SingleException's API context), oldest first."""

    type: Text
    value: Text
    module: Text
    mechanism: dict[str, Any] | None
    threadId: Loose
    stacktrace: SentryStacktrace | None
    # The frames as sent, before source maps were applied; null when nothing was mapped.
    rawStacktrace: SentryStacktrace | None


class ExceptionEntryData(Entity):
    """The `data` of an entry of type "exception"."""

    values: list[SentryException]
    excOmitted: Any
    hasSystemFrames: bool


class MessageEntryData(Entity):
    """The `data` of an entry of type "message": the log message, formatted and as a template."""

    formatted: str
    message: Text
    params: Any


class SentryBreadcrumb(Entity):
    type: str
    category: Text
    level: str
    message: Text
    # Whatever the SDK attached (an HTTP call's url, method and status code, ...).
    data: Any
    timestamp: Time
    event_id: Text


class BreadcrumbsEntryData(Entity):
    """The `data` of an entry of type "breadcrumbs", oldest first."""

    values: list[SentryBreadcrumb]


class RequestEntryData(Entity):
    """The `data` of an entry of type "request": headers, query and cookies as [name, value] pairs."""

    url: Text
    method: Text
    headers: list[list[Any]]
    query: list[list[Any]]
    fragment: Text
    data: Any
    cookies: list[list[Any]]
    env: dict[str, Any] | None
    inferredContentType: Text
    apiTarget: Text


class EventSummary(Entity):
    """SimpleEventSerializer: one row of an issue's event list."""

    id: str
    event_type: str = msgspec.field(name="event.type")
    groupID: str
    eventID: str
    projectID: str
    message: str
    title: str
    location: Text
    culprit: Text
    user: dict[str, Any] | None
    tags: list[EventTag]
    platform: Text
    dateCreated: Time
    crashFile: Any
    metadata: Metadata


class Sdk(Entity):
    name: Text
    version: Text


class Event(Entity):
    """EventSerializer: one event in full, with its neighbours among its error's events."""

    id: str
    groupID: str
    eventID: str
    projectID: str
    size: int
    entries: list[EventEntry]
    dist: Loose
    message: str
    title: str
    location: Text
    user: dict[str, Any] | None
    contexts: dict[str, Any]
    sdk: Sdk | None
    context: dict[str, Any]
    packages: dict[str, Any]
    type: str
    metadata: Metadata
    tags: list[EventTag]
    platform: Text
    dateReceived: Time
    dateCreated: Time
    errors: list[Any]
    occurrence: Any
    meta: dict[str, Any] = msgspec.field(name="_meta")
    crashFile: Any
    culprit: Text
    fingerprints: list[str]
    groupingConfig: Any
    release: ReleaseReference | None
    userReport: Any
    sdkUpdates: list[Any]
    resolvedWith: list[Any]
    nextEventID: Text
    previousEventID: Text


class EventAccepted(Entity):
    """The collector's answer to an SDK (store, envelope, minidump): the event's id, or `{}` when the request
    carried no event (a session, a check-in)."""

    id: str | UnsetType = UNSET

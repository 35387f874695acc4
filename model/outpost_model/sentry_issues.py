"""Sentry's issues (groups) and their tags as /api/0 renders them: StreamGroupSerializer (the issue list),
GroupDetails (one issue), ActorSerializer (an assignee) and the tagstore's keys and values."""

from __future__ import annotations

from typing import Any

import msgspec

from outpost_model.base import UNSET, Entity, Text, Time, UnsetType
from outpost_model.sentry_events import Metadata, ProjectReference, ReleaseReference

# [[unix time, count], ...].
Stats = list[list[int]]


class Actor(Entity):
    """An assignee."""

    type: str
    id: str
    name: str
    email: str


class IssueStats(Entity):
    last_24h: Stats = msgspec.field(name="24h")
    # In an issue's details only.
    last_30d: Stats | UnsetType = msgspec.field(default=UNSET, name="30d")


class Issue(Entity):
    id: str
    shareId: Text
    shortId: str
    title: str
    culprit: Text
    permalink: str
    logger: Text
    level: str
    # "unresolved", "resolved" or "ignored".
    status: str
    # For an issue ignored with conditions: ignoreCount, ignoreUntil, ignoreUserCount, ignoreUserWindow,
    # ignoreWindow and the actor who ignored it; empty otherwise.
    statusDetails: dict[str, Any]
    substatus: Text
    isPublic: bool
    platform: Text
    project: ProjectReference
    type: str
    metadata: Metadata
    numComments: int
    assignedTo: Actor | None
    isBookmarked: bool
    isSubscribed: bool
    subscriptionDetails: Any
    hasSeen: bool
    annotations: list[Any]
    issueType: str
    issueCategory: str
    isUnhandled: bool
    # A string, as Sentry sends it.
    count: str
    userCount: int
    firstSeen: Time
    lastSeen: Time
    stats: IssueStats


class IssueTag(Entity):
    key: str
    name: str
    totalValues: int


class IssueDetails(Issue):
    activity: list[Any]
    seenBy: list[Any]
    participants: list[Any]
    pluginActions: list[Any]
    pluginIssues: list[Any]
    pluginContexts: list[Any]
    userReportCount: int
    firstRelease: ReleaseReference | None
    lastRelease: ReleaseReference | None
    tags: list[IssueTag]


class TagValue(Entity):
    key: str
    name: str
    value: str
    count: int
    lastSeen: Time
    firstSeen: Time
    # For a user tag value: the search that finds that user's issues (`user.email:"a@b"`).
    query: str | UnsetType = UNSET


class TagKey(Entity):
    key: str
    name: str
    uniqueValues: int
    totalValues: int
    topValues: list[TagValue]


class MergeResult(Entity):
    """Where merged issues went: the issue kept and those merged into it."""

    parent: str
    children: list[str]


class IssuesUpdated(Entity):
    """A bulk update's answer (Sentry's update_groups): only the fields the update changed."""

    status: str | UnsetType = UNSET
    # As in Issue: the ignore conditions, or empty.
    statusDetails: dict[str, Any] | UnsetType = UNSET
    # Null once an issue leaves the inbox (resolved or ignored).
    inbox: None | UnsetType = UNSET
    assignedTo: Actor | None | UnsetType = UNSET
    # True or false, or where the issues were merged to when two or more were.
    merge: bool | MergeResult | UnsetType = UNSET

"""Sentry's project and organization JSON as /api/0 renders them (ProjectSerializer, the detailed project
with the caller's access, and the organization inside)."""

from __future__ import annotations

from outpost_model.base import Entity, Text, Time


class Avatar(Entity):
    avatarType: str
    avatarUuid: Text


class OrganizationStatus(Entity):
    id: str
    name: str


class Organization(Entity):
    # Outpost's organizations are namespaces: id, slug and name are the namespace's path.
    id: str
    slug: str
    name: str
    dateCreated: Time
    isEarlyAdopter: bool
    require2FA: bool
    status: OrganizationStatus
    avatar: Avatar


class SentryProject(Entity):
    id: str
    slug: str
    name: str
    status: str
    platform: Text
    dateCreated: Time
    firstEvent: Time
    isPublic: bool
    isInternal: bool
    isMember: bool
    hasAccess: bool
    isBookmarked: bool
    color: str
    features: list[str]
    avatar: Avatar
    organization: Organization


class SentryProjectDetails(SentryProject):
    """A project read alone: with the scopes the caller has on it."""

    access: list[str]

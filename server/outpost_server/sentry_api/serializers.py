"""Sentry's JSON for projects, issues (groups) and tags, as its API serializers write them.

Ids and `count` are strings, `userCount` an integer, dates ISO 8601 in UTC (see the protocol
reference §11 and Sentry's group, project and tagstore serializers).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from fastapi import Request

from outpost_model import UNSET
from outpost_model.sentry_events import Metadata, ProjectReference, ReleaseReference
from outpost_model.sentry_issues import Actor, Issue, IssueDetails, IssueStats, IssueTag, TagKey, TagValue
from outpost_model.sentry_projects import (
    Avatar,
    Organization,
    OrganizationStatus,
    SentryProject,
    SentryProjectDetails,
)
from outpost_server.accounts.models import Project, User
from outpost_server.compat.gitlab_time import iso
from outpost_server.error_tracking.models import ErrorSnooze, ErrorTagValue, TrackedError
from outpost_server.error_tracking.read.events import TagFacet
from outpost_server.urls import public_base_url

from .access import slugs_of

AVATAR = Avatar(avatarType="letter_avatar", avatarUuid=None)
# tagstore's labels of the standard keys; other keys are title-cased.
TAG_LABELS = {"user": "User", "release": "Release", "dist": "Distribution", "os": "OS", "url": "URL",
              "server_name": "Server", "os.name": "OS Name", "browser.name": "Browser Name"}
USER_FIELDS = {"id": "id", "email": "email", "username": "username", "ip": "ip"}


def organization_json(slug: str) -> Organization:
    return Organization(id=slug, slug=slug, name=slug, dateCreated=None, isEarlyAdopter=False, require2FA=False,
                        status=OrganizationStatus(id="active", name="active"), avatar=AVATAR)


def _project_fields(project: Project, platform: str | None) -> dict[str, Any]:
    organization, slug = slugs_of(project)
    return {"id": str(project.id), "slug": slug, "name": project.name, "status": "active", "platform": platform,
            "dateCreated": iso(project.created_at), "firstEvent": None, "isPublic": project.visibility == "public",
            "isInternal": False, "isMember": True, "hasAccess": True, "isBookmarked": False, "color": "#3f70e0",
            "features": [], "avatar": AVATAR, "organization": organization_json(organization)}


def project_json(project: Project, *, platform: str | None = None) -> SentryProject:
    return SentryProject(**_project_fields(project, platform))


def project_details_json(project: Project, access: list[str]) -> SentryProjectDetails:
    """A project read alone, with the caller's scopes on it."""
    return SentryProjectDetails(**_project_fields(project, None), access=access)


def project_reference(project: Project, platform: str | None = None) -> dict[str, Any]:
    return {"id": str(project.id), "name": project.name, "slug": slugs_of(project)[1], "platform": platform}


def permalink(request: Request, project: Project, error: TrackedError) -> str:
    return f"{public_base_url(request)}/{project.full_path}/-/error_tracking/{error.id}/details"


def metadata(error: TrackedError) -> Metadata:
    if error.kind == "error":
        return Metadata(type=error.exception_type, value=error.message, title=error.title)
    return Metadata(title=error.title)


def actor_json(user: User | None) -> Actor | None:
    """ActorSerializer of a user: what `assignedTo` holds."""
    if user is None:
        return None
    return Actor(type="user", id=str(user.id), name=user.name or user.username, email=user.email)


def user_json(user: User | None) -> dict[str, Any] | None:
    """The user fields Sentry's UserSerializer gives of an actor in `statusDetails`."""
    if user is None:
        return None
    return {"id": str(user.id), "name": user.name or user.username, "username": user.username, "email": user.email,
            "avatarUrl": None, "isActive": user.state == "active", "hasPasswordAuth": True, "isManaged": False,
            "dateJoined": iso(user.created_at), "lastLogin": None, "has2fa": False, "lastActive": None,
            "isSuperuser": user.is_admin, "isStaff": False, "emails": [], "avatar": AVATAR}


def ignored_details(snooze: ErrorSnooze, error: TrackedError, actor: User | None) -> dict[str, Any]:
    """GroupSerializer's statusDetails of an error ignored with conditions: a count without a window is what
    remains of it."""
    count = snooze.count - (error.count - snooze.times_seen) if snooze.count and not snooze.window else snooze.count
    users = (snooze.user_count - (error.users_count - snooze.users_seen) if snooze.user_count and not snooze.user_window
             else snooze.user_count)
    return {"ignoreCount": count, "ignoreUntil": iso(snooze.until) if snooze.until else None,
            "ignoreUserCount": users, "ignoreUserWindow": snooze.user_window, "ignoreWindow": snooze.window,
            "actor": user_json(actor)}


def _issue_fields(request: Request, project: Project, error: TrackedError, triage: IssueTriage | None
                  ) -> dict[str, Any]:
    """The fields the issue list and an issue's details share (all but the stats)."""
    triage = triage or IssueTriage()
    status, status_details = error.status, {}
    if status == "ignored" and triage.snooze is not None:
        if triage.still_ignored:
            status_details = ignored_details(triage.snooze, error, triage.snooze_actor)
        else:  # its conditions are met, and nothing woke it yet: Sentry shows it unresolved
            status = "unresolved"
    return {
        "id": str(error.id), "shareId": None, "shortId": f"{slugs_of(project)[1].upper()}-{error.id}",
        "title": error.title, "culprit": error.culprit, "permalink": permalink(request, project, error),
        "logger": None, "level": error.level, "status": status, "statusDetails": status_details,
        "substatus": "regressed" if error.regressed else ("ongoing" if status == "unresolved" else None),
        "isPublic": False, "platform": error.platform, "project": project_reference(project, error.platform),
        "type": error.kind, "metadata": metadata(error), "numComments": 0, "assignedTo": actor_json(triage.assignee),
        "isBookmarked": False, "isSubscribed": False, "subscriptionDetails": None, "hasSeen": False,
        "annotations": [], "issueType": "error", "issueCategory": "error", "isUnhandled": False,
        "count": str(error.count), "userCount": error.users_count,
        "firstSeen": iso(error.first_seen_at), "lastSeen": iso(error.last_seen_at),
    }


def issue_json(request: Request, project: Project, error: TrackedError, stats_24h: list[list[int]],
               triage: IssueTriage | None = None) -> Issue:
    """StreamGroupSerializer: what the issue list answers."""
    return Issue(**_issue_fields(request, project, error, triage), stats=IssueStats(last_24h=stats_24h))


@dataclass(frozen=True)
class IssueTriage:
    """An issue's assignee and ignore conditions, as the serializers show them."""

    assignee: User | None = None
    snooze: ErrorSnooze | None = None
    snooze_actor: User | None = None
    # False once the conditions are met (the error shows as unresolved).
    still_ignored: bool = True


def release_json(version: str | None, project: Project) -> ReleaseReference | None:
    if not version:
        return None
    return ReleaseReference(version=version, shortVersion=version, ref=None, url=None, dateCreated=None,
                            dateReleased=None, lastCommit=None, lastDeploy=None, firstEvent=None, lastEvent=None,
                            projects=[ProjectReference(**project_reference(project))])


def issue_details_json(request: Request, project: Project, error: TrackedError, *, stats_24h: list[list[int]],
                       stats_30d: list[list[int]], facets: list[TagFacet], triage: IssueTriage | None = None
                       ) -> IssueDetails:
    """GroupDetails: the list's fields plus releases, both stats periods and the tag keys."""
    return IssueDetails(
        **_issue_fields(request, project, error, triage), activity=[], seenBy=[], participants=[],
        pluginActions=[], pluginIssues=[], pluginContexts=[], userReportCount=0,
        firstRelease=release_json(error.first_release, project), lastRelease=release_json(error.last_release, project),
        tags=[IssueTag(key=facet.key, name=tag_label(facet.key), totalValues=facet.total) for facet in facets],
        stats=IssueStats(last_24h=stats_24h, last_30d=stats_30d))


def daily_stats(days: list[tuple[dt.date, int]]) -> list[list[int]]:
    return [[int(dt.datetime.combine(day, dt.time(), dt.timezone.utc).timestamp()), count] for day, count in days]


# --- tags -----------------------------------------------------------------------------------


def tag_label(key: str) -> str:
    return TAG_LABELS.get(key) or key.replace("_", " ").title()


def tag_value_json(row: ErrorTagValue) -> TagValue:
    query = user_query(row.key, row.value)
    return TagValue(key=row.key, name=_value_label(row.key, row.value), value=row.value, count=row.times_seen,
                    lastSeen=iso(row.last_seen_at), firstSeen=iso(row.first_seen_at), query=query or UNSET)


def tag_key_json(facet: TagFacet) -> TagKey:
    return TagKey(key=facet.key, name=tag_label(facet.key), uniqueValues=facet.unique_values,
                  totalValues=facet.total, topValues=[tag_value_json(row) for row in facet.top])


def _value_label(key: str, value: str) -> str:
    if key == "user" and ":" in value:
        return value.split(":", 1)[1]
    return value


def user_query(key: str, value: str) -> str | None:
    """`user.email:"a@b"` for a user tag value, as Sentry offers it for searching."""
    if key != "user" or ":" not in value:
        return None
    field, text = value.split(":", 1)
    if field not in USER_FIELDS:
        return None
    escaped = text.replace('"', '\\"')
    return f'user.{USER_FIELDS[field]}:"{escaped}"'

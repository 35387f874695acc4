"""Triage of a project's errors through Sentry's web API on an Outpost server: several at once (Sentry's bulk
update), an assignee, a merge, ignoring until a condition; and who may do it. No Qt.

GitLab has none of this for a token holder: its error tracking API reads errors and its GraphQL has no
mutation for them, so on GitLab the console says so in place (``NO_TRIAGE_API``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from console.core.api.server import ServerInfo
from outpost_model import UnsetType, decode
from outpost_model.accounts import Member
from outpost_model.sentry_issues import Actor, Issue, IssuesUpdated, MergeResult
from outpost_model.sentry_projects import SentryProjectDetails

if TYPE_CHECKING:
    from console.core.api.client import ApiClient

NO_TRIAGE_API = ("GitLab offers no API to assign, merge or ignore errors until a condition, nor to change several "
                 "at once: its GraphQL API has no such mutation. Triage them on the errors' GitLab pages.")
NOT_ALLOWED = "Only Developers, Maintainers and Owners of the project can triage its errors."
# Sentry's scope for changing issues; Outpost grants it on a project to its Developers and above.
WRITE_SCOPE = "event:write"
REPORTER = 20
# The most ids one request names (Sentry bounds a bulk update by query at 1,000 issues).
IDS_PER_REQUEST = 100


def member_label(member: Member) -> str:
    """A project member as the assignee picker lists them: name and username, or the username alone."""
    return f"{member.name} ({member.username})" if member.name and member.name != member.username else member.username


@dataclass(frozen=True)
class IgnoreUntil:
    """Sentry's ignore conditions; all None ignores for ever."""

    count: int | None = None
    window: int | None = None  # minutes
    user_count: int | None = None
    user_window: int | None = None  # minutes
    duration: int | None = None  # minutes

    def status_details(self) -> dict[str, int]:
        names = {"ignoreCount": self.count, "ignoreWindow": self.window, "ignoreUserCount": self.user_count,
                 "ignoreUserWindow": self.user_window, "ignoreDuration": self.duration}
        return {name: value for name, value in names.items() if value}

    def describe(self) -> str:
        parts = []
        if self.count:
            parts.append(f"{self.count} more events" + (f" within {self.window} minutes" if self.window else ""))
        if self.user_count:
            parts.append(f"{self.user_count} more users" + (f" within {self.user_window} minutes"
                                                             if self.user_window else ""))
        if self.duration:
            parts.append(f"{self.duration} minutes pass")
        return "until " + " or ".join(parts) if parts else "for ever"


@dataclass(frozen=True)
class Merged:
    parent: str
    children: tuple[str, ...]


def sentry_slugs(project_path: str) -> str:
    """``org/project`` as Outpost's Sentry API names a project (nested groups joined with ``~``)."""
    organization, *below = project_path.split("/")
    return f"{quote(organization, safe='')}/{quote('~'.join(below), safe='~')}"


def assignee_name(actor: Actor | None | UnsetType) -> str | None:
    return (actor.name or actor.id) if isinstance(actor, Actor) else None


class TriageApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client
        self.server = client.server or ServerInfo()

    @property
    def available(self) -> bool:
        """Whether the server has the triage API at all (Outpost's Sentry API)."""
        return self.server.is_outpost

    async def may_triage(self, project_path: str) -> bool:
        response = await self.client.sentry_request(f"/projects/{sentry_slugs(project_path)}/")
        return WRITE_SCOPE in decode(response.content, SentryProjectDetails).access

    async def _issues(self, project_path: str, ids: Sequence[str]) -> list[Issue]:
        """The listed errors as Sentry's issue list gives them, whatever their status."""
        issues: list[Issue] = []
        for start in range(0, len(ids), IDS_PER_REQUEST):
            chunk = list(ids[start:start + IDS_PER_REQUEST])
            response = await self.client.sentry_request(
                f"/projects/{sentry_slugs(project_path)}/issues/",
                params={"query": "is:all", "group": chunk, "limit": IDS_PER_REQUEST})
            issues.extend(decode(response.content, list[Issue]))
        return issues

    async def assignees(self, project_path: str, ids: Sequence[str]) -> dict[str, str | None]:
        """Each listed error's assignee (its name), None where unassigned."""
        return {issue.id: assignee_name(issue.assignedTo) for issue in await self._issues(project_path, ids)}

    async def regressed(self, project_path: str, ids: Sequence[str]) -> set[str]:
        """Which of the listed errors regressed (Sentry's substatus; GitLab's shapes carry no such flag)."""
        return {issue.id for issue in await self._issues(project_path, ids) if issue.substatus == "regressed"}

    async def members(self, project_id: int) -> list[Member]:
        """Who may be assigned: the project's members with Reporter access or more."""
        return [member async for member in self.client.paginate_as(Member, f"/projects/{project_id}/members")
                if member.access_level >= REPORTER]

    async def update(self, project_path: str, ids: Sequence[str], body: dict[str, object]) -> IssuesUpdated:
        """Sentry's bulk update of these errors; its answer (what changed)."""
        response = await self.client.sentry_request(f"/projects/{sentry_slugs(project_path)}/issues/",
                                                    method="PUT", params={"id": list(ids)}, json=body)
        return decode(response.content, IssuesUpdated) if response.content else IssuesUpdated()

    async def set_status(self, project_path: str, ids: Sequence[str], status: str,
                         until: IgnoreUntil | None = None) -> IssuesUpdated:
        body: dict[str, object] = {"status": status}
        if until is not None and until.status_details():
            body["statusDetails"] = until.status_details()
        return await self.update(project_path, ids, body)

    async def assign(self, project_path: str, ids: Sequence[str], member: Member | None) -> str | None:
        answer = await self.update(project_path, ids, {"assignedTo": f"user:{member.id}" if member else None})
        return assignee_name(answer.assignedTo)

    async def merge(self, project_path: str, ids: Sequence[str]) -> Merged:
        answer = (await self.update(project_path, ids, {"merge": 1})).merge
        if not isinstance(answer, MergeResult):
            return Merged(parent=ids[0], children=())
        return Merged(parent=answer.parent, children=tuple(answer.children))

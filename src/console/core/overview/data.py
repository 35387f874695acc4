"""Gathers the overview's numbers through the API; no Qt here.

Errors are read through GitLab's GraphQL API, which GitLab and Outpost both serve to token holders.
Every number can be unavailable: GitLab's API has no "regressed" flag, instance variables and plan limits
are for administrators, and so on. An unavailable number carries the reason instead of a zero.

What it reads on the way goes into the repositories (console.core.repositories) the other pages show: the monitors
(the Monitors page), the instance variables (the variables tab), the profile's export history (the exports tab).
How many monitors fail, how many variables there are and how many exports run are worked out from them whenever
the Overview is drawn (:func:`with_monitors`, ``VariablesRepository.count``, ``ExportsRepository.counts``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field, replace
from pathlib import Path

from console.core.api.client import ApiClient
from console.core.api.error_tracking import ErrorSummary, ErrorTrackingApi
from console.core.api.errors import ApiError, Forbidden, NotFound, Unauthorized, Unsupported
from console.core.api.monitors import MonitorsApi
from console.core.api.server import ServerInfo
from console.core.api.triage import TriageApi
from console.core.api.variables import Variable, VariablesApi
from console.core.exports.store import ExportHistory
from console.core.operations import blocking
from console.core.repositories.hub import Repositories
from console.core.repositories.monitors import MonitorsRepository
from console.core.repositories.variables import VariablesRepository
from console.core.timestamps import parse_time
from outpost_model.accounts import User
from outpost_model.instance import Version
from outpost_model.projects import Project

# The overview looks at this many projects (most recently active first) and this many list pages per
# project; beyond that it says "or more" rather than spending minutes counting.
MAX_PROJECTS = 20
MAX_PAGES = 5
CONCURRENT_PROJECTS = 4
NEW_WINDOW = dt.timedelta(hours=24)


@dataclass(frozen=True)
class Count:
    """A number, or the reason there is none; ``capped`` means "at least"."""

    value: int | None
    reason: str = ""
    capped: bool = False

    @property
    def text(self) -> str:
        if self.value is None:
            return "not available"
        return f"{self.value}+" if self.capped else str(self.value)


@dataclass(frozen=True)
class ServerFacts:
    kind: str  # "Outpost" or "GitLab"
    version: str
    role: str


NO_MONITORS_ON_GITLAB = "GitLab has no cron monitors"


@dataclass(frozen=True)
class ProjectErrors:
    path: str
    new_today: Count
    unresolved: Count
    regressions: Count
    frequency: tuple[int, ...] = ()
    last_seen: str | None = None
    failing_monitors: Count = Count(None, NO_MONITORS_ON_GITLAB)


@dataclass
class Overview:
    server: ServerFacts
    variables: Count
    projects: list[ProjectErrors] = field(default_factory=list)
    projects_note: str = ""


def server_facts(version: Version | None, user: User | None) -> ServerFacts:
    server = ServerInfo(version=version)
    role = "Administrator" if user is not None and user.is_admin is True else "Regular user"
    return ServerFacts(kind=server.product, version=server.version_text, role=role)


NOT_ADMIN_VARIABLES = "only administrators can read instance variables"


def variables_count(variables: list[Variable] | None) -> Count:
    """The instance variables' count, from their list (None: not readable)."""
    return Count(None, NOT_ADMIN_VARIABLES) if variables is None else Count(len(variables))


NOT_ADMIN_LIMIT = "the plan limits are readable by administrators only"


async def read_variables(client: ApiClient, repository: VariablesRepository) -> list[Variable] | None:
    """The instance variables and their limit, read into ``repository``; None where the list is not readable."""
    api = VariablesApi(client)
    variables, _limit = await asyncio.gather(repository.fetch_if_allowed(api), repository.fetch_limit(api))
    return variables


def variables_limit(repository: VariablesRepository) -> Count:
    """The limit on the instance variables, as the repository holds it now (the variables tab may have read it
    since the Overview did)."""
    limit = repository.limit()
    return Count(None, NOT_ADMIN_LIMIT) if limit is None else Count(limit)


NO_REGRESSIONS_ON_GITLAB = "GitLab's API does not say which errors regressed"


async def unresolved_errors(api: ErrorTrackingApi, path: str, *,
                            pages: int = MAX_PAGES) -> tuple[list[ErrorSummary], bool]:
    """The project's unresolved errors, most recently seen first, and whether more pages were left unread.

    Read through GitLab's GraphQL API (``Project.sentryErrors``), which GitLab and Outpost both serve.
    """
    errors: list[ErrorSummary] = []
    cursor: str | None = None
    for _page in range(pages):
        page = await api.list_errors(path, status="unresolved", sort="last_seen", cursor=cursor)
        errors.extend(page.errors)
        cursor = page.next_cursor
        if not cursor:
            return errors, False
    return errors, True


async def project_errors(api: ErrorTrackingApi, path: str, *, now: dt.datetime) -> ProjectErrors | None:
    """The unresolved errors of one project; None when error tracking is off there or not readable."""
    try:
        errors, capped = await unresolved_errors(api, path)
    except NotFound:  # a null project or a null sentryErrors: not visible, or error tracking is off
        return None
    except (Unauthorized, Forbidden, Unsupported) as exc:
        missing = Count(None, exc.message)
        return ProjectErrors(path, missing, missing, missing)
    cutoff = now - NEW_WINDOW
    new_today = sum(1 for error in errors if (parse_time(error.first_seen) or cutoff) > cutoff)
    if api.server.is_outpost:
        regressions = await _regressions(api, path, errors, capped)
    else:
        regressions = Count(None, NO_REGRESSIONS_ON_GITLAB)
    width = max((len(error.frequency) for error in errors), default=0)
    frequency = tuple(sum(error.frequency[i] for error in errors if i < len(error.frequency)) for i in range(width))
    return ProjectErrors(path, Count(new_today, capped=capped), Count(len(errors), capped=capped), regressions,
                         frequency, max((error.last_seen or "" for error in errors), default=None) or None)


async def _regressions(api: ErrorTrackingApi, path: str, errors: list[ErrorSummary], capped: bool) -> Count:
    """Regressed errors among the unresolved ones read, from the substatus of Outpost's Sentry issue list, one
    request per hundred errors (GitLab's GraphQL types carry no such flag). Looking only at the most recently seen
    ones missed a regression once newer errors pushed it down the list: "0+" said nothing."""
    if not errors:
        return Count(0)
    try:
        regressed = await TriageApi(api.client).regressed(path, [error.id for error in errors])
    except ApiError as error:
        return Count(None, f"the server did not say which errors regressed: {error.message}")
    return Count(len(regressed), capped=capped)


async def read_monitors(monitors: MonitorsRepository, client: ApiClient, path: str, project_id: int | None) -> Count:
    """Reads the project's cron monitors into ``monitors``; the count of failing ones says why when not read."""
    try:
        await monitors.fetch(MonitorsApi(client), path, project_id)
    except ApiError as error:
        return Count(None, error.message)
    return failing_count(monitors, path)


def failing_count(monitors: MonitorsRepository, path: str) -> Count:
    failing = monitors.failing(path)
    return Count(None, "the monitors were not read") if failing is None else Count(failing)


def with_monitors(rows: list[ProjectErrors], monitors: MonitorsRepository) -> list[ProjectErrors]:
    """The rows with their failing monitors counted now, from what the repository holds: never a figure kept
    from the read that drew them. A row whose monitors could not be read (or a GitLab's) keeps its reason."""
    return [replace(row, failing_monitors=failing_count(monitors, row.path))
            if row.failing_monitors.value is not None and monitors.failing(row.path) is not None else row
            for row in rows]


async def all_project_errors(client: ApiClient, monitors: MonitorsRepository, *,
                             now: dt.datetime) -> tuple[list[ProjectErrors], str]:
    """Error counts of the most recently active projects, most recent error first."""
    api = ErrorTrackingApi(client)
    projects: list[Project] = []
    async for project in client.paginate_as(Project, "/projects", per_page=MAX_PROJECTS, membership="true",
                                            order_by="last_activity_at", sort="desc"):
        projects.append(project)
        if len(projects) >= MAX_PROJECTS:
            break
    gate = asyncio.Semaphore(CONCURRENT_PROJECTS)

    async def one(project: Project) -> ProjectErrors | None:
        async with gate:
            try:
                path = project.path_with_namespace
                found = await project_errors(api, path, now=now)
                if found is not None and api.server.is_outpost:
                    failing = await read_monitors(monitors, client, path, project.id)
                    found = replace(found, failing_monitors=failing)
                return found
            except NotFound:  # deleted, or access lost, since the project list came
                return None

    found = [result for result in await asyncio.gather(*(one(project) for project in projects)) if result]
    found.sort(key=lambda item: item.last_seen or "", reverse=True)
    note = f"The {MAX_PROJECTS} most recently active projects are shown." if len(projects) >= MAX_PROJECTS else ""
    return found, note


async def gather_overview(client: ApiClient, repositories: Repositories, *, version: Version | None,
                          user: User | None, history_dir: Path, profile: str,
                          now: dt.datetime | None = None) -> Overview:
    """The overview's figures; what it reads on the way (variables, monitors, the export history) goes into the
    repositories, from which the counts are worked out whenever the overview is drawn."""
    facts = server_facts(version, user)
    variables, (projects, note) = await asyncio.gather(
        read_variables(client, repositories.variables),
        all_project_errors(client, repositories.monitors, now=now or dt.datetime.now(dt.UTC)))
    current = repositories.exports.scope_guard()
    exports = await blocking(ExportHistory(history_dir, profile).load)
    if current():
        repositories.exports.take_history(exports)  # what is held is newer (the exports tab's, the watcher's)
    return Overview(server=facts, variables=variables_count(variables), projects=projects,
                    projects_note=note)


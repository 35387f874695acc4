"""Error tracking: a project's errors, their details and stack traces, its settings and client keys.

Errors are read through GitLab's GraphQL API (``console.core.api.error_graphql``), which GitLab and
Outpost both serve to token holders. The project's web JSON routes (``/<project>/-/error_tracking*``)
accept a token only on Outpost; there they change an error's status, list an external Sentry's
projects and add what GraphQL's types lack (environment, every tag, release health, chained
exceptions with their in-app frames). Settings and client keys are REST (``/projects/:id/...``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import msgspec

from console.core.api import error_graphql
from console.core.api.client import ApiClient
from console.core.api.errors import NotFound, Unsupported
from console.core.api.graphql import graphql
from console.core.api.server import ServerInfo
from outpost_model import Loose, UnsetType, decode
from outpost_model.error_graphql import SentryDetailedError, SentryError, SentryErrorStackTrace
from outpost_model.error_tracking import (
    ClientKey,
    ErrorDetail,
    ErrorDetailBody,
    ErrorUpdate,
    ExceptionValue,
    ExternalProject,
    ExternalProjectList,
    ReleaseHealth,
    StackFrame,
    StackTraceBody,
    TrackingSettings,
)
from outpost_model.projects import Project
from outpost_model.retention import Retention

EVERY_STATUS = "all"  # the status filter's "All": Outpost's search key is:all (GitLab lists unresolved errors only)
STATUSES = ("unresolved", "resolved", "ignored", EVERY_STATUS)
SORTS = ("last_seen", "first_seen", "frequency")
REQUIRED_SCOPES = ("project:read", "event:read", "event:write")
# Facts about GitLab, said in place of a failure (see console.core.api.server for the sources).
NO_STATUS_API = ("GitLab offers no API to resolve or ignore an error: its GraphQL API has no such mutation and "
                 "the status route serves signed-in browsers only. Change the status on the error's GitLab page.")
UNRESOLVED_ONLY = "GitLab's API lists unresolved errors only."
NO_ERROR_API = "This server offers no API to read errors: its GraphQL schema has no Project.sentryErrors."
PROJECTS_SESSION_ONLY = ("GitLab lists a Sentry's projects to signed-in browsers only. Enter the project in "
                         "GitLab's Monitor > Error Tracking settings, or connect to an Outpost server.")


@dataclass(frozen=True)
class ErrorSummary:
    id: str
    title: str
    type: str | None
    count: int
    user_count: int
    first_seen: str | None
    last_seen: str | None
    status: str
    culprit: str | None
    message: str | None
    frequency: tuple[int, ...]
    # Who it is assigned to (a name), read from Sentry's API on Outpost (console.core.api.triage); GitLab has none.
    assignee: str | None = None

    @classmethod
    def of(cls, error: SentryError) -> ErrorSummary:
        """A row of GraphQL's list (or the list's fields of an error's details)."""
        return cls(id=error.sentryId, title=error.title, type=error.type, count=error.count,
                   user_count=error.userCount, first_seen=error.firstSeen, last_seen=error.lastSeen,
                   status=error_graphql.status_word(error.status), culprit=error.culprit, message=error.message,
                   frequency=tuple(point.count for point in error.frequency))


@dataclass(frozen=True)
class ErrorDetails:
    """An error's details as the detail pane shows them: GraphQL's ``SentryDetailedError`` and, on Outpost, its
    web route's details (``details.json``) for what GraphQL's type lacks. Only the four fields the properties
    below name are read from ``extras``: the rest is GraphQL's, which the store keeps in step with the list."""

    error: SentryDetailedError
    extras: ErrorDetail | None = None

    @property
    def id(self) -> str:
        return self.error.sentryId

    @property
    def status(self) -> str:
        return error_graphql.status_word(self.error.status)

    @property
    def exception_type(self) -> str | None:
        return self.extras.exception_type if self.extras is not None else None

    @property
    def tags(self) -> dict[str, Loose]:
        """Every tag on Outpost; GraphQL's level and logger elsewhere."""
        if self.extras is not None:
            return self.extras.tags
        return {"level": self.error.tags.level, "logger": self.error.tags.logger}

    @property
    def environment(self) -> str | None:
        value = self.extras.environment if self.extras is not None else None
        return value if isinstance(value, str) else None

    @property
    def release_health(self) -> list[ReleaseHealth]:
        value = self.extras.release_health if self.extras is not None else None
        return value if isinstance(value, list) else []


@dataclass(frozen=True)
class ErrorPage:
    errors: list[ErrorSummary]
    next_cursor: str | None
    # GitLab answers null while it is still fetching from Sentry (its reactive cache); ask again later.
    pending: bool = False


# A project without error tracking settings (GitLab answers 404): not active, integrated (GitLab's default).
NO_SETTINGS = TrackingSettings(active=False, project_name=None, sentry_external_url=None, api_url=None,
                               integrated=True)


def project_label(project: ExternalProject) -> str:
    """An external Sentry's project as the settings' picker lists it: its organization, then its name."""
    return f"{project.organization_name} | {project.name}"


def external_host(settings: TrackingSettings) -> str:
    """The external Sentry's address (scheme and host) of the settings' ``api_url``; "" when integrated."""
    if not settings.api_url:
        return ""
    parts = urlsplit(settings.api_url)
    return f"{parts.scheme}://{parts.netloc}"


def linked_slugs(settings: TrackingSettings) -> tuple[str, str] | None:
    """(organization, project) slugs of the external Sentry project the ``api_url`` names
    (``<host>/api/0/projects/<organization>/<project>/``)."""
    if not settings.api_url:
        return None
    segments = [s for s in urlsplit(settings.api_url).path.split("/") if s]
    return (segments[3], segments[4]) if len(segments) >= 5 else None


@dataclass
class StackTrace:
    exceptions: list[ExceptionValue] = field(default_factory=list)
    message: str | None = None
    date_received: str | None = None
    # An Outpost server's log message (logentry) of a logged exception, shown above it; GitLab's "message" is
    # the exception's own text.
    log_message: str | None = None


def api_url_for(api_host: str, organization_slug: str, project_slug: str) -> str:
    return f"{api_host.rstrip('/')}/api/0/projects/{organization_slug}/{project_slug}/"


class ErrorTrackingApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client
        self.server = client.server or ServerInfo()

    @property
    def can_change_status(self) -> bool:
        return self.server.web_routes_take_tokens

    @property
    def can_filter_status(self) -> bool:
        return self.server.web_routes_take_tokens

    def error_page_url(self, project_path: str, error_id: str) -> str:
        """The error's page on the server, for a browser (GitLab's ``externalUrl`` of an integrated error)."""
        return self._web(project_path, f"/{quote(error_id)}/details")

    def _web(self, project_path: str, suffix: str) -> str:
        return f"{self.client.base_url}/{quote(project_path)}/-/error_tracking{suffix}"

    # --- projects the user may look at -------------------------------------------------------

    async def projects(self) -> list[Project]:
        return [project async for project in self.client.paginate_as(Project, "/projects", order_by="path",
                                                                     sort="asc")]

    async def project(self, project_id: int) -> Project:
        """One project (NotFound once it is deleted, or access to it lost)."""
        return decode((await self.client.request("GET", f"/projects/{project_id}")).content, Project)

    # --- errors ------------------------------------------------------------------------------

    async def list_errors(self, project_path: str, *, status: str = "unresolved", sort: str = "last_seen",
                          search_term: str = "", cursor: str | None = None) -> ErrorPage:
        if not self.server.graphql_error_tracking:
            raise Unsupported(detail=NO_ERROR_API)
        if status != "unresolved" and not self.can_filter_status:
            raise Unsupported(detail=UNRESOLVED_ONLY)
        # GraphQL's errors field has no status argument; Outpost reads the status from the search, like Sentry.
        term = f"is:{status} {search_term}".strip() if self.can_filter_status else search_term
        answer = await graphql(self.client, error_graphql.LIST_QUERY, {
            "fullPath": project_path, "searchTerm": term or None, "sort": sort, "first": error_graphql.PAGE_SIZE,
            "after": cursor})
        connection = error_graphql.collection(answer.data, project_path).errors
        if connection is None or isinstance(connection, UnsetType):
            if answer.messages:
                raise NotFound(detail=answer.explanation)
            return ErrorPage([], None, pending=True)
        page_info = connection.pageInfo
        return ErrorPage([ErrorSummary.of(node) for node in connection.nodes or [] if node is not None],
                         page_info.endCursor if page_info.hasNextPage else None)

    async def error(self, project_path: str, error_id: str) -> tuple[ErrorDetails, StackTrace]:
        """One error's details and stack trace: one GraphQL query, plus Outpost's extras where it offers them."""
        if not self.server.graphql_error_tracking:
            raise Unsupported(detail=NO_ERROR_API)
        query = graphql(self.client, error_graphql.DETAIL_QUERY, {
            "fullPath": project_path, "id": error_graphql.DETAILED_ERROR_GID.format(id=error_id)})
        extras: ErrorDetail | None = None
        extra_trace: StackTrace | None = None
        if self.server.web_routes_take_tokens:
            answer, extras, extra_trace = await asyncio.gather(
                query, self.details(project_path, error_id), self.stack_trace(project_path, error_id))
        else:
            answer = await query
        found = error_graphql.collection(answer.data, project_path)
        if found.detailedError is None or isinstance(found.detailedError, UnsetType):
            raise NotFound(detail=answer.explanation or "The server has not fetched this error yet. Try again.")
        detail = ErrorDetails(found.detailedError, extras)
        trace_body = found.errorStackTrace if isinstance(found.errorStackTrace, SentryErrorStackTrace) else None
        trace = StackTrace(exceptions=error_graphql.stack_trace_exceptions(trace_body),
                           message=detail.error.message,
                           date_received=trace_body.dateReceived if trace_body is not None else None)
        if extra_trace is not None and extra_trace.exceptions:
            trace = extra_trace  # chained exceptions with in-app frames, where the server keeps them
        return detail, trace

    async def details(self, project_path: str, error_id: str) -> ErrorDetail:
        """Outpost's web route of an error's details (GitLab serves it to signed-in browsers only)."""
        response = await self.client.request("GET", self._web(project_path, f"/{quote(error_id)}/details.json"))
        return decode(response.content, ErrorDetailBody).error

    async def stack_trace(self, project_path: str, error_id: str) -> StackTrace:
        response = await self.client.request("GET", self._web(project_path, f"/{quote(error_id)}/stack_trace.json"))
        body = decode(response.content, StackTraceBody).error
        message = body.message if isinstance(body.message, str) else None
        if isinstance(body.exceptions, UnsetType):  # a server that only sends GitLab's flat entries
            frames = msgspec.convert(body.stack_trace_entries, list[StackFrame])
            return StackTrace(exceptions=error_graphql.one_exception([error_graphql.frame(
                filename=entry.filename, abs_path=entry.abs_path, function=entry.function, line=entry.lineNo,
                column=entry.colNo, context=entry.context) for entry in frames]),
                message=message, date_received=body.date_received)
        return StackTrace(exceptions=body.exceptions, message=message, date_received=body.date_received,
                          log_message=message if body.exceptions else None)

    async def update_status(self, project_path: str, error_id: str, status: str) -> bool:
        if not self.can_change_status:
            raise Unsupported(detail=NO_STATUS_API)
        response = await self.client.request("PUT", self._web(project_path, f"/{quote(error_id)}.json"),
                                             json={"status": status})
        return decode(response.content, ErrorUpdate).result.updated

    async def external_projects(self, project_path: str, *, api_host: str, token: str) -> list[ExternalProject]:
        if not self.server.web_routes_take_tokens:
            raise Unsupported(detail=PROJECTS_SESSION_ONLY)
        response = await self.client.request("GET", self._web(project_path, "/projects.json"),
                                             params={"api_host": api_host, "token": token})
        return decode(response.content, ExternalProjectList).projects

    # --- settings ----------------------------------------------------------------------------

    async def settings(self, project_id: int) -> TrackingSettings:
        try:
            response = await self.client.request("GET", f"/projects/{project_id}/error_tracking/settings")
        except NotFound:
            return NO_SETTINGS
        return decode(response.content, TrackingSettings)

    async def save_settings(self, project_id: int, *, active: bool, integrated: bool, api_url: str | None = None,
                            token: str | None = None, project_name: str | None = None,
                            allowed_origins: list[str] | None = None) -> TrackingSettings:
        """`allowed_origins` (an Outpost extension) is sent only when given."""
        body: dict[str, Any] = {"active": active, "integrated": integrated}
        if allowed_origins is not None:
            body["allowed_origins"] = allowed_origins
        if not integrated:
            body["api_url"] = api_url
            if token:
                body["token"] = token
            if project_name:
                body["project_name"] = project_name
        response = await self.client.request("PUT", f"/projects/{project_id}/error_tracking/settings", json=body)
        return decode(response.content, TrackingSettings)

    # --- client keys -------------------------------------------------------------------------

    async def client_keys(self, project_id: int) -> list[ClientKey]:
        return [key async for key in self.client.paginate_as(ClientKey,
                                                             f"/projects/{project_id}/error_tracking/client_keys")]

    async def create_client_key(self, project_id: int) -> ClientKey:
        response = await self.client.request("POST", f"/projects/{project_id}/error_tracking/client_keys")
        return decode(response.content, ClientKey)

    # --- retention (an Outpost extension; a GitLab answers 404) --------------------------------

    async def retention(self, project_id: int) -> Retention:
        response = await self.client.request("GET", f"/projects/{project_id}/error_tracking/retention")
        return decode(response.content, Retention)

    async def save_retention(self, project_id: int, limits: dict[str, int | None]) -> Retention:
        """Sets each named limit; None goes back to the instance default."""
        body = {name: "" if value is None else value for name, value in limits.items()}
        response = await self.client.request("PUT", f"/projects/{project_id}/error_tracking/retention", json=body)
        return decode(response.content, Retention)

    async def delete_client_key(self, project_id: int, key_id: int) -> None:
        await self.client.request("DELETE", f"/projects/{project_id}/error_tracking/client_keys/{key_id}")

"""GitLab's error tracking entities: the project's web JSON (`/<project>/-/error_tracking*`: the error list,
an error's details and its stack trace) and the REST API's settings and client keys.

An external Sentry feeds the same entities, so fields it fills keep its looser values (`Loose`).
"""

from __future__ import annotations

from typing import Any

from outpost_model.base import UNSET, Entity, Loose, Text, Time, UnsetType

# [[unix time, count], ...]: an error's events per hour (or per day for `frequency_30d`).
TimeSeries = list[list[int]]


class ErrorListItem(Entity):
    """ErrorTracking::ErrorEntity: one row of the error list."""

    id: str
    title: Text
    type: Text
    user_count: Loose
    count: Loose
    first_seen: Time
    last_seen: Time
    message: Text
    culprit: Text
    external_url: str
    project_id: Loose
    project_name: Text
    project_slug: Text
    short_id: Text
    status: Text
    frequency: TimeSeries


class PageCursor(Entity):
    cursor: str


class Pagination(Entity):
    """The links that have results: a cursor to the previous and to the next page, when there is one."""

    previous: PageCursor | UnsetType = UNSET
    next: PageCursor | UnsetType = UNSET


class ErrorList(Entity):
    """The list's body: a page of errors, its cursors, and the external Sentry's address (null when integrated)."""

    errors: list[ErrorListItem]
    pagination: Pagination
    external_url: Text


class ReleaseHealth(Entity):
    """Sessions of one release in one environment (an Outpost extension of the details)."""

    release: str
    environment: str
    sessions: int
    crashed: int
    errored: int
    abnormal: int
    # The share of sessions that did not crash, in percent with two decimals; null without sessions.
    crash_free_rate: float | None


class ErrorDetail(ErrorListItem):
    """ErrorTracking::DetailedErrorEntity: the list's fields and the error's releases, tags and history."""

    external_base_url: str
    first_release_last_commit: Text
    first_release_short_version: Text
    first_release_version: Text
    last_release_last_commit: Text
    last_release_short_version: Text
    last_release_version: Text
    gitlab_issue: Text
    integrated: bool
    exception_type: Text
    # level, logger, release, environment, platform, and the latest event's browser and url when it has them.
    tags: dict[str, Loose]
    frequency_30d: TimeSeries
    # Outpost's own, absent for an external Sentry's errors.
    level: Text | UnsetType = UNSET
    platform: Text | UnsetType = UNSET
    environment: Text | UnsetType = UNSET
    regressed: bool | UnsetType = UNSET
    release_health: list[ReleaseHealth] | UnsetType = UNSET


class ErrorDetailBody(Entity):
    error: ErrorDetail


class StackFrame(Entity):
    """GitLab's StacktraceBuilder entry: `context` is [[line number, code], ...]; `colNo` is 0 where the
    event has no column."""

    lineNo: int | None
    context: list[tuple[int, str]]
    filename: Text
    abs_path: Text
    function: Text
    colNo: int


class ExceptionFrame(Entity):
    """A frame of one exception in the chain, as the console shows it."""

    lineNo: Loose
    context: list[Any]
    filename: Text
    abs_path: Text
    function: Text
    colNo: Loose
    module: Text
    in_app: bool
    # Source maps: why a JavaScript frame stayed minified (integrated only).
    unmapped_reason: Text | UnsetType = UNSET


class ExceptionValue(Entity):
    type: Text
    value: Text
    module: Text
    frames: list[ExceptionFrame]
    # Integrated only: the mechanism's `handled`, and the frames as the SDK sent them before source maps
    # were applied (empty when nothing was mapped).
    handled: bool | None | UnsetType = UNSET
    raw_frames: list[ExceptionFrame] | UnsetType = UNSET


class StackTrace(Entity):
    """The latest event's stack trace. `stack_trace_entries` holds StackFrame values for the integrated
    backend and an external Sentry's frames as it sent them, hence untyped."""

    issue_id: str
    date_received: Time
    stack_trace_entries: list[Any]
    exceptions: list[ExceptionValue] | UnsetType = UNSET
    # The log message (logentry), also of a logged exception (integrated only).
    message: Text | UnsetType = UNSET


class StackTraceBody(Entity):
    error: StackTrace


class ErrorUpdateResult(Entity):
    updated: bool
    closed_issue_iid: int | None
    status: str


class ErrorUpdate(Entity):
    """The answer to an error's status change."""

    result: ErrorUpdateResult


class ExternalProject(Entity):
    """A project of an external Sentry, as GitLab lists them for the settings' project picker."""

    id: Loose
    name: Text
    status: Text
    slug: Text
    organization_name: Text
    organization_id: Loose
    organization_slug: Text


class ExternalProjectList(Entity):
    projects: list[ExternalProject]


class RejectedOrigins(Entity):
    count: int
    last_origin: Text
    last_at: Time


class TrackingSettings(Entity):
    """API::Entities::ErrorTracking::ProjectSetting, with Outpost's browser origin fields."""

    active: bool
    project_name: Text
    sentry_external_url: Text
    api_url: Text
    integrated: bool
    # Outpost's extensions, absent on GitLab: where browsers may send from, and what was refused.
    allowed_origins: list[str] | UnsetType = UNSET
    rejected_origins: RejectedOrigins | UnsetType = UNSET


class ClientKey(Entity):
    """API::Entities::ErrorTracking::ClientKey: exactly these four fields. The DSN and the public key are
    secrets: whoever holds them may send events, so the key's repr (and str, and rich's repr) names its id
    and state only, and a key printed or logged by mistake gives neither away."""

    id: int
    active: bool
    public_key: str
    sentry_dsn: str

    def __repr__(self) -> str:
        return f"ClientKey(id={self.id!r}, active={self.active!r})"

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        return [("id", self.id), ("active", self.active)]

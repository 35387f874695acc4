"""GitLab's GraphQL error tracking types (`app/graphql/types/error_tracking/`): `Project.sentryErrors`, a
`SentryErrorCollection`, with its errors, one error's details and its stack trace.

Type and field names are GitLab's schema's, and so is nullability: a `String!` is `str`, a `String` may be
null. A GraphQL answer holds only the fields its query selected, so each type declares the fields the
console's queries select (`console.core.api.error_graphql`); a field not selected is UNSET.
"""

from __future__ import annotations

from outpost_model.base import UNSET, Entity, Text, Time, UnsetType


class SentryErrorFrequency(Entity):
    """Events of the error in one hour."""

    count: int
    time: Time


class SentryErrorTags(Entity):
    level: Text
    logger: Text


class SentryError(Entity):
    """One row of the error list. `id` is the global ID, `sentryId` the error's own; `status` is a
    SentryErrorStatus: UNRESOLVED, RESOLVED, RESOLVED_IN_NEXT_RELEASE or IGNORED."""

    id: str
    sentryId: str
    title: str
    type: str
    count: int
    userCount: int
    # Time! in GitLab's schema; the console carries a list's null-able times into a held detail's.
    firstSeen: Time
    lastSeen: Time
    status: str
    culprit: str
    message: Text
    externalUrl: str
    frequency: list[SentryErrorFrequency]


class SentryDetailedError(SentryError):
    """One error's details: the list's fields, the Sentry instance's address, releases and tags."""

    externalBaseUrl: str
    firstReleaseShortVersion: Text
    lastReleaseShortVersion: Text
    tags: SentryErrorTags


class SentryErrorStackTraceContext(Entity):
    """A source line around a frame."""

    line: int
    code: str


class SentryErrorStackTraceEntry(Entity):
    """A frame: GitLab writes its line and column as strings."""

    fileName: Text
    function: Text
    line: Text
    col: Text
    traceContext: list[SentryErrorStackTraceContext] | None


class SentryErrorStackTrace(Entity):
    issueId: str
    dateReceived: str
    stackTraceEntries: list[SentryErrorStackTraceEntry]


class PageInfo(Entity):
    hasNextPage: bool
    endCursor: Text


class SentryErrorConnection(Entity):
    """A page of errors; GitLab's list and its items may be null where an error could not be read."""

    nodes: list[SentryError | None] | None
    pageInfo: PageInfo


class SentryErrorCollection(Entity):
    """`Project.sentryErrors`. A field is null when its read failed (GitLab says why in the answer's
    `errors`) and `errors` also while GitLab is still fetching from Sentry (its reactive cache)."""

    externalUrl: Text | UnsetType = UNSET
    errors: SentryErrorConnection | None | UnsetType = UNSET
    detailedError: SentryDetailedError | None | UnsetType = UNSET
    errorStackTrace: SentryErrorStackTrace | None | UnsetType = UNSET


class Project(Entity):
    """The project, as the error queries select it; `sentryErrors` is null when error tracking is not
    enabled or the caller may not read it."""

    sentryErrors: SentryErrorCollection | None


class Query(Entity):
    """The queries' `data`: `project` is null when it does not exist or the caller cannot see it."""

    project: Project | None

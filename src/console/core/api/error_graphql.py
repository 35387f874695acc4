"""Error tracking through GitLab's GraphQL API: ``Project.sentryErrors``, a ``SentryErrorCollection``.

The queries use only fields of GitLab's schema (``doc/api/graphql/reference/gitlab_schema.graphql``,
types in ``app/graphql/types/error_tracking/``), so the same text runs on GitLab 17 and 18 and on
Outpost. Answers are decoded into GitLab's types as outpost_model.error_graphql declares them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from console.core.api.errors import NotFound
from outpost_model import UnsetType
from outpost_model.error_graphql import Query, SentryErrorCollection, SentryErrorStackTrace
from outpost_model.error_tracking import ExceptionFrame, ExceptionValue

PAGE_SIZE = 20
DETAILED_ERROR_GID = "gid://gitlab/Gitlab::ErrorTracking::DetailedError/{id}"
# RESOLVED_IN_NEXT_RELEASE is Sentry's "resolved in next release": resolved, as far as the console goes.
STATUS_FROM_ENUM = {"UNRESOLVED": "unresolved", "RESOLVED": "resolved", "IGNORED": "ignored",
                    "RESOLVED_IN_NEXT_RELEASE": "resolved"}
ENUM_FROM_STATUS = {"unresolved": "UNRESOLVED", "resolved": "RESOLVED", "ignored": "IGNORED"}

LIST_QUERY = """
query sentryErrors($fullPath: ID!, $searchTerm: String, $sort: String, $first: Int, $after: String) {
  project(fullPath: $fullPath) {
    sentryErrors {
      externalUrl
      errors(searchTerm: $searchTerm, sort: $sort, first: $first, after: $after) {
        nodes {
          id sentryId title type count userCount firstSeen lastSeen status culprit message externalUrl
          frequency { time count }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}
"""

# Details and stack trace in one round trip.
DETAIL_QUERY = """
query sentryErrorDetails($fullPath: ID!, $id: GitlabErrorTrackingDetailedErrorID!) {
  project(fullPath: $fullPath) {
    sentryErrors {
      detailedError(id: $id) {
        id sentryId title type count userCount firstSeen lastSeen status culprit message
        externalUrl externalBaseUrl firstReleaseShortVersion lastReleaseShortVersion
        tags { level logger }
        frequency { time count }
      }
      errorStackTrace(id: $id) {
        issueId dateReceived
        stackTraceEntries { fileName function line col traceContext { line code } }
      }
    }
  }
}
"""


# GitLab's message for a project whose error tracking is off; the project itself exists.
ERROR_TRACKING_DISABLED = "Error Tracking is not enabled"


def collection(data: dict[str, Any], project_path: str) -> SentryErrorCollection:
    """The project's ``sentryErrors``, decoded; a ``null`` project is GitLab's answer for "not found or not
    allowed". msgspec.ValidationError when the answer does not have GitLab's types."""
    project = msgspec.convert(data, Query).project
    if project is None:
        raise NotFound(detail=f"Project {project_path} is not visible with this token")
    if project.sentryErrors is None:  # GitLab resolves it to null when error tracking is not enabled or not readable
        raise NotFound(detail=ERROR_TRACKING_DISABLED)
    return project.sentryErrors


def status_word(status: str) -> str:
    """A SentryErrorStatus as the console says it (and Outpost's web routes write it)."""
    return STATUS_FROM_ENUM.get(status, "unresolved")


def status_enum(word: str) -> str:
    """The console's status word as GitLab's SentryErrorStatus."""
    return ENUM_FROM_STATUS.get(word, "UNRESOLVED")


def frame(*, filename: str | None, function: str | None, line: Any, column: Any, context: list[Any],
          abs_path: str | None = None) -> ExceptionFrame:
    """A frame of GitLab's flat stack trace in the stack trace view's shape (none is marked in-app: GitLab's
    entries do not say, and the view then treats every frame as the application's)."""
    return ExceptionFrame(lineNo=_int_or_none(line), context=context, filename=filename, abs_path=abs_path,
                          function=function, colNo=_int_or_none(column), module=None, in_app=False)


def one_exception(frames: list[ExceptionFrame]) -> list[ExceptionValue]:
    """GitLab's flat frames as the one exception they belong to; none without frames."""
    return [ExceptionValue(type=None, value=None, module=None, frames=frames)] if frames else []


def stack_trace_exceptions(trace: SentryErrorStackTrace | None | UnsetType) -> list[ExceptionValue]:
    """GitLab's GraphQL ``stackTraceEntries`` as one exception of frames (the stack trace view's shape)."""
    if trace is None or isinstance(trace, UnsetType):
        return []
    return one_exception([frame(
        filename=entry.fileName, function=entry.function, line=entry.line, column=entry.col,
        context=[[context.line, context.code] for context in entry.traceContext or []])
        for entry in trace.stackTraceEntries])


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None

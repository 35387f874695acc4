"""Error tracking through GitLab's GraphQL API: ``Project.sentryErrors``, a ``SentryErrorCollection``.

The queries use only fields of GitLab's schema (``doc/api/graphql/reference/gitlab_schema.graphql``,
types in ``app/graphql/types/error_tracking/``), so the same text runs on GitLab 17 and 18 and on
Outpost. Answers are turned into the console's own records, shaped like the web JSON routes' bodies
so that every view reads one shape.
"""

from __future__ import annotations

from typing import Any

from console.core.api.errors import NotFound
from outpost_model.error_tracking import ExceptionFrame, ExceptionValue

PAGE_SIZE = 20
DETAILED_ERROR_GID = "gid://gitlab/Gitlab::ErrorTracking::DetailedError/{id}"
# RESOLVED_IN_NEXT_RELEASE is Sentry's "resolved in next release": resolved, as far as the console goes.
STATUS_FROM_ENUM = {"UNRESOLVED": "unresolved", "RESOLVED": "resolved", "IGNORED": "ignored",
                    "RESOLVED_IN_NEXT_RELEASE": "resolved"}

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


def collection(data: dict[str, Any], project_path: str) -> dict[str, Any]:
    """The project's ``sentryErrors``; a ``null`` project is GitLab's answer for "not found or not allowed"."""
    project = data.get("project")
    if project is None:
        raise NotFound(detail=f"Project {project_path} is not visible with this token")
    found = project.get("sentryErrors")
    if found is None:  # GitLab resolves it to null when error tracking is not enabled or not readable
        raise NotFound(detail=ERROR_TRACKING_DISABLED)
    return found


def error_body(node: dict[str, Any]) -> dict[str, Any]:
    """A ``SentryError`` or ``SentryDetailedError`` in the web routes' snake_case shape."""
    body = {
        "id": str(node.get("sentryId") or ""),
        "title": node.get("title") or "",
        "type": node.get("type"),
        "count": node.get("count"),
        "user_count": node.get("userCount"),
        "first_seen": node.get("firstSeen"),
        "last_seen": node.get("lastSeen"),
        "status": STATUS_FROM_ENUM.get(str(node.get("status") or ""), "unresolved"),
        "culprit": node.get("culprit"),
        "message": node.get("message"),
        "external_url": node.get("externalUrl"),
        "frequency": [[point.get("time"), point.get("count")] for point in node.get("frequency") or []],
    }
    if "tags" in node:
        body.update(tags=dict(node.get("tags") or {}), external_base_url=node.get("externalBaseUrl"),
                    first_release_short_version=node.get("firstReleaseShortVersion"),
                    last_release_short_version=node.get("lastReleaseShortVersion"))
    return body


def frame(*, filename: str | None, function: str | None, line: Any, column: Any, context: list[Any],
          abs_path: str | None = None) -> ExceptionFrame:
    """A frame of GitLab's flat stack trace in the stack trace view's shape (none is marked in-app: GitLab's
    entries do not say, and the view then treats every frame as the application's)."""
    return ExceptionFrame(lineNo=_int_or_none(line), context=context, filename=filename, abs_path=abs_path,
                          function=function, colNo=_int_or_none(column), module=None, in_app=False)


def one_exception(frames: list[ExceptionFrame]) -> list[ExceptionValue]:
    """GitLab's flat frames as the one exception they belong to; none without frames."""
    return [ExceptionValue(type=None, value=None, module=None, frames=frames)] if frames else []


def stack_trace_exceptions(trace: dict[str, Any] | None) -> list[ExceptionValue]:
    """GitLab's GraphQL ``stackTraceEntries`` as one exception of frames (the stack trace view's shape)."""
    if not trace:
        return []
    return one_exception([frame(
        filename=entry.get("fileName"), function=entry.get("function"), line=entry.get("line"),
        column=entry.get("col"),
        context=[[context.get("line"), context.get("code")] for context in entry.get("traceContext") or []])
        for entry in trace.get("stackTraceEntries") or []])


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None

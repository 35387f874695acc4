"""Project.sentryErrors, Project.sentryDetailedError and GitLab's Sentry* types.

Every read goes through `error_tracking.web.reading`, the path the web JSON endpoints use, so both
backends (integrated store, external Sentry) sit behind the same fields and an error reads the same
here as in `…/details.json`. As on GitLab, the collection needs Reporter access (a lower role reads
`sentryErrors: null`), and a failed read leaves its field null; the GitLab message of the failure
(`Error Tracking is not enabled`, `Sentry response status code: 500`, ...) is reported in `errors`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import msgspec
from ariadne import EnumType, ObjectType
from graphql import GraphQLError, GraphQLResolveInfo

from outpost_model.error_tracking import ErrorDetail, ErrorListItem
from outpost_server.accounts.models import Project
from outpost_server.error_tracking import settings
from outpost_server.error_tracking.access import may_read
from outpost_server.error_tracking.read import reading
from outpost_server.graphql import global_ids
from outpost_server.graphql.context import GraphContext, context_of

MAX_PAGE_SIZE = 100

project_type = ObjectType("Project")
collection_type = ObjectType("SentryErrorCollection")
status_enum = EnumType("SentryErrorStatus", {
    "RESOLVED": "resolved", "RESOLVED_IN_NEXT_RELEASE": "resolvedInNextRelease",
    "UNRESOLVED": "unresolved", "IGNORED": "ignored",
})


@dataclass(frozen=True)
class Collection:
    """The value behind SentryErrorCollection: a project the caller may read errors of."""

    context: GraphContext
    project: Project

    def source(self) -> reading.ErrorSource:
        context = self.context
        try:
            return reading.open_source(context.session, project=self.project, secret_key=context.secret_key,
                                       external_timeout=context.external_timeout, base_url=context.base_url)
        except reading.ReadFailure as failure:
            raise GraphQLError(failure.message) from None


def _read(call, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except reading.ReadFailure as failure:
        raise GraphQLError(failure.message) from None


@project_type.field("sentryErrors")
def resolve_sentry_errors(project: Project, info: GraphQLResolveInfo) -> Collection | None:
    context = context_of(info)
    return Collection(context, project) if may_read(context.session, context.user, project) else None


@project_type.field("sentryDetailedError")
def resolve_project_detailed_error(project: Project, info: GraphQLResolveInfo, id: str) -> dict[str, Any] | None:  # noqa: A002
    collection = resolve_sentry_errors(project, info)
    return None if collection is None else resolve_detailed_error(collection, info, id)


@collection_type.field("externalUrl")
def resolve_external_url(collection: Collection, _info: GraphQLResolveInfo) -> str | None:
    setting = settings.get_setting(collection.context.session, project=collection.project)
    return setting.sentry_external_url if setting is not None else None


@collection_type.field("errors")
def resolve_errors(collection: Collection, _info: GraphQLResolveInfo, after: str | None = None,
                   first: int | None = None, last: int | None = None, searchTerm: str | None = None,  # noqa: N803
                   sort: str | None = None, **_ignored: Any) -> dict[str, Any]:
    """One page, as GitLab's externally paginated array: `after` is the backend's cursor (the
    previous page's `endCursor` or `startCursor`); `before` is accepted and ignored, as on GitLab."""
    limits = [value for value in (first, last) if value is not None]
    limit = max(1, min([reading.PAGE_SIZE if not limits else min(limits), MAX_PAGE_SIZE]))
    page = _read(reading.list_page, collection.source(), search_term=searchTerm or "", sort=sort or "last_seen",
                 cursor=after or None, limit=limit, viewer_id=user.id if (user := collection.context.user) else None)
    nodes = [sentry_error(entity) for entity in page.errors]
    start = page.pagination.previous.cursor if page.pagination.previous else None
    end = page.pagination.next.cursor if page.pagination.next else None
    return {
        "nodes": nodes,
        "edges": [{"cursor": _position_cursor(index), "node": node} for index, node in enumerate(nodes, start=1)],
        "pageInfo": {"startCursor": start, "endCursor": end, "hasPreviousPage": start is not None,
                     "hasNextPage": end is not None},
    }


def _position_cursor(position: int) -> str:
    """graphql-ruby's array cursor: the item's 1-based position, base64-encoded."""
    return base64.b64encode(str(position).encode()).decode()


@collection_type.field("detailedError")
def resolve_detailed_error(collection: Collection, _info: GraphQLResolveInfo, id: str) -> dict[str, Any]:  # noqa: A002
    return detailed_error(_read(reading.error_details, collection.source(), id))


@collection_type.field("errorStackTrace")
def resolve_stack_trace(collection: Collection, _info: GraphQLResolveInfo, id: str) -> dict[str, Any]:  # noqa: A002
    trace = _read(reading.error_stack_trace, collection.source(), id)
    # The integrated backend's frames are StackFrame entities, an external Sentry's the dicts it sent.
    frames = [msgspec.structs.asdict(frame) if isinstance(frame, msgspec.Struct) else frame
              for frame in trace.stack_trace_entries]
    return {
        "dateReceived": trace.date_received,
        "issueId": trace.issue_id,
        "stackTraceEntries": [_stack_entry(frame) for frame in frames if isinstance(frame, dict)],
    }


# --- GitLab's entities as GraphQL objects -------------------------------------------------------


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    """Sentry sends counts as strings ("count": "42")."""
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def sentry_error(entity: ErrorListItem) -> dict[str, Any]:
    """SentryError from GitLab's ErrorEntity (the same dict `error_tracking.json` lists)."""
    return _common(entity, global_ids.ERROR)


def detailed_error(entity: ErrorDetail) -> dict[str, Any]:
    """SentryDetailedError from GitLab's DetailedErrorEntity (the body of `details.json`)."""
    tags = entity.tags
    return _common(entity, global_ids.DETAILED_ERROR) | {
        "externalBaseUrl": entity.external_base_url,
        "firstReleaseLastCommit": entity.first_release_last_commit,
        "firstReleaseShortVersion": entity.first_release_short_version,
        "firstReleaseVersion": entity.first_release_version,
        "lastReleaseLastCommit": entity.last_release_last_commit,
        "lastReleaseShortVersion": entity.last_release_short_version,
        "lastReleaseVersion": entity.last_release_version,
        # GitLab links a release to a commit of the project's repository; Outpost has no repositories.
        "gitlabCommit": None,
        "gitlabCommitPath": None,
        "gitlabIssuePath": entity.gitlab_issue,
        "integrated": entity.integrated,
        "tags": {"level": _text(tags.get("level")), "logger": _text(tags.get("logger"))},
    }


def _common(entity: ErrorListItem, model: str) -> dict[str, Any]:
    error_id = str(entity.id)
    return {
        "id": global_ids.build(model, error_id),
        "sentryId": error_id,
        "count": _int(entity.count),
        "userCount": _int(entity.user_count),
        "culprit": entity.culprit or "",
        "externalUrl": entity.external_url,
        "firstSeen": entity.first_seen,
        "lastSeen": entity.last_seen,
        "message": entity.message,
        "sentryProjectId": global_ids.build(global_ids.PROJECT, entity.project_id),
        "sentryProjectName": entity.project_name,
        "sentryProjectSlug": entity.project_slug,
        # The integrated store has no short ids; its error id stands in.
        "shortId": entity.short_id or error_id,
        "status": entity.status,
        "title": entity.title,
        "type": entity.type,
        "frequency": [{"time": pair[0], "count": pair[1]} for pair in entity.frequency or []
                      if isinstance(pair, (list, tuple)) and len(pair) == 2],
    }


def _stack_entry(frame: dict[str, Any]) -> dict[str, Any]:
    """GitLab's reading of a frame: Sentry's `lineNo`, `colNo`, `filename`, `function`, `context`."""
    context = frame.get("context")
    return {
        "function": _text(frame.get("function")),
        "col": _text(frame.get("colNo")),
        "line": _text(frame.get("lineNo")),
        "fileName": _text(frame.get("filename")),
        "traceContext": None if context is None else [
            {"line": pair[0], "code": pair[1]} for pair in context
            if isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], int)
            and isinstance(pair[1], str)],
    }

"""How what the server says about errors is written into the console's store (console.core.store); no Qt here.

One error is held twice over, as the list knows it (:data:`SUMMARY`: an :class:`ErrorSummary`) and as its detail
knows it (:data:`DETAIL`: an :class:`ErrorDetails`), and the two must never disagree: whatever answer is newer
about the status and counts (a list or the watcher's poll, a detail fetch, the answer to a Resolve) is carried
into both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import msgspec

from console.core.api.error_graphql import status_enum
from console.core.api.error_tracking import ErrorDetails, ErrorSummary
from console.core.store import Kind, Store
from outpost_model import UNSET

SUMMARY: Kind[ErrorSummary] = Kind("error")
DETAIL: Kind[ErrorDetails] = Kind("error_detail")


def summary(store: Store, project: str, error_id: str) -> ErrorSummary | None:
    return store.get(SUMMARY, project, error_id)


def detail(store: Store, project: str, error_id: str) -> ErrorDetails | None:
    return store.get(DETAIL, project, error_id)


def write_summaries(store: Store, project: str, errors: Iterable[ErrorSummary]) -> list[ErrorSummary]:
    """A list's (or the watcher's) errors; a held detail takes their status and counts. Returns them as held."""
    # The list's reads carry no assignee (GitLab's shapes have none): the one held stays until read again.
    listed = [replace(error, assignee=known.assignee) if error.assignee is None and (known := summary(
        store, project, error.id)) is not None else error for error in errors]
    store.put_many(SUMMARY, project, {error.id: error for error in listed})
    details = {}
    for error in listed:
        held = detail(store, project, error.id)
        if held is not None:
            details[error.id] = with_counts(with_status(held, error.status), count=error.count,
                                            user_count=error.user_count, last_seen=error.last_seen)
    store.put_many(DETAIL, project, details)
    return listed


def write_detail(store: Store, project: str, body: ErrorDetails) -> None:
    """A detail fetch; the list's summary of the error takes its status and counts."""
    error_id = body.id
    store.put(DETAIL, project, error_id, _merged(detail(store, project, error_id), body))
    held = summary(store, project, error_id)
    if held is not None:
        store.put(SUMMARY, project, error_id, replace(
            held, status=body.status, count=body.error.count, user_count=body.error.userCount,
            last_seen=body.error.lastSeen or held.last_seen))


def with_status(held: ErrorDetails, status: str) -> ErrorDetails:
    """``held`` with the console's status word (as GitLab's SentryErrorStatus)."""
    return replace(held, error=msgspec.structs.replace(held.error, status=status_enum(status)))


def with_counts(held: ErrorDetails, *, count: int, user_count: int, last_seen: str | None) -> ErrorDetails:
    return replace(held, error=msgspec.structs.replace(held.error, count=count, userCount=user_count,
                                                         lastSeen=last_seen))


def _merged(held: ErrorDetails | None, body: ErrorDetails) -> ErrorDetails:
    """A newer read over what is held: what it says wins; what only the held one says (Outpost's extras, or an
    extra the newer read left out) stays."""
    if held is None or held.extras is None:
        return body
    if body.extras is None:
        return replace(body, extras=held.extras)
    kept = {name: getattr(held.extras, name) for name in body.extras.__struct_fields__
            if getattr(body.extras, name) is UNSET}
    return replace(body, extras=msgspec.structs.replace(body.extras, **kept)) if kept else body


def write_status(store: Store, project: str, error_id: str, status: str) -> None:
    """The server accepted a status change (Resolve, Ignore, Unresolve)."""
    held = summary(store, project, error_id)
    if held is not None:
        store.put(SUMMARY, project, error_id, replace(held, status=status))
    held_detail = detail(store, project, error_id)
    if held_detail is not None:
        store.put(DETAIL, project, error_id, with_status(held_detail, status))


def write_triage(store: Store, project: str, ids: Iterable[str], *, status: str | None = None,
                 assignees: dict[str, str | None] | None = None) -> None:
    """What a triage changed (a status, assignees) for every affected error in one change: their rows
    update together."""
    summaries, details = {}, {}
    for error_id in ids:
        held = summary(store, project, error_id)
        assignee = (assignees or {}).get(error_id, held.assignee if held is not None else None)
        if held is not None:
            summaries[error_id] = replace(held, status=status or held.status, assignee=assignee)
        held_detail = detail(store, project, error_id)
        if held_detail is not None and status is not None:
            details[error_id] = with_status(held_detail, status)
    store.put_many(SUMMARY, project, summaries)
    store.put_many(DETAIL, project, details)

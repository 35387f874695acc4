"""How what the server says about errors is written into the console's store (console.core.store); no Qt here.

One error is held twice over, as the list knows it (:data:`SUMMARY`: an :class:`ErrorSummary`) and as its detail
knows it (:data:`DETAIL`: the details' dict), and the two must never disagree: whatever answer is newer
about the status and counts (a list or the watcher's poll, a detail fetch, the answer to a Resolve) is carried
into both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from console.core.api.error_tracking import ErrorSummary
from console.core.store import Kind, Store

SUMMARY: Kind[ErrorSummary] = Kind("error")
DETAIL: Kind[dict[str, Any]] = Kind("error_detail")
# What a summary and a detail both say, and so carry over from one to the other.
_SHARED = ("status", "count", "user_count", "last_seen")


def summary(store: Store, project: str, error_id: str) -> ErrorSummary | None:
    return store.get(SUMMARY, project, error_id)


def detail(store: Store, project: str, error_id: str) -> dict[str, Any] | None:
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
            details[error.id] = {**held, **{name: getattr(error, name) for name in _SHARED}}
    store.put_many(DETAIL, project, details)
    return listed


def write_detail(store: Store, project: str, body: dict[str, Any]) -> None:
    """A detail fetch; the list's summary of the error takes its status and counts."""
    error_id = str(body["id"])
    # Merged: the watcher reads only details.json, the open detail also the GraphQL fields.
    store.put(DETAIL, project, error_id, {**(detail(store, project, error_id) or {}), **body})
    held = summary(store, project, error_id)
    if held is not None:
        store.put(SUMMARY, project, error_id, replace(
            held, status=str(body.get("status") or held.status), count=int(body.get("count") or 0),
            user_count=int(body.get("user_count") or 0), last_seen=body.get("last_seen") or held.last_seen))


def write_status(store: Store, project: str, error_id: str, status: str) -> None:
    """The server accepted a status change (Resolve, Ignore, Unresolve)."""
    held = summary(store, project, error_id)
    if held is not None:
        store.put(SUMMARY, project, error_id, replace(held, status=status))
    held_detail = detail(store, project, error_id)
    if held_detail is not None:
        store.put(DETAIL, project, error_id, {**held_detail, "status": status})


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
            details[error_id] = {**held_detail, "status": status}
    store.put_many(SUMMARY, project, summaries)
    store.put_many(DETAIL, project, details)

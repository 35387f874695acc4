"""A project's errors: each list read (per query), each error as the list knows it and as its detail knows it;
no Qt here.

Every read of a project's list goes through :meth:`ErrorsRepository.fetch_list`, whoever reads: the error list
(choosing the project, F5, a filter, the interval's poll, the page shown again) and the look for news
(console.core.error_news). What a read found is held per query, in the server's order, and its change tells the
list showing that query to show it, before anyone announces what is news in it: a notification never names an
error the list on screen lacks. The errors themselves are written by console.core.errors.records' rules (a list
and an open detail never disagree); the Events section's read of an error (Sentry's issue) carries its newer
counts here too (:meth:`take_counts`), so its "event 40 of 40" and the row's count are one figure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from console.core.api.error_tracking import ErrorDetails, ErrorPage, ErrorSummary
from console.core.errors import records
from console.core.repositories.base import Repository
from console.core.store import Kind

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi

SUMMARY, DETAIL = records.SUMMARY, records.DETAIL


@dataclass(frozen=True)
class ListQuery:
    """What a list read asks for; :data:`NEWS` is the look for news's (and the list's unfiltered default)."""

    status: str = "unresolved"
    sort: str = "last_seen"
    search_term: str = ""

    @property
    def key(self) -> str:
        return f"{self.status}\n{self.sort}\n{self.search_term}"

    def arguments(self) -> dict[str, str]:
        return {"status": self.status, "sort": self.sort, "search_term": self.search_term}


NEWS = ListQuery()


@dataclass(frozen=True)
class ListRead:
    """The first page a read of one query found: its errors' ids in order, and where the next page starts."""

    ids: tuple[str, ...]
    next_cursor: str | None
    pending: bool
    read_at: float  # every read is told, even one that found what the previous did: a view may wait for it


# The change a list read tells; its ids are the queries' keys.
LIST_READS: Kind[ListRead] = Kind("error_list")


class ErrorsRepository(Repository):
    kind = LIST_READS

    # reading -------------------------------------------------------------------------------------------------
    def summary(self, project: str, error_id: str) -> ErrorSummary | None:
        return records.summary(self.store, project, error_id)

    def detail(self, project: str, error_id: str) -> ErrorDetails | None:
        return records.detail(self.store, project, error_id)

    def listed(self, project: str, query: ListQuery) -> ErrorPage | None:
        """The first page the latest read of ``query`` found, each error as held now; None when not read."""
        held = self.store.get(LIST_READS, project, query.key)
        if held is None:
            return None
        errors = [error for error_id in held.ids if (error := self.summary(project, error_id)) is not None]
        return ErrorPage(errors, held.next_cursor, pending=held.pending)

    def is_list_stale(self, project: str, query: ListQuery, older_than: float | None = None) -> bool:
        key = (project, query.key)
        return self.is_stale(key) if older_than is None else self.is_stale(key, older_than)

    # reads ---------------------------------------------------------------------------------------------------
    async def fetch_list(self, api: ErrorTrackingApi, project: str, query: ListQuery,
                         cursor: str | None = None) -> ErrorPage:
        """One page of the list; a first page is held as the query's latest read, and told."""
        current = self.scope_guard()
        page = await api.list_errors(project, cursor=cursor, **query.arguments())
        if current():
            self.hold(project, query, page, first=cursor is None)
        return page

    def hold(self, project: str, query: ListQuery, page: ErrorPage, *, first: bool = True) -> ErrorPage:
        """What a read of ``query`` found; returns it with each error as held (an assignee kept, say)."""
        listed = records.write_summaries(self.store, project, page.errors)
        page = replace(page, errors=listed)
        if first:
            self.read_now((project, query.key))
            self.store.put(LIST_READS, project, query.key, ListRead(tuple(error.id for error in listed),
                                                                   page.next_cursor, page.pending, self._clock()))
        return page

    # what other reads say of an error ---------------------------------------------------------------------------
    def take_counts(self, project: str, error_id: str, *, count: int, user_count: int,
                    last_seen: str | None) -> None:
        """Newer counts of one error from another read (Sentry's issue, read for the Events section): the row and
        the detail take them. Counts only grow, so an older read never takes a newer count back."""
        held = self.summary(project, error_id)
        if held is not None and count > held.count:
            self.store.put(SUMMARY, project, error_id, replace(
                held, count=count, user_count=max(user_count, held.user_count), last_seen=last_seen or held.last_seen))
        detail = self.detail(project, error_id)
        if detail is not None and count > detail.error.count:
            self.store.put(DETAIL, project, error_id, records.with_counts(
                detail, count=count, user_count=max(user_count, detail.error.userCount),
                last_seen=last_seen or detail.error.lastSeen))

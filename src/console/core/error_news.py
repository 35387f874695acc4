"""News of a project's errors (a new error, a regression), from every look at them, whoever looks; no Qt.

Two things look: the watcher, at its interval, at the projects it watches; and the error list, each time it
reads the list of the project open in Error tracking (choosing the project, F5, a filter, the auto-refresh).
Both go through :meth:`ErrorNews.look`, which reads the project's unresolved errors, most recently seen
first, through the errors repository (console.core.repositories.errors), so the list showing that read has its
rows before anything in it is announced, and announces what is news since the previous look, whichever of the
two made it. So a new user hears of new errors and regressions without switching watching on, and a change seen
by both is news once. The memory between looks is console.core.error_watch's, one per connection: the store's
"everything dropped" (a connection change) empties it. The first look at a project is not news: it is what
was there.

A look takes the error list's answer only where the list shows "unresolved, most recently seen first"; else it
reads that itself: a filtered, searched or otherwise sorted list does not tell what is new since a look.
Looks at one project take turns, so none works from a list older than the one before it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from console.core.error_watch import ErrorWatch
from console.core.repositories.errors import NEWS, ErrorsRepository
from console.core.store import EVERYTHING, Change

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorPage, ErrorSummary, ErrorTrackingApi

Announce = Callable[[str, str, object], object]  # (title, message, target): AppContext.announce


class ErrorNews:
    """The one memory of each project's errors between looks, and the looks that announce what changed."""

    def __init__(self, errors: ErrorsRepository, announce: Announce) -> None:
        self.watch = ErrorWatch()
        self._errors = errors
        self._store = store = errors.store
        self._announce = announce
        self._turns: dict[str, asyncio.Lock] = {}
        store.subscribe(self._store_changed)

    def _store_changed(self, change: Change) -> None:
        if change.kind == EVERYTHING:  # another connection: every project's next look is a first look again
            self.watch.clear()
            self._turns.clear()

    def has_looked(self, path: str) -> bool:
        return not self.watch.is_first_look(path)

    def is_settled(self, path: str) -> bool:
        """Whether ``path`` was looked at and no look at it is under way."""
        turn = self._turns.get(path)
        return self.has_looked(path) and turn is not None and not turn.locked()

    async def look(self, api: ErrorTrackingApi, path: str, page: ErrorPage | None = None) -> None:
        """Read the project's unresolved errors (or take ``page``, a read of them just made) and announce what
        is news since the previous look."""
        turn = self._turns.setdefault(path, asyncio.Lock())
        async with turn:
            scope = self._store.scope
            await self._look(api, path, page, lambda: self._store.scope == scope)

    async def _look(self, api: ErrorTrackingApi, path: str, page: ErrorPage | None,
                    current: Callable[[], bool]) -> None:
        if page is None:
            page = await self._errors.fetch_list(api, path, NEWS)  # held and told before anything is announced
        if not current():
            return  # the connection changed meanwhile: this look is about another server or user
        listed, more = page.errors, page.next_cursor is not None

        async def regressed(error: ErrorSummary) -> bool:
            # Only Outpost says which errors regressed; GitLab's API has no such flag. The details are read for
            # the flag alone: they are not the open detail's (which merges them with GraphQL's fields), and
            # writing them would make it read itself again where the two disagree (an external Sentry's counts).
            if not api.server.is_outpost:
                return False
            return (await api.details(path, error.id)).regressed is True

        if self.watch.is_first_look(path):
            # The first look records what is already there, including which errors already regressed.
            flags = await asyncio.gather(*(regressed(error) for error in listed))
            if current():
                self.watch.first_look(path, listed, (error.id for error, flag in zip(listed, flags, strict=True)
                                                     if flag))
            return
        for candidate in self.watch.next_look(path, listed, complete=not more):
            if candidate.new or await regressed(candidate.error):
                if not current():
                    return
                error = candidate.error
                if not candidate.new:  # a new error stays a candidate: it may be resolved and regress later
                    self.watch.reported(path, error.id)
                self._announce(f"{candidate.kind} in {path}", error.title, ("errors", (path, error.id)))

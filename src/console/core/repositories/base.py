"""What every repository shares: its place in the store, the age of what it read, and its change events.

A repository holds typed values in the console's store (console.core.store) under its own kind, so the
store's one change stream tells every view what changed, as Anki's ``OpChanges`` does, and a connection
change (:meth:`Store.begin`) drops them with everything else. Freshness is kept beside them: when each read
of a project (or of one query of it) landed, so a view shown again can ask whether what it shows is stale
and read again only then. A read that lands after the connection changed writes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any

from console.core.store import EVERYTHING, Change, Kind, Store

# A view shown again reads once more when what it shows was read longer ago than this: any longer and
# switching pages shows what changed meanwhile; any shorter and the read that brought it on screen is
# simply repeated.
SHOWN_AGAIN_AFTER = 1.0


class Repository:
    """One kind's values in the store, how fresh each read of them is, and its change events."""

    kind: Kind[Any]  # the store's kind of its values (each subclass declares its own, typed)
    kinds: tuple[Kind[Any], ...] = ()  # every kind it holds, when more than ``kind``

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self._clock = clock
        self._read_at: dict[Hashable, float] = {}
        store.subscribe(self._store_changed)

    def _store_changed(self, change: Change) -> None:
        if change.kind == EVERYTHING:  # another connection: nothing held was read from it
            self._read_at.clear()

    # freshness -------------------------------------------------------------------------------------------
    def read_now(self, key: Hashable) -> None:
        """A read of ``key`` (a project, or a project and a query) landed just now."""
        self._read_at[key] = self._clock()

    def age(self, key: Hashable) -> float | None:
        """Seconds since ``key`` was last read; None when it never was on this connection."""
        read_at = self._read_at.get(key)
        return None if read_at is None else self._clock() - read_at

    def is_stale(self, key: Hashable, older_than: float = SHOWN_AGAIN_AFTER) -> bool:
        age = self.age(key)
        return age is None or age > older_than

    def mark_stale(self, key: Hashable) -> None:
        """What is held for ``key`` is known to be out of date: the next view to show it reads it again."""
        self._read_at.pop(key, None)

    # the connection ------------------------------------------------------------------------------------------
    def scope_guard(self) -> Callable[[], bool]:
        """Whether the connection a read started on is still the current one (a late answer writes nothing)."""
        scope = self.store.scope
        return lambda: self.store.scope == scope

    # change events --------------------------------------------------------------------------------------------
    def touched_by(self, change: Change, project: str | None = None) -> bool:
        """Whether ``change`` concerns one of this repository's kinds (in ``project``; None: any)."""
        return any(change.touches(kind, project) for kind in self.kinds or (self.kind,))

    def subscribe_view(self, view: Any, listener: Callable[[Change], object], project: Callable[[], str | None]
                       ) -> None:
        """Call ``listener`` for this kind's changes in the project ``project()`` names now, while ``view`` (a
        QObject) exists; a connection change counts as a change of every project."""
        def heard(change: Change) -> None:
            shown = project()
            if shown is not None and (change.kind == EVERYTHING or self.touched_by(change, shown)):
                listener(change)

        self.store.subscribe_view(view, heard)

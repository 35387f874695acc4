"""The base every feature tab extends, so each tab does the common things the same way:

- its API: ``self.api`` is the tab's typed API bound to the current connection (it raises
  :class:`NotConnected` when there is none, which the runner reports like any API failure);
- its work: ``self.run`` runs a coroutine on the event loop through :meth:`AppContext.run`, with the
  busy indicator, status line and failure reporting (``quiet=True`` for long-lived watchers);
- late answers: a :class:`Generation` per kind of request; an answer is used only while its stamp is
  current. ``self.connection`` advances on every connection change, so nothing from an old
  connection lands in the new one;
- failures: every message a person reads comes from ``USER_MESSAGES`` in :mod:`console.api.errors`
  (``ApiError.message``); tabs only add where to show it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

from PySide6.QtWidgets import QWidget

from console.api.client import ApiClient
from console.api.errors import NotConnected
from console.context import AppContext

ApiT = TypeVar("ApiT")
T = TypeVar("T")


class Generation:
    """Numbers the requests of one kind; an answer counts only while no newer request has started."""

    def __init__(self) -> None:
        self._current = 0

    def advance(self) -> int:
        """Start a new request (making every earlier stamp stale) and return its stamp."""
        self._current += 1
        return self._current

    @property
    def stamp(self) -> int:
        return self._current

    def is_current(self, stamp: int) -> bool:
        return stamp == self._current


class ConsoleTab(QWidget, Generic[ApiT]):
    """A feature tab bound to the application's connection. Subclasses set ``api_factory``."""

    api_factory: Callable[[ApiClient], ApiT]

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.connection = Generation()
        # Connected before any subclass slot, so the stamp is fresh when their handlers run.
        context.connection_changed.connect(self.connection.advance)

    @property
    def api(self) -> ApiT:
        client = self.context.client
        if client is None:
            raise NotConnected()
        return self.api_factory(client)

    def run(self, work: Coroutine[Any, Any, T], *, description: str, on_success: Callable[[T], None] | None = None,
            quiet: bool = False) -> asyncio.Task[None] | None:
        """Run ``work`` for this tab; without a connection (a dialog closing after a disconnect) nothing runs."""
        if not self.context.is_connected:
            work.close()
            return None
        return self.context.run(self.explain(work), description=description, on_success=on_success, quiet=quiet)

    async def explain(self, work: Coroutine[Any, Any, T]) -> T:
        """Where a tab can tell more about a failure than the message table (a chosen item gone), it says it here."""
        return await work

"""The base every feature tab extends, so each tab does the common things the same way:

- its API: ``self.api`` is the tab's typed API bound to the current connection (it raises
  :class:`NotConnected` when there is none, which an operation reports like any API failure);
- its work: ``Op(self, work, description=…)`` (:mod:`console.operations`) runs it with the busy indicator,
  status line and failure reporting; a tab is the operation's owner, so without a connection nothing runs
  and an answer from an earlier connection is stale (``self.connection`` advances on every change);
- late answers: a :class:`~console.operations.Token` per kind of request and ``Op.stale_when``;
- what the window asks of it: its actions, refresh, find, delete and copy (:class:`FeatureWidget`);
- failures: every message a person reads comes from ``USER_MESSAGES`` in :mod:`console.core.api.errors`
  (``ApiError.message``); tabs only add where to show it (:meth:`ConsoleTab.explain`). An operation's failure
  stays in the tab's message bar, at its top, until dismissed or the operation runs again.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

from PySide6.QtWidgets import QBoxLayout, QWidget

from console.context import AppContext
from console.core.api.client import ApiClient
from console.core.api.errors import NotConnected
from console.core.operations import Token
from console.feature import FeatureWidget
from console.message_bar import MessageBar

ApiT = TypeVar("ApiT")
T = TypeVar("T")


class ConsoleTab(FeatureWidget, Generic[ApiT]):
    """A feature tab bound to the application's connection. Subclasses set ``api_factory``."""

    api_factory: Callable[[ApiClient], ApiT]

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._connection = Token()
        self.message_bar = MessageBar()  # put at the top of the tab's layout when first needed
        # Connected before any subclass slot, so the stamp is fresh when their handlers run.
        context.connection_changed.connect(self._connection.advance)
        context.connection_changed.connect(self.message_bar.dismiss)  # failures about another server

    def show_failure(self, action: str, text: str) -> None:
        layout = self.layout()
        if self.message_bar.parent() is None and isinstance(layout, QBoxLayout):
            layout.insertWidget(0, self.message_bar)
        self.message_bar.show_failure(action, text)

    def report_failure(self, action: str, title: str, message: str) -> None:
        """A failure the tab finds itself (a file it cannot read): shown and kept as an operation's is."""
        self.show_failure(action, f"{title}: {message}")
        self.context.report_error(title, message, shown_in_place=True)

    def clear_failure(self, action: str) -> None:
        self.message_bar.clear_failure(action)

    @property
    def connection(self) -> Token:
        """Advances on every connection change."""
        return self._connection

    @property
    def api(self) -> ApiT:
        client = self.context.client
        if client is None:
            raise NotConnected()
        return self.api_factory(client)

    def admit(self, work: Coroutine[Any, Any, T]) -> Coroutine[Any, Any, T] | None:
        """The tab's work as an operation runs it; without a connection (a dialog closing after a disconnect)
        nothing runs."""
        if not self.context.is_connected:
            work.close()
            return None
        return self.explain(work)

    async def explain(self, work: Coroutine[Any, Any, T]) -> T:
        """Where a tab can tell more about a failure than the message table (a chosen item gone), it says it here."""
        return await work

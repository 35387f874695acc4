"""Application-wide state shared by the main window and every tab."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from console.core import settings_keys
from console.core.messages import Kind, Message, MessageLog
from console.core.store import Store

# What runs on the loop is imported there: the window's first frame is painted without asyncio, httpx
# (under the client) or the API modules.
if TYPE_CHECKING:
    import asyncio

    from console.core.api.client import ApiClient
    from console.core.api.server import ServerInfo
    from console.core.error_news import ErrorNews
    from console.core.repositories.hub import Repositories
    from outpost_model.accounts import User
    from outpost_model.instance import Version

log = logging.getLogger(__name__)


class AppContext(QObject):
    """The current connection, the store of what its server said (console.core.store), the status line and the
    operations in flight (console.operations runs them).

    What is said is kept by kind in ``messages`` (console.core.messages): progress and outcomes go to the status
    bar, failures where the user acted, news to the notification list.

    Signals:
        connection_changed: the client or the signed-in user changed (connected or disconnected).
        status_message: a transient line for the status bar (progress, or an action's success).
        error_reported: (title, message) an operation failed.
        window_failure: (title, message) a failure no tab's message bar shows: the window's shows it.
        window_failure_ended: (title) what failed works again: the window's message bar no longer shows it.
        news: (title, message, target) news from the server, now in the notification list.
        busy: True while at least one operation (console.operations.Op) that is not quiet is in flight.
    """

    connection_changed = Signal()
    status_message = Signal(str)
    error_reported = Signal(str, str)
    window_failure = Signal(str, str)
    window_failure_ended = Signal(str)
    news = Signal(str, str, object)
    busy = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.client: ApiClient | None = None
        self.user: User | None = None
        self.server_version: Version | None = None
        # What the connection's profile is remembered under: the server's address, or a name that outlives it
        # (the local demo server gets a new port on each start).
        self.profile_address: str | None = None
        self.store = Store()  # what this connection's server said; emptied on every connection change
        self._repositories: Repositories | None = None
        self.messages = MessageLog()
        self._error_news: ErrorNews | None = None
        self._in_flight = 0
        self._messages_said = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def is_connected(self) -> bool:
        return self.client is not None

    @property
    def server(self) -> ServerInfo:
        """What the connected server is and offers (an unknown server offers only the REST API)."""
        from console.core.api.server import ServerInfo

        return (self.client.server if self.client is not None else None) or ServerInfo()

    @property
    def repositories(self) -> Repositories:
        """The typed kinds of what the store holds, each with its reads and freshness (made on first use: they
        import the API client, which the first frame does without)."""
        if self._repositories is None:
            from console.core.repositories.hub import Repositories

            self._repositories = Repositories(self.store)
        return self._repositories

    @property
    def error_news(self) -> ErrorNews:
        """What is news of each project's errors, for every look at them (the watcher's, the error list's)."""
        if self._error_news is None:
            from console.core.error_news import ErrorNews

            self._error_news = ErrorNews(self.repositories.errors, self.announce)
        return self._error_news

    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user.is_admin is True  # GitLab tells only administrators

    async def connect_to(self, base_url: str, token: str, *, profile_address: str | None = None) -> User:
        """Sign in with ``token``; on success replace the current connection and return the user. The profile is
        remembered under ``profile_address`` when given, else under the server's address."""
        from console.core.api.client import ApiClient
        from console.core.api.detection import detect_server

        client = ApiClient(base_url, token)
        try:
            user = await client.get_user()
            client.server = await detect_server(client)
        except BaseException:
            await client.aclose()
            raise
        previous, self.client = self.client, client
        self.user, self.server_version = user, client.server.version
        self.profile_address = profile_address or client.base_url
        if previous is not None:
            await previous.aclose()
        self.store.begin(f"{client.base_url}\n{user.username}")
        self.connection_changed.emit()
        self.say(f"Connected to {client.base_url} as {user.username}")
        return user

    async def disconnect(self) -> None:  # type: ignore[override]  # from the server; QObject's is for signals
        client, self.client = self.client, None
        if client is None:
            return
        self.user = self.server_version = self.profile_address = None
        self.store.begin(None)
        self.connection_changed.emit()
        self.say("Disconnected")
        await client.aclose()

    @property
    def profile_key(self) -> str | None:
        """The connected profile's key (server and user) for what is remembered per profile; None unconnected."""
        if self.client is None:
            return None
        username = self.user.username if self.user is not None else ""
        return settings_keys.profile_key(self.profile_address or self.client.base_url, username)

    def track(self, task: asyncio.Task[Any]) -> None:
        """Keep an operation's task (see console.operations) until it is done, so it can be cancelled."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def cancel_operations(self) -> None:
        """Cancel every operation still running (except the caller) and wait for them."""
        import asyncio

        current = asyncio.current_task()
        pending = [task for task in self._tasks if task is not current and not task.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    @property
    def messages_said(self) -> int:
        """How many status lines have been said so far (an operation keeps a line said while it ran)."""
        return self._messages_said

    def say(self, message: str, kind: Kind = Kind.DONE, *, routine: bool = False) -> None:
        """Show ``message`` in the status bar for a while: the one way to do so (progress, or a success).
        ``routine``: an operation's own progress or completion, which does not replace an outcome just said."""
        self._messages_said += 1
        self.messages.add(kind, message, routine=routine)
        self.status_message.emit(message)

    def report_error(self, title: str, message: str, *, shown_in_place: bool = False) -> None:
        """A failure; unless a tab's message bar shows it already (``shown_in_place``), the window's does."""
        log.warning("%s: %s", title, message)
        self._messages_said += 1  # an operation says no "…: done" after its failure
        self.messages.add(Kind.FAILURE, f"{title}: {message}")
        if not shown_in_place:
            self.window_failure.emit(title, message)
        self.error_reported.emit(title, message)

    def failure_ended(self, title: str) -> None:
        """What failed (``title``, as reported) works again: its failure no longer stands in the window."""
        self.messages.add(Kind.DONE, f"{title.removesuffix(' failed')}: working again")
        self.window_failure_ended.emit(title)

    def announce(self, title: str, message: str, target: object) -> Message:
        """News from the server (a new error, a finished export) for the notification list."""
        news = self.messages.add(Kind.NEWS, f"{title}: {message}", target=target)
        self.news.emit(title, message, target)
        return news

    def set_busy(self, delta: int) -> None:
        """An operation that marks the window busy starts (+1) or ends (-1)."""
        was_busy = self._in_flight > 0
        self._in_flight += delta
        if was_busy != (self._in_flight > 0):
            self.busy.emit(self._in_flight > 0)

"""Application-wide state shared by the main window and every tab."""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Signal

# What runs on the loop is imported there: the window's first frame is painted without asyncio, httpx
# (under the client) or the API modules.
if TYPE_CHECKING:
    import asyncio

    from console.api.client import ApiClient
    from console.api.server import ServerInfo

log = logging.getLogger(__name__)

T = TypeVar("T")


class AppContext(QObject):
    """The current connection and the plumbing to run API work without blocking the UI.

    Signals:
        connection_changed: the client or the signed-in user changed (connected or disconnected).
        status_message: a line for the status bar.
        error_reported: (title, message) an operation failed; shown to the user.
        busy: True while at least one operation started through :meth:`run` is in flight.
    """

    connection_changed = Signal()
    status_message = Signal(str)
    error_reported = Signal(str, str)
    busy = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.client: ApiClient | None = None
        self.user: dict[str, Any] | None = None
        self.server_version: dict[str, Any] | None = None
        self._in_flight = 0
        self._messages_said = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def is_connected(self) -> bool:
        return self.client is not None

    @property
    def server(self) -> ServerInfo:
        """What the connected server is and offers (an unknown server offers only the REST API)."""
        from console.api.server import ServerInfo

        return (self.client.server if self.client is not None else None) or ServerInfo()

    @property
    def is_admin(self) -> bool:
        return bool(self.user and self.user.get("is_admin"))

    async def connect_to(self, base_url: str, token: str) -> dict[str, Any]:
        """Sign in with ``token``; on success replace the current connection and return the user."""
        from console.api.client import ApiClient
        from console.api.server import detect_server

        client = ApiClient(base_url, token)
        try:
            user = await client.get_user()
            client.server = await detect_server(client)
        except BaseException:
            await client.aclose()
            raise
        previous, self.client = self.client, client
        self.user, self.server_version = user, client.server.version
        if previous is not None:
            await previous.aclose()
        self.connection_changed.emit()
        self.say(f"Connected to {client.base_url} as {user.get('username', '?')}")
        return user

    async def disconnect(self) -> None:  # type: ignore[override]  # from the server; QObject's is for signals
        client, self.client = self.client, None
        if client is None:
            return
        self.user = self.server_version = None
        self.connection_changed.emit()
        self.say("Disconnected")
        await client.aclose()

    def run(
        self,
        work: Awaitable[T],
        *,
        description: str,
        on_success: Callable[[T], None] | None = None,
        quiet: bool = False,
    ) -> asyncio.Task[None]:
        """Run ``work`` on the event loop; failures are reported, never swallowed.

        ``description`` names the operation in the status bar ("Loading variables"). ``quiet`` work
        (a watcher polling for minutes) neither marks the window busy nor talks in the status bar;
        its failures are reported all the same.
        """
        import asyncio

        task = asyncio.ensure_future(self._guarded(work, description, on_success, quiet))
        self._tasks.add(task)

        def finished(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            # Cancelled before it ever ran (e.g. on disconnect): close the work so it is not left unawaited.
            if task.cancelled() and asyncio.iscoroutine(work):
                work.close()

        task.add_done_callback(finished)
        return task

    async def cancel_operations(self) -> None:
        """Cancel every operation started with :meth:`run` (except the caller) and wait for them."""
        import asyncio

        current = asyncio.current_task()
        pending = [task for task in self._tasks if task is not current and not task.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _guarded(self, work: Awaitable[T], description: str, on_success: Callable[[T], None] | None,
                       quiet: bool) -> None:
        import asyncio

        from console.api.errors import ApiError
        from console.connection.local_server import LocalServerError

        if not quiet:
            self._set_busy(+1)
            self.say(f"{description}…")
        said_before = self._messages_said
        try:
            result = await work
            if on_success is not None:
                on_success(result)
        except asyncio.CancelledError:
            if not quiet:
                self.say(f"{description}: cancelled")
            raise
        except ApiError as exc:
            self.report_error(f"{description} failed", exc.message)
        except LocalServerError as exc:
            self.report_error(f"{description} failed", str(exc))
        except Exception:
            # Anything else is a bug: the application exception hook shows it with the traceback.
            sys.excepthook(*sys.exc_info())
        else:
            if not quiet and self._messages_said == said_before:  # keep a more telling message from the work
                self.say(f"{description}: done")
        finally:
            if not quiet:
                self._set_busy(-1)

    def say(self, message: str) -> None:
        """Show ``message`` in the status bar."""
        self._messages_said += 1
        self.status_message.emit(message)

    def report_error(self, title: str, message: str) -> None:
        log.warning("%s: %s", title, message)
        self.error_reported.emit(title, message)

    def _set_busy(self, delta: int) -> None:
        was_busy = self._in_flight > 0
        self._in_flight += delta
        if was_busy != (self._in_flight > 0):
            self.busy.emit(self._in_flight > 0)

"""What changes the window's connection: Connect…, Start local server, Disconnect, the local server stopping on
its own, and closing. A change made by the user asks first, as quitting does, when a tab holds unsaved changes:
a new connection would drop them (see FeatureWidget.may_close)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from console.core import settings_keys as keys

if TYPE_CHECKING:
    from console.context import AppContext
    from console.core.connection.local_server import LocalServer
    from console.operations import Op
    from console.tabs import LazyTabs


class ConnectedWindow(Protocol):
    """What a connection change uses of the main window (console.main_window, which declares them)."""

    context: AppContext
    tabs: LazyTabs
    local_server: LocalServer | None
    local_server_dir: Path

    def show_connection(self) -> None: ...


class ConnectionChanges:
    def __init__(self, window: ConnectedWindow) -> None:
        self.window = window
        self.context = window.context

    def asking_first(self, change: Callable[[], object]) -> Callable[[], None]:
        """``change`` as the user asks for it: a tab holding unsaved changes asks (Save, Discard, Cancel) and is
        shown; once they are saved or discarded, the change is made."""

        def ask_then_change() -> None:
            if self.window.tabs.may_close(ask_then_change):
                change()

        return ask_then_change

    def start_local_server(self) -> Op[None]:
        from console.operations import Op

        return Op(self.context, self._start_local_server(), description="Starting the local server").run()

    async def _start_local_server(self) -> None:
        from console.core.connection.local_server import LocalServer
        from console.operations import Op

        window = self.window
        if window.local_server is not None:
            return
        server = window.local_server = LocalServer(window.local_server_dir)
        window.show_connection()
        try:
            url = await server.start()
            await self.context.connect_to(url, server.root_token, profile_address=keys.LOCAL_DEMO_PROFILE)
        except BaseException:
            await self.stop_local_server()
            raise
        window.show_connection()
        server.on_exit = lambda code: Op(self.context, self._local_server_exited(server, code),
                                         description="Closing the connection to the local server", quiet=True).run()
        if server.moved_from is not None:
            self.context.announce("Local demo server", f"Port {server.moved_from} was taken, so the demo now "
                                  f"listens on {url}: copy its DSNs into your applications again.", None)

    async def _local_server_exited(self, server: LocalServer, code: int | None) -> None:
        """It crashed or was killed: the header says so and Start local server can start it again."""
        if self.window.local_server is server:
            if self.context.client is not None and self.context.client.base_url == server.url:
                await self.context.disconnect()
            await self.stop_local_server()
            self.context.report_error("The local server stopped", f"It exited on its own (exit code {code}). "
                                      "File > Start local server starts it again on the same data.")

    async def stop_local_server(self) -> None:
        server, self.window.local_server = self.window.local_server, None
        if server is not None:
            await server.stop()
        self.window.show_connection()

    def disconnect(self) -> Op[None]:
        from console.operations import Op

        return Op(self.context, self.shutdown(), description="Disconnecting").run()

    async def shutdown(self) -> None:
        """Cancel running operations, close the connection and stop the local server."""
        await self.context.cancel_operations()
        await self.context.disconnect()
        await self.stop_local_server()

"""uvicorn's httptools protocol, with each response's writes joined into one send.

uvicorn writes a response's head and its body with two transport writes; with TCP_NODELAY each is
its own system call and TCP segment, and the client wakes up twice. For the collector's small
answers those sends were the largest single cost of ingestion. Here the writes made while a task
runs are buffered and sent together once the loop regains control (the same iteration), so a
response goes out as one segment and nothing waits for a timer.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class CoalescingTransport:
    """Wraps a transport: `write` buffers until the end of the loop iteration; the rest passes through."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending) if len(self._pending) > 1 else self._pending[0]
        self._pending = []
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str):
        return getattr(self._transport, name)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Flow control and addresses keep the real transport; requests and responses use the wrapper.
        self.transport = CoalescingTransport(transport, self.loop)  # type: ignore[assignment]

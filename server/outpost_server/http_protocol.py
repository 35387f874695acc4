"""uvicorn's httptools protocol, with each response's writes joined into one send, and bounds on what a
client may take before its request has even started (the size of its request line and headers, and the
time to send them) and while it sends its body (the time between two of its reads).

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


def _closing_answer(status: int, reason: str) -> bytes:
    body = b'{"message":"%d %s"}' % (status, reason.encode())
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: %d\r\n\r\n"
            % (status, reason.encode(), len(body))) + body


HEADERS_TOO_LARGE = _closing_answer(431, "Request Header Fields Too Large")
REQUEST_TIMEOUT = _closing_answer(408, "Request Timeout")
# The bytes a parsed header line takes beyond its name and value (": " and CRLF), and the request line
# beyond its target (method, spaces, version, CRLF: at least this many).
HEADER_LINE_OVERHEAD = 4
REQUEST_LINE_OVERHEAD = 14


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """Also refuses a request line and headers larger than `max_header_bytes` (431, as nginx's
    large_client_header_buffers do with 400/414), closes a connection whose request line and headers
    have not arrived `header_timeout` seconds after it opened or its previous response (nginx's
    client_header_timeout), and answers 408 and closes one whose body stalls for `body_timeout` seconds
    between two reads (nginx's client_body_timeout), so slow or never-finished requests hold neither
    memory, nor a descriptor, nor anything the application gives a request once its body is in."""

    max_header_bytes = 64 * 1024
    header_timeout = 20.0
    body_timeout = 60.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Flow control and addresses keep the real transport; requests and responses use the wrapper.
        self.transport = CoalescingTransport(transport, self.loop)  # type: ignore[assignment]
        self._awaiting_headers = True
        self._refused = False
        # Raw bytes received while a head is incomplete (bounds what an unfinished head may hold), and
        # the parsed size of the head (judged once it is complete, however it was split into writes).
        self._header_bytes = 0
        self._head_bytes = 0
        self._header_timer: asyncio.TimerHandle | None = self.loop.call_later(self.header_timeout,
                                                                              self._headers_too_slow)
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_seen = 0.0

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._cancel_body_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._awaiting_headers:
            self._header_bytes += len(data)
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)
        elif self._body_timer is not None:
            self._body_seen = self.loop.time()
        super().data_received(data)
        # Counted before parsing, judged after: a chunk that completes the headers may carry a body too.
        if self._awaiting_headers and self._header_bytes > self.max_header_bytes and not self.transport.is_closing():
            self._refuse(HEADERS_TOO_LARGE)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = REQUEST_LINE_OVERHEAD

    def on_url(self, url: bytes) -> None:
        self._head_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + HEADER_LINE_OVERHEAD
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._awaiting_headers = False
        self._cancel_header_timer()
        if self._head_bytes > self.max_header_bytes:
            # Whatever follows in this write (a body, pipelined requests) is ignored from here on.
            self._refuse(HEADERS_TOO_LARGE)
            return
        super().on_headers_complete()
        self._body_seen = self.loop.time()
        self._body_timer = self.loop.call_later(self.body_timeout, self._body_too_slow)

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
        self._cancel_body_timer()
        super().on_message_complete()
        # Whatever comes next on this connection is the next request's line and headers (pipelined
        # requests included); the count starts again with its first byte.
        self._awaiting_headers = True
        self._header_bytes = 0

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._awaiting_headers and not self.transport.is_closing():
            self._refuse(REQUEST_TIMEOUT if self._header_bytes else b"")

    def _body_too_slow(self) -> None:
        self._body_timer = None
        cycle = self.cycle
        if cycle is None or self.transport.is_closing():
            return
        if self.flow.read_paused or cycle.waiting_for_100_continue:
            # The application has not asked for more yet: the client is not the one waiting.
            idle = 0.0
        else:
            idle = self.loop.time() - self._body_seen
        if idle < self.body_timeout:
            self._body_timer = self.loop.call_later(self.body_timeout - idle, self._body_too_slow)
            return
        answered = cycle.response_started
        if not answered:
            cycle.scope["state"]["answered_status"] = 408
        self._refuse(b"" if answered else REQUEST_TIMEOUT)
        # The application waiting for the rest of the body learns now that none will come.
        cycle.disconnected = True
        cycle.message_event.set()

    def _refuse(self, answer: bytes) -> None:
        self._refused = True
        self._cancel_header_timer()
        self._cancel_body_timer()
        if answer:
            self.transport.write(answer)
        self.transport.close()

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None


def protocol_with_limits(*, max_header_bytes: int, header_timeout: float,
                         body_timeout: float) -> type[CoalescingHttpToolsProtocol]:
    return type("LimitedHttpToolsProtocol", (CoalescingHttpToolsProtocol,),
                {"max_header_bytes": max_header_bytes, "header_timeout": header_timeout,
                 "body_timeout": body_timeout})

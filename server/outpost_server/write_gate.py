"""SQLite lets one transaction write at a time; while another process holds the lock, writes wait.

Without a bound, 30 such writes took every pooled connection and worker thread, and even reads and
`/version` hung behind them. Requests that may write (POST, PUT, PATCH, DELETE) therefore take turns
here, a few at a time, before they get a thread: one that has not had its turn within the wait answers
503 with Retry-After, and reads never queue behind writes. The collector is not gated: it writes to
its own spool, not to the database.

A request takes its turn only once its whole body has arrived (kept in memory while small, on disk
beyond): a client sending its body slowly, or not at all, would otherwise hold a turn until the body
timeout, and eight of them every turn there is.
"""

from __future__ import annotations

import asyncio
import tempfile

from starlette.requests import ClientDisconnect

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
UNGATED_PREFIX = "/api/v4/error_tracking/collector/"
BODY = b'{"message":"503 Service Unavailable"}'
# A body up to this size stays in memory while it waits for its turn; a larger one goes to a file.
IN_MEMORY_BYTES = 1024 * 1024
REPLAY_PIECE = 64 * 1024


class SqliteWriteGate:
    def __init__(self, app, *, concurrent: int, wait_seconds: float):
        self.app = app
        self._turns = asyncio.Semaphore(concurrent)
        self._wait = wait_seconds

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in WRITE_METHODS or scope["path"].startswith(
                UNGATED_PREFIX):
            await self.app(scope, receive, send)
            return
        with tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES) as body:
            await _read_body(receive, body)
            try:
                await asyncio.wait_for(self._turns.acquire(), self._wait)
            except asyncio.TimeoutError:
                await send({"type": "http.response.start", "status": 503, "headers": [
                    (b"content-type", b"application/json"), (b"retry-after", b"5")]})
                await send({"type": "http.response.body", "body": BODY})
                return
            try:
                await self.app(scope, _Replay(body, receive), send)
            finally:
                self._turns.release()


async def _read_body(receive, into) -> None:
    """The request's whole body, into `into`; ClientDisconnect when the client goes (or its body times out)
    before the end."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        into.write(message.get("body", b""))
        if not message.get("more_body", False):
            return


class _Replay:
    """A receive() giving the body read beforehand, then (for disconnects) the connection's own."""

    def __init__(self, body, receive):
        self._body = body
        self._receive = receive
        self._size = body.tell()
        self._given = False
        body.seek(0)

    async def __call__(self):
        if self._given:
            return await self._receive()
        piece = self._body.read(REPLAY_PIECE)
        more = self._body.tell() < self._size
        self._given = not more
        return {"type": "http.request", "body": piece, "more_body": more}

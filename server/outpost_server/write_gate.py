"""SQLite lets one transaction write at a time; while another process holds the lock, writes wait.

Without a bound, 30 such writes took every pooled connection and worker thread, and even reads and
`/version` hung behind them. Requests that may write (POST, PUT, PATCH, DELETE) therefore take turns
here, a few at a time, before they get a thread: one that has not had its turn within the wait answers
503 with Retry-After, and reads never queue behind writes. The collector is not gated: it writes to
its own spool, not to the database.
"""

from __future__ import annotations

import asyncio

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
UNGATED_PREFIX = "/api/v4/error_tracking/collector/"
BODY = b'{"message":"503 Service Unavailable"}'


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
        try:
            await asyncio.wait_for(self._turns.acquire(), self._wait)
        except asyncio.TimeoutError:
            await send({"type": "http.response.start", "status": 503, "headers": [
                (b"content-type", b"application/json"), (b"retry-after", b"5")]})
            await send({"type": "http.response.body", "body": BODY})
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._turns.release()

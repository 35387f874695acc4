"""The collector's access decisions (project, setting, key, allowed origins), cached per process.

The request path never waits for the database for a key it has seen: admitted keys are re-checked in
the background every half second, so a deleted key, a disabled project or a changed origin list
reaches this process within a second, and while the database is unreachable the last decision stands
(the spool keeps accepting). Refusals are kept for a few seconds only. A key seen for the first time
is looked up at once; if the database cannot answer, the request gets 503 with Retry-After.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from sqlalchemy.orm import sessionmaker

from outpost_server.background import BackgroundWorker
from outpost_server.db import database_unavailable, session_scope
from outpost_server.error_tracking.ingest import collector_access

log = logging.getLogger("outpost.error_tracking.access")

REFRESH_SECONDS = 0.5
# An admitted key unused this long is dropped from the cache (and no longer refreshed).
IDLE_SECONDS = 60.0
REFUSAL_TTL_SECONDS = 5.0
MAX_ENTRIES = 10_000

CacheKey = tuple[str, str | None]


class DatabaseUnavailable(Exception):
    """A first-time lookup could not reach the database."""


@dataclass
class _Decision:
    target: collector_access.CollectorTarget
    decided_at: float
    used_at: float


class AccessCache(BackgroundWorker):
    def __init__(self, factory: sessionmaker):
        super().__init__(name="collector-access", log=log, what="re-checking the collector's access decisions",
                         interval_seconds=REFRESH_SECONDS)
        self._factory = factory
        self._entries: dict[CacheKey, _Decision | asyncio.Future] = {}

    def forget(self) -> None:
        """Called after this process changed settings or keys, so it sees the change at once."""
        self._entries.clear()

    async def target(self, project_ident: str, public_key: str | None) -> collector_access.CollectorTarget:
        """The decision; concurrent first lookups of one key share a single query."""
        key = (project_ident, public_key)
        cached = self._entries.get(key)
        now = time.monotonic()
        if isinstance(cached, asyncio.Future):
            return await cached
        if cached is not None and (cached.target.refusal is None or now - cached.decided_at < REFUSAL_TTL_SECONDS):
            cached.used_at = now
            return cached.target
        pending = asyncio.get_running_loop().create_future()
        if len(self._entries) > MAX_ENTRIES:
            self._entries.clear()
        self._entries[key] = pending
        try:
            target = await self.blocking(self._lookup, [key])
        except BaseException as error:
            self._entries.pop(key, None)
            pending.set_exception(error)
            pending.exception()  # retrieved: the waiters (if any) re-raise it
            raise
        if self._entries.get(key) is pending:
            self._entries[key] = _Decision(target[key], time.monotonic(), time.monotonic())
        pending.set_result(target[key])
        return target[key]

    def _lookup(self, keys: list[CacheKey]) -> dict[CacheKey, collector_access.CollectorTarget]:
        try:
            with session_scope(self._factory) as session:
                return {key: collector_access.collector_target(session, project_ident=key[0], public_key=key[1])
                        for key in keys}
        except Exception as error:
            if database_unavailable(error):
                raise DatabaseUnavailable(type(error).__name__) from None
            raise

    async def tick(self) -> None:
        """Re-checks the admitted keys in use; drops idle ones and refusals past their time."""
        now = time.monotonic()
        admitted = []
        for key, decision in list(self._entries.items()):
            if isinstance(decision, asyncio.Future):
                continue
            if now - decision.used_at > IDLE_SECONDS or decision.target.refusal is not None:
                if now - decision.decided_at >= REFUSAL_TTL_SECONDS or decision.target.refusal is None:
                    self._entries.pop(key, None)
                continue
            admitted.append(key)
        if not admitted:
            return
        try:
            fresh = await self.blocking(self._lookup, admitted)
        except DatabaseUnavailable:
            return  # keep the last decisions while the database is away
        decided_at = time.monotonic()
        for key, target in fresh.items():
            current = self._entries.get(key)
            if isinstance(current, _Decision):
                self._entries[key] = _Decision(target, decided_at, current.used_at)

"""Counting browser requests refused for their origin, without a database write for each one.

Anyone can send requests with a chosen `Origin` header, and a page on a refused origin reports every
error (and retries). So a project's first refusal is written at once, for the Settings page to show,
and the ones that follow within `FLUSH_SECONDS` of a write are added up in memory and written together
by the flusher: a flood of refused requests costs one UPDATE a second per project and process. What
is pending when the server stops is written as it stops.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import threading
import time
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import BackgroundWorker
from outpost_server.db import session_scope, utcnow
from outpost_server.error_tracking import settings

log = logging.getLogger(__name__)

FLUSH_SECONDS = 1.0


@dataclass
class Refusals:
    """Refusals of one project not written yet: how many, and the latest origin and time."""

    count: int
    origin: str
    at: dt.datetime


class OriginRefusals(BackgroundWorker):
    def __init__(self, sessions: sessionmaker[Session], *, flush_seconds: float = FLUSH_SECONDS) -> None:
        super().__init__(name="error-tracking-origin-refusals", log=log,
                         what="writing the refused origins' counts", interval_seconds=flush_seconds)
        self._sessions = sessions
        self._flush_seconds = flush_seconds
        self._pending: dict[int, Refusals] = {}
        self._written_at: dict[int, float] = {}  # monotonic time of each project's latest write
        self._lock = threading.Lock()

    def note(self, project_id: int, origin: str) -> Refusals | None:
        """Adds one refusal; returns the project's refusals to write now when its latest write is old enough."""
        now, at = time.monotonic(), utcnow()
        with self._lock:
            pending = self._pending.get(project_id)
            if pending is None:
                pending = self._pending[project_id] = Refusals(0, origin, at)
            pending.count, pending.origin, pending.at = pending.count + 1, origin, at
            written = self._written_at.get(project_id)
            if written is not None and now - written < self._flush_seconds:
                return None
            self._written_at[project_id] = now
            return self._pending.pop(project_id)

    def take_pending(self) -> dict[int, Refusals]:
        with self._lock:
            pending, self._pending = self._pending, {}
            now = time.monotonic()
            self._written_at.update((project_id, now) for project_id in pending)
            # Projects not refused for a while need no entry: their next refusal is written at once.
            self._written_at = {project_id: written for project_id, written in self._written_at.items()
                                if now - written < self._flush_seconds}
        return pending

    def write(self, refusals: dict[int, Refusals]) -> None:
        with session_scope(self._sessions) as session:
            for project_id, refused in refusals.items():
                settings.record_rejected_origins(session, project_id=project_id, count=refused.count,
                                                origin=refused.origin, at=refused.at)

    async def record(self, project_id: int, origin: str) -> None:
        due = self.note(project_id, origin)
        if due is not None:
            await self.blocking(self.write, {project_id: due})

    # --- the flusher --------------------------------------------------------------------------

    async def tick(self) -> None:
        await self.flush()

    async def finish(self) -> None:
        await self.flush()

    async def flush(self) -> None:
        pending = self.take_pending()
        if not pending:
            return
        try:
            await self.blocking_to_the_end(self.write, pending)
        except asyncio.CancelledError:
            raise  # written all the same
        except BaseException:
            self._restore(pending)  # counted again at the next flush
            raise

    def _restore(self, refusals: dict[int, Refusals]) -> None:
        with self._lock:
            for project_id, refused in refusals.items():
                newer = self._pending.get(project_id)
                if newer is None:
                    self._pending[project_id] = refused
                else:
                    newer.count += refused.count

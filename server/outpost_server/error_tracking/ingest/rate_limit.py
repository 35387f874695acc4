"""The per-project event rate limit, counted once across every replica sharing the database (per
wall-clock minute, shared_counter.py)."""

from __future__ import annotations

import logging
import time

from sqlalchemy.engine import Engine

from outpost_server.error_tracking.models import RateWindow
from outpost_server.shared_counter import SharedWindowCounter

log = logging.getLogger("outpost.error_tracking.rate_limit")

WINDOW_SECONDS = 60


class SharedRateLimit(SharedWindowCounter):
    def __init__(self, engine: Engine, *, limit_per_minute: int, clock=time.time):
        super().__init__(engine, model=RateWindow, key_column="project_id", count_column="events",
                         window_seconds=WINDOW_SECONDS, name="error-tracking-rate-limit", log=log, clock=clock)
        self.limit = limit_per_minute

    async def admit(self, project_id: int, events: int) -> int | None:
        """Counts the events and returns None, or refuses them with the seconds to wait."""
        decision = await self.count(project_id, events, limit=self.limit)
        return None if decision.admitted else decision.retry_after(self.clock())

"""The per-project event rate limit, counted once across every replica sharing the database.

Each process decides on its own, from the database's count for the current minute (as of its last
sync) plus what it admitted since. Every SYNC_SECONDS it adds what it admitted to the shared row
and reads back the total, so all replicas together let through at most the limit plus what the
others admitted within one sync interval. Windows are wall-clock minutes, the same on every replica.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from outpost_server.background import FailureReport, cancelled

from .models import RateWindow

log = logging.getLogger("outpost.error_tracking.rate_limit")

WINDOW_SECONDS = 60
SYNC_SECONDS = 0.5


class SharedRateLimit:
    """Admission runs on the event loop; the database work runs on a thread of its own."""

    def __init__(self, engine: Engine, *, limit_per_minute: int, clock=time.time):
        self.engine = engine
        self.limit = limit_per_minute
        self.clock = clock
        # (project id, window) -> events: admitted here and not yet shared, being shared now,
        # and the shared count as last read (which includes what this process shared before).
        self._pending: dict[tuple[int, int], int] = defaultdict(int)
        self._in_flight: dict[tuple[int, int], int] = {}
        self._shared: dict[tuple[int, int], int] = {}
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="error-tracking-rate-limit")
        self._task: asyncio.Task | None = None
        self._failures = FailureReport(log, "sharing the rate limit counts")

    async def admit(self, project_id: int, events: int) -> int | None:
        """Counts the events and returns None, or refuses them with the seconds to wait."""
        now = self.clock()
        window = int(now // WINDOW_SECONDS)
        key = (project_id, window)
        if key not in self._shared:
            # First events of this project in this minute here: learn what the other replicas admitted.
            self._shared[key] = await asyncio.get_running_loop().run_in_executor(
                self._executor, self._read_shared, key)
        used = self._shared.get(key, 0) + self._in_flight.get(key, 0) + self._pending.get(key, 0)
        if used + events > self.limit:
            return max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
        self._pending[key] += events
        return None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="error-tracking-rate-limit")

    async def stop(self) -> None:
        await cancelled(self._task)
        self._task = None
        try:
            await self.sync()
        finally:
            self._executor.shutdown()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(SYNC_SECONDS)
            try:
                await self.sync()
                self._failures.succeeded()
            except Exception:
                self._failures.failed()

    async def sync(self) -> None:
        """Adds what this process admitted to the shared counts and reads them back."""
        current = int(self.clock() // WINDOW_SECONDS)
        self._in_flight, self._pending = dict(self._pending), defaultdict(int)
        watched = {project for project, window in (*self._in_flight, *self._shared) if window >= current}
        try:
            shared = await asyncio.get_running_loop().run_in_executor(
                self._executor, self._share, self._in_flight, watched, current)
        except BaseException:
            # Not shared: keep counting these admissions here until a sync succeeds.
            for key, events in self._in_flight.items():
                self._pending[key] += events
            self._in_flight = {}
            raise
        fresh = {(project, current): shared.get((project, current), 0) for project in watched}
        # Projects first seen while this sync ran keep the reading `admit` just made.
        self._shared = {key: events for key, events in self._shared.items()
                        if key[1] >= current and key not in fresh} | fresh
        self._in_flight = {}

    def _read_shared(self, key: tuple[int, int]) -> int:
        project_id, window = key
        with self.engine.connect() as connection:
            events = connection.scalar(select(RateWindow.events).where(RateWindow.project_id == project_id,
                                                                        RateWindow.window == window))
        return int(events or 0)

    def _share(self, admitted: dict[tuple[int, int], int], watched: set[int], current: int
               ) -> dict[tuple[int, int], int]:
        with self.engine.begin() as connection:
            if admitted:
                dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
                insert = dialect.insert(RateWindow)
                connection.execute(
                    insert.on_conflict_do_update(index_elements=["project_id", "window"],
                                                 set_={"events": RateWindow.events + insert.excluded.events}),
                    [{"project_id": project, "window": window, "events": events}
                     for (project, window), events in admitted.items()])
            shared: dict[tuple[int, int], int] = {}
            if watched:
                rows = connection.execute(select(RateWindow.project_id, RateWindow.window, RateWindow.events)
                                          .where(RateWindow.window == current, RateWindow.project_id.in_(watched)))
                shared = {(project, window): events for project, window, events in rows}
            connection.execute(delete(RateWindow).where(RateWindow.window < current - 1))
        return shared

"""A count per key and wall-clock window, kept once across every process and replica sharing the database.

Each process decides on its own, from the database's count for the current window (as of its last sync)
plus what it counted since. Every SYNC_SECONDS it adds what it counted to the shared row and reads back
the totals, so all replicas together let through at most the limit plus what the others counted within
one sync interval. Windows are wall-clock periods (Rack::Attack's fixed windows), the same on every replica.
Used by the collector's per-project event rate limit and the unauthenticated request throttle.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Table, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from outpost_server.background import BackgroundWorker
from outpost_server.db import Base, connection_scope

SYNC_SECONDS = 0.5
# Keys read back per statement (bounded by the databases' parameter limits).
READ_CHUNK = 500


@dataclass(frozen=True)
class Decision:
    admitted: bool
    # What the window holds for the key, this request included when admitted.
    used: int
    # Seconds since the epoch at which the window ends.
    window_ends_at: float

    def retry_after(self, now: float) -> int:
        return max(1, math.ceil(self.window_ends_at - now))


class SharedWindowCounter(BackgroundWorker):
    """Counting runs on the event loop; the database work runs on a thread of its own.

    `model`'s table has the key column, an integer `window` column (windows since the epoch) and the count
    column, with (key, window) as its primary key. The first count of a key in a window here waits for the
    database's count of it, so a key counted by other processes is never started from zero.
    """

    def __init__(self, engine: Engine, *, model: type[Base], key_column: str, count_column: str, window_seconds: int,
                 name: str, log: logging.Logger, count_refused: bool = False,
                 scope: dict[str, str] | None = None, clock=time.time):
        super().__init__(name=name, log=log, what=f"sharing the {name} counts", interval_seconds=SYNC_SECONDS,
                         own_thread=True)
        self.engine = engine
        self.table = cast(Table, model.__table__)
        self._key = self.table.c[key_column]
        self._count = self.table.c[count_column]
        self._window = self.table.c.window
        self.window_seconds = window_seconds
        self.count_refused = count_refused
        # Further key columns shared by all of this counter's rows, so counters of other window lengths
        # can share the table.
        self._scope = scope or {}
        self._in_scope = [self.table.c[column] == value for column, value in self._scope.items()]
        self.clock = clock
        # (key, window) -> count: counted here and not yet shared, being shared now, and the shared count
        # as last read (which includes what this process shared before).
        self._pending: dict[tuple[Hashable, int], int] = defaultdict(int)
        self._in_flight: dict[tuple[Hashable, int], int] = {}
        self._shared: dict[tuple[Hashable, int], int] = {}

    async def count(self, key: Hashable, amount: int, *, limit: int) -> Decision:
        """Counts `amount` for the key when the window's total stays within `limit`; refuses it otherwise."""
        now = self.clock()
        window = int(now // self.window_seconds)
        ends_at = float((window + 1) * self.window_seconds)
        slot = (key, window)
        if slot not in self._shared:
            self._shared[slot] = await self.blocking(self._read_shared, slot)
        used = self._shared.get(slot, 0) + self._in_flight.get(slot, 0) + self._pending.get(slot, 0)
        if used + amount > limit:
            if self.count_refused:  # Rack::Attack counts every request, so "observed" includes refused ones
                self._pending[slot] += amount
                used += amount
            return Decision(False, used, ends_at)
        self._pending[slot] += amount
        return Decision(True, used + amount, ends_at)

    async def tick(self) -> None:
        await self.sync()

    async def finish(self) -> None:
        await self.sync()

    async def sync(self) -> None:
        """Adds what this process counted to the shared counts and reads them back."""
        current = int(self.clock() // self.window_seconds)
        self._in_flight, self._pending = dict(self._pending), defaultdict(int)
        watched = {key for key, window in (*self._in_flight, *self._shared) if window >= current}
        try:
            shared = await self.blocking_to_the_end(self._share, self._in_flight, watched, current)
        except asyncio.CancelledError:
            self._in_flight = {}  # shared all the same
            raise
        except BaseException:
            # Not shared: keep counting these here until a sync succeeds.
            for slot, amount in self._in_flight.items():
                self._pending[slot] += amount
            self._in_flight = {}
            raise
        fresh = {(key, current): shared.get((key, current), 0) for key in watched}
        # Keys first seen while this sync ran keep the reading `count` just made.
        self._shared = {slot: amount for slot, amount in self._shared.items()
                        if slot[1] >= current and slot not in fresh} | fresh
        self._in_flight = {}

    def _read_shared(self, slot: tuple[Hashable, int]) -> int:
        key, window = slot
        with self.engine.connect() as connection:
            amount = connection.scalar(select(self._count).where(self._key == key, self._window == window,
                                                                 *self._in_scope))
        return int(amount or 0)

    def _share(self, counted: dict[tuple[Hashable, int], int], watched: set[Hashable], current: int
               ) -> dict[tuple[Hashable, int], int]:
        with connection_scope(self.engine) as connection:
            if counted:
                dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
                insert = dialect.insert(self.table)
                connection.execute(
                    insert.on_conflict_do_update(
                        index_elements=[*self._scope, self._key.name, "window"],
                        set_={self._count.name: self._count + insert.excluded[self._count.name]}),
                    [{**self._scope, self._key.name: key, "window": window, self._count.name: amount}
                     for (key, window), amount in counted.items()])
            shared: dict[tuple[Hashable, int], int] = {}
            keys = sorted(watched, key=str)
            for start in range(0, len(keys), READ_CHUNK):
                rows = connection.execute(select(self._key, self._window, self._count).where(
                    self._window == current, self._key.in_(keys[start:start + READ_CHUNK]), *self._in_scope))
                shared |= {(key, window): amount for key, window, amount in rows}
            connection.execute(delete(self.table).where(self._window < current - 1, *self._in_scope))
        return shared

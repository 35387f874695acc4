"""Storing accepted events and sessions, batched by a single writer (group commit).

Each collector request hands its parsed content to the writer and waits; the writer takes
everything queued, stores it in ONE transaction and only then wakes the waiting requests. So a
200 is answered after the commit ("200 means durable") while the database sees a few large
transactions instead of thousands of small ones.

The statements are built once per dialect and run as executemany: on the hot path, building
SQLAlchemy statements costs more than executing them.
"""



import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from .batch_sql import statements_for
from .batch_store import Accepted, store_batch

log = logging.getLogger("outpost.error_tracking.ingest")

MAX_BATCH = 2000


# --- the writer -----------------------------------------------------------------------------

_STOP = object()


class _KnownUsers:
    """A bounded cache of (error id, user key) pairs already stored, to skip their lookups."""

    def __init__(self, capacity: int = 200_000):
        self._pairs: OrderedDict[tuple[int, str], None] = OrderedDict()
        self._capacity = capacity

    def __contains__(self, pair: object) -> bool:
        return pair in self._pairs

    def add(self, pairs: Iterable[tuple[int, str]]) -> None:
        for pair in pairs:
            self._pairs[pair] = None
            self._pairs.move_to_end(pair)
        while len(self._pairs) > self._capacity:
            self._pairs.popitem(last=False)


@dataclass(eq=False)  # compared by identity
class _Waiting:
    accepted: Accepted
    future: asyncio.Future


class KeyNoLongerActive(Exception):
    """The request's client key was deleted or deactivated (possibly by another replica) before its commit."""


class IngestWriter:
    """The single writer; `await writer.store(...)` returns once the data is committed.

    A task on the event loop gathers what is queued into a batch and hands it to one dedicated
    thread for the database work; while SQLite writes, the loop goes on reading and parsing the
    requests that form the next batch. Futures are settled back on the loop.
    """

    def __init__(self, engine: Engine, *, max_batch: int = MAX_BATCH):
        self._engine = engine
        self._max_batch = max_batch
        # Created here (a queue binds to the running loop only when first used), filled once started.
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="error-tracking-writer")
        self._known_users = _KnownUsers()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="error-tracking-writer")

    async def stop(self) -> None:
        if self._task is None:
            return
        await self._queue.put(_STOP)
        await self._task
        self._task = None
        self._executor.shutdown()

    async def store(self, accepted: Accepted) -> None:
        """Returns once committed; raises KeyNoLongerActive when the request's key stopped being active."""
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Waiting(accepted, future))
        await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            first = await self._queue.get()
            if first is _STOP:
                return
            batch = [first]
            stop = False
            while len(batch) < self._max_batch and not self._queue.empty():
                item = self._queue.get_nowait()
                if item is _STOP:
                    stop = True
                    break
                batch.append(item)
            # The database work runs on the writer's own thread, so the loop keeps reading and
            # parsing requests (which form the next batch) while SQLite writes.
            for part, error in await loop.run_in_executor(self._executor, self._write, batch):
                _settle(part, error)
            if stop:
                return

    def _write(self, batch: list[_Waiting]) -> list[tuple[list[_Waiting], Exception | None]]:
        """Commit the batch; returns (requests, error) pairs to settle on the loop."""
        try:
            refused = self._commit(batch)
        except Exception:
            if len(batch) == 1:
                log.exception("storing an accepted request failed")
                return [(batch, RuntimeError("the event could not be stored"))]
            # Store one by one so a single bad request cannot fail the others.
            log.warning("batch of %d failed; retrying its requests one by one", len(batch), exc_info=True)
            return [outcome for item in batch for outcome in self._write([item])]
        stored = [item for item in batch if item not in refused]
        return [(stored, None), (refused, KeyNoLongerActive())]

    def _commit(self, batch: list[_Waiting]) -> list[_Waiting]:
        """Stores the batch in one transaction; returns the items refused because their key is gone."""
        with self._engine.begin() as connection:
            # The collector decided access before the request was queued (authentication.py), from a
            # cache that may be seconds old and, with replicas, from before another process deleted
            # the key. Project and setting changes may lag that long; a deleted key may not, since
            # deleting it is how a leaked DSN is revoked. So only the key is checked again, here,
            # in the transaction that stores its events.
            keys = {item.accepted.public_key for item in batch if item.accepted.public_key is not None}
            active = set(connection.execute(statements_for(connection.dialect).active_keys,
                                            {"keys": list(keys)}).all()) if keys else set()
            refused = [item for item in batch if item.accepted.public_key is not None
                       and (item.accepted.project_id, item.accepted.public_key) not in active]
            result = store_batch(
                connection,
                [item.accepted for item in batch if item not in refused],
                known_users=self._known_users,
            )
        self._known_users.add(result.user_pairs)
        return refused


def _settle(batch: list[_Waiting], error: Exception | None) -> None:
    for item in batch:
        if item.future.done():  # the client went away
            continue
        if error is None:
            item.future.set_result(None)
        else:
            item.future.set_exception(error)

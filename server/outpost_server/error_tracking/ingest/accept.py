"""The collector's side of the spool: appends accepted requests with group commit.

Each collector request hands one entry to the writer and waits; the writer's own thread takes everything
queued, appends it to the spool in ONE transaction and wakes the requests once the commit is on disk. So
"200" still means "will be stored", while the disk sees one sync per batch.

The requests of one pass of the event loop are handed to the thread together, as one list in a
thread-safe queue; the thread, which serves that queue for the writer's whole life, writes everything
queued while it wrote the last batch, and answers each batch with one call into the event loop. No round
is handed to a thread pool and no timeout task is made per batch: on a loaded host those hand-offs cost
more CPU than the commit itself. (Waking the thread for each request instead made batches of one.)
Under sustained load a batch also waits COMMIT_DELAY_SECONDS for the requests on their way, so fewer,
larger commits answer the same requests.

The writer also decides backpressure: once the spool holds more than its byte limit, or its oldest
entry is older than the age limit, requests are refused (429 with Retry-After) until digest catches
up. A spool that cannot be written (a full disk, a lock held too long) refuses with 503: nothing is
ever answered 200 that was not kept.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from outpost_server.background import BackgroundWorker
from outpost_server.error_tracking.ingest.spool import Backlog, NewEntry, Spool

log = logging.getLogger("outpost.error_tracking.accept")

MAX_BATCH = 1000
# What an SDK refused because the spool is full is asked to wait.
FULL_RETRY_AFTER_SECONDS = 5
REFUSALS_FLUSH_SECONDS = 1.0
# While refusing because the spool is full, how often its backlog is read again.
FULL_RECHECK_SECONDS = 0.5
# Under sustained load (the last commit ended less than BUSY_SECONDS ago) a batch waits this long for the
# requests on their way before it commits, as PostgreSQL's commit_delay does: SDKs waiting for their answer
# send again just after it, and without the wait they made batches of a few, each paying for its own
# commit. A lone event is committed at once.
COMMIT_DELAY_SECONDS = 0.002
BUSY_SECONDS = 0.05


class SpoolFull(Exception):
    def __init__(self, retry_after: int):
        super().__init__(retry_after)
        self.retry_after = retry_after


class SpoolUnavailable(Exception):
    """The spool could not be written (disk full, I/O error, lock held too long)."""


@dataclass(frozen=True)
class SpoolLimits:
    max_bytes: int
    max_age_seconds: float

    def exceeded(self, backlog: Backlog, now: float) -> bool:
        if self.max_bytes and backlog.bytes > self.max_bytes:
            return True
        oldest = backlog.oldest_received_at
        return bool(self.max_age_seconds and oldest is not None and now - oldest > self.max_age_seconds)


@dataclass(eq=False, slots=True)
class _Waiting:
    entry: NewEntry
    future: asyncio.Future


_STOP = object()


class SpoolWriter(BackgroundWorker):
    """`await writer.append(entry)` returns once the entry is durable in the spool.

    The writer's thread writes what is queued in one spool transaction (a group commit), or, when nothing
    came for REFUSALS_FLUSH_SECONDS, writes the refusal counts. On stop it drains: every entry queued
    before the stop is written and answered."""

    drains = True

    def __init__(self, path: Path, limits: SpoolLimits, *, on_commit: threading.Event | None = None):
        super().__init__(name="ingest-spool-writer", log=log, what="writing the ingest spool",
                         interval_seconds=0, own_thread=True)
        self._path = path
        self._limits = limits
        self._on_commit = on_commit
        # Lists of requests (one per pass of the event loop), and the stop's marker.
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        # This pass's requests, handed over by `_hand_over` once the pass ends.
        self._arrived: list[_Waiting] = []
        self._spool: Spool | None = None
        # Set and cleared by the writer's thread; read by requests on the event loop.
        self._full = False
        self._full_checked = 0.0
        self._refused: Counter[tuple[str, str]] = Counter()
        # Counted on the event loop, taken by the writer's thread.
        self._refused_lock = threading.Lock()
        self._unavailable = False
        self._last_commit = 0.0

    async def prepare(self) -> None:
        self._spool = await self.blocking(Spool, self._path)

    async def drain(self) -> None:
        self._hand_over()  # this pass's requests go before the stop's marker
        self._inbox.put(_STOP)

    async def finish(self) -> None:
        if self._spool is not None:
            spool, self._spool = self._spool, None
            await self.blocking(self._flush_refusals_and_close, spool)

    def refused(self, reason: str) -> None:
        """Counts a refusal (recorded in the spool's counters with the next commit)."""
        with self._refused_lock:
            self._refused[("refused", reason)] += 1

    def pending_refusals(self) -> dict[str, int]:
        """Refusals counted but not yet written to the spool's counters (all of them while it cannot be
        written), by reason: the figures add them, so a refusal shows when it happens."""
        with self._refused_lock:
            return {reason: int(count) for (name, reason), count in self._refused.items() if name == "refused"}

    async def append(self, entry: NewEntry) -> None:
        if self._full:
            self.refused("queue_full")
            raise SpoolFull(retry_after=FULL_RETRY_AFTER_SECONDS)
        assert self._loop is not None  # set by start()
        future = self._loop.create_future()
        if not self._arrived:
            self._loop.call_soon(self._hand_over)
        self._arrived.append(_Waiting(entry, future))
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                raise
            # Cancelled while its entry was being written (the shutdown grace ended): the entry is written
            # all the same, so wait for the write and answer what happened rather than a 503 that says
            # "retry" for an event that was kept.
            task.uncancel()
            await future

    def _hand_over(self) -> None:
        if self._arrived:
            arrived, self._arrived = self._arrived, []
            self._inbox.put(arrived)

    def _take_refusals(self) -> dict[tuple[str, str], float]:
        with self._refused_lock:
            counts, self._refused = dict(self._refused), Counter()
        return dict(counts)

    def _put_back(self, counts: dict[tuple[str, str], float]) -> None:
        with self._refused_lock:
            for key, value in counts.items():
                self._refused[key] += int(value)

    def _flush_refusals(self, spool: Spool) -> None:
        counts = self._take_refusals()
        try:
            spool.count(counts)
        except sqlite3.Error:
            self._put_back(counts)

    async def tick(self) -> bool:
        """Serves the queue on the writer's thread until the stop's marker (everything before it answered)."""
        return await self.blocking(self._serve)

    def _serve(self) -> bool:
        """The writer's thread: one group commit per round, until the stop's marker; False then."""
        while True:
            try:
                first = self._inbox.get(timeout=FULL_RECHECK_SECONDS if self._full else REFUSALS_FLUSH_SECONDS)
            except queue.Empty:
                self._recheck_full()
                # Refusals are counted with the next commit; without one, they are written within a second.
                if self._refused and self._spool is not None:
                    self._flush_refusals(self._spool)
                continue
            if first is _STOP:
                return False
            batch = list(first)
            busy = time.monotonic() - self._last_commit < BUSY_SECONDS
            stop = self._gather(batch, COMMIT_DELAY_SECONDS if busy else 0.0)
            try:
                error = self._write(batch)
            except Exception as unexpected:
                self._failures.failed()
                error = SpoolUnavailable(str(unexpected))
            self._answer_soon(batch, error)
            self._last_commit = time.monotonic()
            if stop:
                return False
            self._recheck_full()

    def _gather(self, batch: list[_Waiting], delay: float) -> bool:
        """Adds what is queued, and what comes within `delay` seconds, to the batch; True when the stop's
        marker was reached."""
        deadline = time.monotonic() + delay
        while len(batch) < MAX_BATCH:
            remaining = deadline - time.monotonic()
            try:
                more = self._inbox.get(timeout=remaining) if remaining > 0 else self._inbox.get_nowait()
            except queue.Empty:
                return False
            if more is _STOP:
                return True
            batch.extend(more)
        return False

    def _answer_soon(self, batch: list[_Waiting], error: Exception | None) -> None:
        assert self._loop is not None
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(_answer, batch, error)

    def _recheck_full(self) -> None:
        """While refusing because the spool is full, reads its backlog again now and then."""
        now = time.monotonic()
        if not self._full or now - self._full_checked < FULL_RECHECK_SECONDS or self._spool is None:
            return
        self._full_checked = now
        try:
            backlog = self._spool.backlog()
        except sqlite3.Error:
            return
        self._full = self._limits.exceeded(backlog, time.time())

    def _write(self, batch: list[_Waiting]) -> Exception | None:
        assert self._spool is not None
        counts = self._take_refusals()
        counts[("accepted", "")] = len(batch)
        try:
            backlog = self._spool.append([item.entry for item in batch], counts)
        except sqlite3.Error as error:
            del counts[("accepted", "")]
            counts[("refused", "spool_unavailable")] = counts.get(("refused", "spool_unavailable"), 0) + len(batch)
            self._put_back(counts)
            if not self._unavailable:
                # Once per outage, not once per request: a full disk refuses thousands of requests.
                log.error("the ingest spool cannot be written (%s); refusing events with 503 until it can",
                          error)
                self._unavailable = True
            return SpoolUnavailable(str(error))
        if self._unavailable:
            log.warning("the ingest spool is writable again; accepting events")
            self._unavailable = False
        self._full = self._limits.exceeded(backlog, time.time())
        self._full_checked = time.monotonic()
        if self._on_commit is not None:
            self._on_commit.set()
        return None

    def _flush_refusals_and_close(self, spool: Spool) -> None:
        if self._refused:
            self._flush_refusals(spool)
        spool.close()


def _answer(batch: list[_Waiting], error: Exception | None) -> None:
    """On the event loop: wakes the requests of one written batch."""
    for item in batch:
        if item.future.done():
            continue  # the client went away; the entry is kept all the same
        if error is None:
            item.future.set_result(None)
        else:
            item.future.set_exception(error)

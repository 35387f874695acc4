"""The collector's side of the spool: appends accepted requests with group commit.

Each collector request hands one entry to the writer thread and waits; the thread takes everything
queued, appends it to the spool in ONE transaction and wakes the requests once the commit is on disk.
So "200" still means "will be stored", while the disk sees one sync per batch. The thread is the
writer's own (not an executor's): handing work over costs one queue put per request and one wake-up
of the event loop per batch.

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

from .spool import Backlog, NewEntry, Spool

log = logging.getLogger("outpost.error_tracking.accept")

MAX_BATCH = 1000
# What an SDK refused because the spool is full is asked to wait.
FULL_RETRY_AFTER_SECONDS = 5
# While refusing because the spool is full, how often its backlog is read again.
FULL_RECHECK_SECONDS = 0.5


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


_STOP = object()


class SpoolWriter:
    """`await writer.append(entry)` returns once the entry is durable in the spool."""

    def __init__(self, path: Path, limits: SpoolLimits, *, on_commit: threading.Event | None = None):
        self._path = path
        self._limits = limits
        self._on_commit = on_commit
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()
        self._start_error: BaseException | None = None
        # Read on the event loop, written by the thread: a stale value only delays a refusal by a batch.
        self._full = False
        self._refused: Counter[tuple[str, str]] = Counter()
        self._refused_lock = threading.Lock()  # counted on the event loop, taken by the thread
        self._unavailable = False

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="ingest-spool-writer", daemon=True)
        self._thread.start()
        await self._loop.run_in_executor(None, self._started.wait)
        if self._start_error is not None:
            raise self._start_error

    async def stop(self) -> None:
        if self._thread is None:
            return
        self._requests.put(_STOP)
        thread, self._thread = self._thread, None
        await asyncio.get_running_loop().run_in_executor(None, thread.join)

    def refused(self, reason: str) -> None:
        """Counts a refusal (recorded in the spool's counters with the next commit)."""
        with self._refused_lock:
            self._refused[("refused", reason)] += 1

    async def append(self, entry: NewEntry) -> None:
        if self._full:
            self.refused("queue_full")
            raise SpoolFull(retry_after=FULL_RETRY_AFTER_SECONDS)
        assert self._loop is not None
        future = self._loop.create_future()
        self._requests.put((entry, future))
        await future

    # --- the writer thread ---------------------------------------------------------------------

    def _run(self) -> None:
        try:
            spool = Spool(self._path)
        except BaseException as error:
            self._start_error = error
            self._started.set()
            return
        self._started.set()
        try:
            while True:
                try:
                    first = self._requests.get(timeout=FULL_RECHECK_SECONDS if self._full else None)
                except queue.Empty:
                    self._recheck(spool)
                    continue
                if first is _STOP:
                    break
                batch = [first]
                stop = False
                while len(batch) < MAX_BATCH:
                    try:
                        item = self._requests.get_nowait()
                    except queue.Empty:
                        break
                    if item is _STOP:
                        stop = True
                        break
                    batch.append(item)
                outcome = self._write(spool, batch)
                assert self._loop is not None
                self._loop.call_soon_threadsafe(_settle, batch, outcome)
                if stop:
                    break
        finally:
            self._flush_refusals(spool)
            spool.close()

    def _recheck(self, spool: Spool) -> None:
        try:
            self._full = self._limits.exceeded(spool.backlog(), time.time())
        except sqlite3.Error:
            pass

    def _write(self, spool: Spool, batch: list) -> Exception | None:
        with self._refused_lock:
            counts, self._refused = dict(self._refused), Counter()
        counts[("accepted", "")] = len(batch)
        try:
            backlog = spool.append([entry for entry, _future in batch], counts)
        except sqlite3.Error as error:
            with self._refused_lock:
                for key, value in counts.items():
                    if key != ("accepted", ""):
                        self._refused[key] += value
                self._refused[("refused", "spool_unavailable")] += len(batch)
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
        if self._on_commit is not None:
            self._on_commit.set()
        return None

    def _flush_refusals(self, spool: Spool) -> None:
        try:
            with self._refused_lock:
                refused = dict(self._refused)
            if refused:
                spool.count(refused)
        except sqlite3.Error:
            log.warning("refusal counts could not be written to the ingest spool")


def _settle(batch: list, error: Exception | None) -> None:
    for _entry, future in batch:
        if future.done():
            continue  # the client went away; the entry is kept all the same
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

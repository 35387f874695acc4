"""The digest stage: batches claimed from the spool are decoded, scrubbed, symbolicated and derived
(title, culprit, fingerprint, tags) once per event, in Sentry's order, before the write transaction opens;
the transaction holds only the batch's writes. Then the batch is removed from the spool.

One digester per spool: a thread of the server process, or with `serve --workers N` a process of
its own, so the workers' event loops never wait for the digest's Python work. Its decoding may run in
decode processes beside it (decode_pool.py, OUTPOST_DIGEST_PROCESSES); it alone writes, in spool order.
A crash at any point loses nothing: an entry leaves the spool only after its batch is committed, and a
batch digested twice stores no event twice (store_batch skips event ids the project already has).
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import threading
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from sqlalchemy.engine import Engine

from outpost_server.db import connection_scope, database_unavailable
from outpost_server.error_tracking.digest import progress
from outpost_server.error_tracking.digest.batch_sql import statements_for
from outpost_server.error_tracking.digest.batch_store import Accepted, store_batch
from outpost_server.error_tracking.digest.decode_pool import DatabaseUnreachable, Decoder, Decoding
from outpost_server.error_tracking.ingest.spool import DigestLock, Entry, Spool, spool_path

log = logging.getLogger("outpost.error_tracking.digest")

MAX_BATCH = 500
IDLE_POLL_SECONDS = 0.025
MAX_BACKOFF_SECONDS = 5.0
# Upper bounds of the batch size and duration histograms (Prometheus buckets).
BATCH_SIZE_BUCKETS = (1, 5, 10, 25, 50, 100, 250, 500)
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# Lag reaches up to the spool's default age limit (6 hours): past it, the backlog is refused anyway.
LAG_BUCKETS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0,
               14400.0, 21600.0)



_T = TypeVar("_T")


class _Stopping(Exception):
    """The shutdown's drain time ran out while the database was unreachable."""


class KnownUsers:
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


@dataclass
class _Decoded:
    entry: Entry
    accepted: Accepted


class Digester:
    def __init__(self, engine: Engine, *, data_dir: Path, decoder: Decoder, wake: threading.Event,
                 min_free_bytes: int):
        self._engine = engine
        self._decoder = decoder
        self._data_dir = data_dir
        self._min_free_bytes = min_free_bytes
        self._short_of_space = False
        self._path = spool_path(data_dir)
        self._wake = wake
        self._stop = threading.Event()
        self._deadline = float("inf")
        self._thread: threading.Thread | None = None
        self._known_users = KnownUsers()
        self._unreachable_since: float | None = None
        self._spool_id = ""

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="error-tracking-digest", daemon=True)
        self._thread.start()

    def stop(self, *, drain_seconds: float) -> None:
        """Digests what is left for up to `drain_seconds`, then stops (the rest waits for the next start)."""
        self._deadline = time.monotonic() + drain_seconds
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            # A batch may be waiting on a locked or unreachable database: it is not waited for past the
            # grace. Its entries stay in the spool for the next start.
            self._thread.join(timeout=drain_seconds + 1.0)
            if self._thread.is_alive():
                log.warning("the digest stage was still storing a batch when the shutdown grace ended; "
                            "what is left in the ingest spool is digested at the next start")
            self._thread = None

    def _run(self) -> None:
        lock = DigestLock(self._data_dir)
        # Another process may still be digesting this spool (a worker being replaced): wait for it.
        while not lock.acquire(timeout=1.0):
            if self._stop.is_set():
                return
        spool = Spool(self._path, durable=False)
        self._spool_id = spool.spool_id
        try:
            self._loop(spool)
        except Exception:
            log.exception("the digest stage stopped unexpectedly")
        finally:
            self._decoder.close()
            spool.close()
            lock.release()

    def _loop(self, spool: Spool) -> None:
        """With decode processes, the next batch is being decoded while this one is stored; at most
        `Decoder.in_flight` batches are read ahead, which bounds the memory."""
        digested_until = read_until = 0
        begun: deque[tuple[list[Entry], Decoding]] = deque()
        while not (self._stop.is_set() and time.monotonic() >= self._deadline):
            if not self._space_left():
                self._stop.wait(1.0)
                continue
            while len(begun) < self._decoder.in_flight:
                try:
                    entries = spool.read(after=read_until, limit=MAX_BATCH)
                except sqlite3.Error as error:  # an I/O error: try again shortly
                    log.warning("reading the ingest spool failed: %s", error)
                    entries = []
                if not entries:
                    break
                begun.append((entries, self._decoder.start(entries)))
                read_until = entries[-1].id
            if not begun:
                if self._stop.is_set():
                    return
                self._wake.wait(IDLE_POLL_SECONDS)
                self._wake.clear()
                continue
            entries, decoding = begun.popleft()
            if self._digest(spool, entries, decoding):
                digested_until = entries[-1].id
            else:  # read again from the first entry not digested
                begun.clear()
                read_until = digested_until

    def _space_left(self) -> bool:
        """Whether the data dir's disk keeps the floor free. Storing a batch (the main database too, on
        SQLite) with less left could fill the disk, and then the spool could not remove what was stored:
        the digest would be wedged, retrying the removal, until space came back. Says so once."""
        try:
            free = shutil.disk_usage(self._data_dir).free
        except OSError:
            return True
        if free >= self._min_free_bytes:
            if self._short_of_space:
                self._short_of_space = False
                log.warning("free space on the data dir's disk is back above the floor; digesting resumes")
            return True
        if not self._short_of_space:
            self._short_of_space = True
            log.error("only %d bytes are free on the data dir's disk, less than "
                      "OUTPOST_ERROR_TRACKING_DIGEST_MIN_FREE_BYTES (%d): digesting pauses until there is more; "
                      "accepted events wait in the ingest spool", free, self._min_free_bytes)
        return False

    def _digest(self, spool: Spool, entries: list[Entry], decoding: Decoding) -> bool:
        """Stores the batch and removes it from the spool; False when it must be read again."""
        started = time.monotonic()
        counts: dict[tuple[str, str], float] = defaultdict(float)
        # This thread's CPU per stage (bench.ingest's budgets); a decode process's own CPU is not in it.
        cpu_started = time.thread_time()
        try:
            decoded = self._retrying(partial(self._decoded, entries, [decoding], counts))
        except _Stopping:
            return False  # left in the spool for the next start
        cpu_decoded = time.thread_time()
        counts[("digest_cpu_seconds", "decode")] += cpu_decoded - cpu_started
        try:
            stored = self._retrying(lambda: self._store(decoded, counts))
        except _Stopping:
            return False  # left in the spool for the next start
        except Exception:
            # Store one by one, so a single request that cannot be stored keeps no other one out.
            log.warning("a batch of %d failed; storing its entries one by one", len(decoded), exc_info=True)
            stored = []
            for item in decoded:
                try:
                    stored += self._retrying(partial(self._store, [item], counts))
                except _Stopping:
                    return False
                except Exception:
                    log.exception("an accepted event could not be stored and was dropped")
                    counts[("dropped", "store_failed")] += 1
        counts[("digest_cpu_seconds", "store")] += time.thread_time() - cpu_decoded
        now = time.time()
        counts[("digest_batches", "")] += 1
        counts[("digest_batch_size_bucket", _bucket(len(entries), BATCH_SIZE_BUCKETS))] += 1
        counts[("digest_batch_size_sum", "")] += len(entries)
        duration = time.monotonic() - started
        counts[("digest_duration_bucket", _bucket(duration, DURATION_BUCKETS))] += 1
        counts[("digest_duration_sum", "")] += duration
        for item in stored:
            lag = now - item.entry.received_at
            counts[("digest_lag_bucket", _bucket(lag, LAG_BUCKETS))] += 1
            counts[("digest_lag_sum", "")] += lag
            content = item.accepted.content
            counts[("digested", "events")] += len(content.events)
            counts[("digested", "sessions")] += len(content.sessions) + len(content.session_buckets)
            counts[("digested", "check_ins")] += len(content.check_ins)
            counts[("digested", "requests")] += 1
        failed = False
        while True:
            try:
                spool.remove(entries, dict(counts))
                break
            except sqlite3.Error as error:
                # Stored but still queued: reading it again would only find its events stored already.
                if not failed:
                    log.warning("removing digested entries from the ingest spool failed (%s); retrying each "
                                "second", error)
                    failed = True
                if self._stop.wait(1.0) and time.monotonic() >= self._deadline:
                    return False
        if failed:
            log.warning("the digested entries are removed from the ingest spool")
        return True

    def _retrying(self, work: Callable[[], _T]) -> _T:
        """Runs `work`, waiting out an unreachable or locked database with backoff (the spool absorbs it)."""
        backoff = 0.1
        while True:
            try:
                done = work()
            except Exception as error:
                if not (isinstance(error, DatabaseUnreachable) or database_unavailable(error)):
                    raise
                self._note_unreachable(error)
                if self._stop.is_set() and time.monotonic() >= self._deadline:
                    raise _Stopping() from None
                time.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
                continue
            self._note_reachable()
            return done

    def _decoded(self, entries: list[Entry], begun: list[Decoding],
                 counts: dict[tuple[str, str], float]) -> list[_Decoded]:
        """The batch's decoding (begun earlier; begun again when it must be retried) paired with its entries.
        The drops are counted once the whole batch is decoded: a batch decoded again (the database was
        unreachable) counts them once."""
        decoding = begun.pop() if begun else self._decoder.start(entries)
        batch = decoding()
        for key, count in batch.dropped.items():
            counts[key] += count
        return [_Decoded(entries[index], accepted) for index, accepted in batch.accepted]

    def _store(self, decoded: list[_Decoded], counts: dict[tuple[str, str], float]) -> list[_Decoded]:
        """One transaction; returns what is stored, to be counted as digested. Entries of revoked keys are
        dropped and counted.

        Entries stored already (up to the spool's progress) are returned too: they are read again only
        when the process died between the store's commit and the spool's removal, which is also where their
        counts were to be written, so they are counted now (digested_total survives a kill -9)."""
        if not decoded:
            return []
        with connection_scope(self._engine) as connection:
            done = progress.digested_until(connection, self._spool_id)
            stored_before = [item for item in decoded if item.entry.id <= done]
            fresh = [item for item in decoded if item.entry.id > done]
            # Access was decided at accept from a cache; a key deleted since (here or on another
            # replica) keeps its events out of the store.
            keys = {item.accepted.public_key for item in fresh if item.accepted.public_key is not None}
            active = set(connection.execute(statements_for(connection.dialect).active_keys,
                                            {"keys": list(keys)}).all()) if keys else set()
            kept = [item for item in fresh if item.accepted.public_key is None
                    or (item.accepted.project_id, item.accepted.public_key) in active]
            result = store_batch(connection, [item.accepted for item in kept], known_users=self._known_users)
            if fresh:
                progress.record(connection, self._spool_id, fresh[-1].entry.id)
        self._known_users.add(result.user_pairs)
        revoked = len(fresh) - len(kept)
        if revoked:
            counts[("dropped", "key_revoked")] += revoked
        return stored_before + kept

    def _note_unreachable(self, error: Exception) -> None:
        if self._unreachable_since is None:
            self._unreachable_since = time.monotonic()
            log.error("the database is unreachable; events wait in the ingest spool (%s)", _failure_kind(error))

    def _note_reachable(self) -> None:
        if self._unreachable_since is not None:
            log.warning("the database is reachable again after %.1f s; digesting the backlog",
                        time.monotonic() - self._unreachable_since)
            self._unreachable_since = None


def _failure_kind(error: Exception) -> str:
    """The kind of the driver's exception, all the log says of an unreachable database."""
    if isinstance(error, DatabaseUnreachable):  # a decode process's, which names it
        return str(error)
    return type(getattr(error, "orig", None) or error).__name__


def _bucket(value: float, bounds: tuple[float, ...]) -> str:
    for bound in bounds:
        if value <= bound:
            return repr(float(bound))
    return "+Inf"

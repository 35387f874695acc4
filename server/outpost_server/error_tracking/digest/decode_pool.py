"""The digest's decoding on several cores (OUTPOST_DIGEST_PROCESSES): the digester hands each large batch,
still sealed, to a pool of decode processes, reads the next ones ahead for the other processes, and its one
writer applies what comes back in spool order. Sentry splits its preprocessing from saving the same way.

Each decode process has its own sealer and database engine: symbolication reads source maps, outside any
write transaction. Small batches (a digest keeping up, a quiet server, the tests' few events) are decoded in
the digester itself: for them handing over costs more CPU than it saves time, and on a busy machine that CPU
is the accept stage's. The processes start when the first large batch comes, a backlog.

A decode process that dies (kill -9, out of memory) breaks the pool: the batches it held are decoded in the
digester, and a new pool takes the next ones. Nothing was stored for them yet, and the writer's idempotency
covers a batch read again after the digester itself dies, so each acknowledged event is stored once.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial

from sqlalchemy.engine import Engine

from outpost_server.db import database_unavailable, make_engine
from outpost_server.error_tracking.digest.entry_decoding import DecodedBatch, Symbolicate, decode_entries
from outpost_server.error_tracking.ingest.sealing import Sealer
from outpost_server.error_tracking.ingest.spool import Entry
from outpost_server.platform_support import parent_alive

log = logging.getLogger("outpost.error_tracking.digest")

# Below this many entries a batch is decoded in the digester.
POOL_MIN_BATCH = 100
# How often a decode process checks that the digester that started it is still there.
PARENT_POLL_SECONDS = 1.0


@dataclass(frozen=True)
class DecodeSetup:
    """What a decode process needs to make its own sealer, engine and log (sent to it when it starts)."""

    database_url: str
    secret_key: str
    log_level: str
    configure_logging: Callable[[str], None]
    symbolicate: Symbolicate


class DatabaseUnreachable(Exception):
    """A decode process found the database unreachable: the digester waits it out as for its own reads."""


# Begun decoding of one batch; calling it waits for the result.
Decoding = Callable[[], DecodedBatch]


class Decoder:
    """Decodes the digester's batches: in its own process, or with `processes` > 1 in a pool of them."""

    def __init__(self, setup: DecodeSetup, *, engine: Engine, processes: int, start_method: str):
        """`start_method`: multiprocessing's "fork" where the digester is a process of its own on Linux (its
        decode processes then share its imported code and cost no start-up), "spawn" in a server process,
        whose other threads may hold locks a forked child would inherit held, and on macOS and Windows
        (platform_support.child_start_method)."""
        self._setup = setup
        self._start_method = start_method
        self._engine = engine
        self._sealer = Sealer(setup.secret_key)
        self._processes = processes
        self._pool: ProcessPoolExecutor | None = None

    @property
    def in_flight(self) -> int:
        """Batches the digester holds at once: with a pool, one being stored and one being decoded by each
        process. This bounds the memory (each batch is at most the digester's MAX_BATCH entries)."""
        return self._processes + 1 if self._processes > 1 else 1

    def start(self, entries: list[Entry]) -> Decoding:
        """Begins decoding the batch in the pool (a small one, or without a pool, when it is called)."""
        if self._processes <= 1 or len(entries) < POOL_MIN_BATCH:
            return partial(self._decode_here, entries)
        pool = self._running_pool()
        try:
            decoding = pool.submit(_decode_in_pool, entries)
        except BrokenProcessPool:
            log.warning("a decode process died; the digester decodes this batch, and new decode processes take "
                        "the next ones")
            self._replace(pool)
            return partial(self._decode_here, entries)
        return partial(self._result, pool, entries, decoding)

    def close(self) -> None:
        """Ends the decode processes, waiting for them: the digester's process exits right after, and exiting
        first would let multiprocessing close the pool's call queue before the pool's own thread has queued the
        decode processes' stop, so they would wait for it, and the exiting digester for them, forever."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _decode_here(self, entries: list[Entry]) -> DecodedBatch:
        return decode_entries(entries, engine=self._engine, sealer=self._sealer, symbolicate=self._setup.symbolicate)

    def _result(self, pool: ProcessPoolExecutor, entries: list[Entry], decoding: Future[DecodedBatch]) -> DecodedBatch:
        try:
            return decoding.result()
        except BrokenProcessPool:
            log.warning("a decode process died with a batch of %d entries in hand; the digester decodes it, "
                        "and new decode processes take the next batches", len(entries))
            self._replace(pool)
            return self._decode_here(entries)

    def _running_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context(self._start_method)
            self._pool = ProcessPoolExecutor(self._processes, mp_context=context, initializer=_start_decode_process,
                                             initargs=(self._setup, os.getpid()))
        return self._pool

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """Drops the broken pool (if no other batch replaced it already); the next large batch starts one."""
        if self._pool is broken:
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = None


# --- in a decode process --------------------------------------------------------------------

_engine: Engine | None = None
_sealer: Sealer | None = None
_symbolicate: Symbolicate | None = None


def _start_decode_process(setup: DecodeSetup, parent: int) -> None:
    global _engine, _sealer, _symbolicate
    # A forked decode process inherits the digester's stop handlers, which only set the digester's own event.
    # The pool ends the survivors of a broken pool with SIGTERM (their queue's lock may be held by the dead
    # one), so SIGTERM must end this process: a survivor that outlived it kept the pool's thread spinning and
    # the digester from exiting. Ctrl-C reaches the whole process group; the digester stops its decode processes.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    setup.configure_logging(setup.log_level)
    _engine, _sealer, _symbolicate = make_engine(setup.database_url), Sealer(setup.secret_key), setup.symbolicate
    # A digester killed with -9 cannot stop its pool: the process ends by itself once its parent is gone.
    threading.Thread(target=_exit_with, args=(parent,), name="decode-parent-watch", daemon=True).start()
    log.info("decode process %d started", os.getpid())


def _exit_with(parent: int) -> None:
    while parent_alive(parent):
        threading.Event().wait(PARENT_POLL_SECONDS)
    os._exit(0)


def _decode_in_pool(entries: list[Entry]) -> DecodedBatch:
    assert _engine is not None and _sealer is not None and _symbolicate is not None
    try:
        return decode_entries(entries, engine=_engine, sealer=_sealer, symbolicate=_symbolicate)
    except Exception as error:
        if database_unavailable(error):
            # The driver's exception may not survive pickling back; its kind is all the digester logs.
            raise DatabaseUnreachable(type(getattr(error, "orig", None) or error).__name__) from None
        raise

"""What every background worker of a server process is built on: BackgroundWorker (start, stop, a
loop of rounds, failures reported without flooding the log) and its helpers. The work done once across
replicas takes its lease from leases.py."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Self, TypeVar

from outpost_server.db import database_unavailable

T = TypeVar("T")


async def cancelled(task: asyncio.Task | None) -> None:
    """Cancels the task and waits until it has stopped; its cancellation is not passed on."""
    if task is None:
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


class FailureReport:
    """Reports a background worker's repeated failures without flooding the log.

    The first failure is logged with its traceback, the same failure again at most once a minute with
    a count, and the first success after failures once. A database outage makes every worker fail on
    every iteration; this keeps that to a few lines per worker.
    """

    def __init__(self, log: logging.Logger, what: str, *, every_seconds: float = 60.0):
        self._log = log
        self._what = what
        self._every = every_seconds
        self._failures = 0
        self._reported_at = 0.0
        self._unreported = 0

    def failed(self) -> None:
        """Call from an `except` block."""
        self._failures += 1
        now = time.monotonic()
        error = sys.exc_info()[1]
        if self._failures == 1:
            if error is not None and database_unavailable(error):
                # A known condition, not a bug: no traceback (the API and the digest say the same once).
                self._log.error("%s failed: the database is unreachable (%s); retrying", self._what,
                                type(getattr(error, "orig", None) or error).__name__)
            else:
                self._log.exception("%s failed; retrying", self._what)
            self._reported_at = now
        elif now - self._reported_at >= self._every:
            self._log.error("%s failed %d more times (%s)", self._what, self._unreported + 1,
                            type(sys.exc_info()[1]).__name__)
            self._reported_at, self._unreported = now, 0
        else:
            self._unreported += 1

    def succeeded(self) -> None:
        if self._failures:
            self._log.warning("%s works again after %d failures", self._what, self._failures)
            self._failures, self._unreported = 0, 0


@contextmanager
def heartbeat(beat: Callable[[], None], every_seconds: float) -> Iterator[None]:
    """Calls `beat` every `every_seconds` on a thread of its own while the block runs: for one long step
    that cannot stop to renew a lease (laying out a PDF). The first exception `beat` raises ends the beats
    and is raised again when the block ends."""
    stop = threading.Event()
    failures: list[BaseException] = []

    def beats() -> None:
        while not stop.wait(every_seconds):
            try:
                beat()
            except BaseException as failure:  # handed to the block's thread below
                failures.append(failure)
                return

    thread = threading.Thread(target=beats, name="heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
    if failures:
        raise failures[0]


class BackgroundWorker:
    """One background job of this process. `tick()` runs a round every `interval_seconds` (at once again
    when it answers True: more is waiting; sooner after `wake()`), `finish()` runs once on stop (a last
    flush). Blocking work goes to `blocking()`: the worker's own thread when it names one, else the
    shared pool. Used as an async context manager, the worker runs for the block.

    A worker that `drains` is not cancelled on stop: `drain()` asks its round to finish what it holds,
    and stop waits for the last round (the spool writer answers every event it was given).
    `prepare()` runs before the first round (opening what the rounds use)."""

    drains = False

    def __init__(self, *, name: str, log: logging.Logger, what: str, interval_seconds: float,
                 own_thread: bool = False):
        self.name = name
        self.interval_seconds = interval_seconds
        self.log = log
        self._failures = FailureReport(log, what)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name) if own_thread else None
        self._task: asyncio.Task | None = None
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False

    @property
    def stopping(self) -> bool:
        """True once stop() began: a long round checks it between steps."""
        return self._stopping

    async def prepare(self) -> None:
        """Runs once before the rounds start, when the worker is entered as a context manager."""

    async def drain(self) -> None:
        """For a worker that `drains`: make the current or next round return."""

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._stopping = False
        self._task = self._loop.create_task(self._rounds(), name=self.name)

    def wake(self) -> None:
        """Runs the next round now; callable from any thread (a request's commit, say)."""
        if self._loop is not None and self._wake is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake.set)

    async def stop(self) -> None:
        self._stopping = True
        if self.drains and self._task is not None:
            await self.drain()
            await asyncio.shield(self._task)
        else:
            await cancelled(self._task)
        self._task = None
        try:
            await self.finish()
        finally:
            if self._executor is not None:
                # A round still running in the thread stops at its next step (`stopping`).
                await asyncio.get_running_loop().run_in_executor(None, self._executor.shutdown)

    async def __aenter__(self) -> Self:
        await self.prepare()
        self.start()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.stop()

    async def blocking(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    async def blocking_to_the_end(self, function: Callable[..., T], *args: Any) -> T:
        """Like blocking(), for a write whose outcome the caller must know (counts kept to retry on failure).

        A cancellation (the stop) cannot stop the thread: it waits for the write to end. A failed write
        raises its error, and a write that went through raises the cancellation, so a caller keeps what
        was not written with `except asyncio.CancelledError: raise` before `except BaseException`."""
        writing = asyncio.ensure_future(self.blocking(function, *args))
        try:
            return await asyncio.shield(writing)
        except asyncio.CancelledError:
            await asyncio.wait([writing])
            writing.result()  # the write's own error, if it failed
            raise

    async def tick(self) -> bool | None:
        """One round of work; True when more is waiting and the next round should start at once."""
        raise NotImplementedError

    async def finish(self) -> None:
        """Runs once when the worker stops, after the last round."""

    async def _rounds(self) -> None:
        assert self._wake is not None
        while not (self._stopping and not self.drains):
            try:
                more = await self.tick()
                self._failures.succeeded()
            except Exception:
                self._failures.failed()
                more = False
            if self._stopping and not (self.drains and more):
                return
            if more:
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), self.interval_seconds)
            except TimeoutError:
                pass
            self._wake.clear()

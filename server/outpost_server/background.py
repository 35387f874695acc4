"""What the background workers (pruner, rate limit, refused-origin counts) share."""

from __future__ import annotations

import asyncio
import logging
import sys
import time

from outpost_server.db import database_unavailable


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

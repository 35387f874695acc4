"""The background pruner: one pass per interval across all replicas sharing the database.

A pass may run only in the process holding the lease row (`error_tracking_prune_lease`), and only
once the interval has passed since the last complete pass, whichever process ran it. The lease is
renewed in the transaction of every deleting batch, so a process that lost it (paused, partitioned)
stops at its next batch; a crashed process's lease expires after LEASE_SECONDS and another takes over.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from sqlalchemy import or_, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import FailureReport, cancelled
from outpost_server.db import changed_rows, session_scope, utcnow
from outpost_server.source_maps.pruning import SourceMapPrune, prune_source_maps

from .models import PruneLease, PruneRun
from .retention import ProjectPrune, RetentionPolicy, describe, prune_all

log = logging.getLogger("outpost.error_tracking.pruner")

LEASE_ID = 1
LEASE_SECONDS = 30
# How often a process checks whether a pass is due; passes themselves follow the configured interval.
POLL_SECONDS = 5.0


class LeaseLost(Exception):
    """Another process holds the lease now; this pass stops where it is."""


def claim(session: Session, *, owner: str, interval_seconds: float, now: dt.datetime, force: bool = False) -> bool:
    """Takes the lease when it is free (or expired) and a pass is due; True when this process holds it."""
    due = or_(PruneLease.last_finished_at.is_(None),
              PruneLease.last_finished_at <= now - dt.timedelta(seconds=interval_seconds))
    free = or_(PruneLease.owner.is_(None), PruneLease.expires_at < now)
    condition = free if force else (free & due)
    claimed = changed_rows(session.execute(
        update(PruneLease).where(PruneLease.id == LEASE_ID, condition)
        .values(owner=owner, expires_at=now + dt.timedelta(seconds=LEASE_SECONDS))))
    return claimed == 1


def renew(session: Session, *, owner: str) -> None:
    renewed = changed_rows(session.execute(
        update(PruneLease).where(PruneLease.id == LEASE_ID, PruneLease.owner == owner)
        .values(expires_at=utcnow() + dt.timedelta(seconds=LEASE_SECONDS))))
    if renewed != 1:
        raise LeaseLost()


def release(session: Session, *, owner: str, finished: bool) -> None:
    values: dict = {"owner": None, "expires_at": None}
    if finished:
        values["last_finished_at"] = utcnow()
    session.execute(update(PruneLease).where(PruneLease.id == LEASE_ID, PruneLease.owner == owner).values(**values))


def run_pass(factory: sessionmaker[Session], *, owner: str, defaults: RetentionPolicy, unused_bundle_days: int,
             keep_going=lambda: True) -> tuple[list[ProjectPrune], SourceMapPrune]:
    """One pass under a lease the caller already holds; records it in `error_tracking_prune_runs`."""
    with session_scope(factory) as session:
        run = PruneRun(worker_id=owner, started_at=utcnow(), events_deleted=0, bytes_deleted=0)
        session.add(run)
        session.flush()
        run_id = run.id
    finished = False
    results = []
    source_maps = SourceMapPrune()
    try:
        results = prune_all(factory, defaults=defaults, now=utcnow(), dry_run=False, keep_going=keep_going,
                            on_batch=lambda session: renew(session, owner=owner))
        if keep_going():
            source_maps = prune_source_maps(factory, now=utcnow(), unused_days=unused_bundle_days)
        finished = keep_going()
    finally:
        with session_scope(factory) as session:
            run = session.get_one(PruneRun, run_id)
            run.finished_at = utcnow()
            if finished:
                run.events_deleted = sum(result.events for result in results)
                run.bytes_deleted = sum(result.bytes for result in results)
        with session_scope(factory) as session:
            release(session, owner=owner, finished=finished)
    if any(result.events for result in results):
        for line in describe(results):
            log.info("pruned %s", line)
    for line in source_maps.describe():
        log.info("pruned %s", line)
    return results, source_maps


class Pruner:
    """Runs passes on a thread of its own, so the event loop never waits for the database."""

    def __init__(self, factory: sessionmaker[Session], *, defaults: RetentionPolicy, interval_seconds: float,
                 unused_bundle_days: int):
        self.factory = factory
        self.defaults = defaults
        self.unused_bundle_days = unused_bundle_days
        self.interval_seconds = interval_seconds
        self.owner = "pruner-" + uuid.uuid4().hex[:16]
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="error-tracking-pruner")
        self._stopping = False
        self._task: asyncio.Task | None = None
        self._failures = FailureReport(log, "error tracking pruning")

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="error-tracking-pruner")

    async def stop(self) -> None:
        self._stopping = True
        await cancelled(self._task)
        self._task = None
        # A pass in progress stops at its next batch (keep_going), then gives the lease back.
        await asyncio.get_running_loop().run_in_executor(None, self._executor.shutdown)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        poll = min(POLL_SECONDS, max(self.interval_seconds / 2, 0.2))
        while not self._stopping:
            try:
                await loop.run_in_executor(self._executor, self._pass_if_due)
                self._failures.succeeded()
            except LeaseLost:
                log.warning("pruning stopped: another process took the lease")
            except Exception:
                self._failures.failed()
            await asyncio.sleep(poll)

    def _pass_if_due(self) -> None:
        with session_scope(self.factory) as session:
            if not claim(session, owner=self.owner, interval_seconds=self.interval_seconds, now=utcnow()):
                return
        run_pass(self.factory, owner=self.owner, defaults=self.defaults, unused_bundle_days=self.unused_bundle_days,
                 keep_going=lambda: not self._stopping)


@asynccontextmanager
async def running_pruner(factory: sessionmaker[Session], *, defaults: RetentionPolicy, interval_seconds: float,
                         unused_bundle_days: int) -> AsyncIterator[Pruner]:
    """The process's pruner for the lifetime of the block."""
    pruner = Pruner(factory, defaults=defaults, interval_seconds=interval_seconds,
                    unused_bundle_days=unused_bundle_days)
    pruner.start()
    try:
        yield pruner
    finally:
        await pruner.stop()

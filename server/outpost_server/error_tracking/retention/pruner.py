"""The background pruner: one pass per interval across all replicas sharing the database.

A pass may run only in the process holding the lease row (`error_tracking_prune_lease`), and only
once the interval has passed since the last complete pass, whichever process ran it. The lease is
renewed in the transaction of every deleting batch, so a process that lost it (paused, partitioned)
stops at its next batch; a crashed process's lease expires after LEASE_SECONDS and another takes over.
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import or_
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import BackgroundWorker
from outpost_server.db import session_scope, utcnow
from outpost_server.error_tracking.digest import snoozes
from outpost_server.error_tracking.models import PruneLease, PruneRun
from outpost_server.error_tracking.retention import partitions
from outpost_server.error_tracking.retention.limits import ProjectPrune, RetentionPolicy, describe, prune_all
from outpost_server.error_tracking.retention.partition_retention import drop_expired, with_dropped
from outpost_server.leases import Lease, LeaseLost, new_holder
from outpost_server.source_maps.pruning import SourceMapPrune, prune_source_maps

log = logging.getLogger("outpost.error_tracking.pruner")

LEASE_ID = 1
LEASE_SECONDS = 30
# How often a process checks whether a pass is due; passes themselves follow the configured interval.
POLL_SECONDS = 5.0


# The single row every replica competes for (the shared lease of leases.py).
LEASE = Lease(PruneLease.owner, PruneLease.expires_at, LEASE_SECONDS)
THE_ROW = PruneLease.id == LEASE_ID


def claim(session: Session, *, owner: str, interval_seconds: float, now: dt.datetime, force: bool = False) -> bool:
    """Takes the lease when it is free (or expired) and a pass is due; True when this process holds it."""
    due = or_(PruneLease.last_finished_at.is_(None),
              PruneLease.last_finished_at <= now - dt.timedelta(seconds=interval_seconds))
    return LEASE.take(session, THE_ROW, holder=owner, now=now, when=None if force else due) == 1


def renew(session: Session, *, owner: str) -> None:
    LEASE.renew(session, THE_ROW, holder=owner)


def release(session: Session, *, owner: str, finished: bool) -> None:
    LEASE.release(session, THE_ROW, holder=owner, **({"last_finished_at": utcnow()} if finished else {}))


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
        with session_scope(factory) as session:  # ignored errors whose moment passed come back
            snoozes.wake_expired(session.connection(), utcnow())
        # PostgreSQL: partitions for the days ahead, then whole expired days dropped before any row delete.
        created, moved = partitions.prepare(factory, today=utcnow().date())
        if created or moved:
            log.info("created the partitions of %s; moved %d events out of the DEFAULT partition",
                     ", ".join(str(day) for day in created), moved)
        dropped = drop_expired(factory, defaults=defaults, now=utcnow(), keep_going=keep_going,
                               on_day=lambda session: renew(session, owner=owner))
        results = prune_all(factory, defaults=defaults, now=utcnow(), dry_run=False, keep_going=keep_going,
                            on_batch=lambda session: renew(session, owner=owner))
        results = with_dropped(factory, results, dropped)
        for day in dropped:
            log.info("dropped the partitions of %s: %d events", day.day, day.events)
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


class Pruner(BackgroundWorker):
    """Runs passes on a thread of its own, so the event loop never waits for the database."""

    def __init__(self, factory: sessionmaker[Session], *, defaults: RetentionPolicy, interval_seconds: float,
                 unused_bundle_days: int):
        # How often this process checks whether a pass is due; passes follow the configured interval.
        super().__init__(name="error-tracking-pruner", log=log, what="error tracking pruning",
                         interval_seconds=min(POLL_SECONDS, max(interval_seconds / 2, 0.2)), own_thread=True)
        self.factory = factory
        self.defaults = defaults
        self.unused_bundle_days = unused_bundle_days
        self.pass_interval_seconds = interval_seconds
        self.owner = new_holder("pruner")

    async def tick(self) -> None:
        try:
            await self.blocking(self._pass_if_due)
        except LeaseLost:
            log.warning("pruning stopped: another process took the lease")

    def _pass_if_due(self) -> None:
        with session_scope(self.factory) as session:
            if not claim(session, owner=self.owner, interval_seconds=self.pass_interval_seconds, now=utcnow()):
                return
        run_pass(self.factory, owner=self.owner, defaults=self.defaults, unused_bundle_days=self.unused_bundle_days,
                 keep_going=lambda: not self.stopping)

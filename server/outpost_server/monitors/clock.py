"""The monitors' clock: one process of the deployment (the holder of the `monitor_clock` lease row,
leases.py) marks, every few seconds,

- a *missed* check-in for each environment of an active monitor whose `next_checkin_latest` has
  passed (the schedule plus `checkin_margin`), expected at its `next_checkin`, and moves the expected
  time one step on from there, as Sentry's check_missed does;
- a *timed out* check-in for each check-in still in progress past its `timeout_at` (`max_runtime`).

Marks are written in transactions of up to 100, each of which also renews the lease and settles the
environments' statuses (state.py), so a process that lost the lease writes nothing more, and a row
another process changed meanwhile is marked once. Paused monitors are skipped. Hourly, check-ins older than their
project's error tracking retention are removed.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import BackgroundWorker
from outpost_server.db import changed_rows, session_scope, utcnow
from outpost_server.error_tracking.retention.limits import RetentionPolicy, find_override, project_policy
from outpost_server.leases import Lease, LeaseLost, new_holder

from .models import Monitor, MonitorCheckIn, MonitorClock, MonitorEnvironment
from .state import settle

log = logging.getLogger("outpost.monitors.clock")

LEASE_SECONDS = 30
THE_ROW = MonitorClock.id == 1
LEASE = Lease(MonitorClock.owner, MonitorClock.expires_at, LEASE_SECONDS)
PRUNE_EVERY = dt.timedelta(hours=1)
# Marks per tick at most, so a long outage is caught up over several ticks without one long transaction.
MAX_MARKS = 500
# Marks written in one transaction: on SQLite every transaction takes the one write lock, so hundreds of
# one-row transactions a tick would queue the API's writes behind them; a few batches do not.
MARKS_PER_TRANSACTION = 100


def _due_environments(session: Session, now: dt.datetime) -> list[int]:
    return list(session.scalars(
        select(MonitorEnvironment.id).join(Monitor, Monitor.id == MonitorEnvironment.monitor_id)
        .where(Monitor.status == "active", MonitorEnvironment.next_checkin_latest <= now)
        .order_by(MonitorEnvironment.next_checkin_latest).limit(MAX_MARKS)))


def _overdue_check_ins(session: Session, now: dt.datetime) -> list[int]:
    return list(session.scalars(
        select(MonitorCheckIn.id).join(Monitor, Monitor.id == MonitorCheckIn.monitor_id)
        .where(Monitor.status == "active", MonitorCheckIn.status == "in_progress", MonitorCheckIn.timeout_at <= now)
        .order_by(MonitorCheckIn.timeout_at).limit(MAX_MARKS)))


def mark_missed(session: Session, *, environment_id: int, now: dt.datetime) -> bool:
    """Marks one missed check-in if the environment is still overdue (read again under its row lock)."""
    environment = session.scalars(select(MonitorEnvironment).where(MonitorEnvironment.id == environment_id)
                                  .with_for_update()).first()
    if environment is None or environment.next_checkin_latest is None or environment.next_checkin_latest > now:
        return False
    monitor = session.get_one(Monitor, environment.monitor_id)
    if monitor.status != "active":
        return False
    config = monitor.config()
    expected = environment.next_checkin or environment.next_checkin_latest
    check_in = MonitorCheckIn(guid=uuid.uuid4().hex, monitor_id=monitor.id, monitor_environment_id=environment.id,
                              project_id=monitor.project_id, status="missed", created_at=expected, updated_at=now,
                              expected_time=expected)
    session.add(check_in)
    environment.next_checkin = config.next_after(expected)
    environment.next_checkin_latest = environment.next_checkin + config.margin()
    settle(session, monitor, environment, check_in)
    return True


def mark_timed_out(session: Session, *, check_in_id: int, now: dt.datetime) -> bool:
    check_in = session.scalars(select(MonitorCheckIn).where(MonitorCheckIn.id == check_in_id)
                               .with_for_update()).first()
    if check_in is None or check_in.status != "in_progress" or check_in.timeout_at is None or check_in.timeout_at > now:
        return False
    environment = session.scalars(select(MonitorEnvironment).where(
        MonitorEnvironment.id == check_in.monitor_environment_id).with_for_update()).one()
    monitor = session.get_one(Monitor, check_in.monitor_id)
    check_in.status, check_in.updated_at = "timeout", now
    check_in.duration = int((now - check_in.created_at).total_seconds() * 1000)
    settle(session, monitor, environment, check_in)
    return True


def prune_check_ins(session: Session, *, defaults: RetentionPolicy, now: dt.datetime) -> int:
    """Removes check-ins older than their project's retention; how many."""
    removed = 0
    for project_id in session.scalars(select(Monitor.project_id).distinct()):
        cutoff = project_policy(defaults, find_override(session, project_id=project_id)).cutoff(now)
        if cutoff is not None:
            removed += changed_rows(session.execute(delete(MonitorCheckIn).where(
                MonitorCheckIn.project_id == project_id, MonitorCheckIn.created_at < cutoff)))
    return removed


class MonitorClockWorker(BackgroundWorker):
    def __init__(self, factory: sessionmaker[Session], *, interval_seconds: float, retention: RetentionPolicy):
        super().__init__(name="monitor-clock", log=log, what="marking missed and timed-out check-ins",
                         interval_seconds=interval_seconds, own_thread=True)
        self.factory = factory
        self.retention = retention
        self.owner = new_holder("monitor-clock")

    async def tick(self) -> None:
        try:
            await self.blocking(self._round)
        except LeaseLost:
            log.warning("the monitor clock stopped: another process took its lease")

    def _renewed(self, session: Session) -> None:
        LEASE.renew(session, THE_ROW, holder=self.owner)

    def _round(self) -> None:
        now = utcnow()
        with session_scope(self.factory) as session:
            if LEASE.take(session, THE_ROW, holder=self.owner, now=now) == 0:
                held = session.scalars(select(MonitorClock.owner).where(THE_ROW)).first()
                if held != self.owner:
                    return
                self._renewed(session)
            environments = _due_environments(session, now)
            check_ins = _overdue_check_ins(session, now)
            prune_due = session.scalars(select(MonitorClock.last_pruned_at).where(THE_ROW)).first()
        for start in range(0, len(environments), MARKS_PER_TRANSACTION):
            with session_scope(self.factory) as session:
                self._renewed(session)
                for environment_id in environments[start:start + MARKS_PER_TRANSACTION]:
                    mark_missed(session, environment_id=environment_id, now=now)
        for start in range(0, len(check_ins), MARKS_PER_TRANSACTION):
            with session_scope(self.factory) as session:
                self._renewed(session)
                for check_in_id in check_ins[start:start + MARKS_PER_TRANSACTION]:
                    mark_timed_out(session, check_in_id=check_in_id, now=now)
        if prune_due is None or now - prune_due >= PRUNE_EVERY:
            with session_scope(self.factory) as session:
                self._renewed(session)
                removed = prune_check_ins(session, defaults=self.retention, now=now)
                session.execute(update(MonitorClock).where(THE_ROW).values(last_pruned_at=now))
            if removed:
                log.info("pruned %d monitor check-ins past their project's retention", removed)

    async def finish(self) -> None:
        await self.blocking(self._release)

    def _release(self) -> None:
        with session_scope(self.factory) as session:
            LEASE.release(session, THE_ROW, holder=self.owner)

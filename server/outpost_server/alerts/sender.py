"""The sender worker: every server process delivers the outbox, and two processes never send one row at once.

Due rows are claimed with a lease written in the database: on PostgreSQL with SELECT ... FOR UPDATE SKIP
LOCKED, on SQLite (one writer at a time) with a single UPDATE that claims them. A row is finished only by
the process whose claim it still carries. A failed attempt is retried with exponential backoff; a row
still failing 24 hours after it was written is marked failed. A process that dies while sending leaves
its claim to expire, and the row is taken again.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import os
import socket

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import BackgroundWorker
from outpost_server.db import session_scope, utcnow
from outpost_server.leases import Lease, new_holder

from .delivery import DeliveryContext, DeliveryFailed, deliver
from .models import AlertDelivery

log = logging.getLogger("outpost.alerts")

CLAIM_BATCH = 10
IDLE_POLL_SECONDS = 1.0
GIVE_UP_AFTER = dt.timedelta(hours=24)
MAX_BACKOFF = dt.timedelta(hours=1)


def backoff(attempts: int, base_seconds: float) -> dt.timedelta:
    """base, 2×base, 4×base ... up to an hour between attempts."""
    return min(dt.timedelta(seconds=base_seconds * 2 ** max(0, attempts - 1)), MAX_BACKOFF)


class AlertSender(BackgroundWorker):
    def __init__(self, factory: sessionmaker[Session], context: DeliveryContext, *, lease_seconds: int,
                 retry_seconds: float):
        super().__init__(name="alert-sender", log=log, what="delivering alerts", interval_seconds=IDLE_POLL_SECONDS)
        self._factory = factory
        self._context = context
        self._lease = Lease(AlertDelivery.lease_owner, AlertDelivery.lease_expires_at, lease_seconds)
        self._retry_seconds = retry_seconds
        self._worker = new_holder(f"{socket.gethostname()[:40]}:{os.getpid()}")
        self._claims = itertools.count(1)

    def claim(self) -> tuple[str, list[int]]:
        """Claims up to CLAIM_BATCH due rows; (the claim's owner mark, their ids)."""
        owner = f"{self._worker}:{next(self._claims)}"
        now = utcnow()
        table = AlertDelivery
        due = and_(table.status.in_(("pending", "sending")), table.next_attempt_at <= now, self._lease.free(now))
        claimed = {**self._lease.held(owner, now), "status": "sending", "attempts": table.attempts + 1}
        oldest_first = select(table.id).where(due).order_by(table.next_attempt_at, table.id).limit(CLAIM_BATCH)
        with session_scope(self._factory) as session:
            if session.get_bind().dialect.name == "postgresql":
                ids = list(session.scalars(oldest_first.with_for_update(skip_locked=True)))
                if ids:
                    session.execute(update(table).where(table.id.in_(ids)).values(claimed))
            elif session.scalars(oldest_first.limit(1)).first() is None:
                # Nothing due: an idle round only reads. SQLite has one writer at a time, and a round that
                # waited for the write lock behind a long digest failed after the busy timeout.
                ids = []
            else:
                session.execute(update(table).where(table.id.in_(oldest_first)).values(claimed))
                ids = list(session.scalars(select(table.id).where(self._lease.held_by(owner))))
        return owner, ids

    def send_due(self) -> int:
        """One round: claims, sends and records due rows; the number handled."""
        owner, ids = self.claim()
        for delivery_id in ids:
            self._send_one(delivery_id, owner)
        return len(ids)

    def _send_one(self, delivery_id: int, owner: str) -> None:
        with self._factory() as session:
            row = session.get(AlertDelivery, delivery_id)
            if row is None or row.lease_owner != owner:
                return
            try:
                deliver(session, row, self._context)
            except DeliveryFailed as failure:
                outcome: str | None = str(failure)[:1000]
            else:
                outcome = None
            session.rollback()  # reading only; the outcome is written below, under the claim
        self._finish(delivery_id, owner, outcome)

    def _finish(self, delivery_id: int, owner: str, failure: str | None) -> None:
        now = utcnow()
        table = AlertDelivery
        with session_scope(self._factory) as session:
            row = session.get(table, delivery_id)
            if row is None:
                return
            attempts = row.attempts
            if failure is None:
                values = {"status": "sent", "finished_at": now, "last_error": None}
            elif now - row.created_at >= GIVE_UP_AFTER:
                values = {"status": "failed", "finished_at": now, "last_error": failure}
            else:
                values = {"status": "pending", "last_error": failure,
                          "next_attempt_at": now + backoff(attempts, self._retry_seconds)}
            self._lease.release(session, table.id == delivery_id, holder=owner, **values)
        if failure is not None:
            # The row's ids and the reason only: targets may carry tokens in their paths.
            log.info("alert delivery %d failed (attempt %d): %s", delivery_id, attempts, failure)

    async def tick(self) -> bool:
        """One round; True when a whole batch was due, so more may be waiting."""
        return await self.blocking(self.send_due) >= CLAIM_BATCH

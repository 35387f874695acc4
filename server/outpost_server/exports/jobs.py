"""The background export job: durable, leased, produced exactly once across server processes.

Jobs live in the vulnerability_exports table. A worker claims one with a conditional UPDATE (the
row's status and attempt count must still be what it read), which only one process can win on
SQLite and PostgreSQL alike. While writing it renews a lease in the same transaction as each stored
chunk, so a worker that lost its lease can never add to the file; a job whose lease ran out (its
process died) is claimed again from scratch, and fails after MAX_ATTEMPTS.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import BackgroundWorker, heartbeat
from outpost_server.db import changed_rows, session_scope, utcnow
from outpost_server.exports.models import VulnerabilityExport, VulnerabilityExportChunk
from outpost_server.exports.notify import send_completion_email
from outpost_server.exports.writers import file_name, plan_of, write_file
from outpost_server.leases import Lease, LeaseLost, new_holder
from outpost_server.mail import MailSettings

log = logging.getLogger("outpost.exports")

MAX_ATTEMPTS = 3
CHUNK_BYTES = 512 * 1024
IDLE_POLL_SECONDS = 1.0
SWEEP_EVERY_SECONDS = 5.0


class StopRequested(Exception):
    """The server is shutting down; hand the job back."""


def job_lease(lease_seconds: float) -> Lease:
    """A job is held through its lease_owner and lease_expires_at columns (leases.py)."""
    return Lease(VulnerabilityExport.lease_owner, VulnerabilityExport.lease_expires_at, lease_seconds)


def _running(export_id: int) -> ColumnElement[bool]:
    return and_(VulnerabilityExport.id == export_id, VulnerabilityExport.status == "running")


def claim_next(factory: sessionmaker[Session], *, worker_id: str, lease_seconds: int) -> int | None:
    """Claims the oldest waiting job, or one whose worker's lease expired; None when there is none."""
    now = utcnow()
    lease = job_lease(lease_seconds)
    with session_scope(factory) as session:
        candidates = session.execute(
            select(VulnerabilityExport.id, VulnerabilityExport.status, VulnerabilityExport.attempts)
            .where(VulnerabilityExport.expires_at > now,
                   or_(VulnerabilityExport.status == "created",
                       and_(VulnerabilityExport.status == "running", lease.free(now))))
            .order_by(VulnerabilityExport.id)
            .limit(10)
        ).all()
    for export_id, status, attempts in candidates:
        unchanged = and_(VulnerabilityExport.id == export_id, VulnerabilityExport.status == status,
                         VulnerabilityExport.attempts == attempts)
        with session_scope(factory) as session:
            if attempts >= MAX_ATTEMPTS:
                session.execute(update(VulnerabilityExport).where(unchanged).values(
                    **lease.released(), status="failed", finished_at=now,
                    error="gave up after repeated interrupted attempts"))
                continue
            claimed = changed_rows(session.execute(update(VulnerabilityExport).where(unchanged).values(
                **lease.held(worker_id, now), status="running", started_at=now, attempts=attempts + 1)))
        if claimed == 1:
            return export_id
    return None


class ChunkWriter:
    """Buffers CSV text and stores it in chunks, renewing the job's lease with every chunk."""

    def __init__(self, factory: sessionmaker[Session], *, export_id: int, worker_id: str, lease_seconds: int,
                 should_stop: Callable[[], bool]):
        self.factory = factory
        self.export_id = export_id
        self.worker_id = worker_id
        self.lease_seconds = lease_seconds
        self.lease = job_lease(lease_seconds)
        self.should_stop = should_stop
        self.parts: list[str] = []
        self.buffered = 0
        self.position = 0
        self.byte_size = 0
        self.renewed_at = time.monotonic()

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.buffered += len(text)
        if self.buffered >= CHUNK_BYTES:
            self.flush()

    def keepalive(self) -> None:
        """For a file built whole (nothing stored for a while): renews the lease once a third of it has
        passed since the last renewal, however often it is called."""
        if self.should_stop():
            raise StopRequested
        if time.monotonic() - self.renewed_at >= self.lease_seconds / 3:
            with session_scope(self.factory) as session:
                self.renew_lease(session)

    def renewing(self) -> AbstractContextManager[None]:
        def renew() -> None:
            with session_scope(self.factory) as session:
                self.renew_lease(session)

        return heartbeat(renew, self.lease_seconds / 3)

    def write_bytes(self, data: bytes) -> None:
        """A file built whole (the PDF): stored in chunks of CHUNK_BYTES after any buffered text."""
        self.flush()
        for start in range(0, len(data), CHUNK_BYTES):
            self._store(data[start:start + CHUNK_BYTES])

    def flush(self) -> None:
        data = "".join(self.parts).encode("utf-8")
        self.parts, self.buffered = [], 0
        self._store(data)

    def _store(self, data: bytes) -> None:
        if self.should_stop():
            raise StopRequested
        if not data:
            return
        with session_scope(self.factory) as session:
            self.renew_lease(session)
            session.add(VulnerabilityExportChunk(export_id=self.export_id, position=self.position, data=data))
        self.position += 1
        self.byte_size += len(data)

    def renew_lease(self, session: Session) -> None:
        self.lease.renew(session, _running(self.export_id), holder=self.worker_id)
        self.renewed_at = time.monotonic()


def generate(factory: sessionmaker[Session], export_id: int, *, worker_id: str, lease_seconds: int,
             should_stop: Callable[[], bool] = lambda: False) -> None:
    """Writes the file of a claimed export and marks it finished."""
    writer = ChunkWriter(factory, export_id=export_id, worker_id=worker_id, lease_seconds=lease_seconds,
                         should_stop=should_stop)
    with session_scope(factory) as session:
        writer.renew_lease(session)
        export = session.get(VulnerabilityExport, export_id)
        if export is None:
            raise LeaseLost  # deleted since it was claimed
        plan = plan_of(session, export)
        # Chunks of an earlier, interrupted attempt.
        session.execute(delete(VulnerabilityExportChunk).where(VulnerabilityExportChunk.export_id == export_id))
    write_file(factory, plan, writer)
    writer.flush()
    now = utcnow()
    with session_scope(factory) as session:
        finished = writer.lease.release(session, _running(export_id), holder=worker_id, status="finished",
                                        finished_at=now, file_name=file_name(plan, now), byte_size=writer.byte_size)
    if finished != 1:
        raise LeaseLost


def release(factory: sessionmaker[Session], export_id: int, *, worker_id: str, lease: Lease, failed: bool,
            error: str | None = None) -> None:
    """Hands a job back (status created, for another try) or marks it failed."""
    values: dict[str, Any] = {"error": error}
    if failed:
        values |= {"status": "failed", "finished_at": utcnow()}
    else:
        # A graceful hand-back does not count as an attempt.
        values |= {"status": "created", "started_at": None, "attempts": VulnerabilityExport.attempts - 1}
    with session_scope(factory) as session:
        lease.release(session, _running(export_id), holder=worker_id, **values)


def sweep_expired(factory: sessionmaker[Session]) -> int:
    """Deletes exports (and their files) older than their lifetime."""
    now = utcnow()
    with session_scope(factory) as session:
        expired = select(VulnerabilityExport.id).where(VulnerabilityExport.expires_at <= now)
        session.execute(delete(VulnerabilityExportChunk).where(VulnerabilityExportChunk.export_id.in_(expired)))
        return changed_rows(session.execute(delete(VulnerabilityExport).where(VulnerabilityExport.expires_at <= now)))


class ExportWorker(BackgroundWorker):
    """Runs export jobs in the background of one server process. On stop, the job in hand is given back
    (status created) at its next chunk, for this or another process to take again."""

    drains = True

    def __init__(self, factory: sessionmaker[Session], *, lease_seconds: int, mail: MailSettings | None = None):
        super().__init__(name="vulnerability-export-worker", log=log, what="the export worker",
                         interval_seconds=IDLE_POLL_SECONDS)
        self.factory = factory
        self.lease_seconds = lease_seconds
        self.lease = job_lease(lease_seconds)
        self.mail = mail
        self.worker_id = new_holder(f"{socket.gethostname()[:32]}:{os.getpid()}")
        self._last_sweep = float("-inf")

    async def drain(self) -> None:
        self.wake()  # a round waiting for work ends at once; a job in hand stops at its next chunk

    async def tick(self) -> bool:
        """Runs one job; True when one ran, so another may be waiting."""
        if self.stopping:
            return False
        now = time.monotonic()
        if now - self._last_sweep >= SWEEP_EVERY_SECONDS:
            self._last_sweep = now
            await self.blocking(sweep_expired, self.factory)
        export_id = await self.blocking(
            lambda: claim_next(self.factory, worker_id=self.worker_id, lease_seconds=self.lease_seconds))
        if export_id is None:
            return False
        await self.blocking(self._run_job, export_id)
        return True

    def _run_job(self, export_id: int) -> None:
        started = time.perf_counter()
        try:
            generate(self.factory, export_id, worker_id=self.worker_id, lease_seconds=self.lease_seconds,
                     should_stop=lambda: self.stopping)
            log.info("vulnerability export %s finished in %.2f s", export_id, time.perf_counter() - started)
            # Never fails the export: a send failure is logged (GitLab sends after finish! too).
            send_completion_email(self.factory, export_id, self.mail)
        except StopRequested:
            release(self.factory, export_id, worker_id=self.worker_id, lease=self.lease, failed=False)
        except LeaseLost:
            log.warning("vulnerability export %s was taken over by another worker", export_id)
        except Exception as exc:
            log.exception("vulnerability export %s failed", export_id)
            release(self.factory, export_id, worker_id=self.worker_id, lease=self.lease, failed=True,
                    error=type(exc).__name__)

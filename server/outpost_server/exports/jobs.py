"""The background export job: durable, leased, produced exactly once across server processes.

Jobs live in the vulnerability_exports table. A worker claims one with a conditional UPDATE (the
row's status and attempt count must still be what it read), which only one process can win on
SQLite and PostgreSQL alike. While writing it renews a lease in the same transaction as each stored
chunk, so a worker that lost its lease can never add to the file; a job whose lease ran out (its
process died) is claimed again from scratch, and fails after MAX_ATTEMPTS.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.background import FailureReport
from outpost_server.db import changed_rows, session_scope, utcnow
from outpost_server.exports.models import VulnerabilityExport, VulnerabilityExportChunk
from outpost_server.exports.notify import send_completion_email
from outpost_server.exports.writers import file_name, plan_of, write_file
from outpost_server.mail import MailSettings

log = logging.getLogger("outpost.exports")

MAX_ATTEMPTS = 3
CHUNK_BYTES = 512 * 1024
IDLE_POLL_SECONDS = 1.0
SWEEP_EVERY_SECONDS = 5.0


class LeaseLost(Exception):
    """Another worker owns the job now (or it was deleted); stop writing."""


class StopRequested(Exception):
    """The server is shutting down; hand the job back."""


def new_worker_id() -> str:
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def claim_next(factory: sessionmaker[Session], *, worker_id: str, lease_seconds: int) -> int | None:
    """Claims the oldest waiting job, or one whose worker's lease expired; None when there is none."""
    now = utcnow()
    with factory() as session:
        candidates = session.execute(
            select(VulnerabilityExport.id, VulnerabilityExport.status, VulnerabilityExport.attempts)
            .where(VulnerabilityExport.expires_at > now,
                   or_(VulnerabilityExport.status == "created",
                       and_(VulnerabilityExport.status == "running", VulnerabilityExport.lease_expires_at < now)))
            .order_by(VulnerabilityExport.id)
            .limit(10)
        ).all()
    for export_id, status, attempts in candidates:
        unchanged = and_(VulnerabilityExport.id == export_id, VulnerabilityExport.status == status,
                         VulnerabilityExport.attempts == attempts)
        with session_scope(factory) as session:
            if attempts >= MAX_ATTEMPTS:
                session.execute(update(VulnerabilityExport).where(unchanged).values(
                    status="failed", finished_at=now, lease_owner=None, lease_expires_at=None,
                    error="gave up after repeated interrupted attempts"))
                continue
            claimed = changed_rows(session.execute(update(VulnerabilityExport).where(unchanged).values(
                status="running", started_at=now, lease_owner=worker_id, attempts=attempts + 1,
                lease_expires_at=now + dt.timedelta(seconds=lease_seconds))))
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
        renewed = changed_rows(session.execute(
            update(VulnerabilityExport)
            .where(VulnerabilityExport.id == self.export_id, VulnerabilityExport.status == "running",
                   VulnerabilityExport.lease_owner == self.worker_id)
            .values(lease_expires_at=utcnow() + dt.timedelta(seconds=self.lease_seconds))
        ))
        if renewed != 1:
            raise LeaseLost
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
        finished = changed_rows(session.execute(
            update(VulnerabilityExport)
            .where(VulnerabilityExport.id == export_id, VulnerabilityExport.status == "running",
                   VulnerabilityExport.lease_owner == worker_id)
            .values(status="finished", finished_at=now, file_name=file_name(plan, now),
                    byte_size=writer.byte_size, lease_owner=None, lease_expires_at=None)
        ))
    if finished != 1:
        raise LeaseLost


def release(factory: sessionmaker[Session], export_id: int, *, worker_id: str, failed: bool,
            error: str | None = None) -> None:
    """Hands a job back (status created, for another try) or marks it failed."""
    owned = and_(VulnerabilityExport.id == export_id, VulnerabilityExport.status == "running",
                 VulnerabilityExport.lease_owner == worker_id)
    values: dict[str, Any] = {"lease_owner": None, "lease_expires_at": None, "error": error}
    if failed:
        values |= {"status": "failed", "finished_at": utcnow()}
    else:
        # A graceful hand-back does not count as an attempt.
        values |= {"status": "created", "started_at": None, "attempts": VulnerabilityExport.attempts - 1}
    with session_scope(factory) as session:
        session.execute(update(VulnerabilityExport).where(owned).values(**values))


def sweep_expired(factory: sessionmaker[Session]) -> int:
    """Deletes exports (and their files) older than their lifetime."""
    now = utcnow()
    with session_scope(factory) as session:
        expired = select(VulnerabilityExport.id).where(VulnerabilityExport.expires_at <= now)
        session.execute(delete(VulnerabilityExportChunk).where(VulnerabilityExportChunk.export_id.in_(expired)))
        return changed_rows(session.execute(delete(VulnerabilityExport).where(VulnerabilityExport.expires_at <= now)))


class ExportWorker:
    """Runs export jobs in the background of one server process."""

    def __init__(self, factory: sessionmaker[Session], *, lease_seconds: int, mail: MailSettings | None = None):
        self.factory = factory
        self.lease_seconds = lease_seconds
        self.mail = mail
        self.worker_id = new_worker_id()
        self.stopping = False
        self._wake = asyncio.Event()
        self._failures = FailureReport(log, "the export worker")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._run(), name="vulnerability-export-worker")

    async def stop(self) -> None:
        self.stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task

    def wake(self) -> None:
        """Callable from any thread: a new job is waiting."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake.set)

    async def _run(self) -> None:
        last_sweep = 0.0
        while not self.stopping:
            try:
                loop_time = asyncio.get_running_loop().time()
                if loop_time - last_sweep >= SWEEP_EVERY_SECONDS:
                    last_sweep = loop_time
                    await asyncio.to_thread(sweep_expired, self.factory)
                export_id = await asyncio.to_thread(
                    claim_next, self.factory, worker_id=self.worker_id, lease_seconds=self.lease_seconds)
                self._failures.succeeded()
                if export_id is not None:
                    await asyncio.to_thread(self._run_job, export_id)
                    continue
            except Exception:
                self._failures.failed()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), IDLE_POLL_SECONDS)
            except asyncio.TimeoutError:
                pass

    def _run_job(self, export_id: int) -> None:
        started = time.perf_counter()
        try:
            generate(self.factory, export_id, worker_id=self.worker_id, lease_seconds=self.lease_seconds,
                     should_stop=lambda: self.stopping)
            log.info("vulnerability export %s finished in %.2f s", export_id, time.perf_counter() - started)
            # Never fails the export: a send failure is logged (GitLab sends after finish! too).
            send_completion_email(self.factory, export_id, self.mail)
        except StopRequested:
            release(self.factory, export_id, worker_id=self.worker_id, failed=False)
        except LeaseLost:
            log.warning("vulnerability export %s was taken over by another worker", export_id)
        except Exception as exc:
            log.exception("vulnerability export %s failed", export_id)
            release(self.factory, export_id, worker_id=self.worker_id, failed=True, error=type(exc).__name__)


@asynccontextmanager
async def running_export_worker(factory: sessionmaker[Session], *, lease_seconds: int, generate_files: bool,
                                mail: MailSettings | None = None) -> AsyncIterator[ExportWorker]:
    """The process's worker for the lifetime of the block; with `generate_files` false it never
    claims a job (other replicas produce the files) and `wake()` does nothing."""
    worker = ExportWorker(factory, lease_seconds=lease_seconds, mail=mail)
    if generate_files:
        worker.start()
    try:
        yield worker
    finally:
        await worker.stop()

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
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from sqlalchemy import DateTime, Text, and_, cast, delete, or_, select, type_coerce, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.accounts.models import Group, Project, User
from outpost_server.background import FailureReport
from outpost_server.db import changed_rows, session_scope, utcnow
from outpost_server.exports.csv_format import (
    ExportNote,
    ExportVulnerability,
    format_row,
    header_row,
)
from outpost_server.exports.models import VulnerabilityExport, VulnerabilityExportChunk
from outpost_server.exports.service import export_file_name, scope_full_path, scope_project_ids
from outpost_server.vulnerabilities.models import Vulnerability, VulnerabilityNote

log = logging.getLogger("outpost.exports")

MAX_ATTEMPTS = 3
BATCH_SIZE = 1000
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


def _export_rows(factory: sessionmaker[Session], project_ids: list[int]) -> Iterator[ExportVulnerability]:
    """Every vulnerability of the projects, project by project in id order, in keyset batches.

    One project per query keeps each batch an ordered walk of the (project_id, id) index, and the
    project's names are read once instead of joined into every row.
    """
    for project_id in project_ids:
        with factory() as session:
            names = session.execute(
                select(Group.name, Project.name, Project.full_path)
                .select_from(Project)
                .outerjoin(Group, Group.id == Project.namespace_id)
                .where(Project.id == project_id)
            ).first()
        if names is None:
            continue
        last_id = 0
        while True:
            batch = _load_batch(factory, project_id, last_id, *names)
            if not batch:
                break
            yield from batch
            last_id = batch[-1].id


def _load_batch(factory: sessionmaker[Session], project_id: int, after_id: int, group_name: str | None,
                project_name: str, full_path: str) -> list[ExportVulnerability]:
    with factory() as session:
        # Core execution: plain rows, without the ORM's per-row bookkeeping. The JSON columns come as
        # text for orjson, and created_at without UTCDateTime's per-row conversion (ruby_time takes
        # SQLite's naive UTC values and PostgreSQL's aware ones alike): together these were a third
        # of an export's time.
        connection = session.connection()
        rows = connection.execute(
            select(Vulnerability.id, Vulnerability.report_type, Vulnerability.scanner_name, Vulnerability.state,
                   Vulnerability.title, Vulnerability.description, Vulnerability.severity,
                   cast(Vulnerability.identifiers, Text), type_coerce(Vulnerability.created_at, DateTime()),
                   cast(Vulnerability.location, Text), Vulnerability.resolved_on_default_branch,
                   cast(Vulnerability.cvss_vectors, Text), Vulnerability.dismissal_reason)
            .where(Vulnerability.project_id == project_id, Vulnerability.id > after_id)
            .order_by(Vulnerability.id)
            .limit(BATCH_SIZE)
        ).all()
        if not rows:
            return []
        notes: dict[int, list[ExportNote]] = {}
        for vulnerability_id, edited_at, username, text in connection.execute(
            select(VulnerabilityNote.vulnerability_id, VulnerabilityNote.updated_at, User.username,
                   VulnerabilityNote.note)
            .join(User, User.id == VulnerabilityNote.author_id)
            .where(VulnerabilityNote.vulnerability_id.in_([row[0] for row in rows]))
            .order_by(VulnerabilityNote.vulnerability_id, VulnerabilityNote.id)
        ):
            notes.setdefault(vulnerability_id, []).append(ExportNote(edited_at, username, text))
    no_notes = ()
    # Positional construction, in ExportVulnerability's field order (the hot loop of an export).
    return [
        ExportVulnerability(vulnerability_id, group_name, project_name, full_path, report_type, scanner_name, state,
                            title, description, severity, _json(identifiers) or no_notes, created_at,
                            _json(location) or {}, resolved, notes.get(vulnerability_id, no_notes),
                            _json(cvss) or no_notes, dismissal_reason)
        for (vulnerability_id, report_type, scanner_name, state, title, description, severity, identifiers,
             created_at, location, resolved, cvss, dismissal_reason) in rows
    ]


def _json(text: str | None):
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN or Infinity, which the standard encoder writes
        return json.loads(text)


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

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.buffered += len(text)
        if self.buffered >= CHUNK_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.should_stop():
            raise StopRequested
        data = "".join(self.parts).encode("utf-8")
        self.parts, self.buffered = [], 0
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


def generate(factory: sessionmaker[Session], export_id: int, *, worker_id: str, lease_seconds: int,
             should_stop: Callable[[], bool] = lambda: False) -> None:
    """Writes the CSV of a claimed export and marks it finished."""
    writer = ChunkWriter(factory, export_id=export_id, worker_id=worker_id, lease_seconds=lease_seconds,
                         should_stop=should_stop)
    with session_scope(factory) as session:
        writer.renew_lease(session)
        export = session.get(VulnerabilityExport, export_id)
        if export is None:
            raise LeaseLost  # deleted since it was claimed
        project_ids = scope_project_ids(session, export)
        full_path = scope_full_path(session, export)
        # Chunks of an earlier, interrupted attempt.
        session.execute(delete(VulnerabilityExportChunk).where(VulnerabilityExportChunk.export_id == export_id))
    writer.write(header_row())
    if project_ids:
        for vulnerability in _export_rows(factory, project_ids):
            writer.write(format_row(vulnerability))
    writer.flush()
    now = utcnow()
    with session_scope(factory) as session:
        finished = changed_rows(session.execute(
            update(VulnerabilityExport)
            .where(VulnerabilityExport.id == export_id, VulnerabilityExport.status == "running",
                   VulnerabilityExport.lease_owner == worker_id)
            .values(status="finished", finished_at=now, file_name=export_file_name(full_path, now),
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

    def __init__(self, factory: sessionmaker[Session], *, lease_seconds: int):
        self.factory = factory
        self.lease_seconds = lease_seconds
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
        except StopRequested:
            release(self.factory, export_id, worker_id=self.worker_id, failed=False)
        except LeaseLost:
            log.warning("vulnerability export %s was taken over by another worker", export_id)
        except Exception as exc:
            log.exception("vulnerability export %s failed", export_id)
            release(self.factory, export_id, worker_id=self.worker_id, failed=True, error=type(exc).__name__)


@asynccontextmanager
async def running_export_worker(factory: sessionmaker[Session], *, lease_seconds: int,
                                generate_files: bool) -> AsyncIterator[ExportWorker]:
    """The process's worker for the lifetime of the block; with `generate_files` false it never
    claims a job (other replicas produce the files) and `wake()` does nothing."""
    worker = ExportWorker(factory, lease_seconds=lease_seconds)
    if generate_files:
        worker.start()
    try:
        yield worker
    finally:
        await worker.stop()

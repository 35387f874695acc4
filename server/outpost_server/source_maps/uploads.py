"""Chunked uploads as Sentry runs them: chunks named by their SHA-1, then an assemble request that names a
file's checksum and its chunks, and an assemble state the client polls.

Limits and messages are Sentry's (src/sentry/api/endpoints/chunk.py, src/sentry/tasks/assemble.py).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from outpost_server.db import changed_rows, utcnow

from .models import AssembleStatus, UploadChunk

# Sentry's SENTRY_CHUNK_UPLOAD_BLOB_SIZE and chunk.py's constants.
CHUNK_SIZE = 8 * 1024**2
MAX_CHUNKS_PER_REQUEST = 64
MAX_REQUEST_SIZE = 32 * 1024**2
MAX_CONCURRENCY = 8
HASH_ALGORITHM = "sha1"
# What this server assembles: artifact bundles (with deduplicated chunks: _v2), source bundles and
# release files (the legacy flow).
ACCEPT = ("release_files", "sources", "artifact_bundles", "artifact_bundles_v2")
# Sentry caches an assemble state for 10 minutes; a state older than that is gone.
STATUS_SECONDS = 600
# Chunks older than this are removed by the pruner (an upload takes minutes, not days).
CHUNK_KEEP = dt.timedelta(days=1)

OK, NOT_FOUND, CREATED, ASSEMBLING, ERROR = "ok", "not_found", "created", "assembling", "error"
ARTIFACT_BUNDLE = "artifact_bundle"


class ChunkRefused(Exception):
    """A chunk-upload request Sentry answers with 400 {"error": message}."""


class AssembleError(Exception):
    """Assembly failed; the message is the assemble state's detail."""


def store_chunks(session: Session, organization: str, chunks: list[tuple[str, bytes]]) -> None:
    """Stores the chunks not stored yet; all or nothing."""
    total = 0
    for _, data in chunks:
        total += len(data)
        if len(data) > CHUNK_SIZE:
            raise ChunkRefused("Chunk size too large")
    if total > MAX_REQUEST_SIZE:
        raise ChunkRefused("Request too large")
    if len(chunks) > MAX_CHUNKS_PER_REQUEST:
        raise ChunkRefused("Too many chunks")
    fresh: dict[str, bytes] = {}
    for name, data in chunks:
        checksum = hashlib.sha1(data).hexdigest()
        if name != checksum:
            raise ChunkRefused("Checksum mismatch")
        fresh[checksum] = data
    stored = set(session.scalars(select(UploadChunk.checksum).where(
        UploadChunk.organization == organization, UploadChunk.checksum.in_(list(fresh)))))
    for checksum, data in fresh.items():
        if checksum not in stored:
            session.add(UploadChunk(organization=organization, checksum=checksum, size=len(data), data=data))


def missing_chunks(session: Session, organization: str, checksums: list[str]) -> list[str]:
    wanted = set(checksums)
    if not wanted:
        return []
    stored = set(session.scalars(select(UploadChunk.checksum).where(
        UploadChunk.organization == organization, UploadChunk.checksum.in_(list(wanted)))))
    return sorted(wanted - stored)


@contextmanager
def assembled(session: Session, organization: str, checksum: str, chunks: list[str], *, max_size: int,
              directory: Path) -> Iterator[IO[bytes]]:
    """The file the chunks make, in the order (and repetition) given, checked against its checksum: a
    temporary file in `directory`, written one chunk at a time, removed when the block ends.

    The declared size (every chunk named, repeats included, at its stored size) is checked before any
    chunk is read: one 8 MiB chunk named 250 times was 2 GB joined in memory before it was refused.
    Sentry answers the same "File exceeds maximum size" (it sums each chunk once)."""
    sizes = {name: size for name, size in session.execute(select(UploadChunk.checksum, UploadChunk.size).where(
        UploadChunk.organization == organization, UploadChunk.checksum.in_(set(chunks))))}
    if sum(sizes.get(name, 0) for name in chunks) > max_size:
        raise AssembleError("File exceeds maximum size")
    if set(sizes) != set(chunks):
        raise AssembleError("Not all chunks available for assembling")
    with tempfile.TemporaryFile(dir=directory) as file:
        digest = hashlib.sha1()
        for name in chunks:
            data = session.scalar(select(UploadChunk.data).where(
                UploadChunk.organization == organization, UploadChunk.checksum == name))
            if data is None:  # pruned meanwhile
                raise AssembleError("Not all chunks available for assembling")
            digest.update(data)
            file.write(data)
            del data
        if digest.hexdigest() != checksum:
            raise AssembleError("Reported checksum mismatch")
        file.seek(0)
        yield file


def bundle_task(project_ids: Iterable[int]) -> str:
    """The assemble state's task of an artifact bundle for these projects: the same bundle assembled for
    another set of projects is another assembly (Sentry keys it by organization and checksum alone, so a
    second project's upload within ten minutes was answered `ok` and never stored)."""
    projects = ",".join(str(project_id) for project_id in sorted(set(project_ids)))
    return f"{ARTIFACT_BUNDLE}:{hashlib.sha1(projects.encode()).hexdigest()}"


def bundle_id_from_checksum(checksum: str) -> str:
    """Sentry's fallback bundle id when a manifest has none: the checksum read as a debug id."""
    return str(uuid.UUID(checksum[:32]))


def get_status(session: Session, organization: str, task: str, checksum: str) -> tuple[str, str | None] | None:
    row = session.scalar(select(AssembleStatus).where(
        AssembleStatus.organization == organization, AssembleStatus.task == task,
        AssembleStatus.checksum == checksum))
    if row is None or row.updated_at < utcnow() - dt.timedelta(seconds=STATUS_SECONDS):
        return None
    return row.state, row.detail


def set_status(session: Session, organization: str, task: str, checksum: str, state: str,
               detail: str | None = None) -> None:
    row = session.scalar(select(AssembleStatus).where(
        AssembleStatus.organization == organization, AssembleStatus.task == task,
        AssembleStatus.checksum == checksum))
    if row is None:
        session.add(AssembleStatus(organization=organization, task=task, checksum=checksum, state=state,
                                   detail=detail, updated_at=utcnow()))
    else:
        row.state, row.detail, row.updated_at = state, detail, utcnow()


def prune_uploads(session: Session, now: dt.datetime) -> int:
    """Removes chunks past CHUNK_KEEP and expired assemble states; the number of chunks removed."""
    removed = changed_rows(session.execute(delete(UploadChunk).where(UploadChunk.created_at < now - CHUNK_KEEP)))
    session.execute(delete(AssembleStatus).where(
        AssembleStatus.updated_at < now - dt.timedelta(seconds=STATUS_SECONDS)))
    return removed

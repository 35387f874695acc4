"""The durable local queue of accepted collector requests: a SQLite file in WAL mode on local disk.

Like Relay's spool it lives beside each server (never in the main database), so accepting keeps
working while PostgreSQL restarts or SQLite's main file is locked. Worker processes of one host
share it: appends take turns on its write lock. One digester at a time reads it, in order, and
deletes what it has stored; `DigestLock` (filelock's lock: flock on Linux and macOS, LockFileEx on
Windows, which the system releases when its process dies, kill -9 included) makes sure of the "one".

Counters (accepted, refused, digested, dropped, batch sizes) live in the same file, updated in the
transactions that do the work, so every process and `outpost-server status` read the same figures.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from outpost_server.platform_support import make_private

FILE_NAME = "ingest-spool.sqlite3"
LOCK_NAME = "ingest-spool.lock"
BUSY_TIMEOUT_MS = 5000
# Appends wait for the write lock in short steps of their own: SQLite's busy handler sleeps 1, 2, 5,
# 10 ms and more between tries, which turned a lock held for a millisecond into a 10 ms answer.
APPEND_RETRY_SECONDS = 0.0005

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL,
    public_key TEXT,
    endpoint TEXT NOT NULL,
    event_id TEXT,
    received_at REAL NOT NULL,
    client_ip TEXT,
    encoding TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS identity (
    spool_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS counters (
    name TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    value REAL NOT NULL,
    PRIMARY KEY (name, label)
) WITHOUT ROWID;
"""

_ADD = ("INSERT INTO counters (name, label, value) VALUES (?, ?, ?) "
        "ON CONFLICT (name, label) DO UPDATE SET value = value + excluded.value")


@dataclass(frozen=True)
class NewEntry:
    """One accepted request: its body as sent (sealed, sealing.py) with its Content-Encoding."""

    project_id: int
    public_key: str | None
    endpoint: str
    event_id: str | None
    received_at: float
    client_ip: str | None
    encoding: str
    body: bytes


@dataclass(frozen=True)
class Entry(NewEntry):
    id: int = 0


@dataclass(frozen=True)
class Backlog:
    entries: int
    bytes: int
    oldest_received_at: float | None


Counts = Mapping[tuple[str, str], float]


def spool_path(data_dir: Path) -> Path:
    return data_dir / FILE_NAME


class Spool:
    """One connection to the spool file; use one per thread.

    `durable`: each commit is on disk (the WAL synced) before it returns, as the collector's appends
    must be before it answers 200. The digester's deletions need not be: one lost in a power cut
    only makes the digest read entries again, which stores nothing twice.
    """

    def __init__(self, path: Path, *, durable: bool = True):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                   timeout=BUSY_TIMEOUT_MS / 1000)
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
        self._prepare()
        try:
            make_private(path)
        except OSError:
            pass

    def _prepare(self) -> None:
        """WAL mode and the tables. Worker processes starting together may find the file being set up
        by another (switching to WAL takes an exclusive lock that the busy timeout does not wait for)."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                if self._db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    self._db.execute("PRAGMA journal_mode = WAL")
                self._db.executescript(_SCHEMA)
                self._db.execute("INSERT INTO identity (spool_id) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM identity)",
                                 (uuid.uuid4().hex,))
                self.spool_id: str = self._db.execute("SELECT spool_id FROM identity").fetchone()[0]
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self._db.close()

    def append(self, entries: Iterable[NewEntry], counts: Counts | None = None) -> Backlog:
        """Appends the entries in one durable transaction; returns the backlog after it."""
        rows = [(e.project_id, e.public_key, e.endpoint, e.event_id, e.received_at, e.client_ip, e.encoding, e.body)
                for e in entries]
        with self._transaction(retry_quickly=True):
            self._db.executemany(
                "INSERT INTO entries (project_id, public_key, endpoint, event_id, received_at, client_ip, encoding,"
                " body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            added = sum(len(row[7]) for row in rows)
            self._add({("queue_entries", ""): len(rows), ("queue_bytes", ""): added, **(counts or {})})
            return self._backlog()

    def read(self, *, after: int, limit: int) -> list[Entry]:
        """Up to `limit` entries after the id `after`, oldest first (a read: appends go on meanwhile)."""
        rows = self._db.execute(
            "SELECT id, project_id, public_key, endpoint, event_id, received_at, client_ip, encoding, body"
            " FROM entries WHERE id > ? ORDER BY id LIMIT ?", (after, limit)).fetchall()
        return [Entry(id=row[0], project_id=row[1], public_key=row[2], endpoint=row[3], event_id=row[4],
                      received_at=row[5], client_ip=row[6], encoding=row[7], body=row[8]) for row in rows]

    def remove(self, entries: list[Entry], counts: Counts | None = None) -> None:
        """Deletes digested entries and records what digest counted, in one transaction."""
        with self._transaction():
            self._db.execute("DELETE FROM entries WHERE id BETWEEN ? AND ?", (entries[0].id, entries[-1].id))
            removed = sum(len(entry.body) for entry in entries)
            self._add({("queue_entries", ""): -len(entries), ("queue_bytes", ""): -removed, **(counts or {})})

    def count(self, counts: Counts) -> None:
        with self._transaction():
            self._add(counts)

    def backlog(self) -> Backlog:
        return self._backlog()

    def counters(self) -> dict[tuple[str, str], float]:
        return {(name, label): value for name, label, value in
                self._db.execute("SELECT name, label, value FROM counters")}

    def _backlog(self) -> Backlog:
        counters = dict(self._db.execute(
            "SELECT name, value FROM counters WHERE label = '' AND name IN ('queue_entries', 'queue_bytes')"
        ).fetchall())
        oldest = self._db.execute("SELECT received_at FROM entries ORDER BY id LIMIT 1").fetchone()
        return Backlog(int(counters.get("queue_entries", 0)), int(counters.get("queue_bytes", 0)),
                       oldest[0] if oldest else None)

    def _add(self, counts: Counts) -> None:
        rows = [(name, label, value) for (name, label), value in counts.items() if value]
        if rows:
            self._db.executemany(_ADD, rows)

    def _transaction(self, *, retry_quickly: bool = False):
        return _Transaction(self._db, retry_quickly)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): the write lock is taken up front."""

    def __init__(self, db: sqlite3.Connection, retry_quickly: bool):
        self._db = db
        self._retry_quickly = retry_quickly

    def __enter__(self) -> None:
        if not self._retry_quickly:
            self._db.execute("BEGIN IMMEDIATE")
            return
        self._db.execute("PRAGMA busy_timeout = 0")
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        try:
            while True:
                try:
                    self._db.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as error:
                    if "locked" not in str(error) or time.monotonic() > deadline:
                        raise
                    time.sleep(APPEND_RETRY_SECONDS)
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def __exit__(self, kind, _value, _traceback) -> None:
        try:
            if kind is None:
                self._db.execute("COMMIT")
        finally:
            # A failed statement or COMMIT (a full disk) leaves nothing half done.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")


class DigestLock:
    """Held by the one process that digests a spool; the system releases it when that process dies."""

    def __init__(self, data_dir: Path):
        # Not thread-local: the digester's thread takes it and its stop may release it from another.
        self._lock = FileLock(data_dir / LOCK_NAME, thread_local=False)

    def acquire(self, timeout: float) -> bool:
        try:
            self._lock.acquire(timeout=timeout, poll_interval=0.05)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release()

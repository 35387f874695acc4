"""The durable local queue of accepted collector requests: a SQLite file in WAL mode on local disk.

Like Relay's spool it lives beside each server (never in the main database), so accepting keeps
working while PostgreSQL restarts or SQLite's main file is locked. Worker processes of one host
share it: appends take turns on its write lock, and digesters claim disjoint batches. A claim is a
lease: a digester that dies (kill -9) leaves entries claimed by a process that no longer exists,
and they are taken over at once; failing that, when the lease runs out.

Counters (accepted, refused, digested, dropped, batch sizes) live in the same file, updated in the
transactions that do the work, so every process and `outpost-server status` read the same figures.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

FILE_NAME = "ingest-spool.sqlite3"
CLAIM_SECONDS = 30.0
BUSY_TIMEOUT_MS = 5000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL,
    public_key TEXT,
    endpoint TEXT NOT NULL,
    event_id TEXT,
    received_at REAL NOT NULL,
    client_ip TEXT,
    body BLOB NOT NULL,
    size INTEGER NOT NULL,
    owner INTEGER NOT NULL DEFAULT 0,
    claimed_until REAL NOT NULL DEFAULT 0
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
    """One accepted request: the body is sealed (sealing.py); `size` is its length as received."""

    project_id: int
    public_key: str | None
    endpoint: str
    event_id: str | None
    received_at: float
    client_ip: str | None
    body: bytes
    size: int


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
    """One connection to the spool file; use one per thread."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                   timeout=BUSY_TIMEOUT_MS / 1000)
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # FULL: a commit is on disk (the WAL synced) before the collector answers 200.
        self._db.execute("PRAGMA synchronous = FULL")
        self._prepare()
        try:
            path.chmod(0o600)
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
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self._db.close()

    def append(self, entries: Iterable[NewEntry], counts: Counts | None = None) -> Backlog:
        """Appends the entries in one durable transaction; returns the backlog after it."""
        rows = [(e.project_id, e.public_key, e.endpoint, e.event_id, e.received_at, e.client_ip, e.body, e.size)
                for e in entries]
        with self._transaction():
            self._db.executemany(
                "INSERT INTO entries (project_id, public_key, endpoint, event_id, received_at, client_ip, body, size)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            added = sum(len(row[6]) for row in rows)
            self._add({("queue_entries", ""): len(rows), ("queue_bytes", ""): added, **(counts or {})})
            return self._backlog()

    def claim(self, *, owner: int, limit: int, now: float | None = None) -> list[Entry]:
        """Up to `limit` oldest unclaimed entries, leased to `owner` for CLAIM_SECONDS."""
        now = time.time() if now is None else now
        with self._transaction():
            rows = self._db.execute(
                "UPDATE entries SET owner = ?, claimed_until = ? WHERE id IN ("
                " SELECT id FROM entries WHERE claimed_until < ? ORDER BY id LIMIT ?)"
                " RETURNING id, project_id, public_key, endpoint, event_id, received_at, client_ip, body, size",
                (owner, now + CLAIM_SECONDS, now, limit)).fetchall()
        rows.sort()
        return [Entry(id=row[0], project_id=row[1], public_key=row[2], endpoint=row[3], event_id=row[4],
                      received_at=row[5], client_ip=row[6], body=row[7], size=row[8]) for row in rows]

    def renew(self, ids: list[int], *, owner: int) -> None:
        """Extends the lease of entries still being digested (a long database outage)."""
        with self._transaction():
            self._db.executemany("UPDATE entries SET claimed_until = ? WHERE id = ? AND owner = ?",
                                 [(time.time() + CLAIM_SECONDS, entry_id, owner) for entry_id in ids])

    def release_dead_owners(self) -> int:
        """Frees entries claimed by processes of this host that no longer exist (killed mid-digest)."""
        owners = [owner for (owner,) in self._db.execute(
            "SELECT DISTINCT owner FROM entries WHERE claimed_until >= ?", (time.time(),))]
        dead = [owner for owner in owners if not _process_exists(owner)]
        if not dead:
            return 0
        with self._transaction():
            cursor = self._db.executemany("UPDATE entries SET claimed_until = 0 WHERE owner = ?",
                                          [(owner,) for owner in dead])
            return cursor.rowcount

    def remove(self, entries: list[Entry], counts: Counts | None = None) -> None:
        """Deletes digested entries and records what digest counted, in one transaction."""
        with self._transaction():
            self._db.executemany("DELETE FROM entries WHERE id = ?", [(entry.id,) for entry in entries])
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

    def _transaction(self):
        return _Transaction(self._db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): the write lock is taken up front."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, _value, _traceback) -> None:
        try:
            if kind is None:
                self._db.execute("COMMIT")
        finally:
            # A failed statement or COMMIT (a full disk) leaves nothing half done.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")


def _process_exists(pid: int) -> bool:
    if pid <= 0:
        return True  # not a process id: leave it to the lease
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

"""An idle round of the alert sender only reads, so it never waits behind SQLite's single writer.

Every server polls for due alert deliveries every few seconds. On SQLite the poll was an UPDATE whether or
not anything was due: it queued for the write lock behind whatever held it (a digest of a long backlog after
a restart) and, past the busy timeout, logged "delivering alerts failed: the database is unreachable".
"""

import contextlib
import shutil
import sqlite3

from outpost_server.alerts.delivery import DeliveryContext
from outpost_server.alerts.sender import AlertSender
from outpost_server.db import make_engine, make_sessionmaker
from tests.preloaded_server import migrated_sqlite_database
from tests.support import REPO_ROOT


def test_a_round_with_nothing_due_needs_no_write_lock(tmp_path):
    database = tmp_path / "outpost.sqlite3"
    shutil.copyfile(migrated_sqlite_database(REPO_ROOT), database)
    engine = make_engine(f"sqlite:///{database}", wait_seconds=0.2)
    sender = AlertSender(make_sessionmaker(engine), DeliveryContext(None, None, "http://127.0.0.1", b"k"),
                         lease_seconds=60, retry_seconds=1)
    with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as writer:
        writer.execute("BEGIN IMMEDIATE")  # another writer holds the lock for longer than the busy timeout
        try:
            _owner, claimed = sender.claim()
        finally:
            writer.execute("ROLLBACK")
    engine.dispose()
    assert claimed == []

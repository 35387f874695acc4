"""digested_total survives a kill -9 between the digest's commit and the spool's removal: the entries found
stored already when read again are counted then, so accepted and digested agree once the queue is empty.

The crash's state is made exactly, on SQLite: events are accepted while the database's write lock is held
(nothing is stored), the server is killed and its spool copied; a second run stores them; the copy then
put back is the spool as a kill -9 right after the store's commit leaves it."""

from __future__ import annotations

import signal
import sqlite3

from outpost_server.error_tracking.ingest.spool import spool_path
from outpost_server.error_tracking.pipeline.metrics import read_snapshot
from tests.e2e.databases import stored_event_ids
from tests.e2e.test_ingest_faults import send_one, tracked_project
from tests.support import launch_server

EVENTS = 12


def _copy(source, target) -> None:
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)


def test_a_batch_stored_before_a_kill_is_counted_as_digested(tmp_path):
    data_dir = tmp_path / "server"
    url = f"sqlite:///{data_dir / 'outpost.sqlite3'}"
    server = launch_server(data_dir, database_url=url)
    project_id, key = tracked_project(server)
    holder = sqlite3.connect(data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
    holder.execute("BEGIN IMMEDIATE")  # the digest cannot store while this is held
    try:
        assert [send_one(server, key, project_id).status_code for _ in range(EVENTS)] == [200] * EVENTS
    finally:
        server.stop(signal.SIGKILL)
        holder.execute("ROLLBACK")
        holder.close()
    _copy(spool_path(data_dir), tmp_path / "spool-before-digest.sqlite3")

    server = launch_server(data_dir, database_url=url)
    server.wait_for_digest()
    server.stop()
    assert len(stored_event_ids(url, project_id)) == EVENTS

    for suffix in ("", "-wal", "-shm"):
        spool_path(data_dir).with_name(spool_path(data_dir).name + suffix).unlink(missing_ok=True)
    _copy(tmp_path / "spool-before-digest.sqlite3", spool_path(data_dir))
    server = launch_server(data_dir, database_url=url)
    server.wait_for_digest()
    server.stop()
    snapshot = read_snapshot(data_dir)
    assert (snapshot.queue_entries, snapshot.accepted, snapshot.digested.get("events")) == (0, EVENTS, EVENTS)
    assert len(stored_event_ids(url, project_id)) == EVENTS  # nothing stored twice

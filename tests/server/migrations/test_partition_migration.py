"""Migration 0019 on a recorded PostgreSQL database (pre_partitions.sql, see record_pre_partitions.py):
every event, payload and tag row moves into its day's partition, in batches of their own transactions
with progress on the terminal, and the aggregates on the errors are unchanged.

PostgreSQL only (OUTPOST_TEST_PG_ADMIN_URL); on SQLite the revision only adds a nullable column.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic import command

from outpost_server.db import make_engine
from outpost_server.error_tracking.retention import partitions
from outpost_server.migrations import alembic_config
from outpost_server.migrations.partition_move import move_legacy_rows
from tests.server.error_tracking.stored_counters import kept, recount
from tests.server.migrations.record_pre_partitions import PREVIOUS_HEADS
from tests.support import REPO_ROOT, database_url_for

FIXTURE = Path(__file__).parent / "pre_partitions.sql"
ROWS = {
    partitions.EVENTS: "SELECT id, project_id, error_id, event_id, occurred_at, received_at, level, release, "
                       "environment, user_key FROM {table} ORDER BY id",
    partitions.PAYLOADS: "SELECT id, error_id, event_id, payload FROM {table} ORDER BY id",
    partitions.TAGS: "SELECT id, error_id, event_id, key, value FROM {table} ORDER BY id",
}
AGGREGATES = {
    "errors": "SELECT id, project_id, fingerprint, title, count, users_count, first_seen_at, last_seen_at, status, "
              "first_release, last_release, created_at, updated_at "
              "FROM error_tracking_errors ORDER BY id",
    "hourly": "SELECT * FROM error_tracking_error_hourly_counts ORDER BY error_id, hour",
    "tag values": "SELECT * FROM error_tracking_error_tag_values ORDER BY error_id, key, value",
    "users": "SELECT * FROM error_tracking_error_users ORDER BY error_id, user_key",
}
# Each error's stored events: a column of the error before migration 0021, its storage counters after.
STORED_BEFORE_0021 = "SELECT id, stored_events FROM error_tracking_errors WHERE stored_events > 0 ORDER BY id"
STORED = (f"SELECT error_id, sum(events) FROM {partitions.ERROR_DAYS} GROUP BY error_id HAVING sum(events) > 0 "
          "ORDER BY error_id")


def recorded_database(tmp_path: Path) -> str:
    url = database_url_for(tmp_path)
    if url is None:
        pytest.skip("needs PostgreSQL: set OUTPOST_TEST_PG_ADMIN_URL")
    engine = make_engine(url)
    for head in PREVIOUS_HEADS:
        command.upgrade(alembic_config(engine), head)
    with engine.begin() as connection:
        connection.exec_driver_sql(FIXTURE.read_text())
    engine.dispose()  # the dump empties search_path on its connection
    return url


def snapshot(url: str, *, legacy: bool) -> dict[str, list[Any]]:
    engine = make_engine(url)
    with engine.connect() as connection:
        found = {table: [tuple(row) for row in connection.exec_driver_sql(
                     sql.format(table=table + ("_legacy" if legacy else "")))] for table, sql in ROWS.items()}
        found |= {name: [tuple(row) for row in connection.exec_driver_sql(sql)] for name, sql in AGGREGATES.items()}
        counters = connection.exec_driver_sql(f"SELECT to_regclass('{partitions.ERROR_DAYS}')").scalar()
        found["stored"] = [tuple(row) for row in connection.exec_driver_sql(STORED if counters else STORED_BEFORE_0021)]
    engine.dispose()
    return found


def check_moved(url: str, before: dict[str, list[Any]]) -> None:
    after = snapshot(url, legacy=False)
    assert len(before[partitions.EVENTS]) == 300 and len(before[partitions.TAGS]) == 600
    assert after == before
    engine = make_engine(url)
    with engine.connect() as connection:
        def scalar(sql: str) -> Any:
            return connection.exec_driver_sql(sql).scalar()

        assert scalar("SELECT to_regclass('error_tracking_error_events_legacy')") is None
        # Payloads and tags took their event's received time, so they sit in its day's partition.
        for table in (partitions.PAYLOADS, partitions.TAGS):
            assert scalar(f"SELECT count(*) FROM {table} r JOIN {partitions.EVENTS} e ON e.error_id = r.error_id "
                          "AND e.event_id = r.event_id AND e.received_at = r.received_at") == len(after[table])
        assert scalar(f"SELECT count(*) FROM {partitions.KEYS} k JOIN {partitions.EVENTS} e "
                      "ON e.project_id = k.project_id AND e.event_id = k.event_id "
                      "AND e.received_at = k.received_at") == 300
        assert scalar(f"SELECT count(*) FROM {partitions.KEYS}") == 300
        # Each error's received range, which the reads of its events search, is its events' exactly.
        assert scalar(f"SELECT count(*) FROM error_tracking_errors e WHERE (e.first_received_at, e.last_received_at) "
                      f"= (SELECT min(received_at), max(received_at) FROM {partitions.EVENTS} v "
                      "WHERE v.error_id = e.id)") == len(after["errors"])
        for table in partitions.DAY_TABLES:
            assert scalar(f"SELECT count(*) FROM {partitions.partition_name(table, 'default')}") == 0
        days = {received.astimezone(dt.timezone.utc).date() for *_, received, _, _, _, _ in after[partitions.EVENTS]}
        assert days <= set(partitions.attached_days(connection))
        assert scalar("SELECT max(id) < nextval('error_tracking_error_events_id_seq') FROM error_tracking_error_events")
    # Migration 0021 counted the events and payload bytes per error and day while they still waited in the
    # legacy tables; moving them changed nothing.
    assert kept(engine) == recount(engine)
    engine.dispose()


def test_migrate_command_moves_every_row_with_its_progress(tmp_path):
    url = recorded_database(tmp_path)
    before = snapshot(url, legacy=False)
    result = subprocess.run([sys.executable, "-m", "outpost_server", "migrate", "--database-url", url,
                             "--data-dir", str(tmp_path / "data")], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    # A revision that takes a second or more is reported with its time, which depends on the machine;
    # they are left out, and the move's own lines are checked in their order.
    timed = re.compile(r"Migrated to \w+(, \w+)* in \d+\.\d s")
    lines = [line for line in result.stdout.splitlines() if not timed.fullmatch(line)]
    assert lines[0] == "Moving 300 error tracking events into partitions, 5000 per transaction"
    assert "  300 of 300 events moved (100 %)" in lines
    assert lines[-2:] == ["Every error tracking event is in its partition", "Database is up to date"]
    check_moved(url, before)


def test_rows_move_in_bounded_batches(tmp_path):
    url = recorded_database(tmp_path)
    before = snapshot(url, legacy=False)
    engine = make_engine(url)
    command.upgrade(alembic_config(engine), "heads")
    # Between the revision and the move the rows wait in the legacy tables, unchanged.
    waiting = snapshot(url, legacy=True)
    assert {table: waiting[table] for table in ROWS} == {table: before[table] for table in ROWS}
    progress: list[str] = []
    assert move_legacy_rows(engine, batch=70, report=progress.append) == 300
    assert progress[1:6] == [f"  {moved} of 300 events moved ({100 * moved // 300} %)" for moved in
                             (70, 140, 210, 280, 300)]
    assert move_legacy_rows(engine, batch=70, report=progress.append) == 0  # nothing left: nothing to do
    engine.dispose()
    check_moved(url, before)

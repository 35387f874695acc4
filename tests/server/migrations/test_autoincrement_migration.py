"""Migrations 0014-0018 on a database at the previous heads: every row kept (SQLite's table rebuilds cascade
nowhere), the tables get AUTOINCREMENT, and the upgraded server never hands out a deleted row's id again.

The database is the namespaces migration's recorded one (pre_namespaces.json), brought to the heads that
came before these revisions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gitlab
import httpx
import pytest
import sqlalchemy
from alembic import command

from outpost_server.migrations import alembic_config, upgrade_database
from tests.server.error_tracking.stored_counters import kept, recount
from tests.server.migrations.test_namespaces_migration import FIXTURE, load_old_database, table_rows
from tests.support import database_url_for, launch_server, unique

PREVIOUS_HEADS = ("0013_unauthenticated_requests", "0004_vulnerabilities", "0010_spool_progress", "0012_alerts",
                  "sm01_source_maps", "0003_variables")
AUTOINCREMENT_TABLES = {"users", "personal_access_tokens", "namespaces", "projects", "vulnerabilities",
                        "vulnerability_notes", "vulnerability_exports", "error_tracking_errors",
                        "error_tracking_client_keys", "alert_rules", "alert_recipients", "alert_deliveries",
                        "source_map_releases", "source_map_release_files",
                        # Made with AUTOINCREMENT by their own later revision (0029).
                        "source_map_bundles",
                        # Made with AUTOINCREMENT by their own later revision (0023).
                        "monitors", "monitor_environments", "monitor_checkins"}


# 0027 moves one recorded project under its namespace, with a warning.
pytestmark = pytest.mark.expected_log(r"WARNING outpost_server\.migrations project \d+: 'shared/dotfiles' was not")


@pytest.fixture
def upgraded(tmp_path) -> tuple[Path, str, dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    url = database_url_for(data_dir) or f"sqlite:///{data_dir}/outpost.db"
    engine = load_old_database(url)
    config = alembic_config(engine)
    for head in PREVIOUS_HEADS:
        command.upgrade(config, head)
    before = table_rows(engine)
    upgrade_database(engine)
    after = table_rows(engine)
    if engine.dialect.name == "sqlite":
        with engine.connect() as connection:
            definitions = {name: sql for name, sql in connection.exec_driver_sql(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'")}
            foreign_keys_on = connection.exec_driver_sql("PRAGMA foreign_keys").scalar()
        assert {table for table, sql in definitions.items() if "AUTOINCREMENT" in sql} == AUTOINCREMENT_TABLES
        # Turned off around the revisions, on again for the server's connections.
        assert foreign_keys_on == 1
    engine.dispose()
    return data_dir, url, before, after


TRIAGE_COLUMNS = ("assignee_id", "merged_into_id")


def test_every_row_survives_the_rebuilds(upgraded):
    _, _, before, after = upgraded
    assert sum(len(rows) for rows in before.values()) > 50
    for table, rows in before.items():
        if table == "alembic_version":
            continue
        assert len(after[table]) == len(rows), table
        if table == "users":
            # The one new column: updated_at, set from created_at.
            assert [{**row, "updated_at": row["created_at"]} for row in rows] == after[table]
        elif table in ("error_tracking_event_payloads", "error_tracking_event_tags", "error_tracking_errors"):
            # The new columns of 0019_error_event_partitions (received times); 0021 moved stored_events into
            # the storage counters; 0026_error_triage's assignee and merge parent start empty.
            assert all(row.get(name) is None for row in after[table] for name in TRIAGE_COLUMNS), table
            assert [{name: value for name, value in row.items() if name != "stored_events"} for row in rows] == [
                {name: value for name, value in row.items()
                 if not name.endswith("received_at") and name not in TRIAGE_COLUMNS}
                for row in after[table]], table
        elif table == "projects":
            # 0027 moves the project 0007 left outside its owner's renamed namespace (`shared1`).
            assert [{**row, "full_path": "shared1/dotfiles"} if row["full_path"] == "shared/dotfiles" else row
                    for row in rows] == after[table]
        elif table == "vulnerability_exports":
            assert [row["id"] for row in rows] == [row["id"] for row in after[table]]
            assert {row["kind"] for row in after[table]} <= {"vulnerability"}
        else:
            assert rows == after[table], table


def test_storage_counters_are_filled_from_the_events_and_payloads(upgraded):
    _, url, before, _ = upgraded
    engine = sqlalchemy.create_engine(url)
    try:
        per_error, per_project = kept(engine)
        assert (per_error, per_project) == recount(engine)
    finally:
        engine.dispose()
    assert per_error, "the recorded database has events"
    # What the errors' stored_events said before, their counters say now.
    assert {row["id"]: row["stored_events"] for row in before["error_tracking_errors"] if row["stored_events"]} == {
        error_id: sum(events for (owner, _), (events, _) in per_error.items() if owner == error_id)
        for error_id in {owner for owner, _ in per_error}}


def test_upgraded_server_never_reuses_an_id(upgraded):
    data_dir, url, _, _ = upgraded
    server = launch_server(data_dir, database_url=url, root_token=FIXTURE["root_token"],
                           extra_env={"OUTPOST_SECRET_KEY": FIXTURE["secret_key"]})
    try:
        gl = gitlab.Gitlab(server.url, private_token=FIXTURE["root_token"])
        with httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": FIXTURE["root_token"]}) as rest:
            for _ in range(2):
                name = unique("gone")
                user = gl.users.create({"username": name, "name": name, "email": f"{name}@example.com",
                                        "password": "s3cret-pass-1"})
                assert rest.delete(f"/users/{user.id}", params={"hard_delete": True}).status_code == 204
                project = gl.projects.create({"name": name})
                assert rest.delete(f"/projects/{project.id}").status_code == 202
                group = gl.groups.create({"name": f"{name}-g", "path": f"{name}-g"})
                assert rest.delete(f"/groups/{group.id}").status_code == 202
                name = unique("next")
                next_user = gl.users.create({"username": name, "name": name, "email": f"{name}@example.com",
                                             "password": "s3cret-pass-1"})
                next_project = gl.projects.create({"name": name})
                next_group = gl.groups.create({"name": f"{name}-g", "path": f"{name}-g"})
                assert next_user.id > user.id and next_project.id > project.id and next_group.id > group.id
            # The migrated users are listed newest first.
            ids = [listed.id for listed in gl.users.list(get_all=True)]
            assert ids == sorted(ids, reverse=True) and len(ids) >= 4
    finally:
        server.stop()

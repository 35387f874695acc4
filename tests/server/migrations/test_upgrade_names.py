"""Names written by the first releases, upgraded (SQLite, or PostgreSQL with OUTPOST_TEST_PG_ADMIN_URL): users
equal but for case get the lowest free numbers, and a user named like a top-level group has its projects
under its own namespace, so the group can make a project of the same name."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa
from alembic import command

from outpost_server.db import make_engine
from outpost_server.migrations import alembic_config, upgrade_database
from tests.support import database_url_for

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
MOVED = pytest.mark.expected_log(r"WARNING outpost_server\.migrations (user|project) \d+: ")


def _user(user_id: int, username: str) -> dict:
    return {"id": user_id, "username": username, "name": username, "email": f"{user_id}@example.com",
            "state": "active", "is_admin": False, "created_at": NOW}


def _project(project_id: int, creator_id: int, full_path: str, group_id: int | None = None) -> dict:
    return {"id": project_id, "name": full_path, "path": full_path.rsplit("/", 1)[-1], "full_path": full_path,
            "description": "", "visibility": "private", "group_id": group_id, "creator_id": creator_id,
            "default_branch": "main", "monitor_access_level": "enabled", "created_at": NOW}


@pytest.fixture
def engine(tmp_path):
    url = database_url_for(tmp_path) or f"sqlite:///{tmp_path}/outpost.db"
    engine = make_engine(url)
    # The schema before namespaces (0007): racing requests could make users equal but for case, and a user
    # and a top-level group could share a name.
    command.upgrade(alembic_config(engine), "0004_vulnerabilities")
    tables = sa.MetaData()
    tables.reflect(engine, only=["users", "groups", "projects"])
    with engine.begin() as connection:
        connection.execute(tables.tables["users"].insert(), [
            _user(1, "racer0"), _user(2, "RACER0"), _user(3, "Racer0"), _user(4, "ops")])
        connection.execute(tables.tables["groups"].insert(), [
            {"id": 1, "name": "Ops", "path": "ops", "full_path": "ops", "full_name": "Ops", "description": "",
             "visibility": "private", "parent_id": None, "created_at": NOW}])
        connection.execute(tables.tables["projects"].insert(), [
            _project(1, 2, "RACER0/p"), _project(2, 4, "ops/notes"), _project(3, 1, "ops/runbook", group_id=1)])
    if engine.dialect.name == "postgresql":
        with engine.begin() as connection:
            for table in ("users", "groups", "projects"):
                connection.execute(sa.text(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"))
    upgrade_database(engine)
    yield engine
    engine.dispose()


def _column(engine, sql: str) -> dict:
    with engine.connect() as connection:
        return dict(connection.execute(sa.text(sql)).all())


@MOVED
def test_users_equal_but_for_case_get_the_lowest_free_numbers(engine):
    assert _column(engine, "SELECT id, username FROM users") == {1: "racer0", 2: "RACER01", 3: "Racer02", 4: "ops"}
    assert _column(engine, "SELECT owner_id, full_path FROM namespaces WHERE kind = 'user'") == {
        1: "racer0", 2: "RACER01", 3: "Racer02", 4: "ops1"}
    assert _column(engine, "SELECT id, full_path FROM projects WHERE id = 1") == {1: "RACER01/p"}


@MOVED
def test_a_users_projects_follow_its_namespace_and_free_the_groups_name(engine):
    projects = _column(engine, "SELECT p.id, p.full_path || ' in ' || n.full_path FROM projects p "
                               "JOIN namespaces n ON n.id = p.namespace_id")
    assert projects[2] == "ops1/notes in ops1"
    assert projects[3] == "ops/runbook in ops"
    with engine.begin() as connection:
        group = connection.execute(sa.text("SELECT id FROM namespaces WHERE full_path = 'ops'")).scalar_one()
        connection.execute(sa.text(
            "INSERT INTO projects (name, path, full_path, description, visibility, namespace_id, creator_id, "
            "default_branch, monitor_access_level, created_at) VALUES ('notes', 'notes', 'ops/notes', '', "
            "'private', :group, 4, 'main', 'enabled', :now)"), {"group": group, "now": NOW})

"""Migration 0022_lower_unique_names on a database holding names equal but for case, as races left them
(SQLite, or PostgreSQL with OUTPOST_TEST_PG_ADMIN_URL): the oldest keeps its name, each later one gets
a number appended, what hangs below a renamed user or group moves with it, and the unique indexes on
lower(...) then refuse a new duplicate."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa
from alembic import command

from outpost_server.db import make_engine
from outpost_server.migrations import alembic_config, upgrade_database
from tests.support import database_url_for

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _user(user_id: int, username: str) -> dict:
    return {"id": user_id, "username": username, "name": username, "email": f"{user_id}@example.com",
            "state": "active", "is_admin": False, "created_at": NOW, "bio": "", "can_create_group": True,
            "projects_limit": 10}


def _namespace(namespace_id: int, kind: str, full_path: str, *, parent_id: int | None = None,
               owner_id: int | None = None) -> dict:
    return {"id": namespace_id, "kind": kind, "name": full_path, "path": full_path.rsplit("/", 1)[-1],
            "full_path": full_path, "full_name": full_path, "description": "", "visibility": "private",
            "parent_id": parent_id, "owner_id": owner_id, "created_at": NOW}


def _project(project_id: int, namespace_id: int, full_path: str) -> dict:
    return {"id": project_id, "name": full_path, "path": full_path.rsplit("/", 1)[-1], "full_path": full_path,
            "description": "", "visibility": "private", "namespace_id": namespace_id, "creator_id": 1,
            "default_branch": "main", "monitor_access_level": "enabled", "created_at": NOW}


# The migration renames the names that differ only in case, with a warning each (what these tests provoke).
RENAMED = pytest.mark.expected_log(r"WARNING outpost_server\.migrations (user|namespace|project) \d+: .* only in case")


@pytest.fixture
def engine(tmp_path):
    url = database_url_for(tmp_path) or f"sqlite:///{tmp_path}/outpost.db"
    engine = make_engine(url)
    command.upgrade(alembic_config(engine), "0014_accounts_autoincrement")
    tables = sa.MetaData()
    tables.reflect(engine, only=["users", "namespaces", "projects"])
    with engine.begin() as connection:
        connection.execute(tables.tables["users"].insert(), [
            _user(1, "racer0"), _user(2, "RACER0"), _user(3, "Racer0"), _user(4, "racer01"), _user(5, "other")])
        connection.execute(tables.tables["namespaces"].insert(), [
            _namespace(11, "user", "racer0", owner_id=1), _namespace(12, "user", "RACER0", owner_id=2),
            _namespace(13, "user", "Racer0", owner_id=3), _namespace(14, "user", "racer01", owner_id=4),
            _namespace(15, "user", "other", owner_id=5),
            _namespace(21, "group", "Shop"), _namespace(22, "group", "shop"),
            _namespace(23, "group", "shop/Team", parent_id=22), _namespace(24, "group", "shop/team", parent_id=22)])
        connection.execute(tables.tables["projects"].insert(), [
            _project(31, 12, "RACER0/p"), _project(32, 22, "shop/app"), _project(33, 24, "shop/team/api"),
            _project(34, 15, "other/App"), _project(35, 15, "other/app")])
    if engine.dialect.name == "postgresql":
        with engine.begin() as connection:
            for table in ("users", "namespaces", "projects"):
                connection.execute(sa.text(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"))
    upgrade_database(engine)
    yield engine
    engine.dispose()


def _column(engine, sql: str) -> dict:
    with engine.connect() as connection:
        return dict(connection.execute(sa.text(sql)).all())


@RENAMED
def test_the_oldest_keeps_its_name_and_later_ones_get_a_free_number(engine):
    assert _column(engine, "SELECT id, username FROM users") == {
        1: "racer0", 2: "RACER02", 3: "Racer03", 4: "racer01", 5: "other"}
    assert _column(engine, "SELECT id, full_path FROM namespaces") == {
        11: "racer0", 12: "RACER02", 13: "Racer03", 14: "racer01", 15: "other",
        21: "Shop", 22: "shop1", 23: "shop1/Team", 24: "shop1/team1"}
    assert _column(engine, "SELECT id, path FROM namespaces WHERE id IN (22, 24)") == {22: "shop1", 24: "team1"}
    assert _column(engine, "SELECT id, full_path FROM projects") == {
        31: "RACER02/p", 32: "shop1/app", 33: "shop1/team1/api", 34: "other/App", 35: "other/app1"}


@RENAMED
def test_the_lower_indexes_refuse_a_new_duplicate(engine):
    for statement in ("UPDATE users SET username = 'OTHER' WHERE id = 4",
                      "UPDATE namespaces SET full_path = 'SHOP' WHERE id = 22",
                      "UPDATE projects SET full_path = 'OTHER/APP' WHERE id = 35"):
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.execute(sa.text(statement))

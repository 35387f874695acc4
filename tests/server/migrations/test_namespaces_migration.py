"""Migration 0007_namespaces on a database filled through the old server's API (SQLite, or PostgreSQL
with OUTPOST_TEST_PG_ADMIN_URL): no row is lost, every project keeps its path (but the one 0027 moves
under its namespace), and the upgraded database serves the new model to python-gitlab.

The old database is pre_namespaces.json (see record_pre_namespaces.py for how it was recorded): the
test migrates a fresh database to the revisions that file was written at, inserts its rows, then
applies every migration as a server start does.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gitlab
import httpx
import pytest
import sqlalchemy
from alembic import command

from outpost_server.db import make_engine
from outpost_server.migrations import alembic_config, upgrade_database
from tests.support import database_url_for, launch_server, unique

from .reflection import reflect_tables

FIXTURE = json.loads((Path(__file__).parent / "pre_namespaces.json").read_text())
OLD_TABLES: dict[str, list[dict[str, Any]]] = FIXTURE["tables"]


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        (kind, raw), = value.items()
        decoders: dict[str, Callable[[Any], Any]] = {"datetime": dt.datetime.fromisoformat,
                                                     "date": dt.date.fromisoformat,
                                                     "bytes": base64.b64decode, "json": lambda item: item}
        return decoders[kind](raw)
    return value


def load_old_database(url: str) -> sqlalchemy.Engine:
    engine = make_engine(url)
    config = alembic_config(engine)
    for row in OLD_TABLES["alembic_version"]:
        command.upgrade(config, row["version_num"])
    metadata = reflect_tables(engine)
    with engine.begin() as connection:
        for table in metadata.sorted_tables:
            rows = [{column: decode(value) for column, value in row.items()} for row in OLD_TABLES.get(table.name, [])]
            if rows and table.name != "alembic_version":
                connection.execute(table.insert(), rows)
            if engine.dialect.name == "postgresql" and rows and "id" in table.c:
                # Rows inserted with their ids leave the sequence behind; a restore would move it too.
                connection.execute(sqlalchemy.text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), (SELECT max(id) FROM {table.name}))"))
    return engine


def table_rows(engine: sqlalchemy.Engine) -> dict[str, list[dict[str, Any]]]:
    metadata = reflect_tables(engine)
    with engine.connect() as connection:
        # In key order: a migration that rewrites rows (an UPDATE) moves them on PostgreSQL's pages.
        return {table.name: [dict(row) for row in connection.execute(
                    sqlalchemy.select(table).order_by(*(table.primary_key.columns or table.columns))).mappings()]
                for table in metadata.sorted_tables}


# 0027 moves one recorded project under its namespace, with a warning.
pytestmark = pytest.mark.expected_log(r"WARNING outpost_server\.migrations project \d+: 'shared/dotfiles' was not")


@pytest.fixture
def migrated(tmp_path) -> tuple[Path, str, dict[str, list[dict[str, Any]]]]:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    url = database_url_for(data_dir) or f"sqlite:///{data_dir}/outpost.db"
    engine = load_old_database(url)
    upgrade_database(engine)
    rows = table_rows(engine)
    engine.dispose()
    return data_dir, url, rows


def test_no_row_is_lost_and_every_project_keeps_its_path(migrated):
    _, _, new = migrated
    for table, old_rows in OLD_TABLES.items():
        if table in ("groups", "alembic_version"):
            continue
        assert len(new[table]) == len(old_rows), table
        if old_rows and "id" in old_rows[0]:
            assert sorted(row["id"] for row in new[table]) == sorted(row["id"] for row in old_rows), table
    groups = [row for row in new["namespaces"] if row["kind"] == "group"]
    personal = {row["owner_id"]: row for row in new["namespaces"] if row["kind"] == "user"}
    assert {(g["id"], g["full_path"], g["parent_id"]) for g in groups} == {
        (g["id"], g["full_path"], g["parent_id"]) for g in OLD_TABLES["groups"]}
    assert sorted(personal) == sorted(user["id"] for user in OLD_TABLES["users"])
    assert len({row["id"] for row in new["namespaces"]}) == len(new["namespaces"])

    old_projects = {row["id"]: row for row in OLD_TABLES["projects"]}
    for project in new["projects"]:
        old = old_projects[project["id"]]
        # 0027 moves the one project 0007 left outside its owner's namespace (see below).
        moved = {"shared/dotfiles": "shared1/dotfiles"}
        assert project["full_path"] == moved.get(old["full_path"], old["full_path"])
        expected = old["group_id"] if old["group_id"] is not None else personal[old["creator_id"]]["id"]
        assert project["namespace_id"] == expected, project["full_path"]


def test_a_username_that_was_a_group_path_gets_a_free_namespace_path(migrated):
    _, _, new = migrated
    user = next(row for row in new["users"] if row["username"] == "shared")
    namespace = next(row for row in new["namespaces"] if row["owner_id"] == user["id"])
    assert (namespace["kind"], namespace["path"], namespace["full_path"]) == ("user", "shared1", "shared1")
    dotfiles = next(row for row in new["projects"] if row["path"] == "dotfiles")
    # 0007 left the project at `shared/dotfiles`, the group's name; 0027 moves it under its namespace.
    assert (dotfiles["namespace_id"], dotfiles["full_path"]) == (namespace["id"], "shared1/dotfiles")


def test_upgraded_database_serves_the_namespace_model(migrated):
    data_dir, url, _ = migrated
    server = launch_server(data_dir, database_url=url, root_token=FIXTURE["root_token"],
                           extra_env={"OUTPOST_SECRET_KEY": FIXTURE["secret_key"]})
    try:
        gl = gitlab.Gitlab(server.url, private_token=FIXTURE["root_token"])
        shop = gl.projects.get("root/shop")
        root_namespace = gl.namespaces.get("root")
        assert (shop.namespace["kind"], shop.namespace["id"]) == ("user", root_namespace.id)
        api = gl.projects.get("acme/platform/api")
        assert (api.namespace["kind"], api.namespace["full_path"]) == ("group", "acme/platform")
        alice = gitlab.Gitlab(server.url, private_token=FIXTURE["tokens"]["alice"])
        alice.auth()
        assert [p.path_with_namespace for p in alice.projects.list(owned=True)] == ["alice/sandbox"]
        # New rows draw ids after the migrated ones (PostgreSQL sequences included).
        name = unique("after")
        group = gl.groups.create({"name": name, "path": name})
        user = gl.users.create({"username": unique("u"), "name": "After", "email": f"{name}@example.com",
                                "password": "s3cret-pass-1"})
        ids = [n.id for n in gl.namespaces.list(get_all=True)]
        assert len(ids) == len(set(ids)) and group.id in ids
        assert gl.namespaces.get(user.username).kind == "user"
        # What hangs off a project moved with it: its errors are still served under its path.
        response = httpx.get(f"{server.url}/root/webshop/-/error_tracking.json",
                             headers={"PRIVATE-TOKEN": FIXTURE["root_token"]})
        assert response.status_code == 200, response.text
        assert len(response.json()["errors"]) == 2
    finally:
        server.stop()

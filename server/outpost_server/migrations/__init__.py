"""Alembic migrations, applied on every start (`upgrade heads`: each domain is a branch off 0001)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from outpost_server import __version__

# Replicas starting together on one PostgreSQL database take turns to migrate.
_PG_MIGRATION_LOCK = 4_242_001


def alembic_config(engine: Engine | None, *, secret_key: str | None = None,
                   report: Callable[[str], None] | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent))
    config.attributes["engine"] = engine
    # For a revision that encrypts what was stored in clear (0024's webhook URLs).
    config.attributes["secret_key"] = secret_key
    # Where env.py says each revision applied, and a long revision how far it is.
    config.attributes["report"] = report
    return config


class DatabaseNewer(Exception):
    """The database was migrated by a newer Outpost than this one."""


def head_revisions() -> list[str]:
    return sorted(ScriptDirectory.from_config(alembic_config(None)).get_heads())


def unknown_revisions(revisions: list[str]) -> list[str]:
    """Those of `revisions` this Outpost has no migration for: a newer one wrote them."""
    script = ScriptDirectory.from_config(alembic_config(None))
    unknown = []
    for revision in revisions:
        try:
            found = script.get_revision(revision)
        except CommandError:
            found = None
        if found is None:
            unknown.append(revision)
    return unknown


def database_revisions(connection: Connection) -> list[str]:
    """The schema revisions the database is at (none for a database never migrated)."""
    if not inspect(connection).has_table("alembic_version"):
        return []
    return sorted(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


def refuse_newer(engine: Engine) -> None:
    """Raises DatabaseNewer, naming both revisions, when a newer Outpost migrated the database."""
    with engine.connect() as connection:
        revisions = database_revisions(connection)
    if unknown_revisions(revisions):
        raise DatabaseNewer(
            f"The database is at schema revision {', '.join(revisions)}, which this Outpost ({__version__}, schema "
            f"revision {', '.join(head_revisions())}) does not know: a newer Outpost migrated it. Run that version "
            "or a newer one; nothing was changed.")


def upgrade_database(engine: Engine, *, secret_key: str | None = None,
                     report: Callable[[str], None] = lambda line: None) -> None:
    """Applies every revision; on PostgreSQL then moves rows a revision left to move in batches
    (partition_move.py), telling `report` how far it is. `secret_key` is the server's: a revision that
    encrypts stored values needs it when there are some."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as lock_connection:
            lock_connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
            try:
                refuse_newer(engine)
                command.upgrade(alembic_config(engine, secret_key=secret_key, report=report), "heads")
                # Still under the lock, so one replica moves while the others wait to start; each batch
                # is its own transaction, so a running server is never held up for longer than one.
                from outpost_server.migrations.partition_move import move_legacy_rows

                move_legacy_rows(engine, report=report)
            finally:
                lock_connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _PG_MIGRATION_LOCK})
                lock_connection.commit()
    else:
        refuse_newer(engine)
        command.upgrade(alembic_config(engine, secret_key=secret_key, report=report), "heads")


def upgrade_within(connection: Connection, revisions: list[str], *, secret_key: str | None) -> None:
    """Migrates an empty database to exactly `revisions` (a backup's) inside the caller's transaction."""
    config = alembic_config(None, secret_key=secret_key)
    config.attributes["connection"] = connection
    for revision in revisions:
        command.upgrade(config, revision)

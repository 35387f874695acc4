"""Alembic migrations, applied on every start (`upgrade heads`: each domain is a branch off 0001)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Engine

# Replicas starting together on one PostgreSQL database take turns to migrate.
_PG_MIGRATION_LOCK = 4_242_001


def alembic_config(engine: Engine, *, secret_key: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent))
    config.attributes["engine"] = engine
    # For a revision that encrypts what was stored in clear (0024's webhook URLs).
    config.attributes["secret_key"] = secret_key
    return config


def upgrade_database(engine: Engine, *, secret_key: str | None = None,
                     report: Callable[[str], None] = lambda line: None) -> None:
    """Applies every revision; on PostgreSQL then moves rows a revision left to move in batches
    (partition_move.py), telling `report` how far it is. `secret_key` is the server's: a revision that
    encrypts stored values needs it when there are some."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as lock_connection:
            lock_connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
            try:
                command.upgrade(alembic_config(engine, secret_key=secret_key), "heads")
                # Still under the lock, so one replica moves while the others wait to start; each batch
                # is its own transaction, so a running server is never held up for longer than one.
                from outpost_server.migrations.partition_move import move_legacy_rows

                move_legacy_rows(engine, report=report)
            finally:
                lock_connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _PG_MIGRATION_LOCK})
                lock_connection.commit()
    else:
        command.upgrade(alembic_config(engine, secret_key=secret_key), "heads")

"""Giving existing SQLite tables AUTOINCREMENT, for the revisions that need it.

Without AUTOINCREMENT, SQLite hands out max(id) + 1, so deleting the newest row frees its id for the
next one: a client that remembered the old object would then find a different one under its id.
AUTOINCREMENT is part of a table's definition, so the table is rebuilt (Alembic's batch mode copies
it row by row, ids included, and SQLite starts the table's sequence at the largest copied id). The
migration environment turns foreign keys off around the revisions, so dropping the old table cascades
nowhere. PostgreSQL's sequences never hand out an id twice: nothing to do there.
"""

from __future__ import annotations

from alembic import op


def sqlite_autoincrement(*tables: str, on: bool = True) -> None:
    """Rebuilds the SQLite tables with AUTOINCREMENT (`on=False`: without, for the downgrades)."""
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in tables:
        with op.batch_alter_table(table, recreate="always", table_kwargs={"sqlite_autoincrement": on}):
            pass


def sqlite_plain_ids(*tables: str) -> None:
    sqlite_autoincrement(*tables, on=False)

"""How far a spool has been digested, kept in the main database beside what was stored."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from outpost_server.error_tracking.models import SpoolProgress

PROGRESS = SpoolProgress.__table__


def digested_until(connection: Connection, spool_id: str) -> int:
    """The last entry of the spool stored so far (0 for none)."""
    found = connection.execute(select(PROGRESS.c.last_entry_id).where(PROGRESS.c.spool_id == spool_id)).scalar()
    return found or 0


def record(connection: Connection, spool_id: str, last_entry_id: int) -> None:
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(PROGRESS).values(spool_id=spool_id, last_entry_id=last_entry_id)
    connection.execute(statement.on_conflict_do_update(index_elements=["spool_id"],
                                                       set_={"last_entry_id": last_entry_id}))

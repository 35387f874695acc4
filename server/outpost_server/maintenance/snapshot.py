"""One point in time of the database and of the ingest spool, read as streams.

SQLite: one read transaction (a WAL snapshot: the server keeps writing meanwhile, the snapshot does not
see it). PostgreSQL: a REPEATABLE READ, READ ONLY transaction. The spool's snapshot is taken first: an
entry digested after it is still in it, and the database's snapshot, taken after, records how far the
spool was digested (digest/progress.py), so the entries past that are exactly the undigested ones.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from outpost_server.error_tracking.ingest.spool import spool_path
from outpost_server.maintenance.loading import id_sequences

# Alembic's own table is not data: a restore writes it by migrating to the backup's revisions.
NOT_DATA = {"alembic_version"}
# PostgreSQL's day partitions (and the default one) are read through their partitioned table.
_PARTITION = re.compile(r"_(p\d{8}|default)$")
ROWS_PER_FETCH = 1000
SPOOL_COLUMNS = ("project_id", "public_key", "endpoint", "event_id", "received_at", "client_ip", "encoding", "body")


@dataclass(frozen=True)
class TableShape:
    name: str
    columns: list[str]
    types: list[Any]
    key: list[str]

    def table(self) -> sa.Table:
        columns = (sa.Column(name, kind) for name, kind in zip(self.columns, self.types, strict=True))
        return sa.Table(self.name, sa.MetaData(), *columns)


def snapshot_engine(url: str) -> Engine:
    """An engine whose transactions are snapshots: pysqlite would otherwise run each SELECT on its own."""
    engine = sa.create_engine(url, poolclass=NullPool)
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _own_transactions(dbapi_connection, _record) -> None:
            dbapi_connection.isolation_level = None
            dbapi_connection.execute("PRAGMA busy_timeout = 30000")

        @event.listens_for(engine, "begin")
        def _begin(connection) -> None:
            connection.exec_driver_sql("BEGIN")
    return engine


@contextlib.contextmanager
def database_snapshot(engine: Engine) -> Iterator[DatabaseSnapshot]:
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            if engine.dialect.name == "postgresql":
                connection.exec_driver_sql("SET TRANSACTION READ ONLY")
            yield DatabaseSnapshot(connection)


class DatabaseSnapshot:
    def __init__(self, connection: Connection):
        self.connection = connection
        self.kind = connection.dialect.name
        # The first read fixes the snapshot.
        self.revisions = sorted(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())

    def tables(self) -> list[TableShape]:
        """Every data table, a table before those whose foreign keys point at it."""
        inspector = inspect(self.connection)
        skipped = NOT_DATA | self._partitions()
        names = [name for name, _ in inspector.get_sorted_table_and_fkc_names() if name and name not in skipped]
        shapes = []
        for name in names:
            columns = inspector.get_columns(name)
            key = inspector.get_pk_constraint(name).get("constrained_columns") or []
            shapes.append(TableShape(name, [column["name"] for column in columns],
                                     [column["type"] for column in columns], list(key)))
        return shapes

    def _partitions(self) -> set[str]:
        if self.kind != "postgresql":
            return set()
        found = self.connection.execute(text(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace "
            "AND (relispartition OR relname ~ '_p[0-9]{8}$')")).scalars()
        return {name for name in found if _PARTITION.search(name)}

    def count(self, shape: TableShape) -> int:
        return self.connection.execute(text(f'SELECT count(*) FROM "{shape.name}"')).scalar_one()

    def rows(self, shape: TableShape) -> Iterator[Any]:
        table = shape.table()
        query = sa.select(table).order_by(*(table.c[name] for name in shape.key))
        result = self.connection.execution_options(yield_per=ROWS_PER_FETCH).execute(query)
        yield from result

    def sequences(self) -> dict[str, int]:
        """The last id each table handed out, which may be above its largest id (rows deleted since)."""
        if self.kind == "sqlite":
            return {name: int(seq) for name, seq in self.connection.exec_driver_sql(
                "SELECT name, seq FROM sqlite_sequence")}
        found: dict[str, int] = {}
        for table, _column, sequence in id_sequences(self.connection):
            last = self.connection.execute(text("SELECT last_value FROM pg_sequences WHERE "
                                                "format('%I.%I', schemaname, sequencename)::regclass = "
                                                "CAST(:sequence AS regclass)"), {"sequence": sequence}).scalar()
            found[table] = int(last or 0)
        return found

    def digested_until(self, spool_id: str) -> int:
        found = self.connection.execute(text(
            "SELECT last_entry_id FROM error_tracking_spool_progress WHERE spool_id = :id"), {"id": spool_id}).scalar()
        return int(found or 0)


@contextlib.contextmanager
def spool_snapshot(data_dir: Path) -> Iterator[SpoolSnapshot | None]:
    """The spool as it is now, or None where this data dir has none."""
    path = spool_path(data_dir)
    if not path.exists():
        yield None
        return
    connection = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        connection.execute("BEGIN")
        yield SpoolSnapshot(connection)
        connection.execute("COMMIT")
    finally:
        connection.close()


class SpoolSnapshot:
    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection
        self.spool_id: str = connection.execute("SELECT spool_id FROM identity").fetchone()[0]

    def count_after(self, entry_id: int) -> int:
        return self._connection.execute("SELECT count(*) FROM entries WHERE id > ?", (entry_id,)).fetchone()[0]

    def entries_after(self, entry_id: int) -> Iterator[tuple[Any, ...]]:
        cursor = self._connection.execute(
            f"SELECT {', '.join(SPOOL_COLUMNS)} FROM entries WHERE id > ? ORDER BY id", (entry_id,))
        while batch := cursor.fetchmany(ROWS_PER_FETCH):
            yield from batch

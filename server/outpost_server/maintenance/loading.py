"""Loading a backup's rows into tables the restore has just made, whichever database wrote them.

Values are fitted to the target's columns (times naive in UTC where a column keeps no time zone), rows go
in with one statement per part, and on PostgreSQL the day partitions of the event tables are made for the
days the rows need before they arrive (retention/partitions.py). Last, every id sequence is set past the
largest id and past where the source's own sequence had got to, so no id is ever handed out twice.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from outpost_server.error_tracking.retention import partitions

INSERT_ROWS = 1000


class TableLoader:
    def __init__(self, connection: Connection, name: str, columns: list[str]):
        self._connection = connection
        inspector = inspect(connection)
        target = {column["name"]: column["type"] for column in inspector.get_columns(name)}
        missing = [column for column in columns if column not in target]
        if missing:
            raise ValueError(f"table {name} has no column {', '.join(missing)} at the backup's revision")
        self._columns = columns
        self._table = sa.Table(name, sa.MetaData(), *(sa.Column(column, target[column]) for column in columns))
        self._naive = {index for index, column in enumerate(columns)
                       if isinstance(target[column], sa.DateTime) and not getattr(target[column], "timezone", True)}
        self._day_column = self._partition_key(name)

    def _partition_key(self, name: str) -> int | None:
        """The index of the column the table's day partitions are keyed on (PostgreSQL after 0019), or None."""
        if name not in partitions.DAY_TABLES or not partitions.partitioned(self._connection):
            return None
        return self._columns.index(partitions.KEY_COLUMN.get(name, "received_at"))

    def load(self, rows: Iterable[list[Any]]) -> int:
        batch: list[dict[str, Any]] = []
        loaded = 0
        for row in rows:
            for index in self._naive:
                if isinstance(row[index], dt.datetime):
                    row[index] = row[index].replace(tzinfo=None)
            batch.append(dict(zip(self._columns, row, strict=True)))
            if len(batch) >= INSERT_ROWS:
                loaded += self._insert(batch)
                batch = []
        if batch:
            loaded += self._insert(batch)
        return loaded

    def _insert(self, batch: list[dict[str, Any]]) -> int:
        if self._day_column is not None:
            key = self._columns[self._day_column]
            days = {row[key].astimezone(dt.timezone.utc).date() for row in batch if row[key] is not None}
            partitions.create_days(self._connection, days)
        self._connection.execute(self._table.insert(), batch)
        return len(batch)


def skipped(connection: Connection, table: str) -> bool:
    """A table only PostgreSQL keeps (the event keys), in a backup of PostgreSQL restored into SQLite."""
    return table == partitions.KEYS and not inspect(connection).has_table(table)


def derive_event_keys(connection: Connection, tables: dict[str, int]) -> None:
    """A backup of SQLite restored into PostgreSQL: the event keys PostgreSQL keeps beside its partitioned
    events, made from the events as migration 0019 made them."""
    if partitions.KEYS in tables or not inspect(connection).has_table(partitions.KEYS):
        return
    connection.execute(text(f"INSERT INTO {partitions.KEYS} (project_id, event_id, received_at) "
                            f"SELECT project_id, event_id, received_at FROM {partitions.EVENTS} "
                            "ON CONFLICT DO NOTHING"))


def finish_sequences(connection: Connection, sequences: dict[str, int]) -> None:
    if connection.dialect.name == "sqlite":
        for table, seq in sequences.items():
            connection.execute(text("UPDATE sqlite_sequence SET seq = max(seq, :seq) WHERE name = :name"),
                               {"seq": seq, "name": table})
            connection.execute(text(
                "INSERT INTO sqlite_sequence (name, seq) SELECT :name, :seq WHERE NOT EXISTS "
                "(SELECT 1 FROM sqlite_sequence WHERE name = :name) AND EXISTS (SELECT 1 FROM sqlite_master "
                "WHERE type = 'table' AND name = :name AND sql LIKE '%AUTOINCREMENT%')"), {"seq": seq, "name": table})
        return
    largest: dict[str, int] = {}
    for table, column, sequence in id_sequences(connection):
        found = connection.execute(text(f'SELECT max("{column}") FROM "{table}"')).scalar() or 0
        largest[sequence] = max(largest.get(sequence, 0), int(found), sequences.get(table, 0))
    for sequence, last in largest.items():
        if last:
            connection.execute(text("SELECT setval(CAST(:sequence AS regclass), :last)"),
                               {"sequence": sequence, "last": last})


# A column default drawing from a sequence, as PostgreSQL prints it: nextval('name'::regclass).
_NEXTVAL = re.compile(r"nextval\('([^']+)'")


def id_sequences(connection: Connection) -> list[tuple[str, str, str]]:
    """PostgreSQL: (table, column, sequence) for every column whose default draws from a sequence, read from the
    defaults rather than from the sequences' owners: migration 0019's partitioned event tables draw from
    sequences no column owns, which pg_get_serial_sequence does not name."""
    rows = connection.execute(text(
        "SELECT c.relname, a.attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d "
        "JOIN pg_class c ON c.oid = d.adrelid JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum "
        "WHERE c.relnamespace = current_schema()::regnamespace AND NOT c.relispartition")).all()
    found = []
    for table, column, default in rows:
        match = _NEXTVAL.search(default or "")
        if match:
            found.append((table, column, match.group(1)))
    return found

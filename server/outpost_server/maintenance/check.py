"""`outpost-server check`, and what `serve` logs at start: is this installation whole?

The schema is at this Outpost's head; every sealed value opens with the configured secret key (as
GitLab's gitlab:doctor:secrets, the tables and counts of those that do not); the ingest spool can be
read, and its entries opened, with that key; every file the database names (an export's file, a source
map bundle or release file) is there whole.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from outpost_server.error_tracking.ingest.sealing import Sealer, Unsealable
from outpost_server.error_tracking.ingest.spool import spool_path
from outpost_server.migrations import database_revisions, head_revisions
from outpost_server.security import SecretBox

# Every column holding a value sealed with the secret key (security.SecretBox).
SEALED = (("ci_instance_variables", "encrypted_value"), ("error_tracking_settings", "encrypted_token"),
          ("alert_recipients", "encrypted_url"), ("alert_recipients", "encrypted_secret"))
# Stored files: the rows naming one, and the size each must have.
FILES = (
    ("export files", "SELECT count(*) FROM vulnerability_exports e WHERE e.status = 'finished' AND "
                     "coalesce(e.byte_size, 0) <> coalesce((SELECT sum(length(c.data)) FROM "
                     "vulnerability_export_chunks c WHERE c.export_id = e.id), 0)"),
    ("source map bundles", "SELECT count(*) FROM source_map_bundles WHERE length(data) <> size"),
    ("source map release files", "SELECT count(*) FROM source_map_release_files WHERE length(data) <> size"),
)
SPOOL_SAMPLE = 50


@dataclass(frozen=True)
class Finding:
    ok: bool
    text: str


def run_checks(engine: Engine, *, secret_key: str, data_dir: Path) -> list[Finding]:
    with engine.connect() as connection:
        found = [_schema(connection)]
        if found[0].ok:
            found += _sealed(connection, secret_key)
            found += _files(connection)
    found.append(_spool(data_dir, secret_key))
    return found


def _schema(connection: Connection) -> Finding:
    have, heads = database_revisions(connection), head_revisions()
    if have == heads:
        return Finding(True, f"Schema: at head ({', '.join(heads)})")
    return Finding(False, f"Schema: at {', '.join(have) or 'nothing'}, not at this Outpost's head "
                          f"({', '.join(heads)}); run `outpost-server migrate`")


def _sealed(connection: Connection, secret_key: str) -> list[Finding]:
    box = SecretBox(secret_key)
    inspector = inspect(connection)
    found = []
    for table, column in SEALED:
        if not inspector.has_table(table):
            continue
        values = connection.execute(text(
            f"SELECT {column} FROM {table} WHERE {column} IS NOT NULL AND {column} <> ''")).scalars()
        total = failing = 0
        for value in values:
            total += 1
            failing += box.decrypt(value) is None
        if failing:
            found.append(Finding(False, f"Sealed values: {failing} of {total} in {table}.{column} do not open with "
                                        "the configured secret key"))
        elif total:
            found.append(Finding(True, f"Sealed values: all {total} in {table}.{column} open"))
        else:
            found.append(Finding(True, f"Sealed values: none in {table}.{column}"))
    return found


def _files(connection: Connection) -> list[Finding]:
    found = []
    for what, query in FILES:
        missing = connection.execute(text(query)).scalar_one()
        if missing:
            found.append(Finding(False, f"Files: {missing} {what} missing or not whole"))
        else:
            found.append(Finding(True, f"Files: every one of the {what} is there"))
    return found


def _spool(data_dir: Path, secret_key: str) -> Finding:
    path = spool_path(data_dir)
    if not path.exists():
        return Finding(True, "Spool: none yet in this data dir")
    try:
        connection = sqlite3.connect(path, timeout=30)
        try:
            verdict = connection.execute("PRAGMA quick_check").fetchone()[0]
            waiting = connection.execute("SELECT count(*) FROM entries").fetchone()[0]
            sample = connection.execute("SELECT body FROM entries ORDER BY id LIMIT ?", (SPOOL_SAMPLE,)).fetchall()
        finally:
            connection.close()
    except sqlite3.Error as error:
        return Finding(False, f"Spool: {path.name} cannot be read ({error})")
    if verdict != "ok":
        return Finding(False, f"Spool: {path.name} is damaged ({verdict})")
    sealer = Sealer(secret_key)
    unopened = 0
    for (body,) in sample:
        try:
            sealer.open(body)
        except Unsealable:
            unopened += 1
    if unopened:
        return Finding(False, f"Spool: {unopened} of the first {len(sample)} entries do not open with the "
                              "configured secret key")
    return Finding(True, f"Spool: readable, {waiting} entries waiting")

"""`outpost-server restore FILE`: a backup into an empty database (SQLite or PostgreSQL) and data dir.

Nothing is written before the whole file has been checked (archive.verify), the key is known to be the
data's, and the target is found empty; then the schema is made at the backup's revisions and the rows
loaded, in one transaction on PostgreSQL and into a file that takes the database's name only when whole
on SQLite; then the database is migrated to this Outpost's head. So an older backup restores into a newer
Outpost, and a refused or failed restore leaves the target as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from outpost_server import __version__
from outpost_server.config import ServerConfig
from outpost_server.db import make_engine
from outpost_server.error_tracking.ingest.spool import NewEntry, Spool, spool_path
from outpost_server.maintenance import archive, secret_key
from outpost_server.maintenance.loading import TableLoader, derive_event_keys, finish_sequences, skipped
from outpost_server.maintenance.progress_line import Progress
from outpost_server.migrations import head_revisions, unknown_revisions, upgrade_database, upgrade_within

SQLITE_NAME = "outpost.sqlite3"
SPOOL_BATCH = 500


class RestoreRefused(Exception):
    pass


@dataclass(frozen=True)
class RestoreSummary:
    manifest: dict[str, Any]
    target: str

    def describe(self) -> list[str]:
        rows = sum(self.manifest["tables"].values())
        return [f"Restored {rows:,} rows of {len(self.manifest['tables'])} tables and "
                f"{self.manifest['spool_entries']:,} undigested spool entries into {self.target}",
                f"from a backup of Outpost {self.manifest['outpost_version']} taken {self.manifest['created_at']}"]


def run_restore(config: ServerConfig, path: Path, *, phrase: str | None) -> RestoreSummary:
    try:
        manifest = archive.verify(path)
    except archive.DamagedBackup as damage:
        raise RestoreRefused(f"{path} is damaged: {damage}. Nothing was restored.") from None
    if manifest.get("format") != archive.FORMAT:
        raise RestoreRefused(f"{path} is a backup in format {manifest.get('format')}, which this Outpost "
                             f"({__version__}) cannot read. Nothing was restored.")
    newer = unknown_revisions(manifest["schema_revisions"])
    if newer:
        raise RestoreRefused(
            f"{path} was taken by Outpost {manifest['outpost_version']} at schema revision {', '.join(newer)}, "
            f"newer than this Outpost {__version__} (schema revision {', '.join(head_revisions())}). Restore it "
            "with that version or a newer one. Nothing was restored.")
    key = _key_for(config, path, manifest, phrase)
    config.prepare_data_dir()
    _refuse_waiting_spool(config.data_dir)
    if config.database_url:
        target = _restore_into_database(config, path, manifest, key)
    else:
        target = _restore_into_sqlite(config, path, manifest, key)
    key_file = config.data_dir / "secret_key"
    if not config.secret_key and not key_file.exists():
        with open(key_file, "x") as handle:
            handle.write(key)
    return RestoreSummary(manifest, target)


def _key_for(config: ServerConfig, path: Path, manifest: dict[str, Any], phrase: str | None) -> str:
    """The data's secret key: unsealed from the backup, or the one configured here when it is the same."""
    configured = config.secret_key
    key_file = config.data_dir / "secret_key"
    if not configured and key_file.exists():
        configured = key_file.read_text().strip()
    sealed = _sealed_key(path) if manifest.get("secret_key") == "sealed with a passphrase" else None
    if sealed is not None and phrase:
        try:
            key = secret_key.unseal(sealed, phrase)
        except secret_key.WrongPassphrase:
            raise RestoreRefused("The passphrase does not open the secret key sealed in this backup. "
                                 "Nothing was restored.") from None
        if configured and configured != key:
            raise RestoreRefused("The secret key configured here (OUTPOST_SECRET_KEY, or secret_key in the data "
                                 "dir) is not the one this backup's data was written with. Nothing was restored.")
        return key
    if configured and secret_key.check_value(configured) == manifest["key_check"]:
        return configured
    if sealed is not None:
        raise RestoreRefused("This backup's secret key is sealed with a passphrase: give it with "
                             f"{secret_key.PASSPHRASE_VARIABLE} or --passphrase-file. Nothing was restored.")
    if configured:
        raise RestoreRefused("The secret key configured here (OUTPOST_SECRET_KEY, or secret_key in the data dir) is "
                             "not the one this backup's data was written with. Nothing was restored.")
    raise RestoreRefused("This backup does not hold the secret key. Set OUTPOST_SECRET_KEY to the key the data was "
                         "written with (or put it in the data dir's secret_key file). Nothing was restored.")


def _sealed_key(path: Path) -> dict[str, str] | None:
    for name, data in archive.members(path):
        if name == archive.KEY:
            return archive._json(name, data)
        if name != archive.MANIFEST:
            break
    return None


def _refuse_waiting_spool(data_dir: Path) -> None:
    path = spool_path(data_dir)
    if not path.exists():
        return
    spool = Spool(path)
    try:
        waiting = spool.read(after=0, limit=1)
    finally:
        spool.close()
    if waiting:
        raise RestoreRefused(f"The data dir {data_dir} is not empty: its ingest spool holds events. Restore needs "
                             "an empty data dir and database. Nothing was restored.")


def _refuse_tables(engine: Engine, shown: str) -> None:
    with engine.connect() as connection:
        names = inspect(connection).get_table_names()
    if names:
        raise RestoreRefused(f"The database {shown} is not empty: it has {len(names)} tables. Restore needs an "
                             "empty database. Nothing was restored.")


def _restore_into_database(config: ServerConfig, path: Path, manifest: dict[str, Any], key: str) -> str:
    engine = make_engine(config.database_url)
    shown = engine.url.render_as_string(hide_password=True)
    try:
        _refuse_tables(engine, shown)
        with engine.connect() as connection, connection.begin():
            _load(connection, path, manifest, key)
        _restore_spool(config.data_dir, path)
        upgrade_database(engine, secret_key=key)
    finally:
        engine.dispose()
    return shown


def _restore_into_sqlite(config: ServerConfig, path: Path, manifest: dict[str, Any], key: str) -> str:
    final = config.data_dir / SQLITE_NAME
    if final.exists():
        existing = create_engine(f"sqlite:///{final.resolve()}", poolclass=NullPool)
        try:
            _refuse_tables(existing, str(final))
        finally:
            existing.dispose()
    partial = config.data_dir / (SQLITE_NAME + ".restoring")
    for leftover in _sqlite_files(partial):
        leftover.unlink(missing_ok=True)
    engine = make_engine(f"sqlite:///{partial.resolve()}")
    try:
        with engine.connect() as connection:
            # Rows arrive table by table; the foreign keys are checked once all are in.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
            with connection.begin():
                _load(connection, path, manifest, key)
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            connection.commit()
            if broken:
                raise RestoreRefused(f"The backup's rows refer to rows it lacks ({broken[:3]}). Nothing was restored.")
        upgrade_database(engine, secret_key=key)
        engine.dispose()
        _restore_spool(config.data_dir, path)
        for stale in _sqlite_files(final):
            stale.unlink(missing_ok=True)
        os.replace(partial, final)
    except BaseException:
        engine.dispose()
        for leftover in _sqlite_files(partial):
            leftover.unlink(missing_ok=True)
        raise
    return str(final)


def _sqlite_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _load(connection: Connection, path: Path, manifest: dict[str, Any], key: str) -> None:
    upgrade_within(connection, manifest["schema_revisions"], secret_key=key)
    # What the migrations seeded (lease rows, version counters) gives way to the backup's rows.
    tables = [table for table in manifest["table_order"] if not skipped(connection, table)]
    for table in reversed(tables):
        connection.execute(text(f'DELETE FROM "{table}"'))
    progress = Progress("Restoring", sum(manifest["tables"].values()) + manifest["spool_entries"])
    loaders: dict[str, TableLoader] = {}
    for name, data in archive.members(path):
        if not name.startswith(archive.TABLES):
            continue
        table = name[len(archive.TABLES):].rsplit("/", 1)[0]
        if table not in tables:
            continue
        if table not in loaders:
            loaders[table] = TableLoader(connection, table, manifest["columns"][table])
        progress.advance(loaders[table].load(archive.decode_rows(data)))
    derive_event_keys(connection, manifest["tables"])
    finish_sequences(connection, manifest["sequences"])
    progress.finish()


def _restore_spool(data_dir: Path, path: Path) -> None:
    """The undigested entries, appended to the data dir's spool: its digest stores them on the server's start."""
    spool = Spool(spool_path(data_dir))
    try:
        batch: list[NewEntry] = []
        for name, data in archive.members(path):
            if not name.startswith(archive.SPOOL):
                continue
            for row in archive.decode_rows(data):
                batch.append(NewEntry(*row))
                if len(batch) >= SPOOL_BATCH:
                    spool.append(batch)
                    batch = []
        if batch:
            spool.append(batch)
    finally:
        spool.close()

"""`outpost-server backup`: the database at one point in time, the spool's undigested entries and, sealed
with a passphrase, the secret key, in one file (archive.py) written as a stream."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from outpost_server import __version__
from outpost_server.config import ServerConfig
from outpost_server.maintenance import archive, secret_key
from outpost_server.maintenance.progress_line import Progress
from outpost_server.maintenance.snapshot import SPOOL_COLUMNS, database_snapshot, snapshot_engine, spool_snapshot


class BackupRefused(Exception):
    pass


@dataclass(frozen=True)
class BackupSummary:
    manifest: dict[str, Any]

    def describe(self) -> list[str]:
        rows = sum(self.manifest["tables"].values())
        return [f"Backed up {rows:,} rows of {len(self.manifest['tables'])} tables and "
                f"{self.manifest['spool_entries']:,} undigested spool entries "
                f"(schema {', '.join(self.manifest['schema_revisions'])}, Outpost {__version__})"]


def configured_key(config: ServerConfig) -> str:
    """The key the data was written with; never a new one (resolved_secret_key would make one)."""
    if config.secret_key:
        return config.secret_key
    path = config.data_dir / "secret_key"
    if not path.exists():
        raise BackupRefused(f"There is no secret key in {config.data_dir} and OUTPOST_SECRET_KEY is not set: "
                            "give the data dir (--data-dir) the server runs with.")
    return path.read_text().strip()


def run_backup(config: ServerConfig, output: Path, *, phrase: str | None) -> BackupSummary:
    key = configured_key(config)
    engine = snapshot_engine(config.sqlalchemy_url())
    writer = archive.BackupWriter(output)
    try:
        # The spool's snapshot first: see snapshot.py.
        with spool_snapshot(config.data_dir) as spool, database_snapshot(engine) as database:
            tables = database.tables()
            counts = {shape.name: database.count(shape) for shape in tables}
            after = database.digested_until(spool.spool_id) if spool is not None else 0
            waiting = spool.count_after(after) if spool is not None else 0
            manifest = {
                "format": archive.FORMAT,
                "outpost_version": __version__,
                "schema_revisions": database.revisions,
                "database": database.kind,
                "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "tables": counts,
                "columns": {shape.name: shape.columns for shape in tables},
                "table_order": [shape.name for shape in tables],
                "sequences": database.sequences(),
                "spool_entries": waiting,
                "spool_columns": list(SPOOL_COLUMNS),
                "key_check": secret_key.check_value(key),
                "secret_key": "sealed with a passphrase" if phrase else "not included",
            }
            if not phrase:
                manifest["secret_key_note"] = secret_key.LEFT_OUT
            writer.add_json(archive.MANIFEST, manifest)
            if phrase:
                writer.add_json(archive.KEY, secret_key.seal(key, phrase))
            progress = Progress("Backing up", sum(counts.values()) + waiting)
            for shape in tables:
                parts = writer.parts(f"{archive.TABLES}{shape.name}/")
                for row in database.rows(shape):
                    parts.write(archive.encode_row(row))
                    progress.advance()
                parts.flush()
            if spool is not None:
                parts = writer.parts(archive.SPOOL)
                for entry in spool.entries_after(after):
                    parts.write(archive.encode_row(entry))
                    progress.advance()
                parts.flush()
            progress.finish()
        writer.close()
    except BaseException:
        writer.abort()
        raise
    finally:
        engine.dispose()
    return BackupSummary(manifest)

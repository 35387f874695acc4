"""The `backup`, `restore` and `check` subcommands (registered by cli.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from outpost_server.config import ServerConfig

ConfigFrom = Callable[[argparse.Namespace], ServerConfig]


def add_commands(commands, config_from: ConfigFrom) -> None:
    backup = commands.add_parser("backup", help="write the database, the spool's waiting events and (sealed with "
                                                "a passphrase) the secret key to one file, while the server runs")
    backup.add_argument("--output", required=True, help="the backup file to write")
    backup.add_argument("--passphrase-file", default=None,
                        help="seal the secret key into the backup with this file's first line "
                             "(or set OUTPOST_BACKUP_PASSPHRASE); without one the key is left out")
    _database_options(backup)
    backup.set_defaults(handler=lambda args: run_backup_command(args, config_from(args)))

    restore = commands.add_parser("restore", help="restore a backup into an empty database and data dir "
                                                  "(SQLite, or PostgreSQL with --database-url)")
    restore.add_argument("file", help="the backup file")
    restore.add_argument("--passphrase-file", default=None,
                         help="the passphrase that sealed the secret key (or set OUTPOST_BACKUP_PASSPHRASE)")
    _database_options(restore)
    restore.set_defaults(handler=lambda args: run_restore_command(args, config_from(args)))

    check = commands.add_parser("check", help="check the schema, sealed values, spool and stored files; "
                                              "exit 0 only when all hold")
    _database_options(check)
    check.set_defaults(handler=lambda args: run_check_command(config_from(args)))


def _database_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", default=None, help="SQLAlchemy URL (default: SQLite in the data dir)")
    parser.add_argument("--data-dir", default=None, help="directory for the SQLite database, secret key and spool")


def run_backup_command(args: argparse.Namespace, config: ServerConfig) -> int:
    from outpost_server.maintenance import secret_key
    from outpost_server.maintenance.backup import BackupRefused, run_backup

    try:
        summary = run_backup(config, Path(args.output), phrase=secret_key.passphrase(args.passphrase_file))
    except BackupRefused as refusal:
        print(refusal, file=sys.stderr)
        return 1
    for line in summary.describe():
        print(line)
    note = summary.manifest.get("secret_key_note")
    print(note or "The secret key is in this backup, sealed with the passphrase: keep the passphrase apart from it.")
    return 0


def run_restore_command(args: argparse.Namespace, config: ServerConfig) -> int:
    from outpost_server.maintenance import secret_key
    from outpost_server.maintenance.restore import RestoreRefused, run_restore

    try:
        summary = run_restore(config, Path(args.file), phrase=secret_key.passphrase(args.passphrase_file))
    except RestoreRefused as refusal:
        print(refusal, file=sys.stderr)
        return 1
    for line in summary.describe():
        print(line)
    return 0


def run_check_command(config: ServerConfig) -> int:
    from outpost_server.db import make_engine
    from outpost_server.maintenance.backup import BackupRefused, configured_key
    from outpost_server.maintenance.check import run_checks

    try:
        key = configured_key(config)
    except BackupRefused as refusal:
        print(refusal, file=sys.stderr)
        return 1
    engine = make_engine(config.sqlalchemy_url())
    try:
        findings = run_checks(engine, secret_key=key, data_dir=config.data_dir)
    finally:
        engine.dispose()
    for finding in findings:
        print(("ok    " if finding.ok else "FAIL  ") + finding.text)
    return 0 if all(finding.ok for finding in findings) else 1

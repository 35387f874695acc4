"""Where the console keeps its non-secret settings and its data."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

ORGANIZATION = "Outpost"
APPLICATION = "Outpost console"


def app_settings() -> QSettings:
    """The user-scope settings store (profiles, window geometry); never holds secrets."""
    return QSettings(ORGANIZATION, APPLICATION)


def app_data_dir() -> Path:
    """The per-user data directory (the local server's database lives below it)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(base) / ORGANIZATION


def local_server_dir() -> Path:
    """Where the local demo server (File > Start local server, ``--demo``) keeps its data between runs."""
    return app_data_dir() / "local-server"


def log_dir() -> Path:
    """Where the console writes its log (no secrets: see the logging rules in app.py)."""
    return app_data_dir() / "logs"

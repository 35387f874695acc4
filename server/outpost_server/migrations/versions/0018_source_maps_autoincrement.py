"""Source maps: the ids the API shows are never reused (SQLite AUTOINCREMENT).

Revision ID: 0018_source_maps_autoincrement
Revises: sm01_source_maps
"""
from outpost_server.migrations.rebuild import sqlite_autoincrement, sqlite_plain_ids

revision = "0018_source_maps_autoincrement"
down_revision = "sm01_source_maps"
branch_labels = None
depends_on = None

TABLES = ("source_map_releases", "source_map_release_files")


def upgrade() -> None:
    sqlite_autoincrement(*TABLES)


def downgrade() -> None:
    sqlite_plain_ids(*TABLES)

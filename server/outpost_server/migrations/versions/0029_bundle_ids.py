"""Source maps: artifact bundles' row ids are never reused (SQLite AUTOINCREMENT).

The digest caches parsed maps (and the bundles' last use) by the bundle's row id. Without AUTOINCREMENT,
deleting the newest bundle freed its id for the next upload, and events of the new build were mapped
through the deleted build's cached map.

Revision ID: 0029_bundle_ids
Revises: 0018_source_maps_autoincrement
"""
from outpost_server.migrations.rebuild import sqlite_autoincrement, sqlite_plain_ids

revision = "0029_bundle_ids"
down_revision = "0018_source_maps_autoincrement"
branch_labels = None
depends_on = None

TABLES = ("source_map_bundles",)


def upgrade() -> None:
    sqlite_autoincrement(*TABLES)


def downgrade() -> None:
    sqlite_plain_ids(*TABLES)

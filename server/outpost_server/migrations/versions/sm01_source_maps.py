"""Source maps: uploaded chunks, assemble states, artifact bundles and their files, releases and release files.

Revision ID: sm01_source_maps
Revises: 0001_accounts
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "sm01_source_maps"
down_revision = "0001_accounts"
branch_labels = ("source_maps",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "source_map_chunks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("organization", sa.String(255), nullable=False),
        sa.Column("checksum", sa.String(40), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, index=True),
        sa.UniqueConstraint("organization", "checksum"),
    )
    op.create_table(
        "source_map_assemble_status",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("organization", sa.String(255), nullable=False),
        sa.Column("task", sa.String(300), nullable=False),
        sa.Column("checksum", sa.String(40), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False, index=True),
        sa.UniqueConstraint("organization", "task", "checksum"),
    )
    op.create_table(
        "source_map_bundles",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project_id", sa.Integer(), sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("bundle_id", sa.String(36), nullable=False),
        sa.Column("checksum", sa.String(40), nullable=False),
        sa.Column("release", sa.String(250), nullable=False),
        sa.Column("dist", sa.String(64), nullable=False),
        sa.Column("file_count", sa.Integer(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("project_id", "bundle_id"),
    )
    op.create_index("ix_source_map_bundles_release", "source_map_bundles", ["project_id", "release", "dist"])
    op.create_table(
        "source_map_bundle_files",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("bundle_id", sa.Integer(), sa.ForeignKey("source_map_bundles.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("file_type", sa.String(32), nullable=False),
        sa.Column("debug_id", sa.String(36), nullable=True),
        sa.Column("sourcemap", sa.Text(), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_source_map_bundle_files_debug_id", "source_map_bundle_files", ["project_id", "debug_id"])
    op.create_index("ix_source_map_bundle_files_url", "source_map_bundle_files", ["project_id", "url"])
    op.create_table(
        "source_map_releases",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project_id", sa.Integer(), sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.String(250), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("date_released", UTCDateTime(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("project_id", "version"),
    )
    op.create_table(
        "source_map_release_files",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("release_id", sa.Integer(), sa.ForeignKey("source_map_releases.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(2048), nullable=False),
        sa.Column("dist", sa.String(64), nullable=False),
        sa.Column("headers", sa.Text(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("sha1", sa.String(40), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("release_id", "name", "dist"),
    )
    op.create_index("ix_source_map_release_files_name", "source_map_release_files", ["project_id", "name"])


def downgrade() -> None:
    for table in ("source_map_release_files", "source_map_releases", "source_map_bundle_files",
                  "source_map_bundles", "source_map_assemble_status", "source_map_chunks"):
        op.drop_table(table)

"""Error tracking: indexes for the keyset-paginated error list (one per sort order).

Revision ID: 0006_error_list_indexes
Revises: 0005_error_tracking
"""
from alembic import op

revision = "0006_error_list_indexes"
down_revision = "0005_error_tracking"
branch_labels = None
depends_on = None

# index name -> sort column; each serves `WHERE project_id = ? AND status = ? ORDER BY column DESC, id DESC`.
LIST_INDEXES = {
    "ix_error_tracking_errors_list_last_seen": "last_seen_at",
    "ix_error_tracking_errors_list_first_seen": "first_seen_at",
    "ix_error_tracking_errors_list_count": "count",
}


def upgrade() -> None:
    for name, column in LIST_INDEXES.items():
        op.create_index(name, "error_tracking_errors", ["project_id", "status", column, "id"])


def downgrade() -> None:
    for name in LIST_INDEXES:
        op.drop_index(name, "error_tracking_errors")

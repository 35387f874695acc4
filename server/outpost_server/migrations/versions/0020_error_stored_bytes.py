"""Error tracking: each error keeps its stored payloads' bytes beside its stored events.

The column is filled from the payloads once, here; from then on the writer adds, and the pruner and
partition drops subtract, so a project's usage no longer sums every payload it stores.

Revision ID: 0020_error_stored_bytes
Revises: 0019_error_event_partitions
"""
import sqlalchemy as sa
from alembic import op

revision = "0020_error_stored_bytes"
down_revision = "0019_error_event_partitions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("error_tracking_errors",
                  sa.Column("stored_bytes", sa.BigInteger, nullable=False, server_default="0"))
    payloads = "SELECT error_id, payload FROM error_tracking_event_payloads"
    bind = op.get_bind()
    if bind.dialect.name == "postgresql" and bind.execute(sa.text(
            "SELECT to_regclass('error_tracking_event_payloads_legacy') IS NOT NULL")).scalar():
        # Upgrading across 0019: the rows wait in the legacy table until partition_move.py moves them.
        payloads += " UNION ALL SELECT error_id, payload FROM error_tracking_event_payloads_legacy"
    op.execute("UPDATE error_tracking_errors SET stored_bytes = sized.total "
               f"FROM (SELECT error_id, sum(length(payload)) AS total FROM ({payloads}) AS stored "
               "GROUP BY error_id) AS sized WHERE error_tracking_errors.id = sized.error_id")


def downgrade() -> None:
    with op.batch_alter_table("error_tracking_errors") as batch:
        batch.drop_column("stored_bytes")

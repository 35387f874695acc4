"""Alerts: the "a monitor fails" condition of a rule, with its optional monitor.

Revision ID: 0025_alert_monitor_rules
Revises: 0024_alert_url_encryption
"""
import sqlalchemy as sa
from alembic import op

revision = "0025_alert_monitor_rules"
down_revision = "0024_alert_url_encryption"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN: a batch would rebuild the table on SQLite and lose its AUTOINCREMENT.
    op.add_column("alert_rules", sa.Column("on_monitor_failure", sa.Boolean, nullable=False,
                                           server_default=sa.false()))
    op.add_column("alert_rules", sa.Column("monitor_slug", sa.String(50)))


def downgrade() -> None:
    with op.batch_alter_table("alert_rules", table_kwargs={"sqlite_autoincrement": True}) as table:
        table.drop_column("monitor_slug")
        table.drop_column("on_monitor_failure")

"""Alerts: each rule and error counts the notifications its cooldown held back, so the next one says so
(the trigger's `suppressed`).

Revision ID: 0025_alert_cooldown_count
Revises: 0024_alert_url_encryption
"""
import sqlalchemy as sa
from alembic import op

revision = "0025_alert_cooldown_count"
down_revision = "0024_alert_url_encryption"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("alert_error_states", sa.Column("held_back", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("alert_error_states") as batch:
        batch.drop_column("held_back")

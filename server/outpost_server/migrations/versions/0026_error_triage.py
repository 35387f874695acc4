"""Error tracking triage: an error's assignee, the error it was merged into, and ignore conditions.

`assignee_id` and `merged_into_id` are new nullable columns of `error_tracking_errors`, added in place
(no table rebuild, so SQLite keeps the table's AUTOINCREMENT); `error_tracking_error_snoozes` holds the
conditions under which an ignored error comes back (Sentry's GroupSnooze).

Revision ID: 0026_error_triage
Revises: 0021_stored_days
"""
import sqlalchemy as sa
from alembic import op

revision = "0026_error_triage"
down_revision = "0021_stored_days"
branch_labels = None
depends_on = None

ERRORS = "error_tracking_errors"


def _moment(name: str) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=True)


# (column, referenced table, ON DELETE): added in place; SQLite takes a column's REFERENCES only inline.
REFERENCING = (("assignee_id", "users", "SET NULL"), ("merged_into_id", ERRORS, "CASCADE"))


def upgrade() -> None:
    for column, table, on_delete in REFERENCING:
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE {ERRORS} ADD COLUMN {column} INTEGER REFERENCES {table} (id) "
                       f"ON DELETE {on_delete}")
        else:
            op.add_column(ERRORS, sa.Column(column, sa.Integer, sa.ForeignKey(f"{table}.id", ondelete=on_delete),
                                            nullable=True))
    op.create_index("ix_error_tracking_errors_assignee_id", ERRORS, ["assignee_id"])
    op.create_index("ix_error_tracking_errors_merged_into_id", ERRORS, ["merged_into_id"])
    op.create_table(
        "error_tracking_error_snoozes",
        sa.Column("error_id", sa.Integer, sa.ForeignKey(f"{ERRORS}.id", ondelete="CASCADE"), primary_key=True),
        _moment("until"),
        sa.Column("count", sa.Integer, nullable=True),
        sa.Column("window", sa.Integer, nullable=True),
        sa.Column("user_count", sa.Integer, nullable=True),
        sa.Column("user_window", sa.Integer, nullable=True),
        sa.Column("times_seen", sa.Integer, nullable=False),
        sa.Column("users_seen", sa.Integer, nullable=False),
        sa.Column("actor_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_error_tracking_error_snoozes_until", "error_tracking_error_snoozes", ["until"])


def downgrade() -> None:
    op.drop_table("error_tracking_error_snoozes")
    op.drop_index("ix_error_tracking_errors_merged_into_id", ERRORS)
    op.drop_index("ix_error_tracking_errors_assignee_id", ERRORS)
    with op.batch_alter_table(ERRORS) as table:
        table.drop_column("merged_into_id")
        table.drop_column("assignee_id")

"""Error tracking: storage counters per error and per project and received day, instead of on the error.

An error's stored_events and stored_bytes move into `error_tracking_error_stored_days` (per error and
day) and `error_tracking_project_stored_days` (per project and day). On PostgreSQL both are partitioned
by received day like the events, with a partition for every day the events have and a DEFAULT one,
so dropping a day's partitions takes its counts with it instead of updating every error it touched.
They are filled here from the stored events and payloads (on PostgreSQL also those still waiting in
the `_legacy` tables of 0019; a payload whose event is gone counts on its error's last received day),
and the two columns are dropped.

Revision ID: 0021_stored_days
Revises: 0020_error_stored_bytes
"""
import datetime as dt

import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0021_stored_days"
down_revision = "0020_error_stored_bytes"
branch_labels = None
depends_on = None

# Written out as they were when this revision was written (retention/partitions.py names them today).
EVENTS, PAYLOADS = "error_tracking_error_events", "error_tracking_event_payloads"
ERROR_DAYS, PROJECT_DAYS = "error_tracking_error_stored_days", "error_tracking_project_stored_days"
ERRORS_FK = "REFERENCES error_tracking_errors (id) ON DELETE CASCADE"
PROJECTS_FK = "REFERENCES projects (id) ON DELETE CASCADE"
PG_COLUMNS = {
    ERROR_DAYS: f"""error_id integer NOT NULL {ERRORS_FK}, received_day timestamptz NOT NULL,
        project_id integer NOT NULL {PROJECTS_FK}, events integer NOT NULL, bytes bigint NOT NULL,
        PRIMARY KEY (error_id, received_day)""",
    PROJECT_DAYS: f"""project_id integer NOT NULL {PROJECTS_FK}, received_day timestamptz NOT NULL,
        events bigint NOT NULL, bytes bigint NOT NULL, PRIMARY KEY (project_id, received_day)""",
}
PROJECT_INDEX = ("ix_error_tracking_error_stored_days_project", ["project_id", "error_id"])
DAY = {"postgresql": "date_trunc('day', {0} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
       # UTCDateTime's text: "YYYY-MM-DD HH:MM:SS.ffffff".
       "sqlite": "substr({0}, 1, 10) || ' 00:00:00.000000'"}
# No CTE: SQLite would materialize one read twice and lose the indexes the anti-join needs.
FILL_ERROR_DAYS = """
INSERT INTO error_tracking_error_stored_days (error_id, received_day, project_id, events, bytes)
SELECT error_id, {day}, project_id, sum(n), sum(size) FROM (
    SELECT e.error_id, e.project_id, e.received_at, 1 AS n, coalesce(length(p.payload), 0) AS size
    FROM {events} e LEFT JOIN {payloads} p ON p.error_id = e.error_id AND p.event_id = e.event_id
    UNION ALL
    SELECT p.error_id, r.project_id, coalesce(r.last_received_at, r.last_seen_at), 0, length(p.payload)
    FROM {payloads} p JOIN error_tracking_errors r ON r.id = p.error_id
    WHERE NOT EXISTS (SELECT 1 FROM {events} e
                      WHERE e.project_id = r.project_id AND e.event_id = p.event_id AND e.error_id = p.error_id)
) stored GROUP BY error_id, {day}, project_id
"""
FILL_PROJECT_DAYS = (f"INSERT INTO {PROJECT_DAYS} (project_id, received_day, events, bytes) "
                     f"SELECT project_id, received_day, sum(events), sum(bytes) FROM {ERROR_DAYS} "
                     "GROUP BY project_id, received_day")


def upgrade() -> None:
    connection = op.get_bind()
    dialect = connection.dialect.name
    events, payloads = EVENTS, PAYLOADS
    if dialect == "postgresql":
        _create_partitioned(connection)
        if connection.exec_driver_sql(f"SELECT to_regclass('{events}_legacy') IS NOT NULL").scalar():
            events = (f"(SELECT error_id, project_id, event_id, received_at FROM {events} UNION ALL "
                      f"SELECT error_id, project_id, event_id, received_at FROM {events}_legacy)")
            payloads = (f"(SELECT error_id, event_id, payload FROM {payloads} UNION ALL "
                        f"SELECT error_id, event_id, payload FROM {payloads}_legacy)")
    else:
        _create_plain()
    connection.exec_driver_sql(FILL_ERROR_DAYS.format(events=events, payloads=payloads,
                                                      day=DAY[dialect].format("received_at")))
    connection.exec_driver_sql(FILL_PROJECT_DAYS)
    for column in ("stored_events", "stored_bytes"):
        op.drop_column("error_tracking_errors", column)


def _attached_days(connection: sa.Connection) -> list[dt.date]:
    """The days that have a partition of the events, oldest first."""
    names = connection.exec_driver_sql(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        f"JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = '{EVENTS}'").scalars()
    suffix = len(EVENTS) + 2
    return sorted(dt.datetime.strptime(name[suffix:], "%Y%m%d").date() for name in names
                  if name.startswith(EVENTS + "_p") and name[suffix:].isdigit())


def _create_partitioned(connection: sa.Connection) -> None:
    days = _attached_days(connection)
    for table, columns in PG_COLUMNS.items():
        connection.exec_driver_sql(f"CREATE TABLE {table} ({columns}) PARTITION BY RANGE (received_day)")
        connection.exec_driver_sql(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
        for day in days:
            start = dt.datetime.combine(day, dt.time(), dt.timezone.utc)
            end = start + dt.timedelta(days=1)
            connection.exec_driver_sql(f"CREATE TABLE {table}_p{day:%Y%m%d} PARTITION OF {table} FOR VALUES FROM "
                                       f"('{start:%Y-%m-%d %H:%M:%S+00}') TO ('{end:%Y-%m-%d %H:%M:%S+00}')")
    index, indexed = PROJECT_INDEX
    connection.exec_driver_sql(f"CREATE INDEX {index} ON {ERROR_DAYS} ({', '.join(indexed)})")


def _create_plain() -> None:
    op.create_table(
        ERROR_DAYS,
        sa.Column("error_id", sa.Integer, sa.ForeignKey("error_tracking_errors.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("received_day", UTCDateTime, primary_key=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("events", sa.Integer, nullable=False),
        sa.Column("bytes", sa.BigInteger, nullable=False),
    )
    op.create_index(PROJECT_INDEX[0], ERROR_DAYS, PROJECT_INDEX[1])
    op.create_table(
        PROJECT_DAYS,
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("received_day", UTCDateTime, primary_key=True),
        sa.Column("events", sa.BigInteger, nullable=False),
        sa.Column("bytes", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.add_column("error_tracking_errors", sa.Column("stored_events", sa.Integer, nullable=False, server_default="0"))
    op.add_column("error_tracking_errors", sa.Column("stored_bytes", sa.BigInteger, nullable=False, server_default="0"))
    op.execute("UPDATE error_tracking_errors SET stored_events = coalesce((SELECT sum(d.events) FROM "
               f"{ERROR_DAYS} d WHERE d.error_id = error_tracking_errors.id), 0), stored_bytes = coalesce(("
               f"SELECT sum(d.bytes) FROM {ERROR_DAYS} d WHERE d.error_id = error_tracking_errors.id), 0)")
    op.drop_table(PROJECT_DAYS)
    op.drop_table(ERROR_DAYS)

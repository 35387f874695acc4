"""Error tracking: events, payloads and tags partitioned by received day on PostgreSQL.

PostgreSQL: the three tables are renamed `<name>_legacy` (their indexes too), and partitioned tables
take their names: the same columns, plus the event's received time on payloads and tags (the partition
key), keys that include it, the same indexes per partition, a DEFAULT partition and one per day that
has events, and for today and a few days ahead. Event ids move to `error_tracking_event_keys`, filled here
(one narrow row per event). The rows themselves are moved after this revision, in batches of their own
transactions, by migrations/partition_move.py (`outpost-server migrate` shows its progress).

Errors get the range of their events' received times, which the reads of an error's events search on
PostgreSQL (filled here from the events).

SQLite: errors get that range, payloads and tags the received time, as nullable columns it does not use.

Revision ID: 0019_error_event_partitions
Revises: 0016_error_tracking_ids
"""
import datetime as dt

import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0019_error_event_partitions"
down_revision = "0016_error_tracking_ids"
branch_labels = None
depends_on = None

LEGACY = "_legacy"
# The tables and partition names as they were when this revision was written (retention/partitions.py
# names them today; written out here so this revision never changes with it).
EVENTS, TAGS, PAYLOADS = "error_tracking_error_events", "error_tracking_event_tags", "error_tracking_event_payloads"
KEYS = "error_tracking_event_keys"
TABLES = (EVENTS, TAGS, PAYLOADS)
DAYS_AHEAD = 3


def partition_name(table: str, day: dt.date | str) -> str:
    return f"{table}_default" if day == "default" else f"{table}_p{day:%Y%m%d}"


def day_bounds(day: dt.date) -> tuple[str, str]:
    start = dt.datetime.combine(day, dt.time(), dt.timezone.utc)
    return start.strftime("%Y-%m-%d %H:%M:%S+00"), (start + dt.timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S+00")

# Each error's received range: what the reads of its events search on PostgreSQL.
RECEIVED_RANGE = ("first_received_at", "last_received_at")
ERRORS_FK = "REFERENCES error_tracking_errors (id) ON DELETE CASCADE"
COLUMNS = {
    EVENTS: """
        id integer NOT NULL DEFAULT nextval('error_tracking_error_events_id_seq'),
        project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        error_id integer NOT NULL {errors_fk},
        event_id varchar(32) NOT NULL,
        occurred_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        level varchar(16) NOT NULL,
        release varchar(255),
        environment varchar(255),
        user_key varchar(255)""",
    TAGS: """
        id integer NOT NULL DEFAULT nextval('error_tracking_event_tags_id_seq'),
        error_id integer NOT NULL {errors_fk},
        event_id varchar(32) NOT NULL,
        key varchar(200) NOT NULL,
        value varchar(200) NOT NULL,
        received_at timestamptz NOT NULL""",
    PAYLOADS: """
        id integer NOT NULL DEFAULT nextval('error_tracking_event_payloads_id_seq'),
        error_id integer NOT NULL {errors_fk},
        event_id varchar(32) NOT NULL,
        payload bytea NOT NULL,
        received_at timestamptz NOT NULL""",
}
INDEXES = {
    EVENTS: {
        "ix_error_tracking_error_events_error_id": "error_id",
        "ix_error_tracking_error_events_error_id_id": "error_id, id",
        "ix_error_tracking_error_events_project_received": "project_id, received_at, id",
        "ix_error_tracking_error_events_timeline": "error_id, occurred_at, id",
        # An event by its id (the unique constraint served this before).
        "ix_error_tracking_error_events_project_event": "project_id, event_id",
    },
    TAGS: {
        "ix_error_tracking_event_tags_lookup": "error_id, key, value, event_id",
        "ix_error_tracking_event_tags_event": "event_id, error_id",
    },
    PAYLOADS: {
        "ix_error_tracking_event_payloads_error_id_id": "error_id, id",
        "ix_error_tracking_event_payloads_error_event": "error_id, event_id",
    },
}


def upgrade() -> None:
    connection = op.get_bind()
    for name in RECEIVED_RANGE:
        op.add_column("error_tracking_errors", sa.Column(name, UTCDateTime, nullable=True))
    if connection.dialect.name != "postgresql":
        for table in (TAGS, PAYLOADS):
            op.add_column(table, sa.Column("received_at", UTCDateTime, nullable=True))
        return
    connection.exec_driver_sql(
        "UPDATE error_tracking_errors e SET first_received_at = r.first, last_received_at = r.last "
        "FROM (SELECT error_id, min(received_at) AS first, max(received_at) AS last "
        f"FROM {EVENTS} GROUP BY error_id) r WHERE e.id = r.error_id")
    for table in TABLES:
        _rename_to_legacy(connection, table)
        connection.exec_driver_sql(f"CREATE TABLE {table} ({COLUMNS[table].format(errors_fk=ERRORS_FK)}, "
                                   f"PRIMARY KEY (id, received_at)) PARTITION BY RANGE (received_at)")
        # The sequence now belongs to the new table, so dropping the legacy one later keeps it.
        connection.exec_driver_sql(f"ALTER SEQUENCE {table}_id_seq OWNED BY {table}.id")
        for name, columns in INDEXES[table].items():
            connection.exec_driver_sql(f"CREATE INDEX {name} ON {table} ({columns})")
    connection.exec_driver_sql(
        f"CREATE TABLE {KEYS} (project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE, "
        "event_id varchar(32) NOT NULL, received_at timestamptz NOT NULL, PRIMARY KEY (project_id, event_id))")
    connection.exec_driver_sql(f"CREATE INDEX ix_{KEYS}_received_at ON {KEYS} (received_at)")
    for table in TABLES:
        connection.exec_driver_sql(f"CREATE TABLE {partition_name(table, 'default')} "
                                   f"PARTITION OF {table} DEFAULT")
    # A partition for each day that has events (days without any need none), and for the days ahead.
    stored_days = connection.exec_driver_sql(
        f"SELECT DISTINCT (received_at AT TIME ZONE 'UTC')::date FROM {EVENTS}{LEGACY}").scalars().all()
    today = dt.datetime.now(dt.timezone.utc).date()
    for day in sorted({*stored_days, *(today + dt.timedelta(days=ahead) for ahead in range(DAYS_AHEAD + 1))}):
        start, end = day_bounds(day)
        for table in TABLES:
            connection.exec_driver_sql(f"CREATE TABLE {partition_name(table, day)} PARTITION OF {table} "
                                       f"FOR VALUES FROM ('{start}') TO ('{end}')")
    connection.exec_driver_sql(f"INSERT INTO {KEYS} (project_id, event_id, received_at) "
                               f"SELECT project_id, event_id, received_at FROM {EVENTS}{LEGACY}")


def _rename_to_legacy(connection: sa.Connection, table: str) -> None:
    indexes = connection.exec_driver_sql(
        "SELECT indexname FROM pg_indexes WHERE tablename = %(table)s AND schemaname = current_schema()",
        {"table": table}).scalars().all()
    connection.exec_driver_sql(f"ALTER TABLE {table} RENAME TO {table}{LEGACY}")
    for index in indexes:
        connection.exec_driver_sql(f"ALTER INDEX {index} RENAME TO {index[:63 - len(LEGACY)]}{LEGACY}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for table, columns in ((TAGS, ("received_at",)), (PAYLOADS, ("received_at",)),
                               ("error_tracking_errors", RECEIVED_RANGE)):
            with op.batch_alter_table(table) as batch:
                for column in columns:
                    batch.drop_column(column)
        return
    raise NotImplementedError("partitioned event storage on PostgreSQL cannot be downgraded; restore a backup")

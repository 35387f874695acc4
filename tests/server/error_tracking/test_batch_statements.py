"""The digest's store writes each table's rows of a batch in a few statements, not one per event, and the
aggregates it writes that way are exact."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest
import sqlalchemy
from sqlalchemy import event as sqlalchemy_event
from sqlalchemy import text
from sqlalchemy.engine.interfaces import ExecuteStyle

from outpost_server.error_tracking.digest.batch_store import store_batch
from tests.server.error_tracking.partitioned_db import accepted, engine_for, event, factory_for, projects

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
EVENTS, GROUPS = 300, 10
# Statements per table a batch may use, whatever its number of events (the budget).
MAX_PER_TABLE = 6
# The table an INSERT or UPDATE writes (the first one named: an upsert's DO UPDATE comes after it).
WRITE = re.compile(r"\b(?:INSERT INTO|UPDATE)\s+\"?(\w+)", re.IGNORECASE)


class StatementCounter:
    """Executions of writing statements per table. An executemany runs its statement once per row in the
    driver (sqlite3, and psycopg outside a pipeline), so it counts as that many; SQLAlchemy's own batching
    of INSERT … RETURNING into multi-row statements ("insertmanyvalues") counts once per statement."""

    def __init__(self, engine: sqlalchemy.Engine):
        self.per_table: Counter[str] = Counter()
        self.engine = engine

    def __enter__(self) -> StatementCounter:
        sqlalchemy_event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *exc_info) -> None:
        sqlalchemy_event.remove(self.engine, "before_cursor_execute", self._seen)

    def _seen(self, connection, cursor, statement, parameters, context, executemany) -> None:
        found = WRITE.search(statement)
        if found:
            many = executemany and context.execute_style is not ExecuteStyle.INSERTMANYVALUES
            self.per_table[found.group(1)] += len(parameters) if many else 1


def batch(project_id: int, start: int) -> list:
    return [accepted(project_id, event(group=number % GROUPS, number=number,
                                       moment=NOW - dt.timedelta(hours=number % 3, seconds=number)), NOW)
            for number in range(start, start + EVENTS)]


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_a_batch_writes_each_table_in_a_few_statements_and_its_aggregates_are_exact(tmp_path, dialect):
    engine = engine_for(dialect, tmp_path)
    try:
        [project_id] = projects(factory_for(engine), 1)
        with engine.begin() as connection:  # the errors exist before: the batch below only adds to them
            store_batch(connection, batch(project_id, 0))
        with StatementCounter(engine) as counter, engine.begin() as connection:
            store_batch(connection, batch(project_id, EVENTS))
        over = {table: count for table, count in counter.per_table.items() if count > MAX_PER_TABLE}
        assert not over, f"statements per table for one batch of {EVENTS} events: {dict(counter.per_table)}"
        for table in ("error_tracking_error_events", "error_tracking_event_payloads", "error_tracking_event_tags",
                      "error_tracking_error_tag_values", "error_tracking_error_hourly_counts",
                      "error_tracking_errors"):
            assert counter.per_table[table] >= 1, f"{table} not written: {dict(counter.per_table)}"

        raws = [event(group=number % GROUPS, number=number, moment=NOW) for number in range(2 * EVENTS)]
        with engine.connect() as connection:
            def scalar(sql: str) -> int:
                return connection.execute(text(sql), {"project": project_id}).scalar_one()

            errors = "SELECT id FROM error_tracking_errors WHERE project_id = :project"
            assert scalar("SELECT SUM(count) FROM error_tracking_errors WHERE project_id = :project") == 2 * EVENTS
            assert scalar(f"SELECT SUM(count) FROM error_tracking_error_hourly_counts WHERE error_id IN ({errors})"
                          ) == 2 * EVENTS
            tags = sum(len(raw["tags"]) + 4 for raw in raws)  # and level, release, environment, user
            assert scalar(f"SELECT SUM(times_seen) FROM error_tracking_error_tag_values WHERE error_id IN ({errors})"
                          ) == tags
            users = {(raw["exception"]["values"][0]["type"], raw["user"]["id"]) for raw in raws}
            assert scalar("SELECT SUM(users_count) FROM error_tracking_errors WHERE project_id = :project"
                          ) == len(users)
            assert scalar(f"SELECT SUM(events) FROM error_tracking_error_stored_days WHERE error_id IN ({errors})"
                          ) == 2 * EVENTS
    finally:
        engine.dispose()

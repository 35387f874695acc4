"""Read-only looks into a test server's database: event counts and consistency checks."""

from __future__ import annotations

from typing import Any

import sqlalchemy

from tests.support import RunningServer


def database_url(server: RunningServer) -> str:
    """The SQLAlchemy URL the server uses (PostgreSQL when configured, else SQLite in its data dir)."""
    return server.env.get("OUTPOST_DATABASE_URL") or f"sqlite:///{server.data_dir / 'outpost.sqlite3'}"


def connect(url: str) -> sqlalchemy.Engine:
    return sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)


def scalar(url: str, sql: str, **params) -> Any:
    engine = connect(url)
    try:
        with engine.connect() as connection:
            return connection.execute(sqlalchemy.text(sql), params).scalar()
    finally:
        engine.dispose()


def rows(url: str, sql: str, **params) -> list[tuple]:
    engine = connect(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sqlalchemy.text(sql), params)]
    finally:
        engine.dispose()


def stored_event_ids(url: str, project_id: int) -> list[str]:
    return [row[0] for row in rows(url, "SELECT event_id FROM error_tracking_error_events WHERE project_id = :p",
                                   p=project_id)]


# Each query returns rows only when something is inconsistent.
CONSISTENCY_QUERIES = {
    "error counts match their events": """
        SELECT e.id FROM error_tracking_errors e
        LEFT JOIN error_tracking_error_events v ON v.error_id = e.id
        GROUP BY e.id, e.count HAVING e.count <> COUNT(v.id)""",
    "hourly counts add up to the error count": """
        SELECT e.id FROM error_tracking_errors e
        LEFT JOIN error_tracking_error_hourly_counts h ON h.error_id = e.id
        GROUP BY e.id, e.count HAVING e.count <> COALESCE(SUM(h.count), 0)""",
    "events belong to an error of their project": """
        SELECT v.id FROM error_tracking_error_events v
        LEFT JOIN error_tracking_errors e ON e.id = v.error_id
        WHERE e.id IS NULL OR e.project_id <> v.project_id""",
    "no export is stuck without a live lease": """
        SELECT id FROM vulnerability_exports
        WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < :now)""",
    "finished exports have a file": """
        SELECT x.id FROM vulnerability_exports x
        WHERE x.status = 'finished'
          AND NOT EXISTS (SELECT 1 FROM vulnerability_export_chunks c WHERE c.export_id = x.id)""",
    "export chunks are numbered once each": """
        SELECT export_id FROM vulnerability_export_chunks GROUP BY export_id, position HAVING COUNT(*) > 1""",
}


def inconsistencies(url: str) -> dict[str, list[tuple]]:
    """Engine-level integrity (SQLite) plus the domain's invariants; empty when all is well."""
    import datetime as dt

    found: dict[str, list[tuple]] = {}
    if url.startswith("sqlite"):
        integrity = rows(url, "PRAGMA integrity_check")
        if integrity != [("ok",)]:
            found["sqlite integrity_check"] = integrity
        foreign = rows(url, "PRAGMA foreign_key_check")
        if foreign:
            found["sqlite foreign_key_check"] = foreign
    now = dt.datetime.now(dt.timezone.utc)
    if url.startswith("sqlite"):
        now = now.replace(tzinfo=None)
    for name, sql in CONSISTENCY_QUERIES.items():
        params = {"now": now} if ":now" in sql else {}
        bad = rows(url, sql, **params)
        if bad:
            found[name] = bad
    return found

"""What error tracking's stored events take, per project and for the instance.

Events and payload bytes are exact: events are the sum of the errors' stored_events (kept exact by
the writer and the pruner), payload bytes the sum of the payloads' stored lengths. The size on disk
of a project's share is an estimate: the event tables' size on disk (rows, indexes and TOAST; on
PostgreSQL pg_total_relation_size summed over every partition, on SQLite the pages dbstat counts)
times the project's fraction of the stored events. Measuring a project's rows exactly would mean
reading all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project

from .models import ErrorEventPayload, TrackedError
from .retention import human_size

# The tables an event's rows live in (the key table exists on partitioned PostgreSQL only).
EVENT_TABLES = ("error_tracking_error_events", "error_tracking_event_tags", "error_tracking_event_payloads",
                "error_tracking_event_keys")
BASIS = {"postgresql": "pg_total_relation_size", "sqlite": "dbstat"}


@dataclass(frozen=True)
class ProjectStorage:
    project_id: int
    full_path: str
    events: int
    payload_bytes: int
    disk_bytes: int


@dataclass(frozen=True)
class InstanceStorage:
    projects: list[ProjectStorage]
    events: int
    payload_bytes: int
    disk_bytes: int
    basis: str


def disk_basis(session: Session) -> str:
    """How disk_bytes is measured on this database (see the module's docstring)."""
    return BASIS.get(session.get_bind().dialect.name, "unknown")


def event_tables_bytes(session: Session) -> int:
    """The event tables' size on disk with their indexes."""
    if session.get_bind().dialect.name == "postgresql":
        total = 0
        for table in EVENT_TABLES:
            if session.scalar(text("SELECT to_regclass(:t)"), {"t": table}) is None:
                continue
            total += int(session.scalar(text(
                "SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree(CAST(:t AS regclass))"
                " WHERE isleaf"), {"t": table}) or 0)
        return total
    names = list(session.scalars(text(
        "SELECT name FROM sqlite_master WHERE tbl_name IN ('error_tracking_error_events', "
        "'error_tracking_event_tags', 'error_tracking_event_payloads', 'error_tracking_event_keys')")))
    if not names:
        return 0
    try:
        return int(session.scalar(text("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN "
                                       f"({', '.join(f':n{i}' for i in range(len(names)))})"),
                                  {f"n{i}": name for i, name in enumerate(names)}) or 0)
    except OperationalError:  # an SQLite built without dbstat: the whole file
        page_size = session.scalar(text("PRAGMA page_size")) or 0
        return int((session.scalar(text("PRAGMA page_count")) or 0) * page_size)


def _events_by_project(session: Session) -> dict[int, int]:
    return {row[0]: int(row[1]) for row in session.execute(
        select(TrackedError.project_id, func.coalesce(func.sum(TrackedError.stored_events), 0))
        .group_by(TrackedError.project_id))}


def _payload_bytes_by_project(session: Session) -> dict[int, int]:
    return {row[0]: int(row[1]) for row in session.execute(
        select(TrackedError.project_id, func.coalesce(func.sum(func.length(ErrorEventPayload.payload)), 0))
        .join(TrackedError, TrackedError.id == ErrorEventPayload.error_id).group_by(TrackedError.project_id))}


def _share(part: int, whole: int, size: int) -> int:
    return round(size * part / whole) if whole > 0 else 0


def project_disk_bytes(session: Session, *, events: int) -> int:
    """The estimated size on disk of a project's `events` (see the module's docstring)."""
    total = sum(_events_by_project(session).values())
    return _share(events, total, event_tables_bytes(session)) if events else 0


def instance_storage(session: Session) -> InstanceStorage:
    """Every project that has stored events (most events first), and the instance's totals."""
    events = _events_by_project(session)
    payloads = _payload_bytes_by_project(session)
    size = event_tables_bytes(session)
    total = sum(events.values())
    paths = dict(session.execute(select(Project.id, Project.full_path).where(Project.id.in_(list(events)))).all())
    projects = [ProjectStorage(project_id, paths.get(project_id, ""), count, payloads.get(project_id, 0),
                               _share(count, total, size))
                for project_id, count in events.items() if count > 0 or payloads.get(project_id)]
    projects.sort(key=lambda row: (-row.events, row.project_id))
    return InstanceStorage(projects, total, sum(payloads.values()), size if total else 0, disk_basis(session))


def describe(storage: InstanceStorage) -> list[str]:
    """Lines for `outpost-server status`: one per project, then the total."""
    lines = [f"{row.full_path}: {row.events:,} events, payloads {human_size(row.payload_bytes)}, "
             f"about {human_size(row.disk_bytes)} on disk" for row in storage.projects]
    lines.append(f"total: {storage.events:,} events, payloads {human_size(storage.payload_bytes)}, "
                 f"{human_size(storage.disk_bytes)} on disk ({storage.basis})")
    return lines

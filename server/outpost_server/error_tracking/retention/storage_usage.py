"""What error tracking's stored events take, per project and for the instance.

Events and payload bytes are exact: the sums of the projects' storage counters per day
(models.ProjectStoredDay), which the writer, the pruner and partition drops keep exact, so no
payload is read. The size on disk of a
project's share is an estimate: the event tables' size on disk (rows, indexes and TOAST; on
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
from outpost_server.error_tracking.models import ProjectStoredDay
from outpost_server.error_tracking.retention.limits import human_size

# The tables an event's rows live in, and the counters that count them (the key table exists on
# partitioned PostgreSQL only).
EVENT_TABLES = ("error_tracking_error_events", "error_tracking_event_tags", "error_tracking_event_payloads",
                "error_tracking_event_keys", "error_tracking_error_stored_days", "error_tracking_project_stored_days")
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
        f"SELECT name FROM sqlite_master WHERE tbl_name IN ({', '.join(repr(table) for table in EVENT_TABLES)})")))
    if not names:
        return 0
    try:
        return int(session.scalar(text("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN "
                                       f"({', '.join(f':n{i}' for i in range(len(names)))})"),
                                  {f"n{i}": name for i, name in enumerate(names)}) or 0)
    except OperationalError:  # an SQLite built without dbstat: the whole file
        page_size = session.scalar(text("PRAGMA page_size")) or 0
        return int((session.scalar(text("PRAGMA page_count")) or 0) * page_size)


def _usage_by_project(session: Session) -> dict[int, tuple[int, int]]:
    """project id -> (stored events, payload bytes), from the storage counters."""
    return {row[0]: (int(row[1]), int(row[2])) for row in session.execute(
        select(ProjectStoredDay.project_id, func.coalesce(func.sum(ProjectStoredDay.events), 0),
               func.coalesce(func.sum(ProjectStoredDay.bytes), 0))
        .group_by(ProjectStoredDay.project_id))}


def _share(part: int, whole: int, size: int) -> int:
    return round(size * part / whole) if whole > 0 else 0


def project_disk_bytes(session: Session, *, events: int, tables_bytes: int) -> int:
    """The estimated size on disk of a project's `events` (see the module's docstring), given
    event_tables_bytes, which the caller measures before reading any counter (see instance_storage)."""
    if not events:
        return 0
    total = session.scalar(select(func.coalesce(func.sum(ProjectStoredDay.events), 0))) or 0
    return _share(events, int(total), tables_bytes)


def instance_storage(session: Session) -> InstanceStorage:
    """Every project that has stored events (most events first), and the instance's totals."""
    # Sized first: measuring takes the partitions' locks in the order the pruner's partition upkeep takes them
    # (partitions.DAY_TABLES); a counter read before it would hold a lock the upkeep waits for while this
    # waits for the upkeep, a deadlock.
    size = event_tables_bytes(session)
    usage = {project_id: counts for project_id, counts in _usage_by_project(session).items() if any(counts)}
    total = sum(events for events, _ in usage.values())
    paths = dict(session.execute(select(Project.id, Project.full_path).where(Project.id.in_(list(usage)))).all())
    projects = [ProjectStorage(project_id, paths.get(project_id, ""), events, payload_bytes,
                               _share(events, total, size))
                for project_id, (events, payload_bytes) in usage.items()]
    projects.sort(key=lambda row: (-row.events, row.project_id))
    return InstanceStorage(projects, total, sum(row.payload_bytes for row in projects), size if total else 0,
                           disk_basis(session))


def describe(storage: InstanceStorage) -> list[str]:
    """Lines for `outpost-server status`: one per project, then the total."""
    lines = [f"{row.full_path}: {row.events:,} events, payloads {human_size(row.payload_bytes)}, "
             f"about {human_size(row.disk_bytes)} on disk" for row in storage.projects]
    lines.append(f"total: {storage.events:,} events, payloads {human_size(storage.payload_bytes)}, "
                 f"{human_size(storage.disk_bytes)} on disk ({storage.basis})")
    return lines

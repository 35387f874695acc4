"""Vulnerability exports: creation (one unfinished export per author and scope), access rules, scope,
and reading the stored file."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from outpost_server import domain_errors as domain
from outpost_server.accounts import access
from outpost_server.accounts.models import Group, Project, User
from outpost_server.accounts.service import (
    group_access_level,
    group_descendant_ids,
    project_access_level,
    projects_with_access,
)
from outpost_server.db import parse_id, utcnow
from outpost_server.exports.models import IN_PROGRESS, VULNERABILITY, VulnerabilityExport, VulnerabilityExportChunk

# create_vulnerability_export: Developer and above (admins always).
CREATE_LEVEL = access.DEVELOPER


# GitLab answers a second export of the same scope by the same user, while the first is unfinished,
# with 429 (doc/api/vulnerability_exports.md) and this message, the one its own frontend's specs of the
# vulnerability report's export button expect from the server.
IN_PROGRESS_MESSAGE = "Export already in progress. Please retry after the current export completes."


@dataclass(frozen=True)
class ExportOptions:
    export_format: str = "csv"
    send_email: bool = False
    filters: dict[str, Any] = field(default_factory=dict)
    report_data: dict[str, Any] = field(default_factory=dict)
    kind: str = VULNERABILITY
    start_date: dt.date | None = None
    end_date: dt.date | None = None


def export_in_progress(session: Session, *, author: User, project: Project | None, group: Group | None,
                       kind: str) -> bool:
    """Whether the author has an unfinished (created or running) export of this scope."""
    return session.scalar(
        select(VulnerabilityExport.id)
        .where(VulnerabilityExport.author_id == author.id, VulnerabilityExport.kind == kind,
               VulnerabilityExport.status.in_(IN_PROGRESS), VulnerabilityExport.expires_at > utcnow(),
               VulnerabilityExport.project_id.is_(None) if project is None
               else VulnerabilityExport.project_id == project.id,
               VulnerabilityExport.group_id.is_(None) if group is None else VulnerabilityExport.group_id == group.id)
        .limit(1)
    ) is not None


def create_export(session: Session, *, author: User, project: Project | None = None, group: Group | None = None,
                  options: ExportOptions = ExportOptions(), lifetime_seconds: int,
                  api_base_url: str | None = None) -> VulnerabilityExport:
    """A new export job; 429 while the author's previous export of the same scope is unfinished."""
    # Requests of one author take turns from here to the commit, so two at once cannot both pass the
    # check: the no-op UPDATE locks the author's row on PostgreSQL and takes SQLite's write lock.
    session.execute(update(User).where(User.id == author.id).values(updated_at=User.updated_at))
    if export_in_progress(session, author=author, project=project, group=group, kind=options.kind):
        raise domain.Busy(IN_PROGRESS_MESSAGE)
    now = utcnow()
    export = VulnerabilityExport(
        author_id=author.id,
        project_id=project.id if project else None,
        group_id=group.id if group else None,
        kind=options.kind,
        format=options.export_format,
        send_email=options.send_email,
        filters=options.filters or None,
        report_data=options.report_data or None,
        start_date=options.start_date,
        end_date=options.end_date,
        status="created",
        created_at=now,
        expires_at=now + dt.timedelta(seconds=lifetime_seconds),
        attempts=0,
        api_base_url=api_base_url,
    )
    session.add(export)
    session.flush()
    return export


def can_create_export(session: Session, user: User, *, project: Project | None, group: Group | None) -> bool:
    if user.is_admin:
        return True
    if project is not None:
        return project_access_level(session, user, project) >= CREATE_LEVEL
    if group is not None:
        return group_access_level(session, user, group) >= CREATE_LEVEL
    return True  # instance level: anyone may ask; the export holds only the projects they may export


def find_export_for(session: Session, user: User, export_id: str, kind: str = VULNERABILITY) -> VulnerabilityExport:
    """The export if the user is its author and may still export its scope (GitLab's ExportPolicy)."""
    row_id = parse_id(export_id)
    export = session.get(VulnerabilityExport, row_id) if row_id is not None else None
    if export is None or export.kind != kind or export.expires_at <= utcnow():
        raise domain.RecordNotFound()
    if export.author_id != user.id:
        raise domain.Forbidden()
    project = session.get(Project, export.project_id) if export.project_id else None
    group = session.get(Group, export.group_id) if export.group_id else None
    if not can_create_export(session, user, project=project, group=group):
        raise domain.Forbidden()
    return export


def scope_project_ids(session: Session, export: VulnerabilityExport) -> list[int]:
    """Projects whose vulnerabilities go into the export.

    Group: the group's and its subgroups' projects. Instance: the projects where the author has
    Developer access or more (administrators: every project).
    """
    if export.project_id is not None:
        return [export.project_id]
    if export.group_id is not None:
        group_ids = group_descendant_ids(session, export.group_id)
        return list(session.scalars(select(Project.id).where(Project.namespace_id.in_(group_ids)).order_by(Project.id)))
    author = session.get_one(User, export.author_id)
    return [project.id for project in projects_with_access(session, author, CREATE_LEVEL)]


def scope_full_path(session: Session, export: VulnerabilityExport) -> str:
    if export.project_id is not None:
        return session.get_one(Project, export.project_id).full_path
    if export.group_id is not None:
        return session.get_one(Group, export.group_id).full_path
    return session.get_one(User, export.author_id).username


def iter_file(factory: sessionmaker[Session], export_id: int) -> Iterator[bytes]:
    """The stored CSV, one chunk per query, so memory stays flat whatever the size."""
    position = -1
    while True:
        with factory() as session:
            chunk = session.execute(
                select(VulnerabilityExportChunk.position, VulnerabilityExportChunk.data)
                .where(VulnerabilityExportChunk.export_id == export_id,
                       VulnerabilityExportChunk.position > position)
                .order_by(VulnerabilityExportChunk.position)
                .limit(1)
            ).first()
        if chunk is None:
            return
        position = chunk.position
        yield bytes(chunk.data)

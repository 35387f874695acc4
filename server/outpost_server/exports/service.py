"""Vulnerability exports: creation, access rules, scope and file name, and reading the stored file."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from sqlalchemy import select
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
from outpost_server.compat.rails_text import parameterize
from outpost_server.db import parse_id, utcnow
from outpost_server.exports.models import VulnerabilityExport, VulnerabilityExportChunk

# create_vulnerability_export: Developer and above (admins always).
CREATE_LEVEL = access.DEVELOPER


def create_export(session: Session, *, author: User, project: Project | None = None, group: Group | None = None,
                  export_format: str = "csv", lifetime_seconds: int) -> VulnerabilityExport:
    now = utcnow()
    export = VulnerabilityExport(
        author_id=author.id,
        project_id=project.id if project else None,
        group_id=group.id if group else None,
        format=export_format,
        status="created",
        created_at=now,
        expires_at=now + dt.timedelta(seconds=lifetime_seconds),
        attempts=0,
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


def find_export_for(session: Session, user: User, export_id: str) -> VulnerabilityExport:
    """The export if the user is its author and may still export its scope (GitLab's ExportPolicy)."""
    row_id = parse_id(export_id)
    export = session.get(VulnerabilityExport, row_id) if row_id is not None else None
    if export is None or export.expires_at <= utcnow():
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


def export_file_name(full_path: str, moment: dt.datetime) -> str:
    minute = moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H%M")
    return f"{parameterize(full_path)}_vulnerabilities_{minute}.csv"


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

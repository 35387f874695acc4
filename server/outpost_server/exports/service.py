"""Vulnerability exports: creation, access rules, the JSON entity, and reading the stored file."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from fastapi import Request
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from outpost_server import errors
from outpost_server.accounts import access
from outpost_server.accounts.models import Group, Project, User
from outpost_server.accounts.service import (
    group_access_level,
    group_descendant_ids,
    project_access_level,
    projects_with_access,
)
from outpost_server.db import parse_id, utcnow
from outpost_server.exports.models import VulnerabilityExport, VulnerabilityExportChunk
from outpost_server.timefmt import iso
from outpost_server.urls import api_url

# create_vulnerability_export: Developer and above (admins always).
CREATE_LEVEL = access.DEVELOPER
POLL_INTERVAL_MS = 5000


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


def export_entity(request: Request, export: VulnerabilityExport) -> dict[str, Any]:
    self_url = api_url(request, f"/security/vulnerability_exports/{export.id}")
    return {
        "id": export.id,
        "created_at": iso(export.created_at),
        "project_id": export.project_id,
        "group_id": export.group_id,
        "format": export.format,
        "status": export.status,
        "started_at": iso(export.started_at),
        "finished_at": iso(export.finished_at),
        "send_email": False,
        "expires_at": iso(export.expires_at),
        "_links": {"self": self_url, "download": f"{self_url}/download"},
    }


def can_create_export(session: Session, user: User, *, project: Project | None, group: Group | None) -> bool:
    if user.is_admin or (project is None and group is None):
        return True
    if project is not None:
        return project_access_level(session, user, project) >= CREATE_LEVEL
    return group_access_level(session, user, group) >= CREATE_LEVEL


def find_export_for(session: Session, user: User, export_id: str) -> VulnerabilityExport:
    """The export if the user is its author and may still export its scope (GitLab's ExportPolicy)."""
    row_id = parse_id(export_id)
    export = session.get(VulnerabilityExport, row_id) if row_id is not None else None
    if export is None or export.expires_at <= utcnow():
        raise errors.record_not_found()
    if export.author_id != user.id:
        raise errors.forbidden()
    project = session.get(Project, export.project_id) if export.project_id else None
    group = session.get(Group, export.group_id) if export.group_id else None
    if not can_create_export(session, user, project=project, group=group):
        raise errors.forbidden()
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
    author = session.get(User, export.author_id)
    return [project.id for project in projects_with_access(session, author, CREATE_LEVEL)]


def scope_full_path(session: Session, export: VulnerabilityExport) -> str:
    if export.project_id is not None:
        return session.get(Project, export.project_id).full_path
    if export.group_id is not None:
        return session.get(Group, export.group_id).full_path
    return session.get(User, export.author_id).username


def parameterize(text: str) -> str:
    """ActiveSupport's String#parameterize: ASCII, runs of other characters as one '-', lower case."""
    ascii_text = "".join(
        ch if ord(ch) < 128 else "?"
        for ch in unicodedata.normalize("NFKD", text)
        if not unicodedata.combining(ch)
    )
    dashed = re.sub(r"[^a-z0-9\-_]+", "-", ascii_text, flags=re.IGNORECASE)
    dashed = re.sub(r"-{2,}", "-", dashed)
    return dashed.strip("-").lower()


def export_file_name(full_path: str, moment: dt.datetime) -> str:
    return f"{parameterize(full_path)}_vulnerabilities_{moment.astimezone(dt.timezone.utc).strftime('%Y-%m-%dT%H%M')}.csv"


def content_disposition(file_name: str) -> str:
    return f"attachment; filename=\"{file_name}\"; filename*=UTF-8''{file_name}"


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

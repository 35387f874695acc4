"""GitLab's VulnerabilityExport entity, and Outpost's archive export beside it."""

from __future__ import annotations

import msgspec

from outpost_model.base import Entity, Time


class ExportLinks(Entity):
    self: str
    download: str


class Export(Entity):
    """A vulnerability export of a project, a group or the instance (one of project_id and group_id, or
    neither)."""

    id: int
    created_at: Time
    project_id: int | None
    group_id: int | None
    # "csv" or "pdf".
    format: str
    # "created", "running", "finished" or "failed".
    status: str
    started_at: Time
    finished_at: Time
    send_email: bool
    expires_at: Time
    links: ExportLinks = msgspec.field(name="_links")


class ArchiveExport(Entity):
    """An archive export: a project's vulnerabilities of a date range (dates as YYYY-MM-DD)."""

    id: int
    created_at: Time
    project_id: int
    format: str
    status: str
    start_date: Time
    end_date: Time
    started_at: Time
    finished_at: Time
    expires_at: Time
    links: ExportLinks = msgspec.field(name="_links")

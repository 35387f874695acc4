"""The bodies of vulnerability exports (GitLab's `VulnerabilityExport` entity) and archive exports."""

from __future__ import annotations

from outpost_model.exports import ArchiveExport, Export, ExportLinks
from outpost_server.compat.gitlab_time import iso
from outpost_server.exports.models import VulnerabilityExport


def _links(self_url: str) -> ExportLinks:
    return ExportLinks(self=self_url, download=f"{self_url}/download")


def export_entity(export: VulnerabilityExport, *, api_base_url: str) -> Export:
    """`api_base_url` is the public `.../api/v4` the links start with."""
    return Export(id=export.id, created_at=iso(export.created_at), project_id=export.project_id,
                  group_id=export.group_id, format=export.format, status=export.status,
                  started_at=iso(export.started_at), finished_at=iso(export.finished_at),
                  send_email=export.send_email, expires_at=iso(export.expires_at),
                  links=_links(f"{api_base_url}/security/vulnerability_exports/{export.id}"))


def archive_export_entity(export: VulnerabilityExport, *, api_base_url: str) -> ArchiveExport:
    """An archive export: the export's fields for a project, with its date range."""
    assert export.project_id is not None, "an archive export is always a project's"
    return ArchiveExport(
        id=export.id, created_at=iso(export.created_at), project_id=export.project_id, format=export.format,
        status=export.status, start_date=export.start_date.isoformat() if export.start_date else None,
        end_date=export.end_date.isoformat() if export.end_date else None, started_at=iso(export.started_at),
        finished_at=iso(export.finished_at), expires_at=iso(export.expires_at),
        links=_links(f"{api_base_url}/security/vulnerability_archive_exports/{export.id}"))

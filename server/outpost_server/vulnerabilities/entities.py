"""JSON shape of GitLab's Vulnerability entity, with the finding details Outpost stores."""

from __future__ import annotations

from outpost_model import vulnerabilities as entities
from outpost_server.compat.gitlab_time import iso
from outpost_server.vulnerabilities.models import Vulnerability


def vulnerability_entity(vulnerability: Vulnerability) -> entities.Vulnerability:
    project = vulnerability.project
    closed_at = vulnerability.resolved_at if vulnerability.state == "resolved" else (
        vulnerability.dismissed_at if vulnerability.state == "dismissed" else None)
    closed_by = vulnerability.resolved_by_id if vulnerability.state == "resolved" else (
        vulnerability.dismissed_by_id if vulnerability.state == "dismissed" else None)
    return entities.Vulnerability(
        id=vulnerability.id, title=vulnerability.title, description=vulnerability.description,
        state=vulnerability.state, severity=vulnerability.severity, confidence="unknown",
        report_type=vulnerability.report_type,
        project=entities.VulnerabilityProject(
            id=project.id, name=project.name, full_path=f"/{project.full_path}",
            full_name=f"{project.group.full_name} / {project.name}" if project.group else project.name),
        author_id=None, updated_by_id=None, last_edited_by_id=None, closed_by_id=closed_by, start_date=None,
        due_date=None, created_at=iso(vulnerability.created_at), updated_at=iso(vulnerability.updated_at),
        last_edited_at=None, closed_at=iso(closed_at), confirmed_by_id=vulnerability.confirmed_by_id,
        confirmed_at=iso(vulnerability.confirmed_at), resolved_by_id=vulnerability.resolved_by_id,
        resolved_at=iso(vulnerability.resolved_at), dismissed_by_id=vulnerability.dismissed_by_id,
        dismissed_at=iso(vulnerability.dismissed_at),
        resolved_on_default_branch=vulnerability.resolved_on_default_branch,
        dismissal_reason=vulnerability.dismissal_reason if vulnerability.state == "dismissed" else None,
        scanner=entities.Scanner(external_id=vulnerability.scanner_external_id, name=vulnerability.scanner_name),
        identifiers=vulnerability.identifiers, location=vulnerability.location, cvss=vulnerability.cvss_vectors,
        solution=vulnerability.solution)

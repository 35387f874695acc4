"""GitLab's Vulnerability entity, with the finding details Outpost stores (scanner, identifiers, location, CVSS
vectors, solution)."""

from __future__ import annotations

from typing import Any

from outpost_model.base import Entity, Text, Time


class VulnerabilityProject(Entity):
    id: int
    name: str
    # "/" followed by the project's path, as GitLab writes it here.
    full_path: str
    full_name: str


class Scanner(Entity):
    external_id: Text
    name: Text


class Vulnerability(Entity):
    id: int
    title: str
    description: Text
    # "detected", "confirmed", "resolved" or "dismissed".
    state: str
    severity: str
    confidence: str
    report_type: str
    project: VulnerabilityProject
    author_id: int | None
    updated_by_id: int | None
    last_edited_by_id: int | None
    closed_by_id: int | None
    start_date: Time
    due_date: Time
    created_at: Time
    updated_at: Time
    last_edited_at: Time
    closed_at: Time
    confirmed_by_id: int | None
    confirmed_at: Time
    resolved_by_id: int | None
    resolved_at: Time
    dismissed_by_id: int | None
    dismissed_at: Time
    resolved_on_default_branch: bool
    dismissal_reason: Text
    scanner: Scanner
    # As the report gave them.
    identifiers: list[Any]
    location: dict[str, Any] | None
    cvss: list[Any] | None
    solution: Text


class ReportImport(Entity):
    """Outpost's answer to a security report upload: what the import changed."""

    report_type: str
    scanner: str
    created: int
    updated: int
    # Findings of the same scanner missing from this report.
    no_longer_detected: int

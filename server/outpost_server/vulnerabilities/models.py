"""Vulnerabilities found by scanners in projects, and the notes on them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from outpost_server.accounts.models import Project, User
from outpost_server.db import Base, UTCDateTime, utcnow

REPORT_TYPES = ("sast", "dependency_scanning", "container_scanning", "secret_detection", "dast")
STATES = ("detected", "confirmed", "resolved", "dismissed")
SEVERITIES = ("critical", "high", "medium", "low", "info", "unknown")
DISMISSAL_REASONS = ("acceptable_risk", "false_positive", "mitigating_control", "used_in_tests", "not_applicable")


class Vulnerability(Base):
    __tablename__ = "vulnerabilities"
    __table_args__ = (
        UniqueConstraint("project_id", "fingerprint"),
        Index("ix_vulnerabilities_project_scanner", "project_id", "report_type", "scanner_external_id"),
        Index("ix_vulnerabilities_project_id_id", "project_id", "id"),
        {"sqlite_autoincrement": True},  # ids are never reused
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    # Identifies the finding across scans: report type, scanner, primary identifier and location.
    fingerprint: Mapped[str] = mapped_column(String(64))
    report_type: Mapped[str] = mapped_column(String(32))
    scanner_external_id: Mapped[str] = mapped_column(String(255))
    scanner_name: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    solution: Mapped[str | None] = mapped_column(Text)
    severity: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16), default="detected")
    # [{"type": "cve", "name": "CVE-2022-1", "value": "CVE-2022-1", "url": ...}, ...], primary first.
    identifiers: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    location: Mapped[dict[str, Any]] = mapped_column(JSON)
    cvss_vectors: Mapped[list[dict[str, str]]] = mapped_column(JSON, default=list)
    # True once the latest report of the same scanner no longer contains the finding.
    resolved_on_default_branch: Mapped[bool] = mapped_column(Boolean, default=False)
    dismissal_reason: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    confirmed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    confirmed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    resolved_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    resolved_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    dismissed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    dismissed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))

    project: Mapped[Project] = relationship(lazy="joined")


class VulnerabilityNote(Base):
    """A comment on a vulnerability; status changes are recorded as system notes."""

    __tablename__ = "vulnerability_notes"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases).
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    vulnerability_id: Mapped[int] = mapped_column(ForeignKey("vulnerabilities.id", ondelete="CASCADE"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    note: Mapped[str] = mapped_column(Text)
    system: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    author: Mapped[User] = relationship(lazy="joined")

"""Vulnerability exports: the durable job record and its file, stored in chunks in the database."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from outpost_server.db import Base, UTCDateTime, utcnow

STATUSES = ("created", "running", "finished", "failed")
IN_PROGRESS = ("created", "running")
FORMATS = ("csv", "pdf")
ARCHIVE_FORMATS = ("csv",)
# What the row is: an export of the vulnerabilities API, or an archive export (a date range of a project).
VULNERABILITY, ARCHIVE = "vulnerability", "archive"


class VulnerabilityExport(Base):
    __tablename__ = "vulnerability_exports"
    # Never reuse the id of a deleted export: clients remember exports by id.
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # Project-level: project_id; group-level: group_id; instance-level: neither.
    project_id: Mapped[int | None] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("namespaces.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16), default=VULNERABILITY)
    format: Mapped[str] = mapped_column(String(16), default="csv")
    status: Mapped[str] = mapped_column(String(16), default="created", index=True)
    # Mail the author a link once the file is ready.
    send_email: Mapped[bool] = mapped_column(Boolean, default=False)
    # The declared filters given at creation (exports.filters), and the PDF's report_data.
    filters: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    report_data: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Archive exports: the days whose vulnerabilities go into the file, both included.
    start_date: Mapped[dt.date | None] = mapped_column(Date)
    end_date: Mapped[dt.date | None] = mapped_column(Date)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, index=True)
    file_name: Mapped[str | None] = mapped_column(String(1024))
    byte_size: Mapped[int | None] = mapped_column(Integer)
    # The worker holding the job renews its lease while it writes; an expired lease means it died.
    lease_owner: Mapped[str | None] = mapped_column(String(64))
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    # The public address of the API when the export was requested, for the link in its email.
    api_base_url: Mapped[str | None] = mapped_column(String(1024))


class VulnerabilityExportChunk(Base):
    __tablename__ = "vulnerability_export_chunks"
    __table_args__ = (UniqueConstraint("export_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    export_id: Mapped[int] = mapped_column(ForeignKey("vulnerability_exports.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)

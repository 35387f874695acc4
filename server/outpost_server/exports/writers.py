"""What a claimed export writes: its plan (read once from the job's row) and the file in its format.

A vulnerability export is a CSV (GitLab's columns, row by row) or a PDF (built whole, then stored); an
archive export is a CSV of a project's vulnerabilities detected within a range of days.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.orm import Session, sessionmaker

from outpost_server.accounts.models import User
from outpost_server.compat.rails_text import parameterize
from outpost_server.exports import filters as export_filters
from outpost_server.exports.archive_format import archive_header_row, archive_row
from outpost_server.exports.csv_format import ExportVulnerability, format_row, header_row
from outpost_server.exports.models import ARCHIVE, VulnerabilityExport
from outpost_server.exports.rows import BATCH_SIZE, Selection, export_rows, triage_of
from outpost_server.exports.service import scope_full_path, scope_project_ids


class FileWriter(Protocol):
    def write(self, text: str) -> None: ...

    def write_bytes(self, data: bytes) -> None: ...

    def keepalive(self) -> None:
        """Called often while nothing is written (a PDF being gathered and laid out); renews the lease now
        and then."""

    def renewing(self) -> AbstractContextManager[None]:
        """Keeps the lease renewed from another thread while one long step runs (the PDF's layout)."""


@dataclass(frozen=True)
class ExportPlan:
    kind: str
    format: str
    project_ids: list[int]
    full_path: str
    scope: str
    requester: str
    filters: dict[str, Any] = field(default_factory=dict)
    report_data: dict[str, Any] = field(default_factory=dict)
    start_date: dt.date | None = None
    end_date: dt.date | None = None

    def selection(self) -> Selection:
        return Selection(export_filters.conditions(self.filters), self.start_date, self.end_date)


def plan_of(session: Session, export: VulnerabilityExport) -> ExportPlan:
    filters = dict(export.filters or {})
    full_path = scope_full_path(session, export)
    author = session.get_one(User, export.author_id)
    if export.project_id is not None:
        scope = f"Project {full_path}"
    elif export.group_id is not None:
        scope = f"Group {full_path}"
    else:
        scope = f"Instance: the projects of @{author.username}"
    return ExportPlan(kind=export.kind, format=export.format,
                      project_ids=export_filters.scoped_project_ids(scope_project_ids(session, export), filters),
                      full_path=full_path, scope=scope, requester=f"{author.name} (@{author.username})",
                      filters=filters, report_data=dict(export.report_data or {}),
                      start_date=export.start_date, end_date=export.end_date)


def file_name(plan: ExportPlan, moment: dt.datetime) -> str:
    """GitLab's names: <path>_vulnerabilities_<time>.<format>, and for archives
    <path>_vulnerabilities_archive_<first day>..<last day>_<time>.csv."""
    minute = moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H%M")
    if plan.kind == ARCHIVE:
        return (f"{parameterize(plan.full_path)}_vulnerabilities_archive_{plan.start_date}..{plan.end_date}"
                f"_{minute}.{plan.format}")
    return f"{parameterize(plan.full_path)}_vulnerabilities_{minute}.{plan.format}"


def write_file(factory: sessionmaker[Session], plan: ExportPlan, writer: FileWriter) -> None:
    rows = export_rows(factory, plan.project_ids, plan.selection())
    if plan.kind == ARCHIVE:
        writer.write(archive_header_row())
        batch: list[ExportVulnerability] = []
        for vulnerability in rows:
            batch.append(vulnerability)
            if len(batch) == BATCH_SIZE:
                _write_archive_batch(factory, batch, writer)
                batch = []
        _write_archive_batch(factory, batch, writer)
    elif plan.format == "pdf":
        # Imported here: reportlab is a tenth of the server's start-up imports, and few servers lay out a PDF.
        from outpost_server.exports.pdf_format import ReportCover, render_pdf

        cover = ReportCover(scope=plan.scope, requester=plan.requester, generated_at=dt.datetime.now(dt.timezone.utc),
                            filters=plan.filters, report_data=plan.report_data)
        with writer.renewing():
            document = render_pdf(cover, _kept_alive(rows, writer), on_page=writer.keepalive)
        writer.write_bytes(document)
    else:
        writer.write(header_row())
        for vulnerability in rows:
            writer.write(format_row(vulnerability))


def _kept_alive(rows: Iterator[ExportVulnerability], writer: FileWriter) -> Iterator[ExportVulnerability]:
    """The rows, keeping the job's lease alive: the PDF writes nothing until all are read."""
    for count, row in enumerate(rows, start=1):
        if count % 100 == 0:
            writer.keepalive()
        yield row


def _write_archive_batch(factory: sessionmaker[Session], batch: list[ExportVulnerability], writer: FileWriter) -> None:
    if not batch:
        return
    triage = triage_of(factory, [vulnerability.id for vulnerability in batch])
    for vulnerability in batch:
        writer.write(archive_row(vulnerability, triage[vulnerability.id]))

"""Reading the vulnerabilities an export holds: project by project, in keyset batches, with its filters.

Every format reads through here: the CSV writes rows as they come, the PDF gathers them, and the
archive export adds who confirmed, resolved or dismissed each vulnerability, and when.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson
from sqlalchemy import ColumnElement, DateTime, Text, cast, select, true, type_coerce
from sqlalchemy.orm import Session, aliased, sessionmaker

from outpost_server.accounts.models import Group, Project, User
from outpost_server.exports.csv_format import ExportNote, ExportVulnerability
from outpost_server.vulnerabilities.models import Vulnerability, VulnerabilityNote

BATCH_SIZE = 1000


@dataclass(frozen=True)
class Selection:
    """Which vulnerabilities of the projects: a WHERE clause (filters), and for archive exports a
    range of detection days, both included."""

    where: ColumnElement[bool] = true()
    start_date: dt.date | None = None
    end_date: dt.date | None = None

    def clause(self) -> ColumnElement[bool]:
        clause = self.where
        if self.start_date is not None:
            start = dt.datetime.combine(self.start_date, dt.time(), dt.timezone.utc)
            clause = clause & (Vulnerability.created_at >= start)
        # The last day (9999-12-31) has no day after it: nothing is detected later.
        if self.end_date is not None and self.end_date < dt.date.max:
            end = dt.datetime.combine(self.end_date + dt.timedelta(days=1), dt.time(), dt.timezone.utc)
            clause = clause & (Vulnerability.created_at < end)
        return clause


class Triage(NamedTuple):
    """The archive export's extra cells: when and by whom the vulnerability was triaged."""

    confirmed_at: dt.datetime | None
    confirmed_by: str | None
    resolved_at: dt.datetime | None
    resolved_by: str | None
    dismissed_at: dt.datetime | None
    dismissed_by: str | None


def export_rows(factory: sessionmaker[Session], project_ids: list[int],
                selection: Selection = Selection()) -> Iterator[ExportVulnerability]:
    """Every selected vulnerability of the projects, project by project in id order, in keyset batches.

    One project per query keeps each batch an ordered walk of the (project_id, id) index, and the
    project's names are read once instead of joined into every row.
    """
    for project_id in project_ids:
        with factory() as session:
            names = session.execute(
                select(Group.name, Project.name, Project.full_path)
                .select_from(Project)
                .outerjoin(Group, Group.id == Project.namespace_id)
                .where(Project.id == project_id)
            ).first()
        if names is None:
            continue
        last_id = 0
        while True:
            batch = _load_batch(factory, project_id, last_id, selection, *names)
            if not batch:
                break
            yield from batch
            last_id = batch[-1].id


def triage_of(factory: sessionmaker[Session], ids: list[int]) -> dict[int, Triage]:
    """Who confirmed, resolved and dismissed each of the vulnerabilities, and when."""
    confirmer, resolver, dismisser = aliased(User), aliased(User), aliased(User)
    with factory() as session:
        rows = session.execute(
            select(Vulnerability.id, Vulnerability.confirmed_at, confirmer.username, Vulnerability.resolved_at,
                   resolver.username, Vulnerability.dismissed_at, dismisser.username)
            .outerjoin(confirmer, confirmer.id == Vulnerability.confirmed_by_id)
            .outerjoin(resolver, resolver.id == Vulnerability.resolved_by_id)
            .outerjoin(dismisser, dismisser.id == Vulnerability.dismissed_by_id)
            .where(Vulnerability.id.in_(ids))
        ).all()
    return {row[0]: Triage(*row[1:]) for row in rows}


def _load_batch(factory: sessionmaker[Session], project_id: int, after_id: int, selection: Selection,
                group_name: str | None, project_name: str, full_path: str) -> list[ExportVulnerability]:
    with factory() as session:
        # Core execution: plain rows, without the ORM's per-row bookkeeping. The JSON columns come as
        # text for orjson, and created_at without UTCDateTime's per-row conversion (ruby_time takes
        # SQLite's naive UTC values and PostgreSQL's aware ones alike): together these were a third
        # of an export's time.
        connection = session.connection()
        rows = connection.execute(
            select(Vulnerability.id, Vulnerability.report_type, Vulnerability.scanner_name, Vulnerability.state,
                   Vulnerability.title, Vulnerability.description, Vulnerability.severity,
                   cast(Vulnerability.identifiers, Text), type_coerce(Vulnerability.created_at, DateTime()),
                   cast(Vulnerability.location, Text), Vulnerability.resolved_on_default_branch,
                   cast(Vulnerability.cvss_vectors, Text), Vulnerability.dismissal_reason)
            .where(Vulnerability.project_id == project_id, Vulnerability.id > after_id, selection.clause())
            .order_by(Vulnerability.id)
            .limit(BATCH_SIZE)
        ).all()
        if not rows:
            return []
        notes: dict[int, list[ExportNote]] = {}
        for vulnerability_id, edited_at, username, text in connection.execute(
            select(VulnerabilityNote.vulnerability_id, VulnerabilityNote.updated_at, User.username,
                   VulnerabilityNote.note)
            .join(User, User.id == VulnerabilityNote.author_id)
            .where(VulnerabilityNote.vulnerability_id.in_([row[0] for row in rows]))
            .order_by(VulnerabilityNote.vulnerability_id, VulnerabilityNote.id)
        ):
            notes.setdefault(vulnerability_id, []).append(ExportNote(edited_at, username, text))
    no_notes = ()
    # Positional construction, in ExportVulnerability's field order (the hot loop of an export).
    return [
        ExportVulnerability(vulnerability_id, group_name, project_name, full_path, report_type, scanner_name, state,
                            title, description, severity, _json(identifiers) or no_notes, created_at,
                            _json(location) or {}, resolved, notes.get(vulnerability_id, no_notes),
                            _json(cvss) or no_notes, dismissal_reason)
        for (vulnerability_id, report_type, scanner_name, state, title, description, severity, identifiers,
             created_at, location, resolved, cvss, dismissal_reason) in rows
    ]


def _json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN or Infinity, which the standard encoder writes
        return json.loads(text)

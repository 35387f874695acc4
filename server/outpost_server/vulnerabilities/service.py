"""Importing security reports and triaging vulnerabilities."""

from __future__ import annotations

from sqlalchemy import Select, case, select, update
from sqlalchemy.orm import Session

from outpost_model.vulnerabilities import ReportImport
from outpost_server.accounts import access
from outpost_server.accounts.models import Project, User
from outpost_server.accounts.service import project_access_level
from outpost_server.compat.rails_text import humanize
from outpost_server.db import changed_rows, parse_id, utcnow
from outpost_server.vulnerabilities.models import SEVERITIES, Vulnerability, VulnerabilityNote
from outpost_server.vulnerabilities.reports import SecurityReport

# action -> the state it leads to
TRANSITIONS = {"confirm": "confirmed", "resolve": "resolved", "dismiss": "dismissed", "revert": "detected"}
# read_security_resource and report upload need Developer; status changes (admin_vulnerability) need
# Maintainer since GitLab 17.0.
READ_LEVEL = access.DEVELOPER
TRIAGE_LEVEL = access.MAINTAINER
SEVERITY_ORDER = case({name: rank for rank, name in enumerate(SEVERITIES)}, value=Vulnerability.severity, else_=99)


class VulnerabilityRefused(Exception):
    """The caller may not reach the vulnerability. `visible`: they are a member of its project, so they
    may learn it exists (GitLab answers them 403, everyone else 404)."""

    def __init__(self, *, visible: bool):
        super().__init__("visible" if visible else "hidden")
        self.visible = visible


def vulnerabilities_query(*, project: Project, states: list[str] | None = None,
                          severities: list[str] | None = None,
                          report_types: list[str] | None = None) -> Select[Vulnerability]:
    """The project's vulnerabilities, most severe first, then newest; None filters nothing."""
    stmt = select(Vulnerability).where(Vulnerability.project_id == project.id)
    for column, values in ((Vulnerability.state, states), (Vulnerability.severity, severities),
                           (Vulnerability.report_type, report_types)):
        if values is not None:
            stmt = stmt.where(column.in_(values))
    return stmt.order_by(SEVERITY_ORDER, Vulnerability.id.desc())


def find_vulnerability(session: Session, *, user: User, vulnerability_id: str, min_level: int) -> Vulnerability:
    """The vulnerability when the user's role on its project reaches min_level (administrators always)."""
    row_id = parse_id(vulnerability_id)
    vulnerability = session.get(Vulnerability, row_id) if row_id is not None else None
    if vulnerability is None:
        raise VulnerabilityRefused(visible=False)
    level = project_access_level(session, user, vulnerability.project)
    if not user.is_admin and level < min_level:
        raise VulnerabilityRefused(visible=level >= access.GUEST)
    return vulnerability


def _identifiers_json(finding) -> list[dict]:
    return [
        {"type": i.external_type, "name": i.name, "value": i.external_id, "url": i.url}
        for i in finding.identifiers
    ]


def import_report(session: Session, *, project: Project, report: SecurityReport) -> ReportImport:
    """Upserts the report's findings; findings of the same scanner missing from it are no longer detected."""
    now = utcnow()
    fingerprints = [finding.fingerprint for finding in report.findings]
    existing = {
        v.fingerprint: v
        for v in session.scalars(select(Vulnerability).where(Vulnerability.project_id == project.id,
                                                              Vulnerability.fingerprint.in_(fingerprints)))
    }
    created = updated = 0
    for finding in report.findings:
        fields = dict(
            report_type=report.report_type,
            scanner_external_id=report.scanner.external_id,
            scanner_name=report.scanner.name,
            title=finding.title[:255],
            description=finding.description,
            solution=finding.solution,
            severity=finding.severity,
            identifiers=_identifiers_json(finding),
            location=finding.location,
            cvss_vectors=list(finding.cvss_vectors),
            resolved_on_default_branch=False,
            updated_at=now,
        )
        vulnerability = existing.get(finding.fingerprint)
        if vulnerability is None:
            session.add(Vulnerability(project_id=project.id, fingerprint=finding.fingerprint, state="detected",
                                      created_at=now, **fields))
            created += 1
        else:
            for name, value in fields.items():
                setattr(vulnerability, name, value)
            updated += 1
    gone = changed_rows(session.execute(
        update(Vulnerability)
        .where(Vulnerability.project_id == project.id,
               Vulnerability.report_type == report.report_type,
               Vulnerability.scanner_external_id == report.scanner.external_id,
               Vulnerability.resolved_on_default_branch.is_(False),
               Vulnerability.fingerprint.not_in(fingerprints))
        .values(resolved_on_default_branch=True, updated_at=now)
    ))
    session.flush()
    return ReportImport(report_type=report.report_type, scanner=report.scanner.name, created=created,
                        updated=updated, no_longer_detected=gone)


def add_note(session: Session, *, vulnerability: Vulnerability, author: User, text: str,
             system: bool = False) -> VulnerabilityNote:
    now = utcnow()
    note = VulnerabilityNote(vulnerability_id=vulnerability.id, author_id=author.id, note=text, system=system,
                             created_at=now, updated_at=now)
    session.add(note)
    session.flush()
    return note


def status_change_note(state: str, *, dismissal_reason: str | None = None, comment: str | None = None) -> str:
    """The system note GitLab writes on a status change."""
    text = f"changed vulnerability status to {state}"
    if dismissal_reason:
        text += f": {humanize(dismissal_reason)}"
    if comment:
        text += f' and the following comment: "{comment}"'
    return text


def record_state_change(vulnerability: Vulnerability, *, user_id: int, when) -> None:
    """Who moved the vulnerability into its current state, and when."""
    if vulnerability.state in ("confirmed", "resolved", "dismissed"):
        setattr(vulnerability, f"{vulnerability.state}_at", when)
        setattr(vulnerability, f"{vulnerability.state}_by_id", user_id)


def change_state(session: Session, *, vulnerability: Vulnerability, user: User, action: str,
                 comment: str | None = None, dismissal_reason: str | None = None) -> Vulnerability:
    """Applies confirm/resolve/dismiss/revert (the caller checks the state actually changes)."""
    target = TRANSITIONS[action]
    now = utcnow()
    vulnerability.state = target
    vulnerability.updated_at = now
    record_state_change(vulnerability, user_id=user.id, when=now)
    if target == "dismissed":
        vulnerability.dismissal_reason = dismissal_reason
    add_note(session, vulnerability=vulnerability, author=user, system=True,
             text=status_change_note(target, dismissal_reason=dismissal_reason if target == "dismissed" else None,
                                     comment=comment))
    return vulnerability

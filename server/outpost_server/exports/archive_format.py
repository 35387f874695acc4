"""The CSV of a vulnerability archive export, with the columns of GitLab's archive exporter
(ee/app/services/vulnerabilities/archival/export/exporters/csv_service.rb).

GitLab writes it from archived records, whose values were stored as JSON: times as Ruby's Time#to_s
text, users as usernames, the location as a hash. Cells follow the vulnerability export's CsvBuilder
rules (csv_format): String cells get newlines escaped and formula characters neutralised.
"""

from __future__ import annotations

import datetime as dt

from outpost_server.compat.rails_text import humanize
from outpost_server.compat.ruby import ruby_inspect, ruby_time
from outpost_server.exports.csv_format import (
    ExportVulnerability,
    notes_summary,
    plain_cell,
    ruby_csv_line,
    split_identifiers,
    string_cell,
)
from outpost_server.exports.rows import Triage

ARCHIVE_HEADERS = (
    "Tool",
    "Scanner Name",
    "Status",
    "Vulnerability",
    "Details",
    "Severity",
    "CVE",
    "CWE",
    "Other Identifiers",
    "Dismissed At",
    "Dismissed By",
    "Confirmed At",
    "Confirmed By",
    "Resolved At",
    "Resolved By",
    "Detected At",
    "Location",
    "Issues",
    "Merge Requests",
    "Activity",
    "Comments",
    "Full Path",
    "CVSS Vectors",
    "Dismissal Reason",
    "Vulnerability ID",
)


def archive_header_row() -> str:
    return ruby_csv_line(ARCHIVE_HEADERS, ",") + "\n"


def _time_cell(moment: dt.datetime | None) -> str:
    return string_cell(ruby_time(moment)) if moment is not None else ""


def archive_row(vulnerability: ExportVulnerability, triage: Triage) -> str:
    """One CSV line (LF-terminated) with the 25 cells of an archived vulnerability."""
    cve, cwe, others = split_identifiers(vulnerability.identifiers)
    return ",".join((
        vulnerability.report_type,
        string_cell(vulnerability.scanner_name),
        vulnerability.state,
        string_cell(vulnerability.title),
        string_cell(vulnerability.description),
        vulnerability.severity,
        string_cell(cve),
        string_cell(cwe),
        string_cell(ruby_csv_line(others, "; ")),
        _time_cell(triage.dismissed_at),
        string_cell(triage.dismissed_by),
        _time_cell(triage.confirmed_at),
        string_cell(triage.confirmed_by),
        _time_cell(triage.resolved_at),
        string_cell(triage.resolved_by),
        _time_cell(vulnerability.detected_at),
        plain_cell(ruby_inspect(vulnerability.location)),
        "",  # Issues: Outpost links no issues to vulnerabilities
        "",  # Merge Requests: nor merge requests
        "true" if vulnerability.resolved_on_default_branch else "false",
        string_cell(notes_summary(vulnerability.notes)),
        string_cell(f"{vulnerability.project_full_path}/{vulnerability.id}"),
        string_cell(ruby_csv_line([f"{vector.get('vendor', '')}={vector.get('vector', '')}"
                                   for vector in vulnerability.cvss_vectors], "; ")),
        string_cell(humanize(vulnerability.dismissal_reason) if vulnerability.dismissal_reason else None),
        str(vulnerability.id),
    )) + "\n"

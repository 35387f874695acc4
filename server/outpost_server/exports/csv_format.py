"""Cell and row formatting of the vulnerability export CSV, byte for byte as GitLab writes it.

GitLab builds the file with Ruby's CSV library through its CsvBuilder (replace_newlines: true).
The rules reproduced here:

* Ruby CSV quoting: a field is quoted when it contains the column separator, a double quote,
  CR or LF, or when it is an empty *string*; a missing value (nil) is written as nothing.
  Embedded double quotes are doubled. Rows end with a single LF.
* String cells (not the Location hash, the detection time or the Activity boolean) first get each
  LF replaced by the two characters backslash and n, then a leading = + - @ ; is neutralised with a
  single quote so spreadsheets do not evaluate the cell. The header row is written as is.
* Location is the finding's location rendered like Ruby's Hash#to_s before Ruby 3.4, i.e. without
  spaces around "=>": {"file"=>"main.rb", "start_line"=>3}. Keys come in PostgreSQL jsonb order
  (shorter keys first, then bytewise), which is the order GitLab reads them back in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple

from outpost_server.compat.rails_text import humanize
from outpost_server.compat.ruby import ruby_inspect, ruby_time

HEADERS = (
    "Group Name",
    "Project Name",
    "Tool",
    "Scanner Name",
    "Status",
    "Vulnerability",
    "Details",
    "Additional Info",
    "Severity",
    "CVE",
    "CWE",
    "Other Identifiers",
    "Detected At",
    "Location",
    "Activity",
    "Comments",
    "Full Path",
    "CVSS Vectors",
    "Dismissal Reason",
)

UNSAFE_SPREADSHEET_PREFIXES = frozenset("=+-@;")
# GitLab takes a discussion's status from its first note: "changed vulnerability status to resolved".
# Ruby's \w and \s are ASCII-only, hence re.ASCII.
NOTE_STATUS = re.compile(r"[\w+\s]+to\s(?P<status>\w+)", re.ASCII)


_QUOTABLE: dict[str, re.Pattern[str]] = {}


def _quotable(separator: str) -> re.Pattern[str]:
    pattern = _QUOTABLE.get(separator)
    if pattern is None:
        pattern = _QUOTABLE[separator] = re.compile("[\r\n\"" + re.escape(separator) + "]")
    return pattern


_ROW_QUOTABLE = _quotable(",")


def ruby_csv_field(value: str | None, separator: str) -> str:
    """One field as Ruby's CSV writer renders it with the given column separator."""
    if value is None:
        return ""
    if value == "" or _quotable(separator).search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def ruby_csv_line(values: Iterable[str | None], separator: str = ",") -> str:
    """A line without row separator, like Array#to_csv(col_sep: separator, row_sep: '')."""
    return separator.join([ruby_csv_field(value, separator) for value in values])


# A String cell needs work when it holds a newline or a character CSV must quote, or starts like a formula.
_STRING_CELL_WORK = re.compile(r'[\r\n",]|\A[=+\-@;]')


def string_cell(value: str | None) -> str:
    """A Ruby String cell as CsvBuilder writes it: newlines as literal \\n, a leading formula
    character neutralised with ', then CSV quoting."""
    if value is None:
        return ""
    if not value:
        return '""'
    if not _STRING_CELL_WORK.search(value):
        return value
    if "\n" in value:
        value = value.replace("\n", "\\n")
    if value[0] in UNSAFE_SPREADSHEET_PREFIXES:
        value = "'" + value
    if _ROW_QUOTABLE.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def plain_cell(value: str) -> str:
    """A cell that is no Ruby String (Time, Hash, boolean): only CSV quoting applies."""
    if _ROW_QUOTABLE.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def header_row() -> str:
    return ruby_csv_line(HEADERS, ",") + "\n"


class ExportNote(NamedTuple):
    edited_at: datetime
    username: str
    text: str


class ExportVulnerability(NamedTuple):
    """Everything one CSV row needs, already loaded."""

    id: int
    group_name: str | None
    project_name: str
    project_full_path: str
    report_type: str
    scanner_name: str | None
    state: str
    title: str
    description: str | None
    severity: str
    # As stored: [{"type": "cwe", "name": "CWE-89", ...}, ...]
    identifiers: Sequence[Mapping[str, str]]
    detected_at: datetime
    location: Mapping[str, object]
    resolved_on_default_branch: bool
    notes: Sequence[ExportNote] = ()
    cvss_vectors: Sequence[Mapping[str, str]] = ()
    dismissal_reason: str | None = None


def note_status(first_note_text: str) -> str | None:
    match = NOTE_STATUS.match(first_note_text)
    return match.group("status") if match else None


def notes_summary(notes: Sequence[ExportNote]) -> str:
    """Each note is its own discussion: <time>|<user>|<status>|<text>, joined with '; '."""
    return "; ".join([
        ruby_csv_line((ruby_time(note.edited_at), note.username, note_status(note.text), note.text), "|")
        for note in notes
    ])


def split_identifiers(identifiers: Sequence[Mapping[str, str]]) -> tuple[str | None, str | None, list[str]]:
    """The first CVE's and CWE's names, and the names of the other identifiers (GitLab's cve_value,
    cwe_value and other_identifier_values)."""
    cve = cwe = None
    others = []
    for identifier in identifiers:
        kind = identifier.get("type", "").lower()
        if kind == "cve":
            cve = cve or identifier.get("name")
        elif kind == "cwe":
            cwe = cwe or identifier.get("name")
        else:
            others.append(identifier.get("name", ""))
    return cve, cwe, others


def format_row(vulnerability: ExportVulnerability) -> str:
    """One CSV line (LF-terminated) with the 19 cells of the vulnerability."""
    cve, cwe, others = split_identifiers(vulnerability.identifiers)
    dismissal = vulnerability.dismissal_reason if vulnerability.state == "dismissed" else None
    return ",".join((
        repeated_string_cell(vulnerability.group_name),
        repeated_string_cell(vulnerability.project_name),
        vulnerability.report_type,  # enum values: nothing to quote or neutralise
        repeated_string_cell(vulnerability.scanner_name),
        vulnerability.state,
        string_cell(vulnerability.title),
        string_cell(vulnerability.description),
        "",  # Additional Info: always empty in current GitLab
        vulnerability.severity,
        repeated_string_cell(cve),
        repeated_string_cell(cwe),
        string_cell(ruby_csv_line(others, "; ")),
        ruby_time(vulnerability.detected_at),  # digits, dashes, colons and spaces: nothing to quote
        plain_cell(ruby_inspect(vulnerability.location)),
        "true" if vulnerability.resolved_on_default_branch else "false",
        string_cell(notes_summary(vulnerability.notes)) if vulnerability.notes else '""',
        string_cell(f"{vulnerability.project_full_path}/{vulnerability.id}"),
        string_cell(ruby_csv_line([f"{vector.get('vendor', '')}={vector.get('vector', '')}"
                                   for vector in vulnerability.cvss_vectors], "; ")),
        repeated_string_cell(humanize(dismissal) if dismissal else None),
    )) + "\n"


# For the cells whose values repeat from row to row (group, project, scanner, CVE, CWE, dismissal reason).
repeated_string_cell = lru_cache(maxsize=4096)(string_cell)

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
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

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

UNSAFE_SPREADSHEET_PREFIX = re.compile(r"\A[=+\-@;]")
# GitLab takes a discussion's status from its first note: "changed vulnerability status to resolved".
# Ruby's \w and \s are ASCII-only, hence re.ASCII.
NOTE_STATUS = re.compile(r"[\w+\s]+to\s(?P<status>\w+)", re.ASCII)


class RawCell(str):
    """A cell that is not a Ruby String (Time, Hash, boolean): never newline-replaced or sanitised."""


def ruby_csv_field(value: str | None, separator: str) -> str:
    """One field as Ruby's CSV writer renders it with the given column separator."""
    if value is None:
        return ""
    if value == "" or any(ch in value for ch in "\r\n\"") or any(ch in value for ch in separator):
        return '"' + value.replace('"', '""') + '"'
    return value


def ruby_csv_line(values: Iterable[str | None], separator: str = ",") -> str:
    """A line without row separator, like Array#to_csv(col_sep: separator, row_sep: '')."""
    return separator.join(ruby_csv_field(value, separator) for value in values)


def spreadsheet_safe(value: str | None) -> str | None:
    """CsvBuilder's treatment of a String cell: literal \\n for newlines, then formula neutralising."""
    if value is None or isinstance(value, RawCell):
        return value
    value = value.replace("\n", "\\n")
    if UNSAFE_SPREADSHEET_PREFIX.match(value):
        return "'" + value
    return value


def csv_row(cells: Sequence[str | None]) -> str:
    """A data row: every String cell made spreadsheet-safe, then Ruby CSV quoting, LF-terminated."""
    return ruby_csv_line((spreadsheet_safe(cell) for cell in cells), ",") + "\n"


def header_row() -> str:
    return ruby_csv_line(HEADERS, ",") + "\n"


def ruby_time(moment: datetime) -> str:
    """Time#to_s of a UTC time: 2022-10-07 13:34:41 UTC."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


_RUBY_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\f": "\\f",
    "\v": "\\v",
    "\b": "\\b",
    "\a": "\\a",
    "\x1b": "\\e",
}


def _ruby_printable(ch: str) -> bool:
    return ch.isprintable() or unicodedata.category(ch) == "Zs"


def ruby_string_inspect(text: str) -> str:
    """String#inspect of a UTF-8 string."""
    out = ['"']
    for index, ch in enumerate(text):
        if ch in _RUBY_ESCAPES:
            out.append(_RUBY_ESCAPES[ch])
        elif ch == "#" and text[index + 1 : index + 2] in ("{", "$", "@"):
            out.append("\\#")
        elif _ruby_printable(ch):
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\u{{{ord(ch):X}}}")
    out.append('"')
    return "".join(out)


def _jsonb_key_order(key: str) -> tuple[int, bytes]:
    encoded = key.encode("utf-8")
    return (len(encoded), encoded)


def ruby_inspect(value: object) -> str:
    """Ruby (< 3.4) #inspect of a JSON-like value; hashes in jsonb key order."""
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return ruby_string_inspect(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Mapping):
        items = sorted(value.items(), key=lambda item: _jsonb_key_order(str(item[0])))
        return "{" + ", ".join(f"{ruby_inspect(str(k))}=>{ruby_inspect(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(ruby_inspect(item) for item in value) + "]"
    return ruby_string_inspect(str(value))


def humanize(reason: str) -> str:
    """ActiveSupport's String#humanize for snake_case enum values."""
    text = reason.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class ExportNote:
    edited_at: datetime
    username: str
    text: str


@dataclass(frozen=True)
class ExportIdentifier:
    external_type: str
    name: str


@dataclass(frozen=True)
class ExportVulnerability:
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
    identifiers: Sequence[ExportIdentifier]
    detected_at: datetime
    location: Mapping[str, object]
    resolved_on_default_branch: bool
    notes: Sequence[ExportNote] = field(default_factory=tuple)
    cvss_vectors: Sequence[Mapping[str, str]] = field(default_factory=tuple)
    dismissal_reason: str | None = None


def note_status(first_note_text: str) -> str | None:
    match = NOTE_STATUS.match(first_note_text)
    return match.group("status") if match else None


def notes_summary(notes: Sequence[ExportNote]) -> str:
    """Each note is its own discussion: <time>|<user>|<status>|<text>, joined with '; '."""
    entries = []
    for note in notes:
        parts = [ruby_time(note.edited_at), note.username, note_status(note.text), note.text]
        entries.append(ruby_csv_line(parts, "|"))
    return "; ".join(entries)


def _first_identifier(identifiers: Sequence[ExportIdentifier], kind: str) -> str | None:
    for identifier in identifiers:
        if identifier.external_type.lower() == kind:
            return identifier.name
    return None


def row_cells(vulnerability: ExportVulnerability) -> list[str | None]:
    """The 19 cells of one vulnerability, before spreadsheet-safety and quoting."""
    other_identifiers = [
        identifier.name
        for identifier in vulnerability.identifiers
        if identifier.external_type.lower() not in ("cve", "cwe")
    ]
    cvss = [f"{vector.get('vendor', '')}={vector.get('vector', '')}" for vector in vulnerability.cvss_vectors]
    dismissal = (
        humanize(vulnerability.dismissal_reason)
        if vulnerability.state == "dismissed" and vulnerability.dismissal_reason
        else None
    )
    return [
        vulnerability.group_name,
        vulnerability.project_name,
        vulnerability.report_type,
        vulnerability.scanner_name,
        vulnerability.state,
        vulnerability.title,
        vulnerability.description,
        None,  # Additional Info: always empty in current GitLab
        vulnerability.severity,
        _first_identifier(vulnerability.identifiers, "cve"),
        _first_identifier(vulnerability.identifiers, "cwe"),
        ruby_csv_line(other_identifiers, "; "),
        RawCell(ruby_time(vulnerability.detected_at)),
        RawCell(ruby_inspect(dict(vulnerability.location))),
        RawCell("true" if vulnerability.resolved_on_default_branch else "false"),
        notes_summary(vulnerability.notes),
        f"{vulnerability.project_full_path}/{vulnerability.id}",
        ruby_csv_line(cvss, "; "),
        dismissal,
    ]


def format_row(vulnerability: ExportVulnerability) -> str:
    return csv_row(row_cells(vulnerability))

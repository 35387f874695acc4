"""What a new export asks for (CSV or PDF, filters, an email when it is ready) and what the connected server
offers of it; also the checks of an archive export's date range. No Qt.

GitLab 18 takes ``export_format`` (csv or pdf), ``send_email`` and a ``filters`` object on the three create
endpoints. PDF came in GitLab 18.1 behind the ``vulnerabilities_pdf_export`` feature flag and is generally
available from 18.5, so against a GitLab the console offers PDF, filters and the email from 18.5 and, before,
says why it offers a plain CSV only. Outpost (``/version`` 18.6.0, revision ``outpost-…``) has them all.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from console.core.api.server import ServerInfo

FORMATS = (("csv", "CSV"), ("pdf", "PDF"))
SEVERITIES = ("critical", "high", "medium", "low", "info", "unknown")
STATES = ("detected", "confirmed", "resolved", "dismissed")
REPORT_TYPES = (("sast", "SAST"), ("dependency_scanning", "Dependency scanning"),
                ("container_scanning", "Container scanning"), ("secret_detection", "Secret detection"),
                ("dast", "DAST"))
# The first GitLab release where PDF exports are generally available; filters and send_email are offered with it.
OPTIONS_SINCE = (18, 5)
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)")


@dataclass(frozen=True)
class ExportOptions:
    """The choices of one export request. Empty filter lists mean every value."""

    export_format: str = "csv"
    send_email: bool = False
    severity: tuple[str, ...] = ()
    state: tuple[str, ...] = ()
    report_type: tuple[str, ...] = ()

    @classmethod
    def of(cls, body: dict[str, Any], export_format: str = "csv") -> ExportOptions:
        """The choices a create request's ``body`` made (see :meth:`body`); an empty body is a plain CSV."""
        filters = body.get("filters") or {}
        return cls(export_format=str(body.get("export_format") or export_format),
                   send_email=bool(body.get("send_email")),
                   **{key: tuple(filters.get(key) or ()) for key in ("severity", "state", "report_type")})

    @property
    def is_plain(self) -> bool:
        """A CSV of every vulnerability without email: what any GitLab version exports."""
        return self == ExportOptions()

    def filters(self) -> dict[str, list[str]]:
        return {key: list(values) for key, values in (("severity", self.severity), ("state", self.state),
                                                      ("report_type", self.report_type)) if values}

    def body(self) -> dict[str, Any]:
        """The create request's JSON body, as GitLab 18 reads it; empty for a plain CSV (what older versions take)."""
        if self.is_plain:
            return {}
        body: dict[str, Any] = {"export_format": self.export_format, "send_email": self.send_email}
        if filters := self.filters():
            body["filters"] = filters
        return body

    def summary(self) -> str:
        """One line for the tab: "PDF, severity critical or high, emailed when ready"."""
        parts = [dict(FORMATS)[self.export_format]]
        labels = dict(REPORT_TYPES)
        for name, values in (("severity", self.severity), ("status", self.state),
                             ("tool", tuple(labels.get(value, value) for value in self.report_type))):
            if values:
                parts.append(f"{name} {' or '.join(values)}")
        if len(parts) == 1:
            parts.append("every vulnerability")
        if self.send_email:
            parts.append("emailed when ready")
        return ", ".join(parts)


@dataclass(frozen=True)
class ExportOffer:
    """What the server lets a new export choose; ``note`` says why something is not offered."""

    pdf: bool = True
    filters: bool = True
    email: bool = True
    note: str = ""

    def allow(self, options: ExportOptions) -> ExportOptions:
        """``options`` without what is not offered."""
        return ExportOptions(
            export_format=options.export_format if self.pdf else "csv",
            send_email=options.send_email and self.email,
            severity=options.severity if self.filters else (),
            state=options.state if self.filters else (),
            report_type=options.report_type if self.filters else ())


def parse_version(text: str) -> tuple[int, int] | None:
    """(major, minor) of "17.5.0-ee"; None when there is no version to read."""
    found = _VERSION.match(text or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def offer_for(server: ServerInfo) -> ExportOffer:
    """What the connected server offers, from its ``/version``."""
    if server.is_outpost:
        return ExportOffer()
    text = server.version.version if server.version is not None else ""
    version = parse_version(text)
    if version is not None and version >= OPTIONS_SINCE:
        return ExportOffer()
    since = ".".join(map(str, OPTIONS_SINCE))
    if version is None:
        note = ("The server did not say which GitLab version it runs, so the console offers a CSV of every "
                f"vulnerability only: PDF, filters and the email need GitLab {since} or later.")
    else:
        note = (f"This GitLab runs version {text}: it exports a CSV of every vulnerability. PDF, filters and the "
                f"email when an export is ready need GitLab {since} or later (18.1 to 18.4 have PDF only behind "
                "a feature flag).")
    return ExportOffer(pdf=False, filters=False, email=False, note=note)


# Which date an archive export's days are. Outpost: the day each vulnerability was detected. GitLab: the date of
# the project's vulnerability archives (Vulnerabilities::ArchiveExport#archives selects them by that date), into
# which it moves vulnerabilities once they are a year old. Neither API answer carries a count.
ARCHIVE_DATE_OUTPOST = "Days of detection: the vulnerabilities first detected in the range (their Detected At)."
ARCHIVE_DATE_GITLAB = ("Days of archiving: GitLab exports the vulnerabilities its archives took in during the range "
                       "(it archives them once they are a year old), whenever they were detected.")


def csv_records(path: Path) -> int:
    """How many records (rows after the header) a saved CSV holds; cells may span lines. Blocks: a worker's."""
    with path.open(encoding="utf-8", newline="") as file:
        return max(sum(1 for _row in csv.reader(file)) - 1, 0)


def archive_range_problem(start: dt.date, end: dt.date, today: dt.date) -> str | None:
    """Why an archive export of ``start`` to ``end`` cannot be asked for, or None."""
    if end < start:
        return "The end date is before the start date."
    if start > today:
        return "The start date is in the future."
    return None

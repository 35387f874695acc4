"""Parsing and validation of GitLab security reports (security-report-schemas 15.x).

Supported report types: sast, dependency_scanning, container_scanning, secret_detection.
Validation follows the published schemas for the fields Outpost stores; any violation raises
ReportError with a reason naming the offending field (e.g. "vulnerabilities[2].identifiers is missing").
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

SUPPORTED_REPORT_TYPES = ("sast", "dependency_scanning", "container_scanning", "secret_detection")
SCHEMA_VERSION = re.compile(r"\A15\.\d+\.\d+\Z")
SCAN_TIME = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\Z")
REPORT_SEVERITIES = {"Info", "Unknown", "Low", "Medium", "High", "Critical"}
MAX_NAME_LENGTH = 255
MAX_DESCRIPTION_LENGTH = 1_048_576
# Location members each report type must carry (from the per-type schemas).
REQUIRED_LOCATION_FIELDS = {
    "sast": (),
    "secret_detection": ("commit",),
    "dependency_scanning": ("file", "dependency"),
    "container_scanning": ("dependency", "operating_system", "image"),
}


class ReportError(ValueError):
    """The report is not a valid security report; the message says why."""


@dataclass(frozen=True)
class ReportScanner:
    external_id: str
    name: str
    vendor: str | None
    version: str | None


@dataclass(frozen=True)
class ReportIdentifier:
    external_type: str
    external_id: str
    name: str
    url: str | None


@dataclass(frozen=True)
class ReportFinding:
    fingerprint: str
    title: str
    description: str | None
    severity: str
    identifiers: tuple[ReportIdentifier, ...]
    location: dict[str, Any]
    cvss_vectors: tuple[dict[str, str], ...] = field(default_factory=tuple)
    solution: str | None = None


@dataclass(frozen=True)
class SecurityReport:
    report_type: str
    schema_version: str
    scanner: ReportScanner
    scan_finished_at: datetime | None
    findings: tuple[ReportFinding, ...]


def _require_object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReportError(f"{where} must be an object")
    return value


def _require_string(container: dict[str, Any], key: str, where: str, *, max_length: int | None = None) -> str:
    if key not in container:
        raise ReportError(f"{where}.{key} is missing")
    value = container[key]
    if not isinstance(value, str) or not value.strip():
        raise ReportError(f"{where}.{key} must be a non-empty string")
    if max_length is not None and len(value) > max_length:
        raise ReportError(f"{where}.{key} is longer than {max_length} characters")
    if "\x00" in value:  # neither database keeps it in text
        raise ReportError(f"{where}.{key} must not contain a NUL character")
    return value


def _optional_string(container: dict[str, Any], key: str, where: str, *, max_length: int | None = None) -> str | None:
    value = container.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReportError(f"{where}.{key} must be a string")
    if max_length is not None and len(value) > max_length:
        raise ReportError(f"{where}.{key} is longer than {max_length} characters")
    if "\x00" in value:  # neither database keeps it in text
        raise ReportError(f"{where}.{key} must not contain a NUL character")
    return value


def _optional_integer(container: dict[str, Any], key: str, where: str) -> None:
    value = container.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ReportError(f"{where}.{key} must be a positive integer")


def _parse_tool(value: Any, where: str) -> ReportScanner:
    tool = _require_object(value, where)
    if "vendor" not in tool:
        raise ReportError(f"{where}.vendor is missing")
    vendor = _require_object(tool["vendor"], f"{where}.vendor")
    return ReportScanner(
        external_id=_require_string(tool, "id", where),
        name=_require_string(tool, "name", where),
        vendor=_require_string(vendor, "name", f"{where}.vendor"),
        version=_require_string(tool, "version", where),
    )


def _parse_scan_time(scan: dict[str, Any], key: str) -> datetime:
    value = _require_string(scan, key, "scan")
    if not SCAN_TIME.match(value):
        raise ReportError(f"scan.{key} must look like 2024-01-31T12:00:00")
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    except ValueError:
        raise ReportError(f"scan.{key} is not a valid time") from None


def _parse_identifiers(value: Any, where: str) -> tuple[ReportIdentifier, ...]:
    if value is None:
        raise ReportError(f"{where}.identifiers is missing")
    if not isinstance(value, list) or not value:
        raise ReportError(f"{where}.identifiers must be a non-empty array")
    identifiers = []
    for index, raw in enumerate(value):
        spot = f"{where}.identifiers[{index}]"
        item = _require_object(raw, spot)
        identifiers.append(
            ReportIdentifier(
                external_type=_require_string(item, "type", spot),
                name=_require_string(item, "name", spot),
                external_id=_require_string(item, "value", spot),
                url=_optional_string(item, "url", spot),
            )
        )
    return tuple(identifiers)


def _check_dependency(location: dict[str, Any], where: str) -> None:
    dependency = _require_object(location["dependency"], f"{where}.dependency")
    package = _require_object(dependency.get("package", {}), f"{where}.dependency.package")
    _optional_string(package, "name", f"{where}.dependency.package")
    _optional_string(dependency, "version", f"{where}.dependency")


def _parse_location(report_type: str, value: Any, where: str) -> dict[str, Any]:
    if value is None:
        raise ReportError(f"{where}.location is missing")
    location = _require_object(value, f"{where}.location")
    spot = f"{where}.location"
    for key in REQUIRED_LOCATION_FIELDS[report_type]:
        if key not in location:
            raise ReportError(f"{spot}.{key} is missing")
    for key in ("file", "class", "method"):
        _optional_string(location, key, spot)
    for key in ("start_line", "end_line"):
        _optional_integer(location, key, spot)
    if report_type in ("dependency_scanning", "container_scanning"):
        _check_dependency(location, spot)
    if report_type == "container_scanning":
        _require_string(location, "image", spot)
        _require_string(location, "operating_system", spot)
    if report_type == "secret_detection":
        commit = _require_object(location["commit"], f"{spot}.commit")
        _require_string(commit, "sha", f"{spot}.commit")
    return location


def _location_fingerprint(report_type: str, location: dict[str, Any]) -> str:
    """What identifies the place of a finding across scans (as GitLab's per-type locators do)."""
    package = ((location.get("dependency") or {}).get("package") or {}).get("name", "")
    if report_type == "dependency_scanning":
        return f"{location.get('file', '')}:{package}"
    if report_type == "container_scanning":
        image = str(location.get("image", "")).rsplit(":", 1)[0]
        return f"{image}:{package}"
    return f"{location.get('file', '')}:{location.get('start_line', '')}:{location.get('end_line', '')}"


def _finding_fingerprint(report_type: str, scanner: ReportScanner, identifier: ReportIdentifier,
                         location: dict[str, Any]) -> str:
    material = "\x1f".join(
        (report_type, scanner.external_id, identifier.external_type.lower(), identifier.external_id,
         _location_fingerprint(report_type, location))
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _parse_cvss(value: Any, where: str) -> tuple[dict[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ReportError(f"{where}.cvss_vectors must be an array")
    vectors = []
    for index, raw in enumerate(value):
        spot = f"{where}.cvss_vectors[{index}]"
        item = _require_object(raw, spot)
        vendor = _optional_string(item, "vendor", spot) or "Unknown"
        vectors.append({"vendor": vendor, "vector": _require_string(item, "vector", spot)})
    return tuple(vectors)


def _parse_finding(report_type: str, scanner: ReportScanner, raw: Any, where: str) -> ReportFinding:
    item = _require_object(raw, where)
    _require_string(item, "id", where)
    identifiers = _parse_identifiers(item.get("identifiers"), where)
    location = _parse_location(report_type, item.get("location"), where)
    severity = item.get("severity", "Unknown")
    if severity not in REPORT_SEVERITIES:
        raise ReportError(f"{where}.severity must be one of {', '.join(sorted(REPORT_SEVERITIES))}")
    name = _optional_string(item, "name", where, max_length=MAX_NAME_LENGTH)
    message = _optional_string(item, "message", where)
    return ReportFinding(
        fingerprint=_finding_fingerprint(report_type, scanner, identifiers[0], location),
        title=name or message or identifiers[0].name,
        description=_optional_string(item, "description", where, max_length=MAX_DESCRIPTION_LENGTH),
        severity=severity.lower(),
        identifiers=identifiers,
        location=location,
        cvss_vectors=_parse_cvss(item.get("cvss_vectors"), where),
        solution=_optional_string(item, "solution", where),
    )


def parse_report(content: bytes | str | dict[str, Any]) -> SecurityReport:
    """Validate a report (raw JSON or already decoded) and return what it found."""
    if isinstance(content, (bytes, str)):
        try:
            document = json.loads(content)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ReportError(f"the report is not valid JSON ({exc})") from None
    else:
        document = content
    report = _require_object(document, "the report")
    version = _require_string(report, "version", "report")
    if not SCHEMA_VERSION.match(version):
        raise ReportError(f"report.version {version!r} is not supported; expected a 15.x schema version")
    if "scan" not in report:
        raise ReportError("report.scan is missing")
    scan = _require_object(report["scan"], "scan")
    report_type = _require_string(scan, "type", "scan")
    if report_type not in SUPPORTED_REPORT_TYPES:
        raise ReportError(f"scan.type {report_type!r} is not supported; "
                          f"expected one of {', '.join(SUPPORTED_REPORT_TYPES)}")
    if "analyzer" not in scan:
        raise ReportError("scan.analyzer is missing")
    _parse_tool(scan["analyzer"], "scan.analyzer")
    if "scanner" not in scan:
        raise ReportError("scan.scanner is missing")
    scanner = _parse_tool(scan["scanner"], "scan.scanner")
    _parse_scan_time(scan, "start_time")
    finished_at = _parse_scan_time(scan, "end_time")
    status = _require_string(scan, "status", "scan")
    if status not in ("success", "failure"):
        raise ReportError("scan.status must be success or failure")
    if "vulnerabilities" not in report:
        raise ReportError("report.vulnerabilities is missing")
    raw_findings = report["vulnerabilities"]
    if not isinstance(raw_findings, list):
        raise ReportError("report.vulnerabilities must be an array")
    findings: dict[str, ReportFinding] = {}
    for index, raw in enumerate(raw_findings):
        finding = _parse_finding(report_type, scanner, raw, f"vulnerabilities[{index}]")
        findings.setdefault(finding.fingerprint, finding)  # a report may repeat a finding
    return SecurityReport(
        report_type=report_type,
        schema_version=version,
        scanner=scanner,
        scan_finished_at=finished_at,
        findings=tuple(findings.values()),
    )

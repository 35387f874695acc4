"""The `filters` of a vulnerability export (GitLab's declared `params :filters`), read once at creation.

GitLab declares the keys below (ee/lib/api/vulnerability_exports.rb); Grape drops every other key
without an error, and so does `parse`. What is kept is stored with the export and applied by the
worker, to CSV rows and PDF contents alike.

Outpost keeps no issue links, merge requests or remediations for a vulnerability, so `has_issues`,
`has_merge_request` and `has_remediations` true match nothing and false match everything. GitLab's
`scanner_id` and `cluster_agent_id` name records Outpost does not have; they are dropped like
undeclared keys.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, false, true

from outpost_server import http_errors
from outpost_server.db import MAX_ROW_ID
from outpost_server.vulnerabilities.models import REPORT_TYPES, SEVERITIES, STATES, Vulnerability

# Array[String] filters and their allowed values (None: any string).
STRING_LISTS: dict[str, tuple[str, ...] | None] = {
    "severity": SEVERITIES, "state": STATES, "report_type": REPORT_TYPES, "scanner": None, "image": None,
}
BOOLEANS = ("has_resolution", "has_issues", "has_merge_request", "has_remediations")
DECLARED = (*STRING_LISTS, "project_id", *BOOLEANS)
_TRUE = {"1", "t", "true", "y", "yes", "on"}
_FALSE = {"0", "f", "false", "n", "no", "off"}


def _strings(name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [part for part in value.split(",") if part]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise http_errors.invalid_param(name)


def _ids(name: str, value: Any) -> list[int]:
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else [value]
    ids = []
    for item in items:
        if isinstance(item, str) and item.strip().isdecimal():
            item = int(item.strip())
        if isinstance(item, bool) or not isinstance(item, int) or not 0 < item <= MAX_ROW_ID:
            raise http_errors.invalid_param(name)
        ids.append(item)
    return ids


def _boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise http_errors.invalid_param(name)


def parse(raw: Any) -> dict[str, Any]:
    """The declared filters of a request's `filters` hash, checked and coerced; other keys dropped."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise http_errors.invalid_param("filters")
    kept: dict[str, Any] = {}
    for key, value in raw.items():
        if value is None or key not in DECLARED:
            continue
        name = f"filters[{key}]"
        if key in STRING_LISTS:
            values = _strings(name, value)
            allowed = STRING_LISTS[key]
            if allowed is not None and any(item not in allowed for item in values):
                raise http_errors.invalid_value(name)
            kept[key] = values
        elif key == "project_id":
            kept[key] = _ids(name, value)
        else:
            kept[key] = _boolean(name, value)
    return kept


def scoped_project_ids(project_ids: list[int], filters: dict[str, Any]) -> list[int]:
    """The export's projects, narrowed by filters[project_id] when given."""
    wanted = filters.get("project_id")
    if not wanted:
        return project_ids
    return [project_id for project_id in project_ids if project_id in set(wanted)]


def conditions(filters: dict[str, Any]) -> ColumnElement[bool]:
    """The WHERE clause the filters put on vulnerabilities (true when there are none)."""
    clauses: list[ColumnElement[bool]] = []
    for key, column in (("severity", Vulnerability.severity), ("state", Vulnerability.state),
                        ("report_type", Vulnerability.report_type), ("scanner", Vulnerability.scanner_external_id)):
        if key in filters:
            clauses.append(column.in_(filters[key]))
    if "image" in filters:
        clauses.append(Vulnerability.location["image"].as_string().in_(filters["image"]))
    if "has_resolution" in filters:
        clauses.append(Vulnerability.resolved_on_default_branch.is_(filters["has_resolution"]))
    for key in ("has_issues", "has_merge_request", "has_remediations"):
        if key in filters:
            clauses.append(false() if filters[key] else true())
    return and_(true(), *clauses)

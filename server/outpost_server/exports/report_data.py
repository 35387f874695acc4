"""`report_data` of a vulnerability export: the front end's chart data for the PDF, as GitLab declares it.

Only the declared keys are kept (Grape drops the rest); `dashboard_type` must be project, group or
instance and `full_path` a string. The chart assets (SVG and JSON data from GitLab's web UI) are stored
with the export; Outpost's PDF draws its own summary chart and prints dashboard_type and full_path on
the title page.
"""

from __future__ import annotations

from typing import Any

from outpost_server import http_errors

# Chart assets, each arbitrary JSON (Grape's `type: JSON`).
ASSETS = ("project_vulnerabilities_history", "group_vulnerabilities_over_time", "project_security_status",
          "total_risk_score", "open_vulnerabilities_over_time", "vulnerabilities_by_age")
SEVERITY_COUNT_KEYS = ("critical", "high", "medium", "low", "unknown", "info")
SEVERITY_COUNT_FIELDS = ("count", "medianAge", "color")
DASHBOARD_TYPES = ("project", "group", "instance")


def _severity_counts(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise http_errors.invalid_param("report_data[vulnerabilities_by_severity_count]")
    kept: dict[str, Any] = {}
    for severity in SEVERITY_COUNT_KEYS:
        entry = raw.get(severity)
        if isinstance(entry, dict):
            kept[severity] = {key: entry[key] for key in SEVERITY_COUNT_FIELDS if key in entry}
    return kept


def clean(raw: Any) -> dict[str, Any]:
    """The declared part of a request's report_data (an empty dict when none was sent)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise http_errors.invalid_param("report_data")
    kept = {key: raw[key] for key in ASSETS if key in raw}
    if "vulnerabilities_by_severity_count" in raw:
        kept["vulnerabilities_by_severity_count"] = _severity_counts(raw["vulnerabilities_by_severity_count"])
    dashboard_type = raw.get("dashboard_type")
    if dashboard_type is not None:
        if dashboard_type not in DASHBOARD_TYPES:
            raise http_errors.invalid_value("report_data[dashboard_type]")
        kept["dashboard_type"] = dashboard_type
    full_path = raw.get("full_path")
    if full_path is not None:
        if not isinstance(full_path, (str, int)) or isinstance(full_path, bool):
            raise http_errors.invalid_param("report_data[full_path]")
        kept["full_path"] = str(full_path)
    return kept

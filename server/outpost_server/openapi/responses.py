"""What every operation answers on success, declared once for the OpenAPI document.

Keys are the document's "METHOD path"; values map a status to its body: a JSON Schema, `Binary` for a
file, or None for no body. The statuses are the ones the handlers really send (GitLab's 201 for a
POST, 202 for a deletion scheduled, 204 for an empty answer, Sentry's 208 for a release that exists).
"""

from __future__ import annotations

from dataclasses import dataclass

from outpost_model import accounts, alerts, monitors, projects, sentry_issues, source_maps
from outpost_model import error_tracking as tracking
from outpost_model.exports import ArchiveExport, Export
from outpost_model.retention import Retention, Storage
from outpost_model.schema import json_schema
from outpost_model.sentry_events import Event, EventSummary
from outpost_model.sentry_projects import SentryProject, SentryProjectDetails
from outpost_model.variables import Variable
from outpost_model.vulnerabilities import Vulnerability
from outpost_server.openapi import gitlab_shapes as gitlab
from outpost_server.openapi import sentry_shapes as sentry
from outpost_server.openapi.builders import BOOLEAN, Schema, nullable


@dataclass(frozen=True)
class Binary:
    """A file served as it is, with one of these content types."""

    media_types: tuple[str, ...]


Body = Schema | Binary | None

V4 = "/api/v4"
S0 = "/api/0"
# An export's file: CSV as GitLab serves it (octet-stream), or a PDF.
EXPORT_FILE = Binary(("application/octet-stream",))
EXPORT = json_schema(Export)
RELEASE = json_schema(source_maps.Release)
MEMBER = json_schema(accounts.Member)
VULNERABILITY = json_schema(Vulnerability)
ISSUE_DETAILS = json_schema(sentry_issues.IssueDetails)
ARCHIVE_EXPORT = json_schema(ArchiveExport)
# GitLab's answer to block, unblock, deactivate and activate: true, false, or null when nothing changed.
STATE_CHANGE = nullable(BOOLEAN)


def _members(kind: str) -> dict[str, dict[int, Body]]:
    base = f"{V4}/{kind}/{{ident}}/members"
    return {f"GET {base}": {200: json_schema(list[accounts.Member])}, f"POST {base}": {201: MEMBER},
            f"GET {base}/{{user_id}}": {200: MEMBER}, f"DELETE {base}/{{user_id}}": {204: None}}


def _issue_reads(issue: str) -> dict[str, dict[int, Body]]:
    """The issue endpoints Sentry offers both at /issues/{id}/ and under the project."""
    return {f"GET {issue}": {200: ISSUE_DETAILS},
            f"GET {issue}events/": {200: json_schema(list[EventSummary])},
            f"GET {issue}events/{{which}}/": {200: json_schema(Event)},
            f"GET {issue}tags/": {200: json_schema(list[sentry_issues.TagKey])},
            f"GET {issue}tags/{{key}}/values/": {200: json_schema(list[sentry_issues.TagValue])}}


def _web(path: str, method: str, body: Schema) -> dict[str, dict[int, Body]]:
    """GitLab's error tracking web endpoints answer with and without the .json suffix."""
    base = f"/{{project_path}}/-/error_tracking{path}"
    return {f"{method} {base}": {200: body}, f"{method} {base}.json": {200: body}}


_GITLAB: dict[str, dict[int, Body]] = {
    f"GET {V4}/version": {200: gitlab.VERSION},
    f"GET {V4}/user": {200: json_schema(accounts.User)},
    f"GET {V4}/users": {200: json_schema(list[accounts.User])},
    f"POST {V4}/users": {201: json_schema(accounts.User)},
    f"GET {V4}/users/{{user_id}}": {200: json_schema(accounts.User)},
    f"PUT {V4}/users/{{user_id}}": {200: json_schema(accounts.User)},
    f"DELETE {V4}/users/{{user_id}}": {204: None},
    **{f"POST {V4}/users/{{user_id}}/{action}": {201: STATE_CHANGE}
       for action in ("block", "unblock", "deactivate", "activate")},
    f"POST {V4}/users/{{user_id}}/personal_access_tokens": {201: json_schema(accounts.NewPersonalAccessToken)},
    f"GET {V4}/personal_access_tokens": {200: json_schema(list[accounts.PersonalAccessToken])},
    f"GET {V4}/personal_access_tokens/self": {200: json_schema(accounts.PersonalAccessToken)},
    f"GET {V4}/personal_access_tokens/{{token_id}}": {200: json_schema(accounts.PersonalAccessToken)},
    f"DELETE {V4}/personal_access_tokens/self": {204: None},
    f"DELETE {V4}/personal_access_tokens/{{token_id}}": {204: None},
    f"POST {V4}/personal_access_tokens/self/rotate": {200: json_schema(accounts.NewPersonalAccessToken)},
    f"POST {V4}/personal_access_tokens/{{token_id}}/rotate": {200: json_schema(accounts.NewPersonalAccessToken)},
    f"GET {V4}/namespaces": {200: json_schema(list[projects.Namespace])},
    f"GET {V4}/namespaces/{{namespace_id}}": {200: json_schema(projects.Namespace)},
    f"GET {V4}/namespaces/{{namespace_id}}/exists": {200: gitlab.NAMESPACE_EXISTS},
    f"GET {V4}/groups": {200: json_schema(list[accounts.Group])},
    f"POST {V4}/groups": {201: json_schema(accounts.Group)},
    f"GET {V4}/groups/{{group_id}}": {200: json_schema(accounts.Group)},
    f"PUT {V4}/groups/{{group_id}}": {200: json_schema(accounts.Group)},
    f"DELETE {V4}/groups/{{group_id}}": {202: gitlab.MESSAGE},
    f"GET {V4}/groups/{{group_id}}/subgroups": {200: json_schema(list[accounts.Group])},
    f"GET {V4}/groups/{{group_id}}/projects": {200: json_schema(list[projects.Project])},
    f"GET {V4}/projects": {200: json_schema(list[projects.Project])},
    f"POST {V4}/projects": {201: json_schema(projects.Project)},
    f"GET {V4}/projects/{{project_id}}": {200: json_schema(projects.Project)},
    f"PUT {V4}/projects/{{project_id}}": {200: json_schema(projects.Project)},
    f"DELETE {V4}/projects/{{project_id}}": {202: gitlab.MESSAGE},
    **_members("projects"),
    **_members("groups"),
    f"GET {V4}/admin/ci/variables": {200: json_schema(list[Variable])},
    f"POST {V4}/admin/ci/variables": {201: json_schema(Variable)},
    f"GET {V4}/admin/ci/variables/{{key}}": {200: json_schema(Variable)},
    f"PUT {V4}/admin/ci/variables/{{key}}": {200: json_schema(Variable)},
    f"DELETE {V4}/admin/ci/variables/{{key}}": {204: None},
    f"GET {V4}/application/plan_limits": {200: gitlab.PLAN_LIMITS},
    f"PUT {V4}/application/plan_limits": {200: gitlab.PLAN_LIMITS},
    f"GET {V4}/application/settings": {200: gitlab.APPLICATION_SETTINGS},
    f"PUT {V4}/application/settings": {200: gitlab.APPLICATION_SETTINGS},
    f"GET {V4}/application/mail": {200: gitlab.MAIL_SETTINGS},
    f"POST {V4}/application/mail/test": {201: gitlab.MAIL_TEST},
    f"POST {V4}/projects/{{project_id}}/security/reports": {201: gitlab.REPORT_IMPORT},
    f"GET {V4}/projects/{{project_id}}/vulnerabilities": {200: json_schema(list[Vulnerability])},
    f"GET {V4}/vulnerabilities/{{vulnerability_id}}": {200: VULNERABILITY},
    # 304 when the vulnerability is already in that state.
    **{f"POST {V4}/vulnerabilities/{{vulnerability_id}}/{action}": {201: VULNERABILITY, 304: None}
       for action in ("confirm", "resolve", "revert", "dismiss")},
    f"POST {V4}/security/projects/{{project_id}}/vulnerability_exports": {201: EXPORT},
    f"POST {V4}/security/groups/{{group_id}}/vulnerability_exports": {201: EXPORT},
    f"POST {V4}/security/vulnerability_exports": {201: EXPORT},
    # 202 with Poll-Interval while the export is still being made.
    f"GET {V4}/security/vulnerability_exports/{{export_id}}": {200: EXPORT, 202: EXPORT},
    f"GET {V4}/security/vulnerability_exports/{{export_id}}/download": {200: EXPORT_FILE},
    f"POST {V4}/security/projects/{{project_id}}/vulnerability_archive_exports": {201: ARCHIVE_EXPORT},
    f"GET {V4}/security/vulnerability_archive_exports/{{export_id}}": {
        200: ARCHIVE_EXPORT, 202: ARCHIVE_EXPORT},
    f"GET {V4}/security/vulnerability_archive_exports/{{export_id}}/download": {200: EXPORT_FILE},
    **{f"{method} {V4}/projects/{{project_id}}/error_tracking/settings": {200: json_schema(tracking.TrackingSettings)}
       for method in ("GET", "PATCH", "PUT")},
    f"GET {V4}/projects/{{project_id}}/error_tracking/client_keys": {200: json_schema(list[tracking.ClientKey])},
    f"POST {V4}/projects/{{project_id}}/error_tracking/client_keys": {201: json_schema(tracking.ClientKey)},
    f"DELETE {V4}/projects/{{project_id}}/error_tracking/client_keys/{{key_id}}": {
        200: json_schema(tracking.ClientKey)},
    f"GET {V4}/projects/{{project_id}}/error_tracking/retention": {200: json_schema(Retention)},
    f"PUT {V4}/projects/{{project_id}}/error_tracking/retention": {200: json_schema(Retention)},
    f"GET {V4}/error_tracking/storage": {200: json_schema(Storage)},
}

_ALERTS = f"{S0}/projects/{{organization_slug}}/{{project_slug}}/alerts/"
_RELEASES = f"{S0}/projects/{{organization}}/{{project_slug}}/releases/"
_FILES = f"{_RELEASES}{{version}}/files/"
_PROJECT_FILES = f"{S0}/projects/{{organization}}/{{project_slug}}/files/"
_MONITORS = f"{S0}/organizations/{{organization_slug}}/monitors/"

_SENTRY: dict[str, dict[int, Body]] = {
    f"GET {_ALERTS}": {200: json_schema(list[alerts.AlertRule])},
    f"POST {_ALERTS}": {201: json_schema(alerts.AlertRule)},
    f"PUT {_ALERTS}{{alert_id}}/": {200: json_schema(alerts.AlertRule)},
    f"DELETE {_ALERTS}{{alert_id}}/": {204: None},
    f"GET {_ALERTS}{{alert_id}}/deliveries/": {200: json_schema(list[alerts.AlertDelivery])},
    f"POST {_ALERTS}{{alert_id}}/test/": {200: json_schema(list[alerts.AlertTestResult])},
    f"GET {S0}/organizations/{{organization}}/chunk-upload/": {200: sentry.CHUNK_UPLOAD_OPTIONS},
    f"POST {S0}/organizations/{{organization}}/chunk-upload/": {200: None},
    f"POST {S0}/organizations/{{organization}}/artifactbundle/assemble/": {200: sentry.ASSEMBLE},
    f"POST {S0}/organizations/{{organization}}/releases/": {201: RELEASE, 208: RELEASE},
    f"POST {_RELEASES}": {201: RELEASE, 208: RELEASE},
    f"GET {_RELEASES}": {200: json_schema(list[source_maps.Release])},
    f"GET {S0}/organizations/{{organization}}/releases/{{version}}/": {200: RELEASE},
    f"PUT {S0}/organizations/{{organization}}/releases/{{version}}/": {200: RELEASE},
    f"PUT {_RELEASES}{{version}}/": {200: RELEASE},
    f"GET {_FILES}": {200: json_schema(list[source_maps.ReleaseFile])},
    f"POST {_FILES}": {201: json_schema(source_maps.ReleaseFile)},
    # The file's details, or with ?download=1 the file itself.
    f"GET {_FILES}{{file_id}}/": {200: json_schema(source_maps.ReleaseFile)},
    f"DELETE {_FILES}{{file_id}}/": {204: None},
    f"DELETE {_PROJECT_FILES}source-maps/": {204: None},
    f"POST {S0}/organizations/{{organization}}/releases/{{version}}/assemble/": {200: sentry.ASSEMBLE},
    f"GET {_PROJECT_FILES}artifact-bundles/": {200: json_schema(list[source_maps.ArtifactBundle])},
    f"DELETE {_PROJECT_FILES}artifact-bundles/": {204: None},
    f"GET {S0}/projects/{{organization}}/{{project_slug}}/artifact-bundles/{{bundle_id}}/files/": {
        200: json_schema(source_maps.ArtifactBundleFiles)},
    f"GET {S0}/projects/": {200: json_schema(list[SentryProject])},
    f"GET {S0}/projects/{{organization_slug}}/{{project_slug}}/": {200: json_schema(SentryProjectDetails)},
    f"GET {_MONITORS}": {200: json_schema(list[monitors.Monitor])},
    f"GET {_MONITORS}{{monitor_slug}}/": {200: json_schema(monitors.Monitor)},
    f"PUT {_MONITORS}{{monitor_slug}}/": {200: json_schema(monitors.Monitor)},
    f"DELETE {_MONITORS}{{monitor_slug}}/": {202: None},
    f"GET {_MONITORS}{{monitor_slug}}/checkins/": {200: json_schema(list[monitors.MonitorCheckIn])},
    f"GET {S0}/projects/{{organization_slug}}/{{project_slug}}/issues/": {200: json_schema(list[sentry_issues.Issue])},
    f"PUT {S0}/issues/{{issue_id}}/": {200: ISSUE_DETAILS},
    f"PUT {S0}/projects/{{organization_slug}}/{{project_slug}}/issues/": {200: sentry.ISSUES_UPDATED, 204: None},
    f"GET {S0}/projects/{{organization_slug}}/{{project_slug}}/events/{{event_id}}/": {200: json_schema(Event)},
    **_issue_reads(f"{S0}/issues/{{issue_id}}/"),
    **_issue_reads(f"{S0}/projects/{{organization_slug}}/{{project_slug}}/issues/{{issue_id}}/"),
    **_web("", "GET", json_schema(tracking.ErrorList)),
    **_web("/{issue_id}/details", "GET", json_schema(tracking.ErrorDetailBody)),
    **_web("/{issue_id}/stack_trace", "GET", json_schema(tracking.StackTraceBody)),
    **_web("/{issue_id}", "PUT", json_schema(tracking.ErrorUpdate)),
    **_web("/projects", "GET", json_schema(tracking.ExternalProjectList)),
}

RESPONSES: dict[str, dict[int, Body]] = {**_GITLAB, **_SENTRY}

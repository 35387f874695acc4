"""What every operation answers on success, declared once for the OpenAPI document.

Keys are the document's "METHOD path"; values map a status to its body: the outpost_model type the handler
answers (an entity, a list of them, or a JSON value's type such as `bool | None`), whose JSON Schema the
document gets; `Binary` for a file; or None for no body. A schema written by hand is refused (__init__.py),
so each body is declared once, in outpost_model. The statuses are the ones the handlers really send
(GitLab's 201 for a POST, 202 for a deletion scheduled, 204 for an empty answer, Sentry's 208 for a
release that exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from outpost_model import Message, accounts, alerts, instance, monitors, projects, sentry_issues, source_maps
from outpost_model import error_tracking as tracking
from outpost_model.exports import ArchiveExport, Export
from outpost_model.ingestion import Ingestion
from outpost_model.retention import Retention, Storage
from outpost_model.sentry_events import Event, EventSummary
from outpost_model.sentry_projects import SentryProject, SentryProjectDetails
from outpost_model.variables import Variable
from outpost_model.vulnerabilities import ReportImport, Vulnerability


@dataclass(frozen=True)
class Binary:
    """A file served as it is, with one of these content types."""

    media_types: tuple[str, ...]


# An entity type, list[Entity], a JSON value's type, Binary, or None (no body).
Body = Any

V4 = "/api/v4"
S0 = "/api/0"
# An export's file: CSV as GitLab serves it (octet-stream), or a PDF.
EXPORT_FILE = Binary(("application/octet-stream",))
# GitLab's answer to block, unblock, deactivate and activate: true, false, or null when nothing changed.
STATE_CHANGE = bool | None


def _members(kind: str) -> dict[str, dict[int, Body]]:
    base = f"{V4}/{kind}/{{ident}}/members"
    return {f"GET {base}": {200: list[accounts.Member]}, f"POST {base}": {201: accounts.Member},
            f"GET {base}/{{user_id}}": {200: accounts.Member}, f"DELETE {base}/{{user_id}}": {204: None}}


def _issue_reads(issue: str) -> dict[str, dict[int, Body]]:
    """The issue endpoints Sentry offers both at /issues/{id}/ and under the project."""
    return {f"GET {issue}": {200: sentry_issues.IssueDetails},
            f"GET {issue}events/": {200: list[EventSummary]},
            f"GET {issue}events/{{which}}/": {200: Event},
            f"GET {issue}tags/": {200: list[sentry_issues.TagKey]},
            f"GET {issue}tags/{{key}}/values/": {200: list[sentry_issues.TagValue]}}


def _web(path: str, method: str, body: Body) -> dict[str, dict[int, Body]]:
    """GitLab's error tracking web endpoints answer with and without the .json suffix."""
    base = f"/{{project_path}}/-/error_tracking{path}"
    return {f"{method} {base}": {200: body}, f"{method} {base}.json": {200: body}}


_GITLAB: dict[str, dict[int, Body]] = {
    f"GET {V4}/version": {200: instance.Version},
    f"GET {V4}/user": {200: accounts.User},
    f"GET {V4}/users": {200: list[accounts.User]},
    f"POST {V4}/users": {201: accounts.User},
    f"GET {V4}/users/{{user_id}}": {200: accounts.User},
    f"PUT {V4}/users/{{user_id}}": {200: accounts.User},
    f"DELETE {V4}/users/{{user_id}}": {204: None},
    **{f"POST {V4}/users/{{user_id}}/{action}": {201: STATE_CHANGE}
       for action in ("block", "unblock", "deactivate", "activate")},
    f"POST {V4}/users/{{user_id}}/personal_access_tokens": {201: accounts.NewPersonalAccessToken},
    f"GET {V4}/personal_access_tokens": {200: list[accounts.PersonalAccessToken]},
    f"GET {V4}/personal_access_tokens/self": {200: accounts.PersonalAccessToken},
    f"GET {V4}/personal_access_tokens/{{token_id}}": {200: accounts.PersonalAccessToken},
    f"DELETE {V4}/personal_access_tokens/self": {204: None},
    f"DELETE {V4}/personal_access_tokens/{{token_id}}": {204: None},
    f"POST {V4}/personal_access_tokens/self/rotate": {200: accounts.NewPersonalAccessToken},
    f"POST {V4}/personal_access_tokens/{{token_id}}/rotate": {200: accounts.NewPersonalAccessToken},
    f"GET {V4}/namespaces": {200: list[projects.Namespace]},
    f"GET {V4}/namespaces/{{namespace_id}}": {200: projects.Namespace},
    f"GET {V4}/namespaces/{{namespace_id}}/exists": {200: projects.NamespaceExists},
    f"GET {V4}/groups": {200: list[accounts.Group]},
    f"POST {V4}/groups": {201: accounts.Group},
    f"GET {V4}/groups/{{group_id}}": {200: accounts.Group},
    f"PUT {V4}/groups/{{group_id}}": {200: accounts.Group},
    f"DELETE {V4}/groups/{{group_id}}": {202: Message},
    f"GET {V4}/groups/{{group_id}}/subgroups": {200: list[accounts.Group]},
    f"GET {V4}/groups/{{group_id}}/projects": {200: list[projects.Project]},
    f"GET {V4}/projects": {200: list[projects.Project]},
    f"POST {V4}/projects": {201: projects.Project},
    f"GET {V4}/projects/{{project_id}}": {200: projects.Project},
    f"PUT {V4}/projects/{{project_id}}": {200: projects.Project},
    f"DELETE {V4}/projects/{{project_id}}": {202: Message},
    **_members("projects"),
    **_members("groups"),
    f"GET {V4}/admin/ci/variables": {200: list[Variable]},
    f"POST {V4}/admin/ci/variables": {201: Variable},
    f"GET {V4}/admin/ci/variables/{{key}}": {200: Variable},
    f"PUT {V4}/admin/ci/variables/{{key}}": {200: Variable},
    f"DELETE {V4}/admin/ci/variables/{{key}}": {204: None},
    f"GET {V4}/application/plan_limits": {200: instance.PlanLimits},
    f"PUT {V4}/application/plan_limits": {200: instance.PlanLimits},
    f"GET {V4}/application/settings": {200: instance.ApplicationSettings},
    f"PUT {V4}/application/settings": {200: instance.ApplicationSettings},
    f"GET {V4}/application/mail": {200: instance.MailSettings},
    f"POST {V4}/application/mail/test": {201: instance.MailTest},
    f"POST {V4}/projects/{{project_id}}/security/reports": {201: ReportImport},
    f"GET {V4}/projects/{{project_id}}/vulnerabilities": {200: list[Vulnerability]},
    f"GET {V4}/vulnerabilities/{{vulnerability_id}}": {200: Vulnerability},
    # 304 when the vulnerability is already in that state.
    **{f"POST {V4}/vulnerabilities/{{vulnerability_id}}/{action}": {201: Vulnerability, 304: None}
       for action in ("confirm", "resolve", "revert", "dismiss")},
    f"POST {V4}/security/projects/{{project_id}}/vulnerability_exports": {201: Export},
    f"POST {V4}/security/groups/{{group_id}}/vulnerability_exports": {201: Export},
    f"POST {V4}/security/vulnerability_exports": {201: Export},
    # 202 with Poll-Interval while the export is still being made.
    f"GET {V4}/security/vulnerability_exports/{{export_id}}": {200: Export, 202: Export},
    f"GET {V4}/security/vulnerability_exports/{{export_id}}/download": {200: EXPORT_FILE},
    f"POST {V4}/security/projects/{{project_id}}/vulnerability_archive_exports": {201: ArchiveExport},
    f"GET {V4}/security/vulnerability_archive_exports/{{export_id}}": {
        200: ArchiveExport, 202: ArchiveExport},
    f"GET {V4}/security/vulnerability_archive_exports/{{export_id}}/download": {200: EXPORT_FILE},
    **{f"{method} {V4}/projects/{{project_id}}/error_tracking/settings": {200: tracking.TrackingSettings}
       for method in ("GET", "PATCH", "PUT")},
    f"GET {V4}/projects/{{project_id}}/error_tracking/client_keys": {200: list[tracking.ClientKey]},
    f"POST {V4}/projects/{{project_id}}/error_tracking/client_keys": {201: tracking.ClientKey},
    f"DELETE {V4}/projects/{{project_id}}/error_tracking/client_keys/{{key_id}}": {
        200: tracking.ClientKey},
    f"GET {V4}/projects/{{project_id}}/error_tracking/retention": {200: Retention},
    f"PUT {V4}/projects/{{project_id}}/error_tracking/retention": {200: Retention},
    f"GET {V4}/error_tracking/storage": {200: Storage},
    f"GET {V4}/error_tracking/ingestion": {200: Ingestion},
}

_ALERTS = f"{S0}/projects/{{organization_slug}}/{{project_slug}}/alerts/"
_RELEASES = f"{S0}/projects/{{organization}}/{{project_slug}}/releases/"
_FILES = f"{_RELEASES}{{version}}/files/"
_PROJECT_FILES = f"{S0}/projects/{{organization}}/{{project_slug}}/files/"
_MONITORS = f"{S0}/organizations/{{organization_slug}}/monitors/"

_SENTRY: dict[str, dict[int, Body]] = {
    f"GET {_ALERTS}": {200: list[alerts.AlertRule]},
    f"POST {_ALERTS}": {201: alerts.AlertRule},
    f"PUT {_ALERTS}{{alert_id}}/": {200: alerts.AlertRule},
    f"DELETE {_ALERTS}{{alert_id}}/": {204: None},
    f"GET {_ALERTS}{{alert_id}}/deliveries/": {200: list[alerts.AlertDelivery]},
    f"POST {_ALERTS}{{alert_id}}/test/": {200: list[alerts.AlertTestResult]},
    f"GET {S0}/organizations/{{organization}}/chunk-upload/": {200: source_maps.ChunkUploadOptions},
    f"POST {S0}/organizations/{{organization}}/chunk-upload/": {200: None},
    f"POST {S0}/organizations/{{organization}}/artifactbundle/assemble/": {200: source_maps.AssembleState},
    f"POST {S0}/organizations/{{organization}}/releases/": {201: source_maps.Release, 208: source_maps.Release},
    f"POST {_RELEASES}": {201: source_maps.Release, 208: source_maps.Release},
    f"GET {_RELEASES}": {200: list[source_maps.Release]},
    f"GET {S0}/organizations/{{organization}}/releases/{{version}}/": {200: source_maps.Release},
    f"PUT {S0}/organizations/{{organization}}/releases/{{version}}/": {200: source_maps.Release},
    f"PUT {_RELEASES}{{version}}/": {200: source_maps.Release},
    f"GET {_FILES}": {200: list[source_maps.ReleaseFile]},
    f"POST {_FILES}": {201: source_maps.ReleaseFile},
    # The file's details, or with ?download=1 the file itself.
    f"GET {_FILES}{{file_id}}/": {200: source_maps.ReleaseFile},
    f"DELETE {_FILES}{{file_id}}/": {204: None},
    f"DELETE {_PROJECT_FILES}source-maps/": {204: None},
    f"POST {S0}/organizations/{{organization}}/releases/{{version}}/assemble/": {200: source_maps.AssembleState},
    f"GET {_PROJECT_FILES}artifact-bundles/": {200: list[source_maps.ArtifactBundle]},
    f"DELETE {_PROJECT_FILES}artifact-bundles/": {204: None},
    f"GET {S0}/projects/{{organization}}/{{project_slug}}/artifact-bundles/{{bundle_id}}/files/": {
        200: source_maps.ArtifactBundleFiles},
    f"GET {S0}/projects/": {200: list[SentryProject]},
    f"GET {S0}/projects/{{organization_slug}}/{{project_slug}}/": {200: SentryProjectDetails},
    f"GET {_MONITORS}": {200: list[monitors.Monitor]},
    f"GET {_MONITORS}{{monitor_slug}}/": {200: monitors.Monitor},
    f"PUT {_MONITORS}{{monitor_slug}}/": {200: monitors.Monitor},
    f"DELETE {_MONITORS}{{monitor_slug}}/": {202: None},
    f"GET {_MONITORS}{{monitor_slug}}/checkins/": {200: list[monitors.MonitorCheckIn]},
    f"GET {S0}/projects/{{organization_slug}}/{{project_slug}}/issues/": {200: list[sentry_issues.Issue]},
    f"PUT {S0}/issues/{{issue_id}}/": {200: sentry_issues.IssueDetails},
    f"PUT {S0}/projects/{{organization_slug}}/{{project_slug}}/issues/": {200: sentry_issues.IssuesUpdated, 204: None},
    f"GET {S0}/projects/{{organization_slug}}/{{project_slug}}/events/{{event_id}}/": {200: Event},
    **_issue_reads(f"{S0}/issues/{{issue_id}}/"),
    **_issue_reads(f"{S0}/projects/{{organization_slug}}/{{project_slug}}/issues/{{issue_id}}/"),
    **_web("", "GET", tracking.ErrorList),
    **_web("/{issue_id}/details", "GET", tracking.ErrorDetailBody),
    **_web("/{issue_id}/stack_trace", "GET", tracking.StackTraceBody),
    **_web("/{issue_id}", "PUT", tracking.ErrorUpdate),
    **_web("/projects", "GET", tracking.ExternalProjectList),
}

RESPONSES: dict[str, dict[int, Body]] = {**_GITLAB, **_SENTRY}

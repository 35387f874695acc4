"""The server's answers are outpost_model's entities: each reads into its declared type, with the types and
nullability checked, and written back gives the very same JSON, so no field is sent that the entity does
not declare. The console reads the answers the same way (outpost_model.decode).

The demo server has every kind of answer: integrated errors with events, payloads, release health,
settings and client keys. A server that adds, renames or retypes a field without its entity fails here.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from outpost_model import UNSET, Message, decode, encode
from outpost_model.accounts import Group, Member, NewPersonalAccessToken, PersonalAccessToken, User
from outpost_model.alerts import AlertDelivery, AlertRule, AlertTestResult
from outpost_model.error_tracking import (
    ClientKey,
    ErrorDetailBody,
    ErrorList,
    ErrorUpdate,
    StackFrame,
    StackTraceBody,
    TrackingSettings,
)
from outpost_model.exports import ArchiveExport, Export
from outpost_model.ingestion import Ingestion
from outpost_model.instance import ApplicationSettings, MailSettings, PlanLimits, Version
from outpost_model.monitors import Monitor, MonitorCheckIn
from outpost_model.projects import Namespace, NamespaceExists, Project
from outpost_model.retention import Retention, Storage
from outpost_model.sentry_events import (
    BreadcrumbsEntryData,
    Event,
    EventAccepted,
    EventSummary,
    ExceptionEntryData,
    MessageEntryData,
    RequestEntryData,
)
from outpost_model.sentry_issues import Issue, IssueDetails, IssuesUpdated, MergeResult, TagKey, TagValue
from outpost_model.sentry_projects import SentryProject, SentryProjectDetails
from outpost_model.source_maps import ArtifactBundle, AssembleState, ChunkUploadOptions, Release, ReleaseFile
from outpost_model.variables import Variable
from outpost_model.vulnerabilities import ReportImport, Vulnerability
from tests.support import launch_server

MODEL = Path(__file__).resolve().parents[2] / "model" / "outpost_model"
# The data of each kind of event entry, as declared.
ENTRY_DATA: dict[str, type] = {"exception": ExceptionEntryData, "message": MessageEntryData,
                               "breadcrumbs": BreadcrumbsEntryData, "request": RequestEntryData}
REPORTS = Path(__file__).resolve().parent / "exports" / "reports"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    server = launch_server(tmp_path_factory.mktemp("entities") / "server", demo=True)
    yield server
    server.stop()


def _reads_back_whole(response: httpx.Response, kind: Any) -> Any:
    assert response.status_code < 300, (response.request.url, response.text)
    entity = decode(response.content, kind)
    assert json.loads(encode(entity)) == response.json(), response.request.url
    return entity


def test_error_tracking_answers_are_their_entities(demo):
    web = httpx.Client(base_url=demo.url, headers={"PRIVATE-TOKEN": demo.root_token}, timeout=30)
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    api = demo.client()
    projects = [project for project in api.get("/projects", params={"per_page": 100}).json()
                if web.get(f"/{project['path_with_namespace']}/-/error_tracking.json").status_code == 200]
    assert projects, "the demo has a project with error tracking"
    checked_frames = 0
    checked_entries: set[str] = set()
    for project in projects:
        path = project["path_with_namespace"]
        listed = _reads_back_whole(web.get(f"/{path}/-/error_tracking.json", params={"issue_status": "unresolved"}),
                                   ErrorList)
        assert isinstance(listed, ErrorList)
        _reads_back_whole(api.get(f"/projects/{project['id']}/error_tracking/settings"), TrackingSettings)
        _reads_back_whole(api.get(f"/projects/{project['id']}/error_tracking/client_keys"), list[ClientKey])
        _reads_back_whole(api.get(f"/projects/{project['id']}/error_tracking/retention"), Retention)
        for error in listed.errors[:3]:
            _reads_back_whole(web.get(f"/{path}/-/error_tracking/{error.id}/details.json"), ErrorDetailBody)
            trace = _reads_back_whole(web.get(f"/{path}/-/error_tracking/{error.id}/stack_trace.json"),
                                      StackTraceBody)
            assert isinstance(trace, StackTraceBody)
            # The integrated backend's entries are GitLab's frames exactly.
            for frame in trace.error.stack_trace_entries:
                msgspec.convert(frame, StackFrame)
                checked_frames += 1
            _reads_back_whole(sentry.get(f"/api/0/issues/{error.id}/events/"), list[EventSummary])
            _reads_back_whole(sentry.get(f"/api/0/issues/{error.id}/"), IssueDetails)
            tags = _reads_back_whole(sentry.get(f"/api/0/issues/{error.id}/tags/"), list[TagKey])
            for tag in tags[:2]:
                _reads_back_whole(sentry.get(f"/api/0/issues/{error.id}/tags/{tag.key}/values/"), list[TagValue])
            event = _reads_back_whole(sentry.get(f"/api/0/issues/{error.id}/events/latest/"), Event)
            # Each entry's data has its declared shape (what the console reads it into).
            for entry in event.entries:
                if entry.type in ENTRY_DATA:
                    msgspec.convert(entry.data, ENTRY_DATA[entry.type])
                    checked_entries.add(entry.type)
        if listed.errors:
            error_id = listed.errors[0].id
            _reads_back_whole(web.put(f"/{path}/-/error_tracking/{error_id}.json", json={"status": "unresolved"}),
                              ErrorUpdate)
    assert checked_frames > 0
    assert "exception" in checked_entries, checked_entries
    _reads_back_whole(api.put(f"/projects/{projects[0]['id']}/error_tracking/retention", json={"retention_days": 30}),
                      Retention)
    _reads_back_whole(api.get("/error_tracking/storage"), Storage)
    _reads_back_whole(api.get("/error_tracking/ingestion"), Ingestion)


def test_project_and_namespace_answers_are_their_entities(demo):
    api = demo.client()
    projects = _reads_back_whole(api.get("/projects", params={"per_page": 100}), list[Project])
    assert projects, "the demo has projects"
    _reads_back_whole(api.get(f"/projects/{projects[0].id}"), Project)
    namespaces = _reads_back_whole(api.get("/namespaces"), list[Namespace])
    groups = [namespace for namespace in namespaces if namespace.kind == "group"]
    assert groups, "the demo has groups"
    # The root administers every group, so members_count_with_descendants is there.
    group = _reads_back_whole(api.get(f"/namespaces/{groups[0].id}"), Namespace)
    assert isinstance(group.members_count_with_descendants, int)
    _reads_back_whole(api.get(f"/groups/{groups[0].id}/projects"), list[Project])


def test_variable_and_export_answers_are_their_entities(demo):
    api = demo.client()
    variables = _reads_back_whole(api.get("/admin/ci/variables"), list[Variable])
    assert variables, "the demo has instance variables"
    _reads_back_whole(api.get(f"/admin/ci/variables/{variables[0].key}"), Variable)
    created = _reads_back_whole(api.post("/security/vulnerability_exports"), Export)
    _reads_back_whole(api.get(f"/security/vulnerability_exports/{created.id}"), Export)
    project = api.get("/projects", params={"search": "webshop"}).json()[0]
    vulnerable = next(p for p in api.get("/projects").json() if api.get(f"/projects/{p['id']}/vulnerabilities").json())
    vulnerabilities = _reads_back_whole(api.get(f"/projects/{vulnerable['id']}/vulnerabilities"), list[Vulnerability])
    _reads_back_whole(api.get(f"/vulnerabilities/{vulnerabilities[0].id}"), Vulnerability)
    state = "confirm" if vulnerabilities[0].state != "confirmed" else "revert"
    _reads_back_whole(api.post(f"/vulnerabilities/{vulnerabilities[0].id}/{state}"), Vulnerability)
    archive = _reads_back_whole(api.post(f"/security/projects/{project['id']}/vulnerability_archive_exports",
                                         data={"start_date": "2024-01-01", "end_date": "2024-12-31"}), ArchiveExport)
    _reads_back_whole(api.get(f"/security/vulnerability_archive_exports/{archive.id}"), ArchiveExport)


def test_alert_answers_are_their_entities(demo):
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    project = sentry.get("/api/0/projects/").json()[0]
    alerts = f"/api/0/projects/{project['organization']['slug']}/{project['slug']}/alerts/"
    # A webhook on this machine (nothing listens there: its test notification fails, and is logged).
    demo.client().put("/application/settings", json={"allow_local_requests_from_web_hooks_and_services": True}
                      ).raise_for_status()
    rule = _reads_back_whole(sentry.post(alerts, json={
        "name": "entities", "timespanMinutes": 1, "quantity": 1,
        "alertRecipients": [{"recipientType": "json_webhook", "url": "http://127.0.0.1:9/outpost"},
                            {"recipientType": "email", "addresses": ["ops@example.com"]}]}), AlertRule)
    assert any(isinstance(recipient.secret, str) for recipient in rule.alertRecipients), "shown once"
    _reads_back_whole(sentry.get(alerts), list[AlertRule])
    _reads_back_whole(sentry.put(f"{alerts}{rule.id}/", json={"name": "entities, renamed"}), AlertRule)
    _reads_back_whole(sentry.post(f"{alerts}{rule.id}/test/"), list[AlertTestResult])
    deliveries = _reads_back_whole(sentry.get(f"{alerts}{rule.id}/deliveries/"), list[AlertDelivery])
    assert deliveries, "the test notifications are in the log"


def test_sentry_project_and_monitor_answers_are_their_entities(demo):
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    projects = _reads_back_whole(sentry.get("/api/0/projects/"), list[SentryProject])
    org, slug = projects[0].organization.slug, projects[0].slug
    issues = _reads_back_whole(sentry.get(f"/api/0/projects/{org}/{slug}/issues/"), list[Issue])
    assert issues, "the demo's first project has issues"
    _reads_back_whole(sentry.get(f"/api/0/projects/{org}/{slug}/"), SentryProjectDetails)
    [key] = demo.client().get(f"/projects/{projects[0].id}/error_tracking/client_keys").json()[:1]
    collector = f"{demo.api_url}/error_tracking/collector/api/{projects[0].id}"
    accepted = _reads_back_whole(httpx.post(f"{collector}/store/", params={"sentry_key": key["public_key"]},
                                            json={"message": "entities", "level": "error"}), EventAccepted)
    assert isinstance(accepted.id, str)
    for monitor_config in ({"schedule": {"type": "interval", "value": 1, "unit": "day"}},
                           {"schedule": {"type": "crontab", "value": "0 3 * * *"}, "checkin_margin": 5}):
        slug_of_job = f"entities-{monitor_config['schedule']['type']}"
        sent = httpx.post(f"{collector}/cron/{slug_of_job}/{key['public_key']}/",
                          json={"status": "ok", "duration": 2, "monitor_config": monitor_config})
        assert sent.status_code == 202, sent.text
    demo.wait_for_digest()
    monitors = f"/api/0/organizations/{org}/monitors/"
    listed = _reads_back_whole(sentry.get(monitors), list[Monitor])
    assert {"entities-interval", "entities-crontab"} <= {monitor.slug for monitor in listed}
    for job in ("entities-interval", "entities-crontab"):
        _reads_back_whole(sentry.get(f"{monitors}{job}/"), Monitor)
        _reads_back_whole(sentry.get(f"{monitors}{job}/checkins/"), list[MonitorCheckIn])


def test_release_answers_are_their_entities(demo):
    """Releases and their files (the legacy upload flow); artifact bundles are read in
    tests/server/source_maps, where sentry-cli uploads them."""
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    project = sentry.get("/api/0/projects/").json()[0]
    base = f"/api/0/projects/{project['organization']['slug']}/{project['slug']}"
    release = _reads_back_whole(sentry.post(f"{base}/releases/", json={"version": "entities@1"}), Release)
    _reads_back_whole(sentry.get(f"{base}/releases/"), list[Release])
    uploaded = _reads_back_whole(sentry.post(f"{base}/releases/{release.version}/files/",
                                             files={"file": ("app.js", b"console.log(1)")}, data={"name": "~/app.js"}),
                                 ReleaseFile)
    _reads_back_whole(sentry.get(f"{base}/releases/{release.version}/files/"), list[ReleaseFile])
    _reads_back_whole(sentry.get(f"{base}/releases/{release.version}/files/{uploaded.id}/"), ReleaseFile)
    _reads_back_whole(sentry.get(f"{base}/files/artifact-bundles/"), list[ArtifactBundle])


def test_user_token_group_and_member_answers_are_their_entities(demo):
    api = demo.client()
    me = _reads_back_whole(api.get("/user"), User)
    assert isinstance(me.email, str), "the user sees their own private fields"
    users = _reads_back_whole(api.get("/users"), list[User])
    _reads_back_whole(api.get(f"/users/{users[0].id}"), User)
    token = _reads_back_whole(api.post(f"/users/{me.id}/personal_access_tokens",
                                       json={"name": "entities", "scopes": ["read_api"]}), NewPersonalAccessToken)
    _reads_back_whole(api.get("/personal_access_tokens"), list[PersonalAccessToken])
    _reads_back_whole(api.get(f"/personal_access_tokens/{token.id}"), PersonalAccessToken)
    _reads_back_whole(api.post(f"/personal_access_tokens/{token.id}/rotate"), NewPersonalAccessToken)
    groups = _reads_back_whole(api.get("/groups"), list[Group])
    _reads_back_whole(api.get(f"/groups/{groups[0].id}"), Group)
    _reads_back_whole(api.get(f"/groups/{groups[0].id}/subgroups"), list[Group])
    members = _reads_back_whole(api.get(f"/groups/{groups[0].id}/members"), list[Member])
    _reads_back_whole(api.get(f"/groups/{groups[0].id}/members/{members[0].id}"), Member)


def test_instance_answers_are_their_entities(demo):
    api = demo.client()
    version = _reads_back_whole(api.get("/version"), Version)
    assert version.kas.enabled is False
    group = next(namespace for namespace in api.get("/namespaces").json() if namespace["kind"] == "group")
    taken = _reads_back_whole(api.get(f"/namespaces/{group['path']}/exists"), NamespaceExists)
    assert taken.exists and taken.suggests, "a taken path comes with a free one"
    free = _reads_back_whole(api.get("/namespaces/nothing-is-called-this/exists"), NamespaceExists)
    assert not free.exists
    _reads_back_whole(api.get("/application/settings"), ApplicationSettings)
    # The value the alerts test sets too, so the tests hold in any order.
    _reads_back_whole(api.put("/application/settings", json={"allow_local_requests_from_web_hooks_and_services": True}),
                      ApplicationSettings)
    _reads_back_whole(api.get("/application/plan_limits"), PlanLimits)
    # Another plan than the default, whose ci_instance_level_variables is enforced.
    limits = _reads_back_whole(api.put("/application/plan_limits", json={"plan_name": "premium",
                                                                         "enforcement_limit": 500}), PlanLimits)
    assert limits.limits_history["enforcement_limit"][-1].value == 500
    _reads_back_whole(api.get("/application/mail"), MailSettings)
    project = _reads_back_whole(api.post("/projects", json={"name": "entities-reports"}), Project)
    imported = _reads_back_whole(api.post(f"/projects/{project.id}/security/reports",
                                          content=(REPORTS / "gl-sast-report.json").read_bytes(),
                                          headers={"Content-Type": "application/json"}), ReportImport)
    assert imported.created > 0
    _reads_back_whole(api.delete(f"/projects/{project.id}"), Message)
    user = _reads_back_whole(api.post("/users", json={"email": "entities@example.com", "username": "entities",
                                                      "name": "Entities", "password": "entities-password-1"}), User)
    assert _reads_back_whole(api.post(f"/users/{user.id}/block"), bool | None) is True


def test_sentry_update_and_upload_answers_are_their_entities(demo):
    api = demo.client()
    sentry = httpx.Client(base_url=demo.url, headers={"Authorization": f"Bearer {demo.root_token}"}, timeout=30)
    # The last project with two issues: the other tests read the first project's issues.
    project, issues = next((project, issues) for project in reversed(sentry.get("/api/0/projects/").json())
                           if len(issues := sentry.get(f"/api/0/projects/{project['organization']['slug']}/"
                                                       f"{project['slug']}/issues/").json()) >= 2)
    org, slug = project["organization"]["slug"], project["slug"]
    bulk = f"/api/0/projects/{org}/{slug}/issues/"
    first, second = issues[0]["id"], issues[1]["id"]
    ignored = _reads_back_whole(sentry.put(bulk, params={"id": first},
                                           json={"status": "ignored", "statusDetails": {"ignoreCount": 1000}}),
                                IssuesUpdated)
    assert ignored.statusDetails and ignored.inbox is None
    me = api.get("/user").json()
    # An assignee must be a member (409: the root is one already).
    assert api.post(f"/projects/{project['id']}/members", json={"user_id": me["id"], "access_level": 30}
                    ).status_code in (201, 409)
    assigned = _reads_back_whole(sentry.put(bulk, params={"id": first},
                                            json={"status": "unresolved", "assignedTo": me["username"]}),
                                 IssuesUpdated)
    assert assigned.assignedTo is not None and assigned.inbox is UNSET
    merged = _reads_back_whole(sentry.put(bulk, params={"id": [first, second]}, json={"merge": True}), IssuesUpdated)
    assert isinstance(merged.merge, MergeResult)

    organization = f"/api/0/organizations/{org}"
    options = _reads_back_whole(sentry.get(f"{organization}/chunk-upload/"), ChunkUploadOptions)
    assert "artifact_bundles" in options.accept
    data = b"not a zip archive, so assembling it fails"
    checksum = hashlib.sha1(data).hexdigest()
    body = {"checksum": checksum, "chunks": [checksum], "projects": [slug]}
    assemble = f"{organization}/artifactbundle/assemble/"
    missing = _reads_back_whole(sentry.post(assemble, json=body), AssembleState)
    assert missing.missingChunks == [checksum] and missing.detail is UNSET
    assert sentry.post(f"{organization}/chunk-upload/", files=[("file", (checksum, data))]).status_code == 200
    _reads_back_whole(sentry.post(assemble, json=body), AssembleState)
    failed = _reads_back_whole(sentry.post(assemble, json=body), AssembleState)
    assert failed.state == "error" and isinstance(failed.detail, str)
    release = sentry.post(f"/api/0/projects/{org}/{slug}/releases/", json={"version": "entities@assemble"}).json()
    release_assemble = f"{organization}/releases/{release['version']}/assemble/"
    _reads_back_whole(sentry.post(release_assemble, json={"checksum": checksum, "chunks": [checksum]}), AssembleState)
    polled = _reads_back_whole(sentry.post(release_assemble, json={"checksum": checksum, "chunks": [checksum]}),
                               AssembleState)
    assert polled.state in ("ok", "error") and polled.detail is not UNSET


def test_the_model_package_knows_nothing_of_the_server():
    """outpost_model imports only the standard library, msgspec and itself, so the console can install it
    without the server."""
    allowed = {"msgspec", "outpost_model", "__future__", *sys.stdlib_module_names}
    imported = set()
    for source in MODEL.glob("*.py"):
        for line in source.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                imported.add(words[1].split(".")[0])
    assert imported, "the scan found the package's imports"
    assert imported <= allowed, imported - allowed

"""Sentry's issue resources of a project whose backend is an external Sentry, fetched from that Sentry.

The project's stored auth token and address policy apply as for GitLab's own calls (`SentryClient`:
vetted and pinned address, no redirects, size limits); the caller's token never leaves this server.
Only issues of the configured Sentry project are relayed (GitLab's own check, on the issue's project
slug), so a token that sees more of that Sentry shows a reporter no other project's events. Bodies pass
through unchanged, in Sentry's shapes; the cursors of the `Link` header are kept and its URLs name
this server.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.deps import services_of
from outpost_server.entity_json import RelayedJson
from outpost_server.error_tracking import settings
from outpost_server.error_tracking.read import reading
from outpost_server.error_tracking.read.external.client import SentryResponse
from outpost_server.http_errors import ApiError
from outpost_server.params import Param, Params
from outpost_server.urls import public_base_url

from .access import detail, not_found
from .cursors import links_to

_LINK = re.compile(r'<[^>]*>;\s*rel="(?P<rel>\w+)";\s*results="(?P<results>\w+)";\s*cursor="(?P<cursor>[^"]*)"')
# How long an issue, once seen to belong to the configured Sentry project, is relayed without asking again.
OWNERSHIP_SECONDS = 60.0


def external_source(request: Request, session: Session, project: Project) -> reading.ErrorSource | None:
    """The project's external Sentry, or None when its errors are Outpost's own."""
    setting = settings.get_setting(session, project=project)
    if setting is None or not setting.enabled or setting.integrated:
        return None
    services = services_of(request.app)
    return reading.ErrorSource(session, project, setting, services.secret_key,
                               services.config.error_tracking_external_timeout, public_base_url(request))


def failure(read_failure: reading.ReadFailure) -> ApiError:
    """Sentry's `{"detail": ...}`: a 404 where the Sentry has no such issue (or it is another project's),
    otherwise GitLab's status and message for the failed call."""
    if read_failure.upstream_status == 404 or read_failure.message == reading.OUTSIDE_PROJECT:
        return not_found()
    return detail(read_failure.status, read_failure.message)


class OwnershipCache:
    """Issues already seen to belong to the configured project, per project and Sentry URL."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, str, str], float] = {}
        self._lock = threading.Lock()

    def fresh(self, key: tuple[int, str, str]) -> bool:
        with self._lock:
            seen = self._seen.get(key)
            return seen is not None and time.monotonic() - seen < OWNERSHIP_SECONDS

    def remember(self, key: tuple[int, str, str]) -> None:
        with self._lock:
            now = time.monotonic()
            if len(self._seen) > 10_000:
                self._seen = {k: t for k, t in self._seen.items() if now - t < OWNERSHIP_SECONDS}
            self._seen[key] = now


_ownership = OwnershipCache()


def issue(source: reading.ErrorSource, issue_id: str) -> RelayedJson:
    """The issue's details, refused when it belongs to another Sentry project."""
    try:
        body = reading.sentry_issue(source, issue_id)
    except reading.ReadFailure as read_failure:
        raise failure(read_failure) from None
    _ownership.remember((source.project.id, source.setting.api_url or "", issue_id))
    return RelayedJson(body)


def issue_resource(request: Request, source: reading.ErrorSource, issue_id: str, below: str,
                   params: Params | None = None, forwarded: tuple[Param, ...] = ()) -> RelayedJson:
    """GET `issues/:id/<below>` from the Sentry, with the `forwarded` parameters as sent (the Sentry
    judges them)."""
    key = (source.project.id, source.setting.api_url or "", issue_id)
    sent = {param.name: values for param in forwarded if params is not None and (values := params.every(param.name))}
    try:
        if not _ownership.fresh(key):
            reading.sentry_issue(source, issue_id)
            _ownership.remember(key)
        client = reading.sentry_client(source)
        response = reading.sentry_call(client.issue_resource, issue_id, below, sent)
    except reading.ReadFailure as read_failure:
        raise failure(read_failure) from None
    return _relayed(request, response)


def project_issues(request: Request, source: reading.ErrorSource, method: str, sent: dict[str, list[str]],
                   body: dict[str, Any] | None = None) -> Response:
    """The project's issue list, or a bulk update of its issues, from its Sentry (which judges the parameters
    and the body); an empty answer is Sentry's 204."""
    try:
        response = reading.sentry_call(reading.sentry_client(source).project_issues, method, sent, body)
    except reading.ReadFailure as read_failure:
        raise failure(read_failure) from None
    if method != "GET" and response.data is None:
        return Response(status_code=204)
    return _relayed(request, response)


def project_event(request: Request, source: reading.ErrorSource, event_id: str) -> RelayedJson:
    try:
        response = reading.sentry_call(reading.sentry_client(source).project_event, event_id)
    except reading.ReadFailure as read_failure:
        raise failure(read_failure) from None
    return _relayed(request, response)


def _relayed(request: Request, response: SentryResponse) -> RelayedJson:
    if response.data is None:
        raise detail(400, "Unexpected Error")
    pages = [(match["rel"], match["cursor"], match["results"] == "true")
             for match in _LINK.finditer(response.headers.get("link") or "")]
    link = links_to(request, pages) if pages else None
    return RelayedJson(response.data, headers={"Link": link} if link else None)

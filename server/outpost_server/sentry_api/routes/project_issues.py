"""An issue's resources named through its project, for either backend (an Outpost extension).

Sentry names an issue by its id alone (`/api/0/issues/:id/...`), which on Outpost means an error of
the integrated store. A project whose backend is an external Sentry lists that Sentry's issue ids,
which say nothing about which server holds them. Below `/api/0/projects/:org/:project/issues/:id/`
the same resources as Sentry's (details, events, latest, oldest, one event, tags, tag values) answer
for the project's current backend: from this server's store, or relayed to its external Sentry
(`relay`). One event by id (`/projects/:org/:project/events/:event_id/`) is Sentry's own path and
follows the backend the same way.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import SessionDep
from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read import events, reading, tracked_errors
from outpost_server.params import ParamsDep, query_params

from .. import relay
from ..access import Caller, CallerDep, not_found, project_for
from .events import EVENT_ID, EVENT_LIST_PARAMS, events_page, issue_event
from .issues import issue_details_response
from .tags import TAG_PARAMS, TAG_VALUE_PARAMS, tags_of, values_of

router = APIRouter()
ISSUE = "/projects/{organization_slug}/{project_slug}/issues/{issue_id}/"


def _target(request: Request, session: Session, caller: Caller, organization_slug: str, project_slug: str
            ) -> tuple[Project, reading.ErrorSource | None]:
    project = project_for(session, caller, organization_slug, project_slug)
    caller.require("event:read")
    return project, relay.external_source(request, session, project)


def _stored(session: Session, project: Project, issue_id: str) -> TrackedError:
    error = tracked_errors.get_error(session, project=project, error_id=issue_id)
    if error is None:
        raise not_found()
    return error


@router.get(ISSUE, openapi_extra=query_params())
def project_issue(request: Request, session: SessionDep, caller: CallerDep, organization_slug: str,
                  project_slug: str, issue_id: str) -> Response:
    project, external = _target(request, session, caller, organization_slug, project_slug)
    if external is not None:
        return relay.issue(external, issue_id)
    return issue_details_response(request, session, project, _stored(session, project, issue_id))


@router.get(ISSUE + "events/", openapi_extra=query_params(*EVENT_LIST_PARAMS))
def project_issue_events(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                         organization_slug: str, project_slug: str, issue_id: str) -> Response:
    project, external = _target(request, session, caller, organization_slug, project_slug)
    if external is not None:
        return relay.issue_resource(request, external, issue_id, "events/", params, EVENT_LIST_PARAMS)
    return events_page(request, params, session, project, _stored(session, project, issue_id))


@router.get(ISSUE + "events/{which}/", openapi_extra=query_params())
def project_issue_event(request: Request, session: SessionDep, caller: CallerDep, organization_slug: str,
                        project_slug: str, issue_id: str, which: str) -> Response:
    """`latest`, `oldest` or an event id."""
    project, external = _target(request, session, caller, organization_slug, project_slug)
    if external is not None:
        if which not in ("latest", "oldest") and not EVENT_ID.fullmatch(which):
            raise not_found()
        return relay.issue_resource(request, external, issue_id, f"events/{which}/")
    return issue_event(session, project, _stored(session, project, issue_id), which)


@router.get(ISSUE + "tags/", openapi_extra=query_params(*TAG_PARAMS))
def project_issue_tags(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                       organization_slug: str, project_slug: str, issue_id: str) -> Response:
    project, external = _target(request, session, caller, organization_slug, project_slug)
    if external is not None:
        return relay.issue_resource(request, external, issue_id, "tags/", params, TAG_PARAMS)
    return tags_of(params, session, _stored(session, project, issue_id))


@router.get(ISSUE + "tags/{key}/values/", openapi_extra=query_params(*TAG_VALUE_PARAMS))
def project_issue_tag_values(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                             organization_slug: str, project_slug: str, issue_id: str, key: str) -> Response:
    project, external = _target(request, session, caller, organization_slug, project_slug)
    if external is not None:
        below = f"tags/{quote(key, safe='')}/values/"
        return relay.issue_resource(request, external, issue_id, below, params, TAG_VALUE_PARAMS)
    return values_of(request, params, session, _stored(session, project, issue_id), key)


@router.get("/projects/{organization_slug}/{project_slug}/events/{event_id}/", openapi_extra=query_params())
def project_event(request: Request, session: SessionDep, caller: CallerDep, organization_slug: str,
                  project_slug: str, event_id: str) -> Response:
    project, external = _target(request, session, caller, organization_slug, project_slug)
    if not EVENT_ID.fullmatch(event_id):
        raise not_found()
    if external is not None:
        return relay.project_event(request, external, event_id)
    row = events.find_event(session, project_id=project.id, event_id=event_id)
    error = session.get(TrackedError, row.error_id) if row is not None else None
    if error is None:
        raise not_found()
    return issue_event(session, project, error, event_id)

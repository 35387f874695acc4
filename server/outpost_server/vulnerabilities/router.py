"""GitLab's vulnerabilities API and Outpost's security report upload."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response

from outpost_server import http_errors
from outpost_server.accounts.service import find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, ParamsDep, body_params, query_params
from outpost_server.vulnerabilities import service
from outpost_server.vulnerabilities.entities import vulnerability_entity
from outpost_server.vulnerabilities.models import DISMISSAL_REASONS, REPORT_TYPES, SEVERITIES, STATES, Vulnerability
from outpost_server.vulnerabilities.reports import ReportError, parse_report
from outpost_server.vulnerabilities.service import READ_LEVEL, TRIAGE_LEVEL

router = APIRouter(tags=["vulnerabilities"])

# The report upload reads the body itself: a JSON document, or a multipart form with a `file` field.
REPORT_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"type": "object"}},
    "multipart/form-data": {"schema": {"type": "object", "required": ["file"],
                                       "properties": {"file": {"type": "string", "format": "binary"}}}},
}}}
LIST_FILTERS = (Param("state", "array", choices=STATES), Param("severity", "array", choices=SEVERITIES),
                Param("report_type", "array", choices=REPORT_TYPES))


async def report_content(request: Request) -> bytes:
    """The report: the raw request body, or the `file` field of a multipart upload."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "multipart/form-data":
        form = await request.form()
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise http_errors.missing_params("file")
        return await upload.read()
    return await request.body()


@router.post("/projects/{project_id}/security/reports", status_code=201, openapi_extra=REPORT_BODY)
def upload_report(session: SessionDep, user: CurrentUserDep, content: Annotated[bytes, Depends(report_content)],
                  project_id: str) -> Response:
    project = find_project_for(session, project_id, user, READ_LEVEL)
    try:
        report = parse_report(content)
    except ReportError as exc:
        raise http_errors.bad_request(str(exc)) from None
    return EntityResponse(service.import_report(session, project=project, report=report), status_code=201)


@router.get("/projects/{project_id}/vulnerabilities", openapi_extra=paginated(*LIST_FILTERS))
def list_project_vulnerabilities(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                                 params: ParamsDep, project_id: str) -> Response:
    project = find_project_for(session, project_id, user, READ_LEVEL)
    state, severity, report_type = (params.list(param.name) for param in LIST_FILTERS)
    stmt = service.vulnerabilities_query(project=project, states=state, severities=severity, report_types=report_type)
    return EntityResponse([vulnerability_entity(v) for v in paginate(session, stmt, params, request, response)],
                          headers=response.headers)


def _find_vulnerability(session, user, vulnerability_id: str, min_level: int) -> Vulnerability:
    try:
        return service.find_vulnerability(session, user=user, vulnerability_id=vulnerability_id, min_level=min_level)
    except service.VulnerabilityRefused as refused:
        raise http_errors.forbidden() if refused.visible else http_errors.not_found("Vulnerability") from None


@router.get("/vulnerabilities/{vulnerability_id}", openapi_extra=query_params())
def get_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str) -> Response:
    return EntityResponse(vulnerability_entity(_find_vulnerability(session, user, vulnerability_id, READ_LEVEL)))


def _transition(session, user, vulnerability_id: str, action: str, *, comment: str | None = None,
                dismissal_reason: str | None = None):
    vulnerability = _find_vulnerability(session, user, vulnerability_id, TRIAGE_LEVEL)
    if vulnerability.state == service.TRANSITIONS[action]:
        return Response(status_code=304)
    service.change_state(session, vulnerability=vulnerability, user=user, action=action, comment=comment,
                         dismissal_reason=dismissal_reason)
    return EntityResponse(vulnerability_entity(vulnerability), status_code=201)


@router.post("/vulnerabilities/{vulnerability_id}/confirm", status_code=201, openapi_extra=body_params())
def confirm_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str) -> Response:
    return _transition(session, user, vulnerability_id, "confirm")


@router.post("/vulnerabilities/{vulnerability_id}/resolve", status_code=201, openapi_extra=body_params())
def resolve_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str) -> Response:
    return _transition(session, user, vulnerability_id, "resolve")


@router.post("/vulnerabilities/{vulnerability_id}/revert", status_code=201, openapi_extra=body_params())
def revert_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str) -> Response:
    return _transition(session, user, vulnerability_id, "revert")


@router.post("/vulnerabilities/{vulnerability_id}/dismiss", status_code=201,
             openapi_extra=body_params(Param("comment"), Param("dismissal_reason", choices=DISMISSAL_REASONS)))
def dismiss_vulnerability(session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                          vulnerability_id: str) -> Response:
    comment = params.str("comment")
    reason = params.choice("dismissal_reason", DISMISSAL_REASONS)
    return _transition(session, user, vulnerability_id, "dismiss", comment=comment, dismissal_reason=reason)

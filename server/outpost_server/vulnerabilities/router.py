"""GitLab's vulnerabilities API and Outpost's security report upload."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from sqlalchemy import case, select

from outpost_server import http_errors
from outpost_server.accounts import access
from outpost_server.accounts.service import find_project_for, project_access_level
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep, parse_id
from outpost_server.pagination import PAGINATED, paginate
from outpost_server.params import Param, ParamsDep, body_params, query_params
from outpost_server.vulnerabilities import service
from outpost_server.vulnerabilities.entities import vulnerability_entity
from outpost_server.vulnerabilities.models import DISMISSAL_REASONS, REPORT_TYPES, SEVERITIES, STATES, Vulnerability
from outpost_server.vulnerabilities.reports import ReportError, parse_report

router = APIRouter(tags=["vulnerabilities"])

# read_security_resource and report upload need Developer; status changes (admin_vulnerability) need
# Maintainer since GitLab 17.0.
READ_LEVEL = access.DEVELOPER
TRIAGE_LEVEL = access.MAINTAINER
# The report upload reads the body itself: a JSON document, or a multipart form with a `file` field.
REPORT_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"type": "object"}},
    "multipart/form-data": {"schema": {"type": "object", "required": ["file"],
                                       "properties": {"file": {"type": "string", "format": "binary"}}}},
}}}
LIST_FILTERS = (Param("state", "array", choices=STATES), Param("severity", "array", choices=SEVERITIES),
                Param("report_type", "array", choices=REPORT_TYPES))
SEVERITY_ORDER = case({name: rank for rank, name in enumerate(SEVERITIES)}, value=Vulnerability.severity, else_=99)


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
                  project_id: str):
    project = find_project_for(session, project_id, user, READ_LEVEL)
    try:
        report = parse_report(content)
    except ReportError as exc:
        raise http_errors.bad_request(str(exc)) from None
    return service.import_report(session, project=project, report=report).as_dict()


def _filter_list(params, name: str, allowed: tuple[str, ...]) -> list[str] | None:
    values = params.list(name)
    if values is not None and any(value not in allowed for value in values):
        raise http_errors.invalid_value(name)
    return values


@router.get("/projects/{project_id}/vulnerabilities", dependencies=[PAGINATED],
            openapi_extra=query_params(*LIST_FILTERS))
def list_project_vulnerabilities(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                                 params: ParamsDep, project_id: str):
    project = find_project_for(session, project_id, user, READ_LEVEL)
    stmt = select(Vulnerability).where(Vulnerability.project_id == project.id)
    for param, column in zip(LIST_FILTERS, (Vulnerability.state, Vulnerability.severity, Vulnerability.report_type),
                             strict=True):
        if (values := _filter_list(params, param.name, param.choices)) is not None:
            stmt = stmt.where(column.in_(values))
    stmt = stmt.order_by(SEVERITY_ORDER, Vulnerability.id.desc())
    return [vulnerability_entity(v) for v in paginate(session, stmt, request, response)]


def _find_vulnerability(session, user, vulnerability_id: str, min_level: int) -> Vulnerability:
    row_id = parse_id(vulnerability_id)
    vulnerability = session.get(Vulnerability, row_id) if row_id is not None else None
    if vulnerability is None:
        raise http_errors.not_found("Vulnerability")
    level = project_access_level(session, user, vulnerability.project)
    if not user.is_admin and level < min_level:
        # Members without the permission learn it exists; everyone else gets a plain 404.
        if level >= access.GUEST:
            raise http_errors.forbidden()
        raise http_errors.not_found("Vulnerability")
    return vulnerability


@router.get("/vulnerabilities/{vulnerability_id}", openapi_extra=query_params())
def get_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str):
    return vulnerability_entity(_find_vulnerability(session, user, vulnerability_id, READ_LEVEL))


def _transition(session, user, vulnerability_id: str, action: str, *, comment: str | None = None,
                dismissal_reason: str | None = None):
    vulnerability = _find_vulnerability(session, user, vulnerability_id, TRIAGE_LEVEL)
    if vulnerability.state == service.TRANSITIONS[action]:
        return Response(status_code=304)
    service.change_state(session, vulnerability=vulnerability, user=user, action=action, comment=comment,
                         dismissal_reason=dismissal_reason)
    return vulnerability_entity(vulnerability)


@router.post("/vulnerabilities/{vulnerability_id}/confirm", status_code=201, openapi_extra=body_params())
def confirm_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str):
    return _transition(session, user, vulnerability_id, "confirm")


@router.post("/vulnerabilities/{vulnerability_id}/resolve", status_code=201, openapi_extra=body_params())
def resolve_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str):
    return _transition(session, user, vulnerability_id, "resolve")


@router.post("/vulnerabilities/{vulnerability_id}/revert", status_code=201, openapi_extra=body_params())
def revert_vulnerability(session: SessionDep, user: CurrentUserDep, vulnerability_id: str):
    return _transition(session, user, vulnerability_id, "revert")


@router.post("/vulnerabilities/{vulnerability_id}/dismiss", status_code=201,
             openapi_extra=body_params(Param("comment"), Param("dismissal_reason", choices=DISMISSAL_REASONS)))
def dismiss_vulnerability(session: SessionDep, user: CurrentUserDep, params: ParamsDep, vulnerability_id: str):
    comment = params.str("comment")
    reason = params.choice("dismissal_reason", DISMISSAL_REASONS)
    return _transition(session, user, vulnerability_id, "dismiss", comment=comment, dismissal_reason=reason)

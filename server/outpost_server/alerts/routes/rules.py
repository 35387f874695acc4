"""GlitchTip's project alerts API under Sentry's web API (`/api/0/projects/{org}/{project}/alerts/`), with
Outpost's extension fields, the delivery log and test notifications.

Reading needs Reporter access (like the project's issues); changing rules, Maintainer or more and a
token with `api` scope. Bodies follow GlitchTip: `{"detail": ...}` for 403 and 404, and
`{"field": ["message"]}` for a 400.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import SessionDep
from outpost_server.deps import SecretKeyDep, ServicesDep
from outpost_server.error_tracking.access import may_manage
from outpost_server.http_errors import ApiError
from outpost_server.params import Param, ParamsDep, body_params, query_params
from outpost_server.security import SecretBox
from outpost_server.sentry_api.access import NO_PERMISSION, Caller, CallerDep, detail, not_found, project_for
from outpost_server.sentry_api.bodies import json_body
from outpost_server.sentry_api.cursors import CURSOR, limit_param, offset_links, page_limit, parse_cursor, sentry_json
from outpost_server.urls import public_base_url

from .. import delivery, service
from ..entities import delivery_json, rule_json
from ..models import AlertRule
from ..rule_input import RuleInvalid, read_rule

router = APIRouter(tags=["alerts"])

ALERTS = "/projects/{organization_slug}/{project_slug}/alerts/"
ALERT = ALERTS + "{alert_id}/"
RULE_PARAMS = (
    Param("name"), Param("timespanMinutes", "integer"), Param("quantity", "integer"), Param("uptime", "boolean"),
    Param("alertRecipients", "array"), Param("environment"), Param("environments", "array"),
    Param("users", "integer"), Param("onNewError", "boolean"), Param("onRegression", "boolean"),
    Param("onMonitorFailure", "boolean"), Param("monitorSlug"),
    Param("minLevel", choices=("debug", "info", "warning", "error", "fatal")), Param("release"),
    Param("cooldownMinutes", "integer"), Param("hourlyCap", "integer"))
BodyDep = Annotated[dict[str, Any], Depends(json_body)]


def _maintained_project(session: Session, caller: Caller, organization_slug: str, project_slug: str) -> Project:
    project = project_for(session, caller, organization_slug, project_slug)
    caller.require("event:write")
    if not may_manage(session, caller.user, project):
        raise detail(403, NO_PERMISSION)
    return project


def _rule(session: Session, project: Project, alert_id: str) -> AlertRule:
    rule = service.find_rule(session, project=project, rule_id=alert_id)
    if rule is None:
        raise not_found()
    return rule


def _read(body: dict[str, Any], *, partial: bool):
    try:
        return read_rule(body, partial=partial)
    except RuleInvalid as invalid:
        raise ApiError(400, invalid.messages) from None


def _shown_urls(secret_key: str, rules: list[AlertRule], *, maintainer: bool) -> dict[int, str]:
    """Each recipient's URL as the caller may see it: whole for a Maintainer, masked for anyone else."""
    box = SecretBox(secret_key)
    return {recipient.id: service.shown_url(recipient, box, maintainer=maintainer)
            for rule in rules for recipient in rule.recipients}


def _link_base(request: Request) -> str:
    return public_base_url(request).rstrip("/")


@router.get(ALERTS, openapi_extra=query_params(CURSOR, limit_param("limit")))
def list_alerts(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep, secret_key: SecretKeyDep,
                organization_slug: str, project_slug: str) -> Response:
    project = project_for(session, caller, organization_slug, project_slug)
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "limit")
    offset = cursor.offset if cursor else 0
    rules = service.rules_of(session, project=project)
    link = offset_links(request, offset=offset, limit=limit, has_more=offset + limit < len(rules))
    page = rules[offset:offset + limit]
    urls = _shown_urls(secret_key, page, maintainer=may_manage(session, caller.user, project))
    return sentry_json([rule_json(rule, urls) for rule in page], link=link)


def _saved(session: Session, change: Callable[[], service.SavedRule]) -> service.SavedRule:
    """The rule as `change` saved it (flushed, so new recipients have their ids), or GlitchTip's 400."""
    try:
        saved = change()
    except RuleInvalid as invalid:
        raise ApiError(400, invalid.messages) from None
    session.flush()
    return saved


@router.post(ALERTS, status_code=201, openapi_extra=body_params(*RULE_PARAMS))
def create_alert(request: Request, session: SessionDep, caller: CallerDep, body: BodyDep, secret_key: SecretKeyDep,
                 organization_slug: str, project_slug: str) -> Response:
    project = _maintained_project(session, caller, organization_slug, project_slug)
    data = _read(body, partial=False)
    saved = _saved(session, lambda: service.create_rule(
        session, project=project, data=data, box=SecretBox(secret_key),
        link_base=_link_base(request)))
    response = sentry_json(rule_json(saved.rule, _shown_urls(secret_key, [saved.rule], maintainer=True),
                                     saved.new_secrets))
    response.status_code = 201
    return response


@router.put(ALERT, openapi_extra=body_params(*RULE_PARAMS))
def update_alert(request: Request, session: SessionDep, caller: CallerDep, body: BodyDep, secret_key: SecretKeyDep,
                 organization_slug: str, project_slug: str, alert_id: str) -> Response:
    project = _maintained_project(session, caller, organization_slug, project_slug)
    rule = _rule(session, project, alert_id)
    data = _read(body, partial=True)
    saved = _saved(session, lambda: service.update_rule(
        session, rule=rule, data=data, box=SecretBox(secret_key), link_base=_link_base(request)))
    return sentry_json(rule_json(saved.rule, _shown_urls(secret_key, [saved.rule], maintainer=True),
                                 saved.new_secrets))


@router.delete(ALERT, status_code=204, openapi_extra=query_params())
def delete_alert(session: SessionDep, caller: CallerDep, organization_slug: str, project_slug: str,
                 alert_id: str) -> Response:
    project = _maintained_project(session, caller, organization_slug, project_slug)
    service.delete_rule(session, rule=_rule(session, project, alert_id))
    return Response(status_code=204)


@router.get(ALERT + "deliveries/", openapi_extra=query_params(CURSOR, limit_param("limit")))
def list_deliveries(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                    organization_slug: str, project_slug: str, alert_id: str) -> Response:
    """Outpost extension: the rule's delivery log, newest first."""
    project = project_for(session, caller, organization_slug, project_slug)
    rule = _rule(session, project, alert_id)
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "limit")
    offset = cursor.offset if cursor else 0
    rows = service.deliveries_of(session, rule=rule, limit=limit + 1, offset=offset)
    link = offset_links(request, offset=offset, limit=limit, has_more=len(rows) > limit)
    return sentry_json([delivery_json(row) for row in rows[:limit]], link=link)


@router.post(ALERT + "test/", openapi_extra=query_params(Param("recipient_id", "integer")))
def test_alert(services: ServicesDep, session: SessionDep, caller: CallerDep, params: ParamsDep,
               organization_slug: str, project_slug: str, alert_id: str) -> Response:
    """GlitchTip's test endpoint: sends a test notification to each recipient (or `recipient_id`) now and
    answers `[{recipientType, status: sent|error, message}]`; each is also written to the delivery log."""
    project = _maintained_project(session, caller, organization_slug, project_slug)
    rule = _rule(session, project, alert_id)
    context = delivery.context_of(services.config, secret_key=services.secret_key)
    tests = delivery.send_tests(session, rule=rule, recipient_id=params.str("recipient_id"), context=context)
    return sentry_json(tests)

"""Tag facets of an issue: its tag keys with their top values, and every value of one key."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read import events
from outpost_server.params import Param, Params, ParamsDep, query_params

from ..access import CallerDep, issue_for, not_found
from ..cursors import CURSOR, limit_param, offset_links, page_limit, parse_cursor, sentry_json
from ..serializers import tag_key_json, tag_value_json

router = APIRouter()

# Sentry's default: 10 values per key, 9 when keys are asked for (its tag distribution bars).
TOP_VALUES = 10
TOP_VALUES_FOR_KEYS = 9
MAX_TOP_VALUES = 100
TAG_PARAMS = (Param("key", "array"), Param("limit", "integer", minimum=0))
TAG_VALUE_PARAMS = (CURSOR, limit_param("per_page"), limit_param("limit", None))


def tags_of(params: Params, session: Session, error: TrackedError) -> EntityResponse:
    """Every `key=` sent (repeated, as Sentry's clients send them), with `limit` top values each."""
    keys = params.every("key")
    limit_text = params.str("limit")
    if not limit_text:
        value_limit = TOP_VALUES_FOR_KEYS if keys else TOP_VALUES
    else:
        value_limit = min(int(limit_text), MAX_TOP_VALUES)
    facets = events.tag_facets(session, error=error, keys=keys or None, value_limit=value_limit)
    return sentry_json([tag_key_json(facet) for facet in facets])


def values_of(request: Request, params: Params, session: Session, error: TrackedError, key: str) -> EntityResponse:
    if not events.has_tag(session, error=error, key=key):
        raise not_found()
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "per_page", "limit")
    offset = cursor.offset if cursor else 0
    rows, has_more = events.tag_values(session, error=error, key=key, offset=offset, limit=limit)
    return sentry_json([tag_value_json(row) for row in rows],
                       link=offset_links(request, offset=offset, limit=limit, has_more=has_more))


@router.get("/issues/{issue_id}/tags/", openapi_extra=query_params(*TAG_PARAMS))
def issue_tags(session: SessionDep, caller: CallerDep, params: ParamsDep, issue_id: str) -> Response:
    _project, error = issue_for(session, caller, issue_id)
    return tags_of(params, session, error)


@router.get("/issues/{issue_id}/tags/{key}/values/", openapi_extra=query_params(*TAG_VALUE_PARAMS))
def tag_values(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep, issue_id: str,
               key: str) -> Response:
    _project, error = issue_for(session, caller, issue_id)
    return values_of(request, params, session, error, key)

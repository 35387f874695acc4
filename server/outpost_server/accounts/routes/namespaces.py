"""GitLab's /namespaces endpoints: list, read, and whether a path is free."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from outpost_model.projects import Namespace as NamespaceEntity
from outpost_model.projects import NamespaceExists
from outpost_server.accounts import access, listing
from outpost_server.accounts.entities import namespace_entity
from outpost_server.accounts.models import Group, Namespace, User
from outpost_server.accounts.service import find_namespace_for, group_access_level
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, ParamsDep, query_params

router = APIRouter(tags=["namespaces"])


def _entity(request: Request, session, user: User, namespace: Namespace) -> NamespaceEntity:
    count = None
    # members_count_with_descendants is shown to those who administer the group (GitLab's admin_group).
    if isinstance(namespace, Group) and (user.is_admin or group_access_level(session, user, namespace) >= access.OWNER):
        count = listing.members_count_with_descendants(session, namespace)
    return namespace_entity(request, namespace, members_count=count)


@router.get("/namespaces", openapi_extra=paginated(
    Param("search"), Param("owned_only", "boolean", default=False), Param("top_level_only", "boolean", default=False),
    Param("full_path_search", "boolean", default=False)))
def list_namespaces(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                    params: ParamsDep) -> Response:
    stmt = listing.namespaces_stmt(session, user=user, search=params.str("search"),
                                   owned_only=params.bool("owned_only", False),
                                   top_level_only=params.bool("top_level_only", False),
                                   full_path_search=params.bool("full_path_search", False))
    page = [_entity(request, session, user, n) for n in paginate(session, stmt, params, request, response)]
    return EntityResponse(page, headers=response.headers)


@router.get("/namespaces/{namespace_id}")
def get_namespace(request: Request, session: SessionDep, user: CurrentUserDep, namespace_id: str) -> Response:
    return EntityResponse(_entity(request, session, user, find_namespace_for(session, namespace_id, user)))


@router.get("/namespaces/{namespace_id}/exists", openapi_extra=query_params(Param("parent_id", "integer")))
def namespace_exists(session: SessionDep, user: CurrentUserDep, params: ParamsDep, namespace_id: str) -> Response:
    """Whether the path (namespace_id is a path here) is taken among the parent's children, or at the top."""
    parent_id = params.int("parent_id")
    exists = listing.path_taken(session, namespace_id, parent_id=parent_id)
    suggests = [listing.free_path_suggestion(session, namespace_id, parent_id=parent_id)] if exists else []
    return EntityResponse(NamespaceExists(exists=exists, suggests=suggests))

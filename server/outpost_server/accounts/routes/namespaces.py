"""GitLab's /namespaces endpoints: list, read, and whether a path is free."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from outpost_server.accounts import access, listing
from outpost_server.accounts.entities import namespace_entity
from outpost_server.accounts.models import Group, Namespace, User
from outpost_server.accounts.service import find_namespace_for, group_access_level
from outpost_server.auth import CurrentUserDep
from outpost_server.db import MAX_ROW_ID, SessionDep
from outpost_server.pagination import PAGINATED, paginate

router = APIRouter(tags=["namespaces"])


def _entity(request: Request, session, user: User, namespace: Namespace) -> dict:
    count = None
    # members_count_with_descendants is shown to those who administer the group (GitLab's admin_group).
    if isinstance(namespace, Group) and (user.is_admin or group_access_level(session, user, namespace) >= access.OWNER):
        count = listing.members_count_with_descendants(session, namespace)
    return namespace_entity(request, namespace, members_count=count)


@router.get("/namespaces", dependencies=[PAGINATED])
def list_namespaces(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                    search: Annotated[str | None, Query()] = None,
                    owned_only: Annotated[bool, Query()] = False,
                    top_level_only: Annotated[bool, Query()] = False,
                    full_path_search: Annotated[bool, Query()] = False):
    stmt = listing.namespaces_stmt(session, user=user, search=search, owned_only=owned_only,
                                   top_level_only=top_level_only, full_path_search=full_path_search)
    return [_entity(request, session, user, n) for n in paginate(session, stmt, request, response)]


@router.get("/namespaces/{namespace_id}")
def get_namespace(request: Request, session: SessionDep, user: CurrentUserDep, namespace_id: str):
    return _entity(request, session, user, find_namespace_for(session, namespace_id, user))


@router.get("/namespaces/{namespace_id}/exists")
def namespace_exists(session: SessionDep, user: CurrentUserDep, namespace_id: str,
                     parent_id: Annotated[int | None, Query(ge=0, le=MAX_ROW_ID)] = None):
    """Whether the path (namespace_id is a path here) is taken among the parent's children, or at the top."""
    exists = listing.path_taken(session, namespace_id, parent_id=parent_id)
    suggests = [listing.free_path_suggestion(session, namespace_id, parent_id=parent_id)] if exists else []
    return {"exists": exists, "suggests": suggests}

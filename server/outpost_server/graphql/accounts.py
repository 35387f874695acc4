"""Query.currentUser, Query.project and the Project fields other than error tracking."""

from __future__ import annotations

from typing import Any

from ariadne import ObjectType
from graphql import GraphQLResolveInfo

from outpost_server.accounts.models import Project
from outpost_server.accounts.service import find_project_for
from outpost_server.domain_errors import DomainError
from outpost_server.graphql import global_ids
from outpost_server.graphql.context import context_of

query = ObjectType("Query")
project_type = ObjectType("Project")


@query.field("currentUser")
def resolve_current_user(_root: None, info: GraphQLResolveInfo) -> dict[str, Any] | None:
    context = context_of(info)
    user = context.user
    if user is None:
        return None
    return {
        "avatarUrl": None,
        "bot": False,
        "id": global_ids.build(global_ids.USER, user.id),
        "name": user.name,
        "publicEmail": None,
        "username": user.username,
        "webPath": f"/{user.username}",
        "webUrl": f"{context.base_url}/{user.username}",
    }


@query.field("project")
def resolve_project(_root: None, info: GraphQLResolveInfo, fullPath: str) -> Project | None:  # noqa: N803
    """The project when the caller can see it; null otherwise, so a private project's existence stays hidden."""
    context = context_of(info)
    try:
        project = find_project_for(context.session, fullPath, context.user)
    except DomainError:
        return None
    # find_project_for also takes numeric ids; GitLab's fullPath is a path only (in any case).
    return project if project.full_path.lower() == fullPath.lower() else None


@project_type.field("id")
def resolve_project_id(project: Project, _info: GraphQLResolveInfo) -> str:
    return global_ids.build(global_ids.PROJECT, project.id)


@project_type.field("fullPath")
def resolve_full_path(project: Project, _info: GraphQLResolveInfo) -> str:
    return project.full_path

"""GitLab's user, group, project, member and token entities, built from the rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec
from fastapi import Request

from outpost_model import UNSET, Message
from outpost_model import accounts as entities
from outpost_model.projects import Namespace as NamespaceEntity
from outpost_model.projects import Project as ProjectEntity
from outpost_server.accounts.models import (
    Group,
    GroupMember,
    Namespace,
    PersonalAccessToken,
    Project,
    ProjectMember,
    User,
    UserNamespace,
)
from outpost_server.compat.gitlab_time import iso, iso_date
from outpost_server.urls import public_base_url

# GitLab's `accepted!`: a deletion is scheduled (answered 202).
ACCEPTED = Message(message="202 Accepted")


def _basic_fields(request: Request, user: User) -> dict[str, Any]:
    return {"id": user.id, "username": user.username, "name": user.name, "state": user.state, "locked": False,
            "avatar_url": None, "web_url": f"{public_base_url(request)}/{user.username}"}


def user_entity(request: Request, user: User, *, with_private: bool = False) -> entities.User:
    body = entities.User(**_basic_fields(request, user), created_at=iso(user.created_at), bio=user.bio,
                         public_email=None)
    if with_private:
        body = msgspec.structs.replace(
            body, email=user.email, is_admin=user.is_admin, can_create_group=user.can_create_group,
            can_create_project=user.projects_limit > 0, projects_limit=user.projects_limit,
            two_factor_enabled=False, external=False)
    return body


def namespace_entity(request: Request, namespace: Namespace, *, members_count: int | None = None
                     ) -> NamespaceEntity:
    """GitLab's NamespaceBasic; members_count_with_descendants only for a group the caller administers."""
    base = public_base_url(request)
    user_namespace = isinstance(namespace, UserNamespace)
    return NamespaceEntity(
        id=namespace.id, name=namespace.name, path=namespace.path, kind=namespace.kind,
        full_path=namespace.full_path, parent_id=namespace.parent_id, avatar_url=None,
        web_url=f"{base}/{namespace.full_path}" if user_namespace else f"{base}/groups/{namespace.full_path}",
        members_count_with_descendants=UNSET if members_count is None else members_count)


def project_entity(request: Request, project: Project) -> ProjectEntity:
    return ProjectEntity(
        id=project.id, description=project.description, name=project.name,
        name_with_namespace=f"{project.namespace.full_name} / {project.name}", path=project.path,
        path_with_namespace=project.full_path, created_at=iso(project.created_at),
        default_branch=project.default_branch, web_url=f"{public_base_url(request)}/{project.full_path}",
        visibility=project.visibility, namespace=namespace_entity(request, project.namespace),
        creator_id=project.creator_id, monitor_access_level=project.monitor_access_level, archived=False)


def group_entity(request: Request, group: Group) -> entities.Group:
    return entities.Group(id=group.id, web_url=f"{public_base_url(request)}/groups/{group.full_path}", name=group.name,
                          path=group.path, description=group.description, visibility=group.visibility,
                          full_name=group.full_name, full_path=group.full_path, parent_id=group.parent_id,
                          created_at=iso(group.created_at), avatar_url=None)


def member_entity(request: Request, member: ProjectMember | GroupMember) -> entities.Member:
    return entities.Member(**_basic_fields(request, member.user), access_level=member.access_level,
                           created_at=iso(member.created_at), expires_at=iso_date(member.expires_at))


def token_entity(pat: PersonalAccessToken) -> entities.PersonalAccessToken:
    return entities.PersonalAccessToken(**_token_fields(pat))


def new_token_entity(pat: PersonalAccessToken, plaintext: str) -> entities.NewPersonalAccessToken:
    """A token as made or rotated, the only time its value is shown."""
    return entities.NewPersonalAccessToken(**_token_fields(pat), token=plaintext)


def _token_fields(pat: PersonalAccessToken) -> dict[str, Any]:
    return {"id": pat.id, "name": pat.name, "revoked": pat.revoked, "created_at": iso(pat.created_at),
            "scopes": pat.scopes, "user_id": pat.user_id, "last_used_at": iso(pat.last_used_at),
            "active": not pat.revoked and not pat.is_expired(dt.date.today()), "expires_at": iso_date(pat.expires_at)}

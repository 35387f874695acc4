"""Accounts: who may see what. Lookups of projects, groups and namespaces with GitLab's access rules.

What changes accounts lives beside this module: users.py (users and tokens) and namespaces.py
(creating, changing and deleting groups and projects).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, false, func, or_, select
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.accounts import access
from outpost_server.accounts.models import (
    Group,
    GroupMember,
    Namespace,
    Project,
    ProjectMember,
    User,
    UserNamespace,
)
from outpost_server.db import parse_id

# Starlette decodes %2F before routing; the path middleware keeps an encoded slash inside one
# segment as this character so "group%2Fproject" still reaches /projects/{id}.
ENCODED_SLASH = "\u2215"


def personal_namespace(session: Session, user: User) -> UserNamespace:
    namespace = session.scalar(select(UserNamespace).where(UserNamespace.owner_id == user.id))
    if namespace is None:  # every user gets one when created, and the namespaces migration adds the rest
        raise LookupError(f"user {user.id} has no personal namespace")
    return namespace


def group_ancestors(session: Session, group: Group) -> list[Group]:
    """The group and its ancestors, nearest first."""
    chain = [group]
    while (parent_id := chain[-1].parent_id) is not None:
        parent = session.get(Group, parent_id)
        if parent is None:
            break
        chain.append(parent)
    return chain


def group_descendant_ids(session: Session, group_id: int) -> list[int]:
    """The group's id and those of all its subgroups."""
    return descendant_ids(session, [group_id])


def descendant_ids(session: Session, group_ids: list[int]) -> list[int]:
    ids = list(dict.fromkeys(group_ids))
    frontier = ids
    while frontier:
        frontier = [gid for gid in session.scalars(select(Group.id).where(Group.parent_id.in_(frontier)))
                    if gid not in ids]
        ids.extend(frontier)
    return ids


def group_access_level(session: Session, user: User | None, group: Group) -> int:
    """The user's level in the group: the highest membership in it or any ancestor."""
    if user is None:
        return access.NO_ACCESS
    ids = [g.id for g in group_ancestors(session, group)]
    levels = session.scalars(select(GroupMember.access_level).where(
        GroupMember.user_id == user.id, GroupMember.group_id.in_(ids)))
    return max(levels, default=access.NO_ACCESS)


def project_access_level(session: Session, user: User | None, project: Project) -> int:
    """The user's level in the project: owner of its personal namespace, or membership of it or a group above."""
    if user is None:
        return access.NO_ACCESS
    namespace = project.namespace
    if isinstance(namespace, UserNamespace) and namespace.owner_id == user.id:
        return access.OWNER
    level = session.scalar(select(ProjectMember.access_level).where(
        ProjectMember.user_id == user.id, ProjectMember.project_id == project.id)) or access.NO_ACCESS
    if isinstance(namespace, Group):
        level = max(level, group_access_level(session, user, namespace))
    return level


def _visible(visibility: str, user: User | None, level: int) -> bool:
    if user is not None and user.is_admin:
        return True
    if level >= access.GUEST or visibility == "public":
        return True
    return visibility == "internal" and user is not None


def _find_by_ident(session: Session, model: Any, ident: str | int) -> Any:
    """A row by numeric id or full path (a URL-encoded path arrives with ENCODED_SLASH)."""
    ident = str(ident).replace(ENCODED_SLASH, "/")
    if (row_id := parse_id(ident)) is not None:
        return session.get(model, row_id)
    # GitLab finds a route by its path in any case (Routable.find_by_full_path), through the lower() index.
    return session.scalar(select(model).where(func.lower(model.full_path) == ident.lower()))


def find_project(session: Session, ident: str | int) -> Project | None:
    return _find_by_ident(session, Project, ident)


def find_group(session: Session, ident: str | int) -> Group | None:
    return _find_by_ident(session, Group, ident)


def _check_access(target: Any, level: int, user: User | None, min_level: int, resource: str) -> Any:
    """404 when the user cannot see the target, 403 when their role is below min_level (as GitLab answers)."""
    if target is None or not _visible(target.visibility, user, level):
        raise domain.NotFound(resource)
    if min_level > access.NO_ACCESS and not (user is not None and user.is_admin) and level < min_level:
        raise domain.Forbidden()
    return target


def find_project_for(session: Session, ident: str | int, user: User | None,
                     min_level: int = access.NO_ACCESS) -> Project:
    project = find_project(session, ident)
    level = project_access_level(session, user, project) if project is not None else access.NO_ACCESS
    return _check_access(project, level, user, min_level, "Project")


def find_group_for(session: Session, ident: str | int, user: User | None,
                   min_level: int = access.NO_ACCESS) -> Group:
    group = find_group(session, ident)
    level = group_access_level(session, user, group) if group is not None else access.NO_ACCESS
    return _check_access(group, level, user, min_level, "Group")


def find_namespace_for(session: Session, ident: str | int, user: User) -> Namespace:
    """A namespace the user may read through ownership or membership (GitLab's find_namespace!)."""
    namespace = _find_by_ident(session, Namespace, ident)
    if namespace is not None and (user.is_admin or _reads_namespace(session, user, namespace)):
        return namespace
    raise domain.NotFound("Namespace")


def _reads_namespace(session: Session, user: User, namespace: Namespace) -> bool:
    if isinstance(namespace, UserNamespace):
        return namespace.owner_id == user.id
    return isinstance(namespace, Group) and group_access_level(session, user, namespace) >= access.GUEST


# --- what a user reaches, as SQL conditions -------------------------------------------------

def _member_group_ids(session: Session, user: User, min_level: int) -> list[int]:
    """Groups where the user has min_level or more, directly or through an ancestor group."""
    direct = list(session.scalars(select(GroupMember.group_id).where(
        GroupMember.user_id == user.id, GroupMember.access_level >= min_level)))
    return descendant_ids(session, direct)


def projects_at_level(session: Session, user: User, min_level: int) -> ColumnElement[bool]:
    """Projects where the user's own role is min_level or more (administrators are not special here)."""
    clauses = [
        Project.id.in_(select(ProjectMember.project_id).where(
            ProjectMember.user_id == user.id, ProjectMember.access_level >= min_level)),
        Project.namespace_id.in_(_member_group_ids(session, user, min_level)),
    ]
    if min_level <= access.OWNER:
        clauses.append(Project.namespace_id.in_(select(UserNamespace.id).where(UserNamespace.owner_id == user.id)))
    return or_(*clauses)


def groups_at_level(session: Session, user: User, min_level: int) -> ColumnElement[bool]:
    ids = _member_group_ids(session, user, min_level)
    return Group.id.in_(ids) if ids else false()


def projects_with_access(session: Session, user: User, min_level: int) -> list[Project]:
    """Projects where the user has at least min_level (admins: every project)."""
    stmt = select(Project).order_by(Project.id)
    if not user.is_admin:
        stmt = stmt.where(projects_at_level(session, user, min_level))
    return list(session.scalars(stmt))


def visible_projects_stmt(session: Session, user: User | None) -> Select:
    """A statement selecting the projects the user can see."""
    stmt = select(Project)
    if user is not None and user.is_admin:
        return stmt
    if user is None:
        return stmt.where(Project.visibility == "public")
    return stmt.where(or_(Project.visibility.in_(("public", "internal")),
                          projects_at_level(session, user, access.GUEST)))


def visible_groups_stmt(session: Session, user: User | None) -> Select:
    stmt = select(Group)
    if user is not None and user.is_admin:
        return stmt
    if user is None:
        return stmt.where(Group.visibility == "public")
    return stmt.where(or_(Group.visibility.in_(("public", "internal")), groups_at_level(session, user, access.GUEST)))

"""The filters and orders of GitLab's project, group and namespace lists (ProjectsFinder, GroupsFinder)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session

from outpost_server.accounts import access
from outpost_server.accounts.models import Group, GroupMember, Namespace, Project, User, UserNamespace
from outpost_server.accounts.service import (
    descendant_ids,
    groups_at_level,
    projects_at_level,
    visible_groups_stmt,
    visible_projects_stmt,
)
from outpost_server.db import LIKE_ESCAPE, contains_pattern

# GitLab's accepted values. Outpost keeps no activity, star or size data, so the orders by those
# fall back to creation order, which is what they equal on a server where nothing else happens.
PROJECT_ORDERS = ("id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity", "star_count")
GROUP_ORDERS = ("name", "path", "id", "similarity")
SORTS = ("asc", "desc")


@dataclass(frozen=True)
class ProjectFilter:
    search: str | None = None
    search_namespaces: bool = False
    owned: bool = False
    membership: bool = False
    min_access_level: int | None = None
    visibility: str | None = None
    order_by: str = "created_at"
    sort: str = "desc"


@dataclass(frozen=True)
class GroupFilter:
    search: str | None = None
    owned: bool = False
    min_access_level: int | None = None
    top_level_only: bool = False
    order_by: str = "name"
    sort: str = "asc"


def projects_stmt(session: Session, *, user: User | None, filters: ProjectFilter,
                  namespace_ids: list[int] | None = None) -> Select:
    """The projects the user sees, filtered and ordered as GET /projects does."""
    stmt = visible_projects_stmt(session, user)
    if namespace_ids is not None:
        stmt = stmt.where(Project.namespace_id.in_(namespace_ids))
    if user is not None:
        # Membership-based filters use the caller's own roles; GitLab grants administrators nothing extra.
        if filters.membership:
            stmt = stmt.where(projects_at_level(session, user, access.GUEST))
        if filters.min_access_level is not None:
            stmt = stmt.where(projects_at_level(session, user, filters.min_access_level))
        if filters.owned:
            stmt = stmt.where(projects_at_level(session, user, access.OWNER))
    if filters.search:
        pattern = contains_pattern(filters.search)
        matches = [Project.name.ilike(pattern, escape=LIKE_ESCAPE), Project.path.ilike(pattern, escape=LIKE_ESCAPE),
                   Project.description.ilike(pattern, escape=LIKE_ESCAPE)]
        if filters.search_namespaces:
            matches.append(Project.full_path.ilike(pattern, escape=LIKE_ESCAPE))
        stmt = stmt.where(or_(*matches))
    if filters.visibility is not None:
        stmt = stmt.where(Project.visibility == filters.visibility)
    column = {"name": Project.name, "path": Project.path}.get(filters.order_by, Project.id)
    if filters.sort == "asc":
        return stmt.order_by(column.asc(), Project.id.asc())
    return stmt.order_by(column.desc(), Project.id.desc())


def groups_stmt(session: Session, *, user: User | None, filters: GroupFilter, parent_id: int | None = None) -> Select:
    """The groups the user sees, filtered and ordered as GET /groups and /groups/:id/subgroups do."""
    stmt = visible_groups_stmt(session, user)
    if parent_id is not None:
        stmt = stmt.where(Group.parent_id == parent_id)
    elif filters.top_level_only:
        stmt = stmt.where(Group.parent_id.is_(None))
    if user is not None:
        if filters.min_access_level is not None:
            stmt = stmt.where(groups_at_level(session, user, filters.min_access_level))
        if filters.owned:
            stmt = stmt.where(Group.id.in_(select(GroupMember.group_id).where(
                GroupMember.user_id == user.id, GroupMember.access_level == access.OWNER)))
    if filters.search:
        pattern = contains_pattern(filters.search)
        stmt = stmt.where(or_(*(column.ilike(pattern, escape=LIKE_ESCAPE) for column in (Group.name, Group.path))))
    column = {"name": Group.name, "path": Group.path}.get(filters.order_by, Group.id)
    if filters.sort == "desc":
        return stmt.order_by(column.desc(), Group.id.desc())
    return stmt.order_by(column.asc(), Group.id.asc())


def group_project_namespace_ids(session: Session, group: Group, *, include_subgroups: bool) -> list[int]:
    return descendant_ids(session, [group.id]) if include_subgroups else [group.id]


def namespaces_stmt(session: Session, *, user: User, search: str | None, owned_only: bool, top_level_only: bool,
                    full_path_search: bool) -> Select:
    """GET /namespaces: administrators see all; others their own namespace and the groups they belong to."""
    stmt = select(Namespace).order_by(Namespace.id)
    if not user.is_admin:
        level = access.OWNER if owned_only else access.GUEST
        direct = select(GroupMember.group_id).where(GroupMember.user_id == user.id, GroupMember.access_level >= level)
        own = select(UserNamespace.id).where(UserNamespace.owner_id == user.id)
        stmt = stmt.where(or_(Namespace.id.in_(direct), Namespace.id.in_(own)))
    if top_level_only:
        stmt = stmt.where(Namespace.parent_id.is_(None))
    if search:
        pattern = contains_pattern(search)
        if full_path_search:
            stmt = stmt.where(Namespace.full_path.ilike(pattern, escape=LIKE_ESCAPE))
        else:
            stmt = stmt.where(or_(Namespace.name.ilike(pattern, escape=LIKE_ESCAPE),
                                  Namespace.path.ilike(pattern, escape=LIKE_ESCAPE)))
    return stmt


def path_taken(session: Session, path: str, *, parent_id: int | None) -> bool:
    """Whether a namespace with this path (case-insensitive) exists under the parent (None: at the top)."""
    stmt = select(Namespace.id).where(func.lower(Namespace.path) == path.lower())
    stmt = stmt.where(Namespace.parent_id == parent_id if parent_id is not None else Namespace.parent_id.is_(None))
    return session.scalar(stmt.limit(1)) is not None


def free_path_suggestion(session: Session, path: str, *, parent_id: int | None) -> str:
    """GitLab's Namespace.clean_path suggestion: the path with the first free number appended."""
    counter = 1
    while path_taken(session, f"{path}{counter}", parent_id=parent_id):
        counter += 1
    return f"{path}{counter}"


def members_count_with_descendants(session: Session, group: Group) -> int:
    ids = descendant_ids(session, [group.id])
    counted = select(func.count(func.distinct(GroupMember.user_id))).where(GroupMember.group_id.in_(ids))
    return session.scalar(counted) or 0

"""Accounts: users, tokens, groups, projects, memberships and who may see what."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts import access
from outpost_server.accounts.models import Group, GroupMember, PersonalAccessToken, Project, ProjectMember, User
from outpost_server.db import parse_id
from outpost_server.security import hash_password, new_personal_access_token, token_digest

# Starlette decodes %2F before routing; the path middleware keeps an encoded slash inside one
# segment as this character so "group%2Fproject" still reaches /projects/{id}.
ENCODED_SLASH = "\u2215"
AVAILABLE_SCOPES = ("api", "read_api", "read_user", "create_runner", "manage_runner", "k8s_proxy", "self_rotate",
                    "read_repository", "write_repository", "read_registry", "write_registry", "sudo", "admin_mode")


def create_user(session: Session, *, username: str, name: str, email: str, password: str | None = None,
                is_admin: bool = False) -> User:
    if session.scalar(select(User.id).where(User.email == email)) is not None:
        raise http_errors.ApiError(409, {"message": "Email has already been taken"})
    if session.scalar(select(User.id).where(User.username == username)) is not None:
        raise http_errors.ApiError(409, {"message": "Username has already been taken"})
    user = User(username=username, name=name, email=email, is_admin=is_admin,
                password_digest=hash_password(password) if password else None)
    session.add(user)
    session.flush()
    return user


def create_token(session: Session, *, user: User, name: str, scopes: Sequence[str], secret_key: str,
                 expires_at: dt.date | None = None, token: str | None = None) -> tuple[PersonalAccessToken, str]:
    """Creates a personal access token; the plaintext is returned once and only its digest is kept."""
    plaintext = token or new_personal_access_token()
    pat = PersonalAccessToken(user_id=user.id, name=name, scopes=list(scopes), expires_at=expires_at,
                              token_digest=token_digest(plaintext, secret_key))
    session.add(pat)
    session.flush()
    return pat, plaintext


def ensure_root(session: Session, *, token: str, secret_key: str) -> User:
    """The bootstrap administrator whose token comes from OUTPOST_ROOT_TOKEN.

    Replicas starting together race to create it: the loser's insert conflicts, so it rolls back
    (nothing else is in the session at start-up) and finds the winner's rows on the second pass.
    """
    try:
        root = _ensure_root_once(session, token=token, secret_key=secret_key)
        session.commit()
        return root
    except (http_errors.ApiError, IntegrityError):
        session.rollback()
        return _ensure_root_once(session, token=token, secret_key=secret_key)


def _ensure_root_once(session: Session, *, token: str, secret_key: str) -> User:
    root = session.scalar(select(User).where(User.username == "root"))
    if root is None:
        root = create_user(session, username="root", name="Administrator", email="admin@example.com", is_admin=True)
    digest = token_digest(token, secret_key)
    if session.scalar(select(PersonalAccessToken.id).where(PersonalAccessToken.token_digest == digest)) is None:
        create_token(session, user=root, name="root bootstrap token", scopes=["api"], secret_key=secret_key, token=token)
    return root


# --- groups and projects -------------------------------------------------------------------

def group_ancestors(session: Session, group: Group) -> list[Group]:
    """The group and its ancestors, nearest first."""
    chain = [group]
    while chain[-1].parent_id is not None:
        chain.append(session.get(Group, chain[-1].parent_id))
    return chain


def group_descendant_ids(session: Session, group_id: int) -> list[int]:
    ids = [group_id]
    frontier = [group_id]
    while frontier:
        frontier = list(session.scalars(select(Group.id).where(Group.parent_id.in_(frontier))))
        ids.extend(frontier)
    return ids


def group_access_level(session: Session, user: User | None, group: Group) -> int:
    if user is None:
        return access.NO_ACCESS
    ids = [g.id for g in group_ancestors(session, group)]
    levels = session.scalars(select(GroupMember.access_level).where(
        GroupMember.user_id == user.id, GroupMember.group_id.in_(ids)))
    return max(levels, default=access.NO_ACCESS)


def project_access_level(session: Session, user: User | None, project: Project) -> int:
    """The user's membership level in the project, through the project or any ancestor group."""
    if user is None:
        return access.NO_ACCESS
    if project.group_id is None and project.creator_id == user.id:
        return access.OWNER
    level = session.scalar(select(ProjectMember.access_level).where(
        ProjectMember.user_id == user.id, ProjectMember.project_id == project.id)) or access.NO_ACCESS
    if project.group is not None:
        level = max(level, group_access_level(session, user, project.group))
    return level


def _visible(visibility: str, user: User | None, level: int) -> bool:
    if user is not None and user.is_admin:
        return True
    if level >= access.GUEST or visibility == "public":
        return True
    return visibility == "internal" and user is not None


def _find_by_ident(session: Session, model, ident: str | int):
    """A project or group by numeric id or full path (a URL-encoded path arrives with ENCODED_SLASH)."""
    ident = str(ident).replace(ENCODED_SLASH, "/")
    if (row_id := parse_id(ident)) is not None:
        return session.get(model, row_id)
    return session.scalar(select(model).where(model.full_path == ident))


def find_project(session: Session, ident: str | int) -> Project | None:
    return _find_by_ident(session, Project, ident)


def find_group(session: Session, ident: str | int) -> Group | None:
    return _find_by_ident(session, Group, ident)


def _check_access(target, level: int, user: User | None, min_level: int, resource: str):
    """404 when the user cannot see the target, 403 when their role is below min_level (as GitLab answers)."""
    if target is None or not _visible(target.visibility, user, level):
        raise http_errors.not_found(resource)
    if min_level > access.NO_ACCESS and not (user is not None and user.is_admin) and level < min_level:
        raise http_errors.forbidden()
    return target


def find_project_for(session: Session, ident: str | int, user: User | None, min_level: int = access.NO_ACCESS) -> Project:
    project = find_project(session, ident)
    level = project_access_level(session, user, project) if project is not None else access.NO_ACCESS
    return _check_access(project, level, user, min_level, "Project")


def find_group_for(session: Session, ident: str | int, user: User | None, min_level: int = access.NO_ACCESS) -> Group:
    group = find_group(session, ident)
    level = group_access_level(session, user, group) if group is not None else access.NO_ACCESS
    return _check_access(group, level, user, min_level, "Group")


def projects_with_access(session: Session, user: User, min_level: int) -> list[Project]:
    """Projects where the user has at least min_level (admins: every project)."""
    projects = session.scalars(select(Project).order_by(Project.id))
    if user.is_admin:
        return list(projects)
    return [p for p in projects if project_access_level(session, user, p) >= min_level]


def visible_projects_stmt(session: Session, user: User | None):
    """A statement selecting the projects the user can see."""
    stmt = select(Project).order_by(Project.id)
    if user is not None and user.is_admin:
        return stmt
    if user is None:
        return stmt.where(Project.visibility == "public")
    member_groups = list(session.scalars(select(GroupMember.group_id).where(GroupMember.user_id == user.id)))
    group_ids = {gid for root in member_groups for gid in group_descendant_ids(session, root)}
    return stmt.where(or_(
        Project.visibility.in_(("public", "internal")),
        Project.id.in_(select(ProjectMember.project_id).where(ProjectMember.user_id == user.id)),
        Project.group_id.in_(group_ids),
        (Project.group_id.is_(None)) & (Project.creator_id == user.id),
    ))


def visible_groups_stmt(session: Session, user: User | None):
    stmt = select(Group).order_by(Group.id)
    if user is not None and user.is_admin:
        return stmt
    if user is None:
        return stmt.where(Group.visibility == "public")
    member_groups = list(session.scalars(select(GroupMember.group_id).where(GroupMember.user_id == user.id)))
    group_ids = {gid for root in member_groups for gid in group_descendant_ids(session, root)}
    return stmt.where(or_(Group.visibility.in_(("public", "internal")), Group.id.in_(group_ids)))


def create_group(session: Session, *, name: str, path: str, creator: User, parent: Group | None = None,
                 visibility: str = "private", description: str = "") -> Group:
    full_path = f"{parent.full_path}/{path}" if parent else path
    if session.scalar(select(Group.id).where(Group.full_path == full_path)) is not None:
        raise http_errors.validation_error({"path": ["has already been taken"]})
    group = Group(name=name, path=path, full_path=full_path, parent_id=parent.id if parent else None,
                  full_name=f"{parent.full_name} / {name}" if parent else name,
                  visibility=visibility, description=description)
    session.add(group)
    session.flush()
    if parent is None or group_access_level(session, creator, parent) < access.OWNER:
        session.add(GroupMember(group_id=group.id, user_id=creator.id, access_level=access.OWNER))
        session.flush()
    return group


def create_project(session: Session, *, name: str, path: str, creator: User, group: Group | None = None,
                   visibility: str = "private", description: str = "") -> Project:
    namespace_path = group.full_path if group else creator.username
    full_path = f"{namespace_path}/{path}"
    if session.scalar(select(Project.id).where(Project.full_path == full_path)) is not None:
        raise http_errors.validation_error({"name": ["has already been taken"], "path": ["has already been taken"]})
    project = Project(name=name, path=path, full_path=full_path, group_id=group.id if group else None,
                      creator_id=creator.id, visibility=visibility, description=description)
    session.add(project)
    session.flush()
    if group is not None and group_access_level(session, creator, group) < access.MAINTAINER and not creator.is_admin:
        session.add(ProjectMember(project_id=project.id, user_id=creator.id, access_level=access.MAINTAINER))
        session.flush()
    return project


def add_member(session: Session, *, target: Project | Group, user: User, access_level: int,
               expires_at: dt.date | None = None) -> ProjectMember | GroupMember:
    if isinstance(target, Project):
        model, column = ProjectMember, ProjectMember.project_id
    else:
        model, column = GroupMember, GroupMember.group_id
    if session.scalar(select(model.id).where(column == target.id, model.user_id == user.id)) is not None:
        raise http_errors.ApiError(409, {"message": "Member already exists"})
    fields = {"project_id": target.id} if isinstance(target, Project) else {"group_id": target.id}
    member = model(user_id=user.id, access_level=access_level, expires_at=expires_at, **fields)
    session.add(member)
    session.flush()
    return member


def slugify_path(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name.strip().lower())
    return cleaned.strip("-.") or "project"

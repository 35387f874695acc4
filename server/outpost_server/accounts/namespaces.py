"""Creating, changing and deleting groups and projects, and the members they have."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.accounts import access, path_rules
from outpost_server.accounts.models import (
    Group,
    GroupMember,
    Namespace,
    Project,
    ProjectMember,
    User,
    UserNamespace,
)
from outpost_server.accounts.service import descendant_ids, group_access_level, personal_namespace
from outpost_server.db import MAX_ROW_ID

VISIBILITIES = ("private", "internal", "public")


def create_group(session: Session, *, name: str, path: str, creator: User, parent: Group | None = None,
                 visibility: str = "private", description: str = "") -> Group:
    full_path = f"{parent.full_path}/{path}" if parent else path
    # Users' namespaces and groups share one set of full paths (GitLab's routes), in any case.
    if session.scalar(select(Namespace.id).where(func.lower(Namespace.full_path) == full_path.lower())) is not None:
        raise domain.Invalid({"path": ["has already been taken"]})
    if errors := path_rules.namespace_path_errors(path, top_level=parent is None):
        raise domain.Invalid({"path": errors})
    group = Group(name=name, path=path, full_path=full_path, parent_id=parent.id if parent else None,
                  full_name=f"{parent.full_name} / {name}" if parent else name,
                  visibility=visibility, description=description)
    session.add(group)
    session.flush()
    # GitLab's Groups::CreateService adds the creator as a direct Owner of every group it creates,
    # subgroups included, whatever the creator inherits from the parent.
    session.add(GroupMember(group_id=group.id, user_id=creator.id, access_level=access.OWNER))
    session.flush()
    return group


def update_group(session: Session, *, group: Group, name: str | None = None, path: str | None = None,
                 description: str | None = None, visibility: str | None = None) -> Group:
    if description is not None:
        group.description = description
    if visibility is not None:
        group.visibility = visibility
    if (name is not None and name != group.name) or (path is not None and path != group.path):
        parent = session.get(Group, group.parent_id) if group.parent_id is not None else None
        new_path = path if path is not None else group.path
        if new_path != group.path and (errors := path_rules.namespace_path_errors(new_path, top_level=parent is None)):
            raise domain.Invalid({"path": errors})
        full_path = f"{parent.full_path}/{new_path}" if parent else new_path
        if full_path != group.full_path and session.scalar(
                select(Namespace.id).where(func.lower(Namespace.full_path) == full_path.lower(),
                                           Namespace.id != group.id)) is not None:
            raise domain.Invalid({"path": ["has already been taken"]})
        group.name = name if name is not None else group.name
        group.path = new_path
        _rename_subtree(session, group, full_path=full_path,
                        full_name=f"{parent.full_name} / {group.name}" if parent else group.name)
    session.flush()
    return group


def _rename_subtree(session: Session, namespace: Namespace, *, full_path: str, full_name: str) -> None:
    """A namespace moved or renamed: its full path and name, and those of everything below it."""
    old_path = namespace.full_path
    namespace.full_path, namespace.full_name = full_path, full_name
    for project in session.scalars(select(Project).where(Project.namespace_id == namespace.id)):
        project.full_path = f"{full_path}/{project.path}"
    for child in session.scalars(select(Group).where(Group.parent_id == namespace.id)):
        if child.full_path.startswith(old_path + "/"):
            _rename_subtree(session, child, full_path=f"{full_path}/{child.path}",
                            full_name=f"{full_name} / {child.name}")


def rename_personal_namespace(session: Session, *, user: User) -> None:
    """The user's username or name changed: their namespace and personal projects follow."""
    namespace = personal_namespace(session, user)
    namespace.name, namespace.path = user.name, user.username
    _rename_subtree(session, namespace, full_path=user.username, full_name=user.name)


def delete_group(session: Session, *, group: Group) -> None:
    """Deletes the group, its subgroups and their projects with everything hanging off them.

    Rows that belong to a project or group (members, error tracking, vulnerabilities, exports and
    their files) go with it through ON DELETE CASCADE, inside the caller's transaction.
    """
    ids = descendant_ids(session, [group.id])
    session.execute(delete(Project).where(Project.namespace_id.in_(ids)))
    # Deepest first: parent_id has no cascade, so a subgroup must go before its parent.
    for group_id in reversed(ids):
        session.execute(delete(Namespace).where(Namespace.id == group_id))
    session.expunge_all()


def delete_project(session: Session, *, project: Project) -> None:
    session.execute(delete(Project).where(Project.id == project.id))
    session.expunge_all()


def create_project(session: Session, *, name: str, path: str, creator: User, namespace: Namespace | None = None,
                   visibility: str = "private", description: str = "") -> Project:
    """A project in a group or in a personal namespace (the creator's own when none is given)."""
    namespace = namespace or personal_namespace(session, creator)
    full_path = f"{namespace.full_path}/{path}"
    if session.scalar(select(Project.id).where(func.lower(Project.full_path) == full_path.lower())) is not None:
        raise domain.Invalid({"name": ["has already been taken"], "path": ["has already been taken"]})
    if errors := path_rules.project_path_errors(path):
        raise domain.Invalid({"path": errors})
    project = Project(name=name, path=path, full_path=full_path, namespace_id=namespace.id, namespace=namespace,
                      creator_id=creator.id, visibility=visibility, description=description)
    session.add(project)
    session.flush()
    if (isinstance(namespace, Group) and not creator.is_admin
            and group_access_level(session, creator, namespace) < access.MAINTAINER):
        session.add(ProjectMember(project_id=project.id, user_id=creator.id, access_level=access.MAINTAINER))
        session.flush()
    return project


def update_project(session: Session, *, project: Project, name: str | None = None, description: str | None = None,
                   visibility: str | None = None, monitor_access_level: str | None = None) -> Project:
    if name is not None:
        project.name = name
    if description is not None:
        project.description = description
    if visibility is not None:
        project.visibility = visibility
    if monitor_access_level is not None:
        project.monitor_access_level = monitor_access_level
    session.flush()
    return project


def namespace_for_new_project(session: Session, *, user: User, namespace_id: int | None) -> Namespace:
    """Where POST /projects puts a project: namespace_id names a namespace, never a user.

    A namespace that does not exist or where the user may not create projects (someone else's
    personal namespace, a group where they are below Developer) is refused as GitLab's
    Projects::CreateService refuses it.
    """
    if namespace_id is None:
        return personal_namespace(session, user)
    namespace = session.get(Namespace, namespace_id)
    allowed = namespace is not None and (
        user.is_admin
        or (isinstance(namespace, UserNamespace) and namespace.owner_id == user.id)
        or (isinstance(namespace, Group) and group_access_level(session, user, namespace) >= access.DEVELOPER))
    if not allowed or namespace is None:
        raise domain.Invalid({"namespace": ["is not valid"]})
    return namespace


# --- members ------------------------------------------------------------------------------

def member_stmt(target: Project | Group):
    if isinstance(target, Project):
        return select(ProjectMember).where(ProjectMember.project_id == target.id).order_by(ProjectMember.id)
    return select(GroupMember).where(GroupMember.group_id == target.id).order_by(GroupMember.id)


def find_member(session: Session, *, target: Project | Group, user_id: int) -> ProjectMember | GroupMember:
    if not -MAX_ROW_ID <= user_id <= MAX_ROW_ID:  # beyond the id column: no such member
        raise domain.NotFound("Member")
    column = ProjectMember.user_id if isinstance(target, Project) else GroupMember.user_id
    member = session.scalars(member_stmt(target).where(column == user_id)).first()
    if member is None:
        raise domain.NotFound("Member")
    return member


def remove_member(session: Session, *, target: Project | Group, user_id: int) -> None:
    session.delete(find_member(session, target=target, user_id=user_id))
    session.flush()


def add_member(session: Session, *, target: Project | Group, user: User, access_level: int,
               expires_at: dt.date | None = None) -> ProjectMember | GroupMember:
    member: ProjectMember | GroupMember
    if isinstance(target, Project):
        taken = select(ProjectMember.id).where(ProjectMember.project_id == target.id, ProjectMember.user_id == user.id)
        member = ProjectMember(project_id=target.id, user_id=user.id, access_level=access_level, expires_at=expires_at)
    else:
        taken = select(GroupMember.id).where(GroupMember.group_id == target.id, GroupMember.user_id == user.id)
        member = GroupMember(group_id=target.id, user_id=user.id, access_level=access_level, expires_at=expires_at)
    if session.scalar(taken) is not None:
        raise domain.Conflict("Member already exists")
    session.add(member)
    session.flush()
    return member


def slugify_path(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name.strip().lower())
    return cleaned.strip("-.") or "project"

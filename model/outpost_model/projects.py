"""GitLab's namespace and project entities, as /api/v4 renders them (API::Entities::NamespaceBasic and
the fields of API::Entities::Project that Outpost serves)."""

from __future__ import annotations

from outpost_model.base import UNSET, Entity, Text, Time, UnsetType


class Namespace(Entity):
    id: int
    name: str
    path: str
    # "user" or "group".
    kind: str
    full_path: str
    parent_id: int | None
    avatar_url: Text
    web_url: str
    # Only for a group the caller administers.
    members_count_with_descendants: int | UnsetType = UNSET


class Project(Entity):
    id: int
    description: Text
    name: str
    name_with_namespace: str
    path: str
    path_with_namespace: str
    created_at: Time
    default_branch: Text
    web_url: str
    # "private", "internal" or "public".
    visibility: str
    namespace: Namespace
    creator_id: int | None
    # Who may read the project's error tracking: "disabled", "private" or "enabled".
    monitor_access_level: str
    archived: bool


class NamespaceExists(Entity):
    """GET /namespaces/:path/exists: whether the path is taken, and a free path like it when it is."""

    exists: bool
    suggests: list[str]

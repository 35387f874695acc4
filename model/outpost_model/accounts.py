"""GitLab's user, group, member and personal access token entities, as /api/v4 renders them
(API::Entities::UserBasic, User, UserWithAdmin, Group, Member, PersonalAccessToken)."""

from __future__ import annotations

from outpost_model.base import UNSET, Entity, Text, Time, UnsetType


class UserBasic(Entity):
    id: int
    username: str
    name: str
    # "active", "blocked", "deactivated", ...
    state: str
    locked: bool
    avatar_url: Text
    web_url: str


# kw_only again (msgspec does not inherit it), so the optional `created_at` keeps GitLab's place.
class User(UserBasic, kw_only=True):
    """Users::User; the fields after `public_email` only for an administrator or the user themselves."""

    # Only for a reader allowed to see the user's profile (GitLab's read_user_profile).
    created_at: Time | UnsetType = UNSET
    bio: Text
    public_email: Text
    email: str | UnsetType = UNSET
    is_admin: bool | UnsetType = UNSET
    can_create_group: bool | UnsetType = UNSET
    can_create_project: bool | UnsetType = UNSET
    projects_limit: int | UnsetType = UNSET
    two_factor_enabled: bool | UnsetType = UNSET
    external: bool | UnsetType = UNSET


class Member(UserBasic):
    access_level: int
    created_at: Time
    # A date, YYYY-MM-DD.
    expires_at: Time


class Group(Entity):
    id: int
    web_url: str
    name: str
    path: str
    description: Text
    visibility: str
    full_name: str
    full_path: str
    parent_id: int | None
    created_at: Time
    avatar_url: Text


class PersonalAccessToken(Entity):
    id: int
    name: str
    revoked: bool
    created_at: Time
    scopes: list[str]
    user_id: int
    last_used_at: Time
    active: bool
    # A date, YYYY-MM-DD.
    expires_at: Time
    # The token itself: shown once, when it is made or rotated.
    token: str | UnsetType = UNSET


class NewPersonalAccessToken(PersonalAccessToken):
    """A token as made or rotated: with the token itself, always."""

    token: str

"""Users and their personal access tokens: creation, changes, the block/deactivate lifecycle, deletion."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.accounts import access, path_rules
from outpost_server.accounts.models import (
    Group,
    GroupMember,
    Namespace,
    PersonalAccessToken,
    Project,
    User,
    UserNamespace,
)
from outpost_server.accounts.namespaces import delete_group, rename_personal_namespace
from outpost_server.accounts.service import personal_namespace
from outpost_server.application_settings.store import get_setting, set_setting
from outpost_server.db import LIKE_ESCAPE, contains_pattern, parse_id, utcnow
from outpost_server.security import hash_password, new_personal_access_token, token_digest

AVAILABLE_SCOPES = ("api", "read_api", "read_user", "create_runner", "manage_runner", "k8s_proxy", "self_rotate",
                    "read_repository", "write_repository", "read_registry", "write_registry", "sudo", "admin_mode")
# GitLab's Users::DeactivateService: only users idle this long may be deactivated.
DORMANT_AFTER = dt.timedelta(days=90)
# GitLab's PersonalAccessTokens::LastUsedService writes last_used_at at most this often per token.
LAST_USED_WRITE_INTERVAL = dt.timedelta(minutes=10)
# GitLab's RotateService gives the new token this lifetime unless expires_at is given.
ROTATED_TOKEN_LIFETIME = dt.timedelta(weeks=1)
GHOST_USER_SETTING = "ghost_user_id"


def _taken(session: Session, *, email: str | None = None, username: str | None = None, other_than: int | None = None
           ) -> str | None:
    if email is not None:
        stmt = select(User.id).where(func.lower(User.email) == email.lower())
        if session.scalar(stmt.where(User.id != other_than) if other_than else stmt) is not None:
            return "Email has already been taken"
    if username is not None:
        stmt = select(Namespace.id).where(Namespace.parent_id.is_(None), func.lower(Namespace.path) == username.lower())
        own = select(UserNamespace.id).where(UserNamespace.owner_id == other_than) if other_than else None
        if own is not None:
            stmt = stmt.where(Namespace.id.not_in(own))
        user_stmt = select(User.id).where(func.lower(User.username) == username.lower())
        if other_than:
            user_stmt = user_stmt.where(User.id != other_than)
        if session.scalar(stmt) is not None or session.scalar(user_stmt) is not None:
            return "Username has already been taken"
    return None


def _check_username(username: str) -> None:
    # A username is its personal namespace's path: GitLab reports the namespace's errors on the username.
    if errors := path_rules.namespace_path_errors(username, top_level=True):
        raise domain.Invalid({"username": errors})


def find_user(session: Session, ident: str | int) -> User | None:
    row_id = parse_id(ident)
    return session.get(User, row_id) if row_id is not None else None


def find_user_by_username(session: Session, username: str) -> User | None:
    # GitLab's User.find_by_username: in any case.
    return session.scalar(select(User).where(func.lower(User.username) == username.lower()))


# GET /users' order_by values (GitLab's API::Users); the default is id, newest first.
USER_ORDERS = ("id", "name", "username", "created_at", "updated_at")


def users_stmt(*, username: str | None = None, search: str | None = None, order_by: str = "id",
               sort: str = "desc"):
    column = {"name": User.name, "username": User.username, "created_at": User.created_at,
              "updated_at": User.updated_at}.get(order_by, User.id)
    # id breaks ties, in the same direction, so pages never overlap.
    stmt = select(User).order_by(column.asc(), User.id.asc()) if sort == "asc" else \
        select(User).order_by(column.desc(), User.id.desc())
    if username:
        stmt = stmt.where(func.lower(User.username) == username.lower())
    if search:
        pattern = contains_pattern(search)
        stmt = stmt.where(or_(*(column.ilike(pattern, escape=LIKE_ESCAPE)
                                for column in (User.username, User.name, User.email))))
    return stmt


def create_user(session: Session, *, username: str, name: str, email: str, password: str | None = None,
                is_admin: bool = False, can_create_group: bool = True, projects_limit: int = 100_000,
                bio: str = "", state: str = "active") -> User:
    """A user and their personal namespace (its id comes from the namespaces' own sequence)."""
    if (conflict := _taken(session, email=email, username=username)) is not None:
        raise domain.Conflict(conflict)
    _check_username(username)
    user = User(username=username, name=name, email=email, is_admin=is_admin, bio=bio, state=state,
                can_create_group=can_create_group, projects_limit=projects_limit,
                password_digest=hash_password(password) if password else None)
    session.add(user)
    session.flush()
    session.add(UserNamespace(name=name, path=username, full_path=username, full_name=name, visibility="public",
                              owner_id=user.id))
    session.flush()
    return user


@dataclass(frozen=True)
class UserChanges:
    """What PUT /users/:id may change; None leaves a field as it is."""

    name: str | None = None
    username: str | None = None
    email: str | None = None
    is_admin: bool | None = None
    can_create_group: bool | None = None
    projects_limit: int | None = None
    bio: str | None = None
    password: str | None = None


def update_user(session: Session, *, user: User, changes: UserChanges) -> User:
    conflict = _taken(session, email=changes.email if changes.email != user.email else None,
                      username=changes.username if changes.username != user.username else None, other_than=user.id)
    if conflict is not None:
        raise domain.Conflict(conflict)
    if changes.username not in (None, user.username):
        _check_username(changes.username)
    renamed = (changes.username not in (None, user.username)) or (changes.name not in (None, user.name))
    for field in ("name", "username", "email", "is_admin", "can_create_group", "projects_limit", "bio"):
        if (value := getattr(changes, field)) is not None:
            setattr(user, field, value)
    if changes.password is not None:
        user.password_digest = hash_password(changes.password)
    session.flush()
    if renamed:
        rename_personal_namespace(session, user=user)
    session.flush()
    return user


def last_active_at(session: Session, user: User) -> dt.datetime | None:
    return session.scalar(select(func.max(PersonalAccessToken.last_used_at))
                          .where(PersonalAccessToken.user_id == user.id))


def block(session: Session, *, actor: User, user: User) -> bool | None:
    """POST /users/:id/block. None: already blocked (GitLab answers an empty body then)."""
    if user.id == actor.id:
        raise domain.Forbidden("The API initiating user cannot be blocked by the API")
    if user.state == "blocked":
        return None
    user.state = "blocked"
    session.flush()
    return True


def unblock(session: Session, *, user: User) -> bool:
    if user.state == "deactivated":
        raise domain.Forbidden("Deactivated users cannot be unblocked by the API")
    if user.state != "blocked":
        return False  # the state machine has no unblock transition from here
    user.state = "active"
    session.flush()
    return True


def deactivate(session: Session, *, user: User) -> bool | None:
    if user.state == "deactivated":
        return None
    if user.state == "blocked":
        raise domain.Refused("Error occurred. A blocked user cannot be deactivated")
    last = last_active_at(session, user)
    if last is not None and last > utcnow() - DORMANT_AFTER:
        raise domain.Refused("The user you are trying to deactivate has been active in the past "
                             f"{DORMANT_AFTER.days} days and cannot be deactivated")
    user.state = "deactivated"
    session.flush()
    return True


def activate(session: Session, *, user: User) -> bool:
    if user.state == "blocked":
        raise domain.Refused("Error occurred. A blocked user must be unblocked to be activated")
    user.state = "active"
    session.flush()
    return True


def solely_owned_groups(session: Session, user: User) -> list[Group]:
    owned = select(GroupMember.group_id).where(GroupMember.user_id == user.id, GroupMember.access_level == access.OWNER)
    other_owners = select(GroupMember.group_id).where(GroupMember.user_id != user.id,
                                                      GroupMember.access_level == access.OWNER)
    return list(session.scalars(select(Group).where(Group.id.in_(owned), Group.id.not_in(other_owners))))


def delete_user(session: Session, *, user: User, hard_delete: bool) -> None:
    """DELETE /users/:id: the user, their personal namespace and its projects, in one transaction.

    Without hard_delete a sole owner of a group is refused (409, as GitLab). Projects the user
    created elsewhere stay and are credited to the ghost user, as GitLab moves contributions.
    With hard_delete the groups only this user owns are deleted too.
    """
    sole = solely_owned_groups(session, user)
    if sole and not hard_delete:
        raise domain.Conflict("User cannot be removed while is the sole-owner of a group")
    for group in sole:
        if session.get(Group, group.id) is not None:  # a subgroup may have gone with its parent
            delete_group(session, group=group)
    namespace = personal_namespace(session, user)
    session.execute(delete(Project).where(Project.namespace_id == namespace.id))
    session.execute(update(Project).where(Project.creator_id == user.id).values(creator_id=ghost_user(session).id))
    session.execute(delete(Namespace).where(Namespace.id == namespace.id))
    session.execute(delete(User).where(User.id == user.id))
    session.expunge_all()


def ghost_user(session: Session) -> User:
    """The blocked placeholder that deleted users' contributions are credited to (GitLab's ghost user)."""
    ghost_id = get_setting(session, GHOST_USER_SETTING)
    ghost = session.get(User, ghost_id) if ghost_id is not None else None
    if ghost is None:
        suffix = ""
        while _taken(session, username=f"ghost{suffix}", email=f"ghost{suffix}@example.com"):
            suffix = str(int(suffix or 0) + 1)
        ghost = create_user(session, username=f"ghost{suffix}", name="Ghost User", email=f"ghost{suffix}@example.com",
                            state="blocked", bio="This is a \"Ghost User\", created to hold all issues authored by "
                                                 "users that have since been deleted. This user cannot be removed.")
        set_setting(session, GHOST_USER_SETTING, ghost.id)
    return ghost


# --- personal access tokens ---------------------------------------------------------------

def create_token(session: Session, *, user: User, name: str, scopes: Sequence[str], secret_key: str,
                 expires_at: dt.date | None = None, token: str | None = None) -> tuple[PersonalAccessToken, str]:
    """Creates a personal access token; the plaintext is returned once and only its digest is kept."""
    plaintext = token or new_personal_access_token()
    pat = PersonalAccessToken(user_id=user.id, name=name, scopes=list(scopes), expires_at=expires_at,
                              token_digest=token_digest(plaintext, secret_key))
    session.add(pat)
    session.flush()
    return pat, plaintext


def rotate_token(session: Session, *, token: PersonalAccessToken, secret_key: str,
                 expires_at: dt.date | None = None) -> tuple[PersonalAccessToken, str]:
    """Revokes the token and issues its successor: same name and scopes, one week unless expires_at says."""
    if token.revoked:
        raise domain.BadRequest("Token already revoked")
    token.revoked = True
    expiry = expires_at or (utcnow() + ROTATED_TOKEN_LIFETIME).date()
    return create_token(session, user=token.user, name=token.name, scopes=token.scopes, secret_key=secret_key,
                        expires_at=expiry)


def revoke_token(session: Session, *, token: PersonalAccessToken) -> None:
    token.revoked = True
    session.flush()


def find_token(session: Session, ident: str | int) -> PersonalAccessToken | None:
    row_id = parse_id(ident)
    return session.get(PersonalAccessToken, row_id) if row_id is not None else None


def token_by_digest(session: Session, digest: str) -> PersonalAccessToken | None:
    return session.scalars(select(PersonalAccessToken).where(PersonalAccessToken.token_digest == digest)).first()


def note_token_use(token: PersonalAccessToken) -> None:
    """Keeps last_used_at current without a write per request: at most one per interval and token."""
    now = utcnow()
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_WRITE_INTERVAL:
        token.last_used_at = now


@dataclass(frozen=True)
class TokenFilter:
    user_id: int | None = None
    state: str | None = None
    revoked: bool | None = None
    search: str | None = None
    created_before: dt.datetime | None = None
    created_after: dt.datetime | None = None
    last_used_before: dt.datetime | None = None
    last_used_after: dt.datetime | None = None


def tokens_stmt(*, filters: TokenFilter):
    stmt = select(PersonalAccessToken).order_by(PersonalAccessToken.id)
    today = dt.date.today()
    not_expired = or_(PersonalAccessToken.expires_at.is_(None), PersonalAccessToken.expires_at > today)
    if filters.user_id is not None:
        stmt = stmt.where(PersonalAccessToken.user_id == filters.user_id)
    if filters.state == "active":
        stmt = stmt.where(PersonalAccessToken.revoked.is_(False), not_expired)
    elif filters.state == "inactive":
        stmt = stmt.where(or_(PersonalAccessToken.revoked.is_(True), ~not_expired))
    if filters.revoked is not None:
        stmt = stmt.where(PersonalAccessToken.revoked.is_(filters.revoked))
    if filters.search:
        stmt = stmt.where(PersonalAccessToken.name.ilike(contains_pattern(filters.search), escape=LIKE_ESCAPE))
    bounds = ((filters.created_before, PersonalAccessToken.created_at, "lt"),
              (filters.created_after, PersonalAccessToken.created_at, "gt"),
              (filters.last_used_before, PersonalAccessToken.last_used_at, "lt"),
              (filters.last_used_after, PersonalAccessToken.last_used_at, "gt"))
    for value, column, op in bounds:
        if value is not None:
            stmt = stmt.where(column < value if op == "lt" else column > value)
    return stmt


# --- the bootstrap administrator ----------------------------------------------------------

def ensure_root(session: Session, *, token: str, secret_key: str) -> User:
    """The bootstrap administrator whose token comes from OUTPOST_ROOT_TOKEN.

    Replicas starting together race to create it: the loser's insert conflicts, so its savepoint rolls
    back and it finds the winner's rows on the second pass. The caller's unit of work commits.
    """
    try:
        with session.begin_nested():
            return _ensure_root_once(session, token=token, secret_key=secret_key)
    except (domain.DomainError, IntegrityError):
        return _ensure_root_once(session, token=token, secret_key=secret_key)


def _ensure_root_once(session: Session, *, token: str, secret_key: str) -> User:
    root = session.scalar(select(User).where(User.username == "root"))
    if root is None:
        root = create_user(session, username="root", name="Administrator", email="admin@example.com", is_admin=True)
    digest = token_digest(token, secret_key)
    if session.scalar(select(PersonalAccessToken.id).where(PersonalAccessToken.token_digest == digest)) is None:
        create_token(session, user=root, name="root bootstrap token", scopes=["api"], secret_key=secret_key,
                     token=token)
    return root

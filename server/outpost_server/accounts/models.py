from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, declared_attr, mapped_column, relationship

from outpost_server.db import Base, UTCDateTime, utcnow


class User(Base):
    __tablename__ = "users"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases). A username is
    # unique in any case, as GitLab's index on lower(username) makes it (migration 0022).
    __table_args__ = (Index("ix_users__lower_username", text("lower(username)"), unique=True),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(255), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    email: Mapped[str] = mapped_column(String(255), unique=True)
    password_digest: Mapped[str | None] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(32), default="active")
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    bio: Mapped[str] = mapped_column(Text, default="")
    can_create_group: Mapped[bool] = mapped_column(Boolean, default=True)
    projects_limit: Mapped[int] = mapped_column(Integer, default=100_000)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class PersonalAccessToken(Base):
    __tablename__ = "personal_access_tokens"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases).
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(255))
    token_digest: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[list[str]] = mapped_column(JSON)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    expires_at: Mapped[dt.date | None] = mapped_column(Date)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    user: Mapped[User] = relationship(lazy="joined")

    def is_expired(self, today: dt.date) -> bool:
        return self.expires_at is not None and self.expires_at <= today


class Namespace(Base):
    """GitLab's namespaces: one id space for personal namespaces (kind "user") and groups (kind "group").

    A namespace id never means two things, and a user's namespace id is not the user's id. The table
    was the groups table before namespaces existed, which is why groups keep their ids.
    """

    __tablename__ = "namespaces"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases); a full path
    # is unique in any case (GitLab's index on lower(routes.path); migration 0022).
    __table_args__ = (Index("ix_namespaces__lower_full_path", text("lower(full_path)"), unique=True),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(255))
    path: Mapped[str] = mapped_column(String(255))
    full_path: Mapped[str] = mapped_column(String(1024), unique=True)
    full_name: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str] = mapped_column(Text, default="")
    visibility: Mapped[str] = mapped_column(String(16), default="private")
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("namespaces.id"), index=True)
    # The user whose personal namespace this is (kind "user" only).
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    __mapper_args__ = {"polymorphic_on": "kind"}


class UserNamespace(Namespace):
    __mapper_args__ = {"polymorphic_identity": "user"}

    owner: Mapped[User] = relationship(lazy="joined", foreign_keys=[Namespace.owner_id])


class Group(Namespace):
    __mapper_args__ = {"polymorphic_identity": "group"}


class Project(Base):
    __tablename__ = "projects"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases); a full path
    # is unique in any case (migration 0022).
    __table_args__ = (Index("ix_projects__lower_full_path", text("lower(full_path)"), unique=True),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    path: Mapped[str] = mapped_column(String(255))
    full_path: Mapped[str] = mapped_column(String(1024), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    visibility: Mapped[str] = mapped_column(String(16), default="private")
    # A group's or a user's personal namespace.
    namespace_id: Mapped[int] = mapped_column(ForeignKey("namespaces.id"), index=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    default_branch: Mapped[str] = mapped_column(String(255), default="main")
    monitor_access_level: Mapped[str] = mapped_column(String(16), default="enabled")
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    namespace: Mapped[Namespace] = relationship(lazy="joined")
    creator: Mapped[User] = relationship(lazy="joined")

    @property
    def group(self) -> Group | None:
        return self.namespace if isinstance(self.namespace, Group) else None


class MembershipColumns:
    """What group and project memberships share: the member, the role and its expiry."""

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    access_level: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[dt.date | None] = mapped_column(Date)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    @declared_attr
    def user(cls) -> Mapped[User]:
        return relationship(User, lazy="joined")


class GroupMember(MembershipColumns, Base):
    __tablename__ = "group_members"
    __table_args__ = (UniqueConstraint("group_id", "user_id"),)

    group_id: Mapped[int] = mapped_column(ForeignKey("namespaces.id", ondelete="CASCADE"), index=True)


class ProjectMember(MembershipColumns, Base):
    __tablename__ = "project_members"
    __table_args__ = (UniqueConstraint("project_id", "user_id"),)

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)


class AuthFailure(Base):
    """Failed token authentications from one address in the current window, and its ban (shared by every
    process and replica through the database, like GitLab's Rack::Attack store)."""

    __tablename__ = "auth_failures"

    ip: Mapped[str] = mapped_column(String(64), primary_key=True)
    window_started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    banned_until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class UnauthenticatedRequestWindow(Base):
    """Requests without credentials from one address in one window of one throttle (GitLab's
    throttle_unauthenticated_api and _web), summed over every process and replica."""

    __tablename__ = "unauthenticated_request_windows"

    throttle: Mapped[str] = mapped_column(String(32), primary_key=True)
    ip: Mapped[str] = mapped_column(String(64), primary_key=True)
    # Windows of the throttle's period since the epoch.
    window: Mapped[int] = mapped_column(Integer, primary_key=True)
    requests: Mapped[int] = mapped_column(Integer, default=0)

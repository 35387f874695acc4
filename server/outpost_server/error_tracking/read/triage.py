"""Triage of integrated errors: assignment to a project member, status with ignore conditions, and what
the serializers show of both (Sentry's GroupAssignee and GroupSnooze). Merging lives in merging.py.

The callers check who may triage (access.may_triage); this module checks who may be assigned: a user
with at least Reporter access to the project, named as Sentry's actor field names one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from outpost_server.accounts import access
from outpost_server.accounts.models import Project, User
from outpost_server.accounts.service import project_access_level
from outpost_server.db import parse_id, utcnow
from outpost_server.error_tracking.digest.snoozes import Conditions, Totals, condition_met
from outpost_server.error_tracking.models import ErrorSnooze, TrackedError
from outpost_server.error_tracking.read.tracked_errors import update_error_status

# Sentry's texts for an assignee it cannot use (parse_and_validate_actor and GroupValidator).
UNPARSABLE = "Could not parse actor. Format should be `type:id` where type is `team` or `user`."
NO_SUCH_USER = "User does not exist"
NO_SUCH_TEAM = "Team does not exist"
NOT_A_MEMBER = "Cannot assign to non-team member"
DEACTIVATED = "Cannot assign to a deactivated member"


class AssigneeRefused(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class IgnoreConditions:
    """Sentry's statusDetails for ignoring: minutes, counts and windows (minutes); None where not given."""

    duration: int | None = None
    count: int | None = None
    window: int | None = None
    user_count: int | None = None
    user_window: int | None = None

    @property
    def any(self) -> bool:
        return bool(self.duration or self.count or self.user_count)


@dataclass(frozen=True)
class Triage:
    """What the serializers show of an error's triage."""

    assignee: User | None = None
    snooze: ErrorSnooze | None = None


def find_assignee(session: Session, project: Project, identifier: str) -> User:
    """The user `identifier` names (`<id>`, `user:<id>`, a username or an email), refused unless a member of
    the project with at least Reporter access."""
    if identifier.startswith("team:"):
        raise AssigneeRefused(NO_SUCH_TEAM)
    number = identifier[5:] if identifier.startswith("user:") else identifier
    user: User | None
    if number.isdigit() and number.isascii():
        user_id = parse_id(number)
        user = session.get(User, user_id) if user_id is not None else None
        if user is None:
            raise AssigneeRefused(NO_SUCH_USER)
    elif identifier.startswith("user:"):
        raise AssigneeRefused(UNPARSABLE)
    else:
        lowered = identifier.lower()
        user = session.scalar(select(User).where(or_(func.lower(User.username) == lowered,
                                                     func.lower(User.email) == lowered)))
        if user is None:
            raise AssigneeRefused(UNPARSABLE)
    if user.state != "active":
        raise AssigneeRefused(DEACTIVATED)
    if project_access_level(session, user, project) < access.REPORTER:
        raise AssigneeRefused(NOT_A_MEMBER)
    return user


def assign(session: Session, errors: Sequence[TrackedError], user: User | None) -> None:
    for error in errors:
        error.assignee_id = user.id if user is not None else None
        error.updated_at = utcnow()
    session.flush()


def set_status(session: Session, errors: Sequence[TrackedError], status: str, *, actor: User,
               conditions: IgnoreConditions | None = None) -> ErrorSnooze | None:
    """Sets the status; ignoring with conditions keeps them (one row per error), any other change drops
    them. Answers one of the conditions written, for the answer's statusDetails."""
    ids = [error.id for error in errors]
    session.execute(delete(ErrorSnooze).where(ErrorSnooze.error_id.in_(ids)))
    for error in errors:
        update_error_status(session, error=error, status=status)
    if status != "ignored" or conditions is None or not conditions.any:
        return None
    now = utcnow()
    until = now + dt.timedelta(minutes=conditions.duration) if conditions.duration else None
    written = [ErrorSnooze(error_id=error.id, until=until, count=conditions.count or None,
                           window=conditions.window or None, user_count=conditions.user_count or None,
                           user_window=conditions.user_window or None, times_seen=error.count,
                           users_seen=error.users_count, actor_id=actor.id, created_at=now) for error in errors]
    session.add_all(written)
    session.flush()
    return written[0] if written else None


def facts_of(session: Session, errors: Sequence[TrackedError]) -> dict[int, Triage]:
    """Each error's assignee and ignore conditions, in two queries for a page of errors."""
    assignee_ids = {error.assignee_id for error in errors if error.assignee_id is not None}
    users = ({user.id: user for user in session.scalars(select(User).where(User.id.in_(assignee_ids)))}
             if assignee_ids else {})
    ignored = [error.id for error in errors if error.status == "ignored"]
    snoozes = ({row.error_id: row for row in session.scalars(select(ErrorSnooze).where(
        ErrorSnooze.error_id.in_(ignored)))} if ignored else {})
    return {error.id: Triage(users.get(error.assignee_id) if error.assignee_id is not None else None,
                             snoozes.get(error.id)) for error in errors}


def still_ignored(session: Session, error: TrackedError, snooze: ErrorSnooze, now: dt.datetime | None = None
                  ) -> bool:
    """Whether the conditions still hold (Sentry shows an error whose conditions are met as unresolved
    before anything wakes it)."""
    return not condition_met(session.connection(), Conditions.of(snooze), Totals(error.count, error.users_count),
                             now or utcnow())

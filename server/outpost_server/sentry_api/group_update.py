"""Sentry's issue updates (`update_groups`): the body as its GroupValidator reads it, then status (with
ignore conditions), assignment and merge applied to the issues, and the answer of what changed.

The bulk endpoint answers that delta; the single issue's endpoint answers the issue itself afterwards,
as Sentry's GroupDetails does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from outpost_model.sentry_issues import IssuesUpdated, MergeResult
from outpost_server.accounts.models import Project, User
from outpost_server.error_tracking.digest.snoozes import MAX_WINDOW_MINUTES
from outpost_server.error_tracking.models import ErrorSnooze, TrackedError
from outpost_server.error_tracking.read import merging, triage
from outpost_server.http_errors import ApiError

from .serializers import IssueTriage, actor_json, ignored_details

# Sentry's statuses as sent by clients, and the status each one stores.
STATUS_CHANGES = {"resolved": "resolved", "resolvedInNextRelease": "resolved", "unresolved": "unresolved",
                  "ignored": "ignored"}
# statusDetails' ignore fields (also accepted at the top level), and the two bounded to a week.
IGNORE_FIELDS = ("ignoreDuration", "ignoreCount", "ignoreWindow", "ignoreUserCount", "ignoreUserWindow")
WINDOWS = ("ignoreWindow", "ignoreUserWindow")
MAX_STORED = 2**31 - 1
# Django REST framework's BooleanField spellings.
TRUE = {True, "1", "true", "True", "TRUE", "t", "T", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON"}
FALSE = {False, "0", "false", "False", "FALSE", "f", "F", "n", "N", "no", "No", "NO", "off", "Off", "OFF"}
UNSET = object()


@dataclass
class GroupChanges:
    """The validated body: what to change (UNSET where the body does not say)."""

    status: str | None = None
    ignore: triage.IgnoreConditions = field(default_factory=triage.IgnoreConditions)
    assignee: Any = UNSET  # a User, None (unassign) or UNSET
    merge: bool | None = None


def _integer(value: Any, name: str, errors: dict[str, list[str]]) -> int | None:
    """DRF's IntegerField: an integer or its decimal text."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().lstrip("-").isdigit():
        errors[name] = ["A valid integer is required."]
        return None
    number = int(str(value).strip())
    highest = MAX_WINDOW_MINUTES if name in WINDOWS else MAX_STORED
    if number > highest:
        errors[name] = [f"Ensure this value is less than or equal to {highest}."]
        return None
    if number < 0:  # Sentry stores them in positive integer columns
        errors[name] = ["Ensure this value is greater than or equal to 0."]
        return None
    return number


def _ignore(values: dict[str, Any], errors: dict[str, list[str]]) -> dict[str, int | None]:
    return {name: _integer(values.get(name), name, errors) for name in IGNORE_FIELDS}


def read_changes(session: Session, project: Project, body: dict[str, Any]) -> GroupChanges:
    """The body as GroupValidator validates it; a 400 with its field errors otherwise."""
    errors: dict[str, Any] = {}
    changes = GroupChanges()
    if "status" in body:
        status = body["status"]
        if not isinstance(status, str) or status not in STATUS_CHANGES:
            errors["status"] = [f'"{status}" is not a valid choice.']
        else:
            changes.status = status
    top: dict[str, list[str]] = {}
    ignore = _ignore(body, top)
    errors.update(top)
    if "statusDetails" in body:
        details = body["statusDetails"]
        if not isinstance(details, dict):
            errors["statusDetails"] = {"non_field_errors": [
                f"Invalid data. Expected a dictionary, but got {type(details).__name__}."]}
        else:
            nested: dict[str, list[str]] = {}
            ignore |= {name: number for name, number in _ignore(details, nested).items() if name in details}
            if nested:
                errors["statusDetails"] = nested
    changes.ignore = triage.IgnoreConditions(
        duration=ignore["ignoreDuration"], count=ignore["ignoreCount"], window=ignore["ignoreWindow"],
        user_count=ignore["ignoreUserCount"], user_window=ignore["ignoreUserWindow"])
    if "merge" in body:
        if body["merge"] in TRUE:
            changes.merge = True
        elif body["merge"] in FALSE:
            changes.merge = False
        else:
            errors["merge"] = ["Must be a valid boolean."]
    if "assignedTo" in body:
        changes.assignee = _assignee(session, project, body["assignedTo"], errors)
    if errors:
        raise ApiError(400, errors)
    return changes


def _assignee(session: Session, project: Project, value: Any, errors: dict[str, Any]) -> User | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        errors["assignedTo"] = [triage.UNPARSABLE]
        return None
    try:
        return triage.find_assignee(session, project, str(value))
    except triage.AssigneeRefused as refused:
        errors["assignedTo"] = [refused.message]
        return None


def apply(session: Session, errors: Sequence[TrackedError], changes: GroupChanges, *, actor: User
          ) -> IssuesUpdated:
    """Applies the changes to the issues (of one project); answers the delta, as `update_groups` does."""
    result = IssuesUpdated()
    if changes.status is not None:
        stored = STATUS_CHANGES[changes.status]
        conditions = changes.ignore if stored == "ignored" else None
        snooze = triage.set_status(session, errors, stored, actor=actor, conditions=conditions)
        result.status = stored
        result.statusDetails = _ignored_answer(snooze, errors, actor) if snooze is not None else {}
        if stored != "unresolved":
            result.inbox = None
    if changes.assignee is not UNSET:
        triage.assign(session, errors, changes.assignee)
        result.assignedTo = actor_json(changes.assignee)
    if changes.merge is not None:
        if changes.merge and len(errors) > 1:
            parent, children = merging.merge(session, errors)
            result.merge = MergeResult(parent=str(parent.id), children=[str(child.id) for child in children])
        else:
            result.merge = changes.merge
    return result


def _ignored_answer(snooze: ErrorSnooze, errors: Sequence[TrackedError], actor: User) -> dict[str, Any]:
    """The statusDetails answered for ignoring with conditions: as given, not what remains of them."""
    return ignored_details(snooze, next(error for error in errors if error.id == snooze.error_id), actor)


def triage_of(session: Session, errors: Sequence[TrackedError]) -> dict[int, IssueTriage]:
    """What the serializers show of each error's triage."""
    facts = triage.facts_of(session, errors)
    actor_ids = {fact.snooze.actor_id for fact in facts.values() if fact.snooze and fact.snooze.actor_id}
    actors = {user_id: session.get(User, user_id) for user_id in actor_ids}
    by_id = {error.id: error for error in errors}
    return {error_id: IssueTriage(
        assignee=fact.assignee, snooze=fact.snooze,
        snooze_actor=actors.get(fact.snooze.actor_id) if fact.snooze and fact.snooze.actor_id else None,
        still_ignored=fact.snooze is None or triage.still_ignored(session, by_id[error_id], fact.snooze))
        for error_id, fact in facts.items()}

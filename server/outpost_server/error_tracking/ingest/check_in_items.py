"""Cron monitor check-ins: the `check_in` envelope item as Relay reads it (relay-monitors' `process_check_in`).

What Relay refuses is refused here (InvalidCheckIn): a payload that is not its `CheckIn` shape (a status that is not a
string, a `monitor_config` whose schedule is neither `{"type": "crontab", "value": str}` nor
`{"type": "interval", "value": n, "unit": ...}`, negative minutes), an environment longer than 64. The slug is
read as Sentry's check-in consumer reads it (`valid_monitor_slug`): Django's `slugify` (ASCII letters, digits,
`_` and `-`, lower case), cut to 50 characters, end hyphens stripped; a slug that leaves nothing is refused.
A `missed` status cannot be sent (the server decides it) and, like any status Relay does not know, reads as
`unknown`. The configuration's own rules (crontab syntax, time zones, bounds) are the monitor's, checked
when it is stored.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any

SLUG_LENGTH = 50
ENVIRONMENT_LENGTH = 64
STATUSES = ("ok", "error", "in_progress")
INTERVAL_UNITS = ("year", "month", "week", "day", "hour", "minute")
CONFIG_MINUTES = ("checkin_margin", "max_runtime", "failure_issue_threshold", "recovery_threshold")


@dataclass(frozen=True)
class CheckInItem:
    # The client's id (32 hex digits); None for Relay's nil id ("the latest check-in").
    check_in_id: str | None
    monitor_slug: str
    status: str  # ok, error, in_progress or unknown
    environment: str | None
    duration: float | None
    monitor_config: dict[str, Any] | None


class InvalidCheckIn(Exception):
    """A check-in Relay would drop; the message says why."""


def _refuse(reason: str) -> InvalidCheckIn:
    return InvalidCheckIn(f"invalid check-in: {reason}")


def _check_in_id(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _refuse("check_in_id is not a UUID")
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise _refuse("check_in_id is not a UUID") from None
    return None if parsed.int == 0 else parsed.hex


def slugify(value: str) -> str:
    """Django's `slugify` (not allowing Unicode), then Sentry's cut to 50 characters."""
    ascii_only = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^\w\s-]", "", ascii_only.lower())
    return re.sub(r"[-\s]+", "-", words).strip("-_")[:SLUG_LENGTH].strip("-")


def _unsigned(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _config(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _refuse("monitor_config is not an object")
    schedule = value.get("schedule")
    if not isinstance(schedule, dict):
        raise _refuse("monitor_config has no schedule")
    if schedule.get("type") == "crontab":
        if not isinstance(schedule.get("value"), str):
            raise _refuse("a crontab schedule needs a string value")
    elif schedule.get("type") == "interval":
        count = schedule.get("value")
        if count is None or not _unsigned(count) or schedule.get("unit") not in INTERVAL_UNITS:
            raise _refuse("an interval schedule needs a count and a unit")
    else:
        raise _refuse("the schedule type is neither crontab nor interval")
    for name in CONFIG_MINUTES:
        if not _unsigned(value.get(name)):
            raise _refuse(f"{name} is not a non-negative integer")
    if value.get("timezone") is not None and not isinstance(value["timezone"], str):
        raise _refuse("timezone is not a string")
    return value


def read_check_in(payload: dict[str, Any]) -> CheckInItem:
    """One check-in (the item's JSON object); raises InvalidCheckIn where Relay drops the item."""
    status = payload.get("status")
    if not isinstance(status, str):
        raise _refuse("status is missing")
    slug = payload.get("monitor_slug", "")
    if not isinstance(slug, str):
        raise _refuse("monitor_slug is not a string")
    slug = slugify(slug)
    if not slug:
        raise _refuse("the monitor slug is empty or invalid")
    environment = payload.get("environment")
    if environment is not None and not isinstance(environment, str):
        raise _refuse("environment is not a string")
    if environment is not None and len(environment) > ENVIRONMENT_LENGTH:
        raise _refuse("the environment is invalid")
    duration = payload.get("duration")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float))):
        raise _refuse("duration is not a number")
    return CheckInItem(
        check_in_id=_check_in_id(payload.get("check_in_id")), monitor_slug=slug,
        status=status if status in STATUSES else "unknown", environment=environment or None,
        duration=float(duration) if duration is not None else None,
        monitor_config=_config(payload.get("monitor_config")))

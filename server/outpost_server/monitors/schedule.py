"""A monitor's configuration as Sentry validates it (`ConfigValidator`), and its schedule arithmetic.

Crontabs are evaluated by cronsim in the monitor's time zone, as Sentry's `get_next_schedule` does, so a
daily 02:30 in Europe/Berlin runs at 03:00 on the spring-forward day and once on the fall-back day;
intervals follow dateutil's rrule from the reference time. Expected times are cut to the minute.
Pure: no database.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from dataclasses import dataclass
from typing import Any

from cronsim import CronSim, CronSimError
from dateutil import rrule

from outpost_server.domain_errors import Invalid

INTERVAL_UNITS = ("year", "month", "week", "day", "hour", "minute")
_FREQUENCIES = {"year": rrule.YEARLY, "month": rrule.MONTHLY, "week": rrule.WEEKLY, "day": rrule.DAILY,
                "hour": rrule.HOURLY, "minute": rrule.MINUTELY}
# Sentry's aliases; @reboot cannot be scheduled.
NONSTANDARD_CRONTABS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                        "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@hourly": "0 * * * *"}
# Sentry's limits (monitors/constants.py): minutes of margin and runtime, consecutive check-ins.
MAX_MARGIN = 40_320
MAX_TIMEOUT = 10_080
MAX_THRESHOLD = 720
DEFAULT_MARGIN_MINUTES = 1
DEFAULT_MAX_RUNTIME_MINUTES = 30
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class MonitorConfig:
    schedule_type: str  # crontab or interval
    # The crontab, or the interval's count.
    schedule: str | int
    unit: str | None = None
    checkin_margin: int | None = None
    max_runtime: int | None = None
    timezone: str | None = None
    failure_issue_threshold: int | None = None
    recovery_threshold: int | None = None

    def as_json(self) -> dict[str, Any]:
        """Sentry's serialized `config`: the interval as a [count, unit] pair."""
        return {"schedule_type": self.schedule_type,
                "schedule": [self.schedule, self.unit] if self.schedule_type == "interval" else self.schedule,
                "checkin_margin": self.checkin_margin, "max_runtime": self.max_runtime,
                "timezone": self.timezone or "UTC", "failure_issue_threshold": self.failure_issue_threshold,
                "recovery_threshold": self.recovery_threshold, "alert_rule_id": None}

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.timezone or "UTC")

    def margin(self) -> dt.timedelta:
        return dt.timedelta(minutes=self.checkin_margin or DEFAULT_MARGIN_MINUTES)

    def runtime(self) -> dt.timedelta:
        return dt.timedelta(minutes=self.max_runtime or DEFAULT_MAX_RUNTIME_MINUTES)

    def next_after(self, reference: dt.datetime) -> dt.datetime:
        """The first scheduled time after `reference` (aware), in UTC, cut to the minute."""
        local = reference.astimezone(self.zone)
        if self.schedule_type == "crontab":
            found = next(CronSim(str(self.schedule), local))
        else:
            assert self.unit is not None and isinstance(self.schedule, int)
            rule = rrule.rrule(freq=_FREQUENCIES[self.unit], interval=self.schedule, dtstart=local, count=2)
            after = rule.after(local)
            assert after is not None  # a rule of two occurrences always has the second
            found = after
        return found.astimezone(dt.timezone.utc).replace(second=0, microsecond=0)


def _invalid(field: str, message: str) -> Invalid:
    return Invalid({field: [message]})


def _bounded(data: dict[str, Any], field: str, low: int, high: int) -> int | None:
    value = data.get(field)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(field, "A valid integer is required.")
    if field == "checkin_margin" and value == 0:
        return 1  # Sentry still takes the margin of 0 older SDKs send, as 1
    if not low <= value <= high:
        raise _invalid(field, f"Ensure this value is between {low} and {high}.")
    return value


def _crontab(value: Any) -> str:
    if not isinstance(value, str):
        raise _invalid("schedule", "Invalid schedule for 'crontab' type")
    crontab = _WHITESPACE.sub(" ", value).strip()
    if crontab.startswith("@"):
        if crontab not in NONSTANDARD_CRONTABS:
            raise _invalid("schedule", "Schedule was not parseable")
        crontab = NONSTANDARD_CRONTABS[crontab]
    if len(crontab.split()) > 5:
        raise _invalid("schedule", "Only 5 field crontab syntax is supported")
    try:
        now = dt.datetime.now(dt.timezone.utc)
        next(CronSim(crontab, now))
        next(CronSim(crontab, now, reverse=True))
    except (CronSimError, StopIteration):
        raise _invalid("schedule", "Schedule is invalid") from None
    return crontab


def parse_config(data: Any, *, schedule_type: str | None = None) -> MonitorConfig:
    """Sentry's `ConfigValidator`: `schedule` as a crontab string, an [n, unit] pair or Relay's object form
    ({"type": "crontab", "value": ...} or {"type": "interval", "value": n, "unit": ...})."""
    if not isinstance(data, dict):
        raise _invalid("config", "Invalid data. Expected a dictionary.")
    kind = data.get("schedule_type", schedule_type)
    schedule = data.get("schedule")
    if schedule is None or schedule == "":
        raise _invalid("schedule", "This field is required.")
    if isinstance(schedule, dict) and schedule.get("type"):
        kind = schedule["type"]
    if kind not in ("crontab", "interval"):
        raise _invalid("schedule_type", "Missing or invalid schedule type")
    unit = None
    if kind == "interval":
        if isinstance(schedule, dict):
            schedule = [schedule.get("value"), schedule.get("unit")]
        if not isinstance(schedule, list) or len(schedule) != 2:
            raise _invalid("schedule", "Invalid schedule for for 'interval' type")
        count, unit = schedule
        if isinstance(count, bool) or not isinstance(count, int):
            raise _invalid("schedule", "Invalid schedule for schedule unit count")
        if count <= 0:
            raise _invalid("schedule", "Interval must be greater than zero")
        if unit not in INTERVAL_UNITS:
            raise _invalid("schedule", "Invalid schedule for schedule unit name")
        value: str | int = count
    else:
        value = _crontab(schedule.get("value") if isinstance(schedule, dict) else schedule)
    timezone = data.get("timezone") or None
    if timezone is not None and (not isinstance(timezone, str) or timezone not in zoneinfo.available_timezones()):
        raise _invalid("timezone", f'"{timezone}" is not a valid choice.')
    return MonitorConfig(
        schedule_type=kind, schedule=value, unit=unit, timezone=timezone,
        checkin_margin=_bounded(data, "checkin_margin", 1, MAX_MARGIN),
        max_runtime=_bounded(data, "max_runtime", 1, MAX_TIMEOUT),
        failure_issue_threshold=_bounded(data, "failure_issue_threshold", 1, MAX_THRESHOLD),
        recovery_threshold=_bounded(data, "recovery_threshold", 1, MAX_THRESHOLD))

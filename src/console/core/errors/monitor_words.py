"""What the Monitors page says of a monitor, without Qt: its schedule in words, its status, and the colour
(a name of looks.py) of each check-in status on the timeline."""

from __future__ import annotations

import re

from console.core.api.monitors import Monitor, MonitorConfig, is_failing, is_paused

DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# looks.py's colour names for the check-in statuses.
STATUS_COLOURS = {"ok": "success", "error": "error", "missed": "warning", "timeout": "fatal",
                  "in_progress": "muted"}
_NUMBER = re.compile(r"^\d+$")


def _plural(count: int, unit: str) -> str:
    return f"every {unit}" if count == 1 else f"every {count} {unit}s"


def _clock(hour: str, minute: str) -> str:
    return f"{int(hour):02d}:{int(minute):02d}"


def _crontab_words(crontab: str) -> str:
    fields = crontab.split()
    if len(fields) != 5:
        return f"cron {crontab}"
    minute, hour, day, month, weekday = fields
    if fields == ["*"] * 5:
        return "every minute"
    if minute.startswith("*/") and [hour, day, month, weekday] == ["*"] * 4 and _NUMBER.match(minute[2:]):
        return _plural(int(minute[2:]), "minute")
    if _NUMBER.match(minute) and (day, month, weekday) == ("*", "*", "*"):
        if hour == "*":
            return f"every hour at minute {int(minute)}"
        if hour.startswith("*/") and _NUMBER.match(hour[2:]):
            return f"{_plural(int(hour[2:]), 'hour')} at minute {int(minute)}"
        if _NUMBER.match(hour):
            return f"every day at {_clock(hour, minute)}"
    if _NUMBER.match(minute) and _NUMBER.match(hour) and month == "*":
        if day == "*" and _NUMBER.match(weekday) and int(weekday) < len(DAYS):
            return f"every {DAYS[int(weekday)]} at {_clock(hour, minute)}"
        if day == "*" and weekday == "1-5":
            return f"every weekday at {_clock(hour, minute)}"
        if _NUMBER.match(day) and weekday == "*":
            return f"every month on day {int(day)} at {_clock(hour, minute)}"
    return f"cron {crontab}"


def schedule_words(config: MonitorConfig) -> str:
    """"every day at 02:00 Europe/Berlin", "every 10 minutes UTC", or the crontab itself when unusual."""
    schedule = config.schedule
    if config.schedule_type == "interval" and isinstance(schedule, list) and len(schedule) == 2:
        words = _plural(int(schedule[0]), str(schedule[1]))
    else:
        words = _crontab_words(str(schedule))
    return f"{words} {config.timezone or 'UTC'}"


def status_words(monitor: Monitor) -> str:
    if is_paused(monitor):
        text = "paused"
    elif is_failing(monitor):
        text = "failing"
    elif any(environment.status == "ok" for environment in monitor.environments):
        text = "ok"
    else:
        text = "waiting for a first check-in"
    return f"{text}, muted" if monitor.isMuted else text

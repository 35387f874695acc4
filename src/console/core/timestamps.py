"""Timestamps as GitLab and Sentry send them (ISO 8601, often with a trailing ``Z``)."""

from __future__ import annotations

import datetime as dt


def parse_time(text: str | None) -> dt.datetime | None:
    """The moment ``text`` names, always timezone-aware (UTC when it names no zone); None for no text.

    Raises ValueError for text that is not an ISO 8601 timestamp.
    """
    if not text:
        return None
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


def short_time(text: str | None) -> str:
    """A timestamp from the server as local "YYYY-MM-DD HH:MM"; text that is no timestamp is shown as is."""
    try:
        moment = parse_time(text)
    except ValueError:
        return text or ""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment else ""


# The widest texts relative_time gives, for columns sized from the font.
WIDEST_RELATIVE = ("59 min ago", "23 h ago", "in 59 min", "2026-12-31")


def relative_time(text: str | None, now: dt.datetime | None = None) -> str:
    """A timestamp from the server as a table shows it, short and unambiguous: "just now", "5 min ago", "3 h ago",
    "6 d ago" (or "in 5 min" for one to come), and the local date beyond a week; full_time gives the tooltip.
    A time column holding "2026-11-27 11:42" was cut at 900 px; Sentry and GitLab list times this way."""
    try:
        moment = parse_time(text)
    except ValueError:
        return text or ""
    if moment is None:
        return ""
    seconds = ((now or dt.datetime.now(dt.timezone.utc)) - moment).total_seconds()
    ahead, seconds = seconds < 0, abs(seconds)
    if seconds < 60:
        return "just now"
    for limit, unit_seconds, unit in ((3600, 60, "min"), (86_400, 3600, "h"), (7 * 86_400, 86_400, "d")):
        if seconds < limit:
            amount = int(seconds // unit_seconds)
            return f"in {amount} {unit}" if ahead else f"{amount} {unit} ago"
    return moment.astimezone().strftime("%Y-%m-%d")


def full_time(text: str | None) -> str:
    """A timestamp from the server in full, in local time with its zone (the tooltip of a relative time)."""
    try:
        moment = parse_time(text)
    except ValueError:
        return text or ""
    if moment is None:
        return ""
    local = moment.astimezone()
    offset = local.strftime("%z")
    return f"{local.strftime('%Y-%m-%d %H:%M:%S')} (UTC{offset[:3]}:{offset[3:]})"

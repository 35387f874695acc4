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

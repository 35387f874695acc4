"""GitLab's API time formats: timestamps in ISO 8601, UTC, with milliseconds; dates as YYYY-MM-DD."""

from __future__ import annotations

import datetime as dt


def iso(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    value = value.astimezone(dt.timezone.utc)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def iso_date(value: dt.date | None) -> str | None:
    return value.isoformat() if value is not None else None

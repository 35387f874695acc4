"""The `Time` scalar: ISO 8601 as graphql-ruby writes Ruby times (seconds, numeric UTC offset)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ariadne import ScalarType

time_scalar = ScalarType("Time")


def parse_time(value: Any) -> dt.datetime:
    """A UTC datetime from a datetime, an epoch second count, or an ISO 8601 string (Sentry's and ours)."""
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        moment = dt.datetime.fromtimestamp(value, dt.timezone.utc)
    elif isinstance(value, str):
        moment = dt.datetime.fromisoformat(value.strip())
    else:
        raise ValueError(f"not a time: {value!r}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc)


@time_scalar.serializer
def serialize_time(value: Any) -> str:
    return parse_time(value).strftime("%Y-%m-%dT%H:%M:%S+00:00")


@time_scalar.value_parser
def parse_time_value(value: Any) -> dt.datetime:
    return parse_time(value)

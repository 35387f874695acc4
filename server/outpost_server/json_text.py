"""Parsing JSON bodies as GitLab's Ruby parser does: a string with an unpaired surrogate escape
("\\ud800") is accepted, with U+FFFD in its place, since no database stores such a string."""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(data: bytes | str) -> Any:
    """The document; ValueError (or RecursionError, for absurd nesting) when it is not JSON at all."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        # orjson is strict; the standard parser also takes unpaired surrogates, NaN and Infinity, and
        # UTF-16/32 bodies.
        return without_lone_surrogates(json.loads(data))


def without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {without_lone_surrogates(key): without_lone_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    return value

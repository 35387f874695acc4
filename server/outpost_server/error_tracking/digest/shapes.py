"""Lenient readers for SDK payload values: a value of the wrong type counts as missing, never raises."""

from __future__ import annotations

from typing import Any


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """A non-empty string, or a number rendered as text; anything else is missing."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def clip(text: str | None, limit: int) -> str | None:
    return text[:limit] if text is not None else None


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""

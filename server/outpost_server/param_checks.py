"""What a declared parameter's value may be: Grape's coercions (Integer, Boolean, DateTime, String, Array)
and, for a value that breaks its declaration, the words Grape puts after the name ("is invalid", "does not
have a valid value"). params.py reads values through these and answers each API in its own way."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from outpost_server.compat.ruby_date import parse_date

if TYPE_CHECKING:
    from outpost_server.params import Param

TRUE = {"1", "t", "true", "y", "yes", "on"}
FALSE = {"0", "f", "false", "n", "no", "off"}
# Grape's Integer takes any whole number; GitLab's columns hold 64 bits at most.
MAX_INTEGER = 2**63 - 1


class Invalid(ValueError):
    """The value is not what its parameter declares; `phrase` follows the name in Grape's message."""

    def __init__(self, phrase: str = "is invalid"):
        super().__init__(phrase)
        self.phrase = phrase


NOT_A_CHOICE = "does not have a valid value"


def text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise Invalid()
    if isinstance(value, bool):
        return "true" if value else "false"
    result = str(value)
    # PostgreSQL text cannot hold NUL; GitLab refuses such parameters before they reach it.
    if "\x00" in result:
        raise Invalid()
    return result


def boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered == "":
            raise Invalid("is empty")
        if lowered in TRUE:
            return True
        if lowered in FALSE:
            return False
    raise Invalid()


def integer(value: Any, bound: int | None = MAX_INTEGER) -> int | None:
    """A whole number, as a number or as text; blank text is no value (None). `bound`: the largest
    magnitude accepted, None for any."""
    if isinstance(value, bool):
        raise Invalid()
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            value = int(value.strip())
        except ValueError:
            raise Invalid() from None
    if not isinstance(value, int) or (bound is not None and abs(value) > bound):
        raise Invalid()
    return value


def date(value: Any) -> dt.date | None:
    """Grape's Date: what Ruby's Date.parse reads (`2026-01-31`, `31/01/2026`, `20260131`, ...). A day Ruby
    reads but Python's dates cannot hold (years before 1 or after 9999) is out of range."""
    written = text(value)
    if written == "":
        return None
    try:
        year, month, day = parse_date(written, this_year=dt.datetime.now(dt.timezone.utc).year)
    except ValueError:
        raise Invalid() from None
    if not dt.MINYEAR <= year <= dt.MAXYEAR:
        raise Invalid("is out of range")
    return dt.date(year, month, day)


def datetime(value: Any) -> dt.datetime | None:
    """An ISO 8601 time (Grape's DateTime); without a zone it is UTC."""
    written = text(value)
    if written == "":
        return None
    try:
        parsed = dt.datetime.fromisoformat(written.strip().replace("Z", "+00:00"))
    except ValueError:
        raise Invalid() from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=dt.timezone.utc)


def listed(value: Any) -> list[str]:
    """An array: a list as sent (`name[]=a&name[]=b` or JSON), or comma-separated text."""
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, str):
        return [part for part in value.split(",") if part]
    raise Invalid()


def check(param: Param, value: Any, *, bound: int | None) -> None:
    """Raises Invalid when a sent `value` is not what `param` declares (`bound`: see integer)."""
    if param.kind == "integer":
        number = integer(value, bound)
        if number is None:
            return
        if number in param.excluded:
            raise Invalid("has a value not allowed")
        if (param.minimum is not None and number < param.minimum) or (param.choices and number not in param.choices):
            raise Invalid(NOT_A_CHOICE)
    elif param.kind == "boolean":
        boolean(value)
    elif param.kind == "datetime":
        datetime(value)
    elif param.kind == "array":
        items = listed(value)
        if param.choices and any(item not in param.choices for item in items):
            raise Invalid(NOT_A_CHOICE)
    elif param.kind == "string":
        written = text(value)
        if param.choices and written not in param.choices:
            raise Invalid(NOT_A_CHOICE)
    # "object": a JSON object (Grape's Hash), whose own reader checks its keys.

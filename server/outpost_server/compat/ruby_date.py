"""Ruby's Date.parse, which Grape's `Date` parameters go through, for the forms people write dates in.

Read from Ruby's date_parse.c: the time of day is set aside first, then the first of these forms found
anywhere in the text gives the date: a day and a month name (`31 Jan 2026`), a month name and a day
(`January 31, 2026`), numbers joined by `-` (`2026-01-31`), by `/` (`31/01/2026`), by `.` (`31.01.2026`),
eight or six digits (`20260131`, `260131`), or a month name alone (`January`: its first day). Three numbers
are year, month, day unless one of the later two has more than two digits: that one is the year, so
`31/01/2026` is the 31st of January. A year of one or two digits is completed as Ruby completes it (69 to
99 are 19xx, the rest 20xx); a date without a year is in the current one (UTC here, local time in Ruby).

Not read: week dates, ordinal dates, Japanese era names, years marked with an apostrophe or BC; those are
refused like text that holds no date.
"""

from __future__ import annotations

import re

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[^-\d\s']*"
_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:z\b|[-+]\d{1,2}(?::?\d{2})?)?", re.IGNORECASE)
# Each form with the order its groups come in: d(ay), m(onth), y(ear), or n for a number placed by _order.
_FORMS = (
    (re.compile(r"\b(\d+)[^-\d\s']*\s*" + _MONTH + r"(?:\s*(-?\d+)\b)?", re.IGNORECASE), "dmy"),
    (re.compile(r"\b" + _MONTH + r"\s*(\d+)[^-\d\s']*(?:\s*,?\s*(-?\d+)\b)?", re.IGNORECASE), "mdy"),
    (re.compile(r"([-+]?\d+)-(\d+)-(\d+)"), "nnn"),
    (re.compile(r"([-+]?\d+)/(\d+)/(\d+)"), "nnn"),
    (re.compile(r"([-+]?\d+)\.(\d+)\.(\d+)"), "nnn"),
)
_DIGITS = re.compile(r"(?<!\d)(\d{8}|\d{6})(?!\d)")
_MONTH_ALONE = re.compile(r"\b" + _MONTH, re.IGNORECASE)


def parse_date(text: str, *, this_year: int) -> tuple[int, int, int]:
    """(year, month, day) as Ruby's Date.parse reads `text` (`this_year` for a date without one);
    ValueError when it reads no valid date. The year may lie outside 1..9999 (Ruby's have no bound)."""
    rest = _TIME.sub(" ", text)
    for pattern, order in _FORMS:
        found = pattern.search(rest)
        if found:
            return _valid(*_placed(found.groups(), order, this_year))
    digits = _DIGITS.search(rest)
    if digits:
        run = digits.group(1)
        return _valid(_completed(run[:-4]), int(run[-4:-2]), int(run[-2:]))
    month = _MONTH_ALONE.search(rest)
    if month:
        return this_year, _MONTHS.index(month.group(1).lower()) + 1, 1
    raise ValueError(f"no date in {text!r}")


def _placed(groups: tuple[str | None, ...], order: str, this_year: int) -> tuple[int, int, int]:
    if order in ("dmy", "mdy"):
        day, month, year = groups if order == "dmy" else (groups[1], groups[0], groups[2])
        assert day is not None and month is not None
        return (this_year if year is None else _completed(year)), _MONTHS.index(month.lower()) + 1, int(day)
    year, month, day = (group or "" for group in groups)
    if len(month.lstrip("+-")) > 2:  # the middle number is the year: m/y/d is unheard of, but Ruby reads it
        year, month, day = month, day, year
    if len(day.lstrip("+-")) > 2:
        year, day = day, year
    return _completed(year), int(month), int(day)


def _completed(year: str) -> int:
    number = int(year)
    if len(year) <= 2 and year.isdigit():
        number += 1900 if number >= 69 else 2000
    return number


def _valid(year: int, month: int, day: int) -> tuple[int, int, int]:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not (1 <= month <= 12 and 1 <= day <= days[month - 1]):
        raise ValueError(f"no such day: {year}-{month}-{day}")
    return year, month, day

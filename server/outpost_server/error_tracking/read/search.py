"""The search box: free text plus the `key:value` filters Sentry and GlitchTip users type.

Understood keys: `is:` (unresolved, resolved, ignored, or `all` for every status; `assigned` and
`unassigned`), `assigned:` (a username, or `me`), `release:`, `environment:` and `level:`.
Values may be quoted (`release:"web 1.2"`). Other `key:value` words are searched as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from outpost_server.error_tracking.models import ERROR_STATUSES

_TOKEN = re.compile(r'(?:(?P<key>[A-Za-z_]+):)?(?P<value>"[^"]*"|\S+)')
FILTER_KEYS = ("release", "environment", "level")
ASSIGNED_TO_ME = "me"
ASSIGNMENT_WORDS = {"assigned": True, "unassigned": False}
EVERY_STATUS = "all"  # `is:all`: the list of every status (GitLab's list reads unresolved errors without `is:`)
_EVERY_STATUS_WORD = re.compile(r'(?i)(?:^|\s)is:"?all"?(?=\s|$)')


@dataclass
class SearchQuery:
    text: str = ""
    status: str | None = None
    every_status: bool = False
    filters: dict[str, str] = field(default_factory=dict)
    # `is:assigned` (True) or `is:unassigned` (False).
    assigned: bool | None = None
    # `assigned:<username>`, or ASSIGNED_TO_ME; `me` is the viewer, given by the caller.
    assignee: str | None = None
    viewer_id: int | None = None


def parse_search(term: str | None, *, viewer_id: int | None = None) -> SearchQuery:
    query = SearchQuery(viewer_id=viewer_id)
    words = []
    for match in _TOKEN.finditer(term or ""):
        key = (match.group("key") or "").lower()
        value = match.group("value")
        unquoted = value[1:-1] if len(value) >= 2 and value.startswith('"') and value.endswith('"') else value
        if key == "is" and unquoted.lower() in ERROR_STATUSES:
            query.status = unquoted.lower()
        elif key == "is" and unquoted.lower() == EVERY_STATUS:
            query.every_status = True
        elif key == "is" and unquoted.lower() in ASSIGNMENT_WORDS:
            query.assigned = ASSIGNMENT_WORDS[unquoted.lower()]
        elif key == "assigned" and unquoted:
            query.assignee = ASSIGNED_TO_ME if unquoted.lower() == ASSIGNED_TO_ME else unquoted
        elif key in FILTER_KEYS and unquoted:
            query.filters[key] = unquoted
        else:
            words.append(match.group(0).strip('"'))
    query.text = " ".join(words)
    return query


def without_every_status(term: str) -> str:
    """The search without its `is:all` (for a Sentry, which lists every status when no `is:` is given)."""
    return " ".join(_EVERY_STATUS_WORD.sub(" ", term).split())

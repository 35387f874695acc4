"""What stops the error tracking settings from being saved, said in the form's own words as the user types
(no Qt). The server checks the same and answers with its field names ("api_url is a required field",
"allowed_origins is invalid"); the form says which field, by its label, and which entry."""

from __future__ import annotations

import re

# The entries the server takes (outpost_server.error_tracking.ingest.origins): *, a host, host:port,
# *.domain, or a full http(s) origin.
_ORIGIN = re.compile(r"^(\*|(https?://)?(\*\.)?[A-Za-z0-9.\-\[\]:]+)$")
MAX_ORIGINS = 100
MAX_ORIGIN_LENGTH = 255


def origin_problems(entries: list[str]) -> list[str]:
    problems = [f"Allowed origins: “{entry}” is not an origin (write https://shop.example.com, *.example.com "
                "or localhost:3000)." for entry in entries
                if len(entry) > MAX_ORIGIN_LENGTH or not _ORIGIN.match(entry.strip().rstrip("/"))]
    if len(set(entries)) > MAX_ORIGINS:
        problems.append(f"Allowed origins: at most {MAX_ORIGINS} entries.")
    return problems


def settings_problems(*, external: bool, api_host: str, project_chosen: bool, origins: list[str] | None) -> list[str]:
    """Empty when the form may be saved."""
    problems: list[str] = []
    if external:
        if not api_host.strip():
            problems.append("API URL: enter the address of the Sentry server, e.g. https://sentry.example.com.")
        elif not project_chosen:
            problems.append("Project: press Connect, then choose the Sentry project to show here.")
    return problems + origin_problems(origins or [])

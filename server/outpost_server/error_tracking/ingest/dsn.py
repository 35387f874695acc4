"""The DSN and the collector's URLs, and where a request carries its public key.

One home for what SDKs derive from a DSN `{scheme}://{public_key}@{host}/api/v4/error_tracking/collector/{id}`:
they post to `{DSN path minus the id}/api/{id}/store/` or `…/envelope/`, and put the DSN's user name
(the public key) in the query, an auth header or the envelope header. Pure: no database, no HTTP objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlsplit

API_PREFIX = "/api/v4"
# The DSN path, under the public base URL (the project id follows).
COLLECTOR_PREFIX = f"{API_PREFIX}/error_tracking/collector"
STORE = "store"
ENVELOPE = "envelope"
ENDPOINTS = (STORE, ENVELOPE)
# The store and envelope URLs, as the collector's shortcut matches them on the raw path.
COLLECTOR_URL = re.compile(rf"^{re.escape(COLLECTOR_PREFIX)}/api/([^/]+)/({STORE}|{ENVELOPE})/?$")
# Sentry's HTTP check-in URL (Relay's monitor endpoint): `…/api/{id}/cron/{monitor_slug}[/{public_key}]/`.
CRON_URL = re.compile(rf"^{re.escape(COLLECTOR_PREFIX)}/api/([^/]+)/cron/([^/]+)(?:/([^/]+))?/?$")


def dsn_for(*, base_url: str, public_key: str, project_id: int) -> str:
    """`{scheme}://{public_key}@{host}[:{port}]{path}/api/v4/error_tracking/collector/{project_id}`."""
    scheme, _, rest = base_url.rstrip("/").partition("://")
    return f"{scheme}://{public_key}@{rest}{COLLECTOR_PREFIX}/{project_id}"


def match_collector_url(path: str) -> tuple[str, str] | None:
    """(project id as sent, endpoint) of a collector URL path; None for any other path."""
    match = COLLECTOR_URL.match(path)
    return (match.group(1), match.group(2)) if match else None


def match_cron_url(path: str) -> tuple[str, str, str | None] | None:
    """(project id as sent, monitor slug, public key or None) of a check-in URL path; None for any other."""
    match = CRON_URL.match(path)
    return (match.group(1), unquote(match.group(2)), match.group(3)) if match else None


# --- the public key -------------------------------------------------------------------------

_AUTH_SCHEME = re.compile(r"^\s*sentry\s+", re.IGNORECASE)


def parse_auth_header(value: str) -> dict[str, str]:
    """`Sentry k=v, k=v` (spaces optional, Java sends none) into a dict."""
    match = _AUTH_SCHEME.match(value)
    if not match:
        return {}
    pairs: dict[str, str] = {}
    for part in value[match.end():].split(","):
        name, sep, val = part.strip().partition("=")
        if sep:
            pairs[name.strip()] = val.strip()
    return pairs


@lru_cache(maxsize=1024)
def _header_key(value: str) -> str | None:
    """The `sentry_key` of an auth header. An SDK sends the same header with every event, so each value
    is parsed once (per process, for the last 1,024 values)."""
    return parse_auth_header(value).get("sentry_key")


def key_from_dsn(dsn: Any) -> str | None:
    """The public key (user name) of a full DSN string, as sent in an envelope header."""
    if not isinstance(dsn, str) or "@" not in dsn:
        return None
    try:
        username = urlsplit(dsn).username
    except ValueError:
        return None
    return username or None


@dataclass(frozen=True)
class AuthInfo:
    """Where the public key came from; `key` is None when no source carried one."""

    key: str | None
    source: str | None


def extract_public_key(headers: dict[str, str], query: dict[str, str], envelope_dsn: Any = None) -> AuthInfo:
    """Find the public key: query `sentry_key`, `X-Sentry-Auth`, `Authorization: Sentry`, envelope `dsn`.

    `headers` must have lower-case names. The query parameter wins, as in GitLab's collector.
    """
    if "sentry_key" in query:
        return AuthInfo(query["sentry_key"].strip(), "query")
    for header in ("x-sentry-auth", "authorization"):
        value = headers.get(header)
        if value:
            key = _header_key(value)
            if key:
                return AuthInfo(key, header)
    key = key_from_dsn(envelope_dsn)
    if key:
        return AuthInfo(key, "dsn")
    return AuthInfo(None, None)

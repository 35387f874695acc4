"""Which browser origins may send a project's events (an Outpost extension, like Sentry's Allowed Domains).

An entry is `*` (any origin), a host (`app.example.com`, any scheme and port), a host and port
(`localhost:3000`), a subdomain wildcard (`*.example.com`, the domain itself included) or a full origin
(`https://app.example.com[:8443]`, that scheme and port only). No entries means any origin. Requests
without an `Origin` header (server-side SDKs) are never refused here.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

MAX_ORIGINS = 100
_ENTRY = re.compile(r"^(\*|(https?://)?(\*\.)?[A-Za-z0-9.\-\[\]:]+)$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_allowed_origins(value: object) -> list[str] | None:
    """Entries from a list or a comma/whitespace-separated string; None when any entry is invalid, or
    when the value is neither (a JSON object or number, say)."""
    if value is None:
        return []
    if not isinstance(value, (str, list)):
        return None
    parts = value if isinstance(value, list) else re.split(r"[\s,]+", value)
    entries: list[str] = []
    for part in parts:
        if not isinstance(part, str):
            return None
        entry = part.strip().rstrip("/").lower()
        if not entry:
            continue
        if len(entry) > 255 or not _ENTRY.match(entry):
            return None
        if entry not in entries:
            entries.append(entry)
    return entries if len(entries) <= MAX_ORIGINS else None


def split_stored(stored: str | None) -> list[str]:
    return [line for line in (stored or "").splitlines() if line]


def _host_port(netloc: str, scheme: str | None) -> tuple[str, int | None]:
    host, _, port = netloc.rpartition(":") if netloc.count(":") == 1 else (netloc, "", "")
    if not host:
        host, port = netloc, ""
    if port.isdecimal():
        return host, int(port)
    return host, _DEFAULT_PORTS.get(scheme or "")


def origin_allowed(origin: str | None, allowed: list[str]) -> bool:
    if origin is None or not allowed or "*" in allowed:
        return True
    parts = urlsplit(origin.lower())
    if not parts.scheme or not parts.hostname:
        return False  # "null" (sandboxed frames, file: pages) only passes `*`
    try:
        host, port = parts.hostname, parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:  # a port that is not a number from 0 to 65535: no origin a browser sends
        return False
    for entry in allowed:
        scheme, sep, rest = entry.partition("://")
        if not sep:
            scheme, rest = "", entry
        elif scheme != parts.scheme:
            continue
        entry_host, entry_port = _host_port(rest, scheme or None)
        if entry_port is not None and (sep or ":" in rest) and entry_port != port:
            continue
        if entry_host.startswith("*."):
            domain = entry_host[2:]
            if host == domain or host.endswith("." + domain):
                return True
        elif host == entry_host:
            return True
    return False

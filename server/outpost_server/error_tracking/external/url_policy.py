"""Refuses outbound URLs that point into the server's own network, as GitLab's URL blocker does.

An administrator may allow such requests with the application setting
`allow_local_requests_from_web_hooks_and_services` (for a Sentry on the same network).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from outpost_server.application_settings.store import get_setting

ALLOW_LOCAL_SETTING = "allow_local_requests_from_web_hooks_and_services"


class BlockedUrl(Exception):
    """The reason is phrased like GitLab's, e.g. "Requests to localhost are not allowed"."""


def local_requests_allowed(session: Session) -> bool:
    return bool(get_setting(session, ALLOW_LOCAL_SETTING, False))


def _addresses(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        return [literal]
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise BlockedUrl("Host cannot be resolved or invalid") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


def check_url(url: str, *, allow_local: bool) -> None:
    """Raises BlockedUrl unless `url` is an http(s) URL whose host is public (or local ones are allowed)."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise BlockedUrl("URI is invalid") from None
    if parts.scheme not in ("http", "https"):
        raise BlockedUrl("Only allowed schemes are http, https")
    if not parts.hostname:
        raise BlockedUrl("URI is invalid")
    if allow_local:
        return
    if parts.hostname.lower() in ("localhost", "localhost.localdomain") or parts.hostname.lower().endswith(".localhost"):
        raise BlockedUrl("Requests to localhost are not allowed")
    for address in _addresses(parts.hostname, port):
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if address.is_loopback or address.is_unspecified:
            raise BlockedUrl("Requests to localhost are not allowed")
        if address.is_link_local:
            raise BlockedUrl("Requests to the link local network are not allowed")
        if address.is_private or address.is_reserved or address.is_multicast or (
                address.version == 4 and address in _SHARED_ADDRESS_SPACE):
            raise BlockedUrl("Requests to the local network are not allowed")


_SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")

"""Refuses outbound URLs that point into the server's own network, as GitLab's URL blocker does.

An administrator may allow such requests with the application setting
`allow_local_requests_from_web_hooks_and_services` (for a Sentry on the same network).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from outpost_server.application_settings.store import get_setting

ALLOW_LOCAL_SETTING = "allow_local_requests_from_web_hooks_and_services"
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class BlockedUrl(Exception):
    """The reason is phrased like GitLab's, e.g. "Requests to localhost are not allowed"."""


class LocalNetworkBlocked(BlockedUrl):
    """A loopback, private or link-local target: allowed once an administrator allows local requests."""


def local_requests_allowed(session: Session) -> bool:
    return bool(get_setting(session, ALLOW_LOCAL_SETTING, False))


Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses from the system's resolver, in its order."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)]


def _addresses(host: str, port: int, resolve: Resolver) -> list[IPAddress]:
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        return [literal]
    try:
        answers = [ipaddress.ip_address(address.split("%")[0]) for address in resolve(host, port)]
    except (OSError, UnicodeError, ValueError):
        raise BlockedUrl("Host cannot be resolved or invalid") from None
    if not answers:
        raise BlockedUrl("Host cannot be resolved or invalid")
    return answers


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and reaches: mapped (::ffff:a.b.c.d), 6to4 (2002::/16),
    NAT64 (64:ff9b::/96), IPv4-compatible (::a.b.c.d) and Teredo's client."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _refusal(address: IPAddress) -> str | None:
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return _refusal(embedded)
    if address.is_loopback or address.is_unspecified:
        return "Requests to localhost are not allowed"
    if address.is_link_local:
        return "Requests to the link local network are not allowed"
    if address.is_private or address.is_reserved or address.is_multicast or (
            address.version == 4 and address in _SHARED_ADDRESS_SPACE):
        return "Requests to the local network are not allowed"
    return None


def same_origin(url: str, other: str) -> bool:
    """Whether two http(s) URLs name the same scheme, host and port."""
    try:
        first, second = urlsplit(url), urlsplit(other)
        return bool(first.hostname) and (first.scheme, first.hostname, first.port or _default_port(first.scheme)) \
            == (second.scheme, second.hostname, second.port or _default_port(second.scheme))
    except ValueError:
        return False


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _parsed(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) URL."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise BlockedUrl("URI is invalid") from None
    if parts.scheme not in ("http", "https"):
        raise BlockedUrl("Only allowed schemes are http, https")
    if not parts.hostname:
        raise BlockedUrl("URI is invalid")
    return parts.hostname, port


def pin_url(url: str, *, allow_local: bool, resolve: Resolver = system_resolver) -> IPAddress:
    """Resolves the URL's host ONCE, checks every answer and returns the address to connect to.

    Connecting to exactly this address (not resolving again) is what defeats DNS rebinding: an answer
    that changes after the check never reaches the connection. Raises BlockedUrl like check_url.
    """
    host, port = _parsed(url)
    name = host.lower()
    if not allow_local and (name in ("localhost", "localhost.localdomain") or name.endswith(".localhost")):
        raise LocalNetworkBlocked("Requests to localhost are not allowed")
    addresses = _addresses(host, port, resolve)
    if not allow_local:
        for address in addresses:
            reason = _refusal(address)
            if reason:
                raise LocalNetworkBlocked(reason)
    return addresses[0]


def check_url(url: str, *, allow_local: bool, resolve: Resolver = system_resolver) -> None:
    """Raises BlockedUrl unless `url` is an http(s) URL whose host is public (or local ones are allowed)."""
    _parsed(url)
    if not allow_local:
        pin_url(url, allow_local=False, resolve=resolve)


_SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")

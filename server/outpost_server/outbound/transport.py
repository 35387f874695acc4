"""send_pinned: the transport every outbound request of the server goes through (an external Sentry's web
API, alerts' webhooks and chat messages).

A request is never redirected, is bounded in time and reads at most `max_bytes` of answer. Given a
`pin`, its host is resolved and vetted once (url_policy.py) and the connection goes to exactly that
address, with the original Host header and TLS server name, so a DNS answer that changes after the
check (DNS rebinding) cannot redirect it.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from outpost_server.outbound.url_policy import IPAddress

MAX_BODY_BYTES = 1024 * 1024
DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)


class UnexpectedStatus(Exception):
    def __init__(self, status: int):
        super().__init__(f"status {status}")
        self.status = status


class BodyTooLarge(Exception):
    def __init__(self, size: int):
        super().__init__(f"{size} bytes")
        self.size = size


@dataclass
class PinnedAnswer:
    status: int
    headers: httpx.Headers
    body: bytes


def send_pinned(method: str, url: str, *, headers: dict[str, str], content: bytes | None = None,
                params: dict[str, Any] | None = None, pin: Callable[[str], IPAddress] | None,
                timeout: httpx.Timeout = DEFAULT_TIMEOUT, max_bytes: int = MAX_BODY_BYTES,
                ok: Callable[[int], bool] = lambda status: 200 <= status < 300) -> PinnedAnswer:
    """One request: never redirected, bounded in time, at most `max_bytes` of answer read; with `pin`, sent
    to the address it vets (the Host header and TLS server name stay the URL's).

    Raises UnexpectedStatus when `ok` refuses the status (before reading the body), BodyTooLarge, and
    httpx's TimeoutException or TransportError; `pin` raises what it raises (BlockedUrl).
    """
    headers = dict(headers)
    extensions: dict[str, Any] = {}
    if pin is not None:
        url, host_header, server_name = _pinned(url, pin(url))
        headers["Host"] = host_header
        extensions["sni_hostname"] = server_name
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as http:
        with http.stream(method, url, params=params, headers=headers, content=content,
                         extensions=extensions) as response:
            if not ok(response.status_code):
                raise UnexpectedStatus(response.status_code)
            return PinnedAnswer(response.status_code, response.headers, _read_limited(response, max_bytes))


def _read_limited(response: httpx.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length")
    if declared and declared.isdecimal() and int(declared) > max_bytes:
        raise BodyTooLarge(int(declared))
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise BodyTooLarge(size)
        chunks.append(chunk)
    return b"".join(chunks)


def _pinned(url: str, address: IPAddress) -> tuple[str, str, str]:
    """(the URL with its host replaced by `address`, the original Host header, the TLS server name)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    literal = f"[{address}]" if address.version == 6 else str(address)
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    host_header = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc)), host_header, host


class FailureCause(Enum):
    """The known kinds of cause behind an outbound request's transport failure."""

    REFUSED = "refused"
    NAME_RESOLUTION = "name resolution"
    TLS = "tls"


def failure_cause(failure: BaseException) -> FailureCause | None:
    """The first known kind of cause down the failure's chain (`__cause__`, else `__context__`)."""
    cause: BaseException | None = failure
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return FailureCause.REFUSED
        if isinstance(cause, socket.gaierror):
            return FailureCause.NAME_RESOLUTION
        if isinstance(cause, ssl.SSLError):
            return FailureCause.TLS
        cause = cause.__cause__ or cause.__context__
    return None

"""Exceptions raised by the API client, each carrying a message a person can act on.

GitLab answers errors with small JSON bodies (``{"message": "404 Project Not Found"}``,
``{"error": "key is missing"}``, ``{"message": {"key": ["has already been taken"]}}``).
Transport failures (refused, unknown host, TLS, timeout) never reach the server at all.
Both kinds become an :class:`ApiError` subclass; ``USER_MESSAGES`` is the single table
from exception type to the sentence shown in the status bar or a dialog.
"""

from __future__ import annotations

import socket
import ssl
from http import HTTPStatus
from typing import Any

import httpx


def _reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


class ApiError(Exception):
    """An API call failed.

    Attributes:
        status: HTTP status code, or None when no response arrived.
        body: the decoded JSON body (or text) of the error response, if any.
        detail: what the server said, reduced to one line ("" when it said nothing useful).
        url: the server address the call went to.
    """

    def __init__(self, *, status: int | None = None, body: Any = None, detail: str = "", url: str = "") -> None:
        self.status = status
        self.body = body
        self.detail = detail
        self.url = url
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The human-readable explanation, built from ``USER_MESSAGES``."""
        template = next(
            USER_MESSAGES[cls] for cls in type(self).__mro__ if cls in USER_MESSAGES
        )
        headline = template.format(status=self.status, url=self.url or "the server", **self.fields())
        if self.detail and self.detail not in headline and not self._detail_is_status_line():
            source = "Server said" if self.status is not None else "Details"
            return f"{headline} {source}: {self.detail}"
        return headline

    def fields(self) -> dict[str, str]:
        """What a subclass's sentence names besides the status and the server."""
        return {}

    def _detail_is_status_line(self) -> bool:
        """True for bodies like "401 Unauthorized" that only repeat the status."""
        return self.status is not None and self.detail == f"{self.status} {_reason_phrase(self.status)}"


class Unauthorized(ApiError):
    """401: the token is missing, wrong, expired or revoked."""


class Forbidden(ApiError):
    """403: the token is valid but its user may not do this."""


class NotFound(ApiError):
    """404: the resource does not exist or the user cannot see it."""


class Conflict(ApiError):
    """409: the resource already exists or is in a conflicting state."""


class ValidationFailed(ApiError):
    """400/422: parameters were missing or invalid.

    Attributes:
        field_errors: field name -> list of messages, parsed from GitLab's two body shapes.
    """

    def __init__(self, *, field_errors: dict[str, list[str]] | None = None, **kwargs: Any) -> None:
        self.field_errors = field_errors or {}
        super().__init__(**kwargs)


class RateLimited(ApiError):
    """429: too many requests; ``retry_after`` holds the advised wait in seconds, if given."""

    def __init__(self, *, retry_after: float | None = None, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(**kwargs)


class ExportAlreadyRunning(RateLimited):
    """429 on creating an export: the user's previous export of the same scope has not finished yet.

    ``scope`` names the scope as the sentence reads it ("this project", "this group", "the instance ...").
    """

    def __init__(self, *, scope: str, **kwargs: Any) -> None:
        self.scope = scope
        super().__init__(**kwargs)

    def fields(self) -> dict[str, str]:
        return {"scope": self.scope}


class GraphQLFailed(ApiError):
    """A GraphQL query was answered with errors and no data."""


class Unsupported(ApiError):
    """The server does not offer this at all (a GitLab feature that needs another tier or a browser)."""


class ServerError(ApiError):
    """5xx: the server failed."""


class ConnectionFailed(ApiError):
    """No HTTP response arrived."""


class NotConnected(ConnectionFailed):
    """No connection is open: the work was asked for before connecting or after disconnecting."""


class InvalidServerUrl(ConnectionFailed):
    """The server address is not an http:// or https:// URL."""


class ConnectionRefused(ConnectionFailed):
    """Nothing listens at the address."""


class HostNotFound(ConnectionFailed):
    """The host name does not resolve."""


class TlsFailed(ConnectionFailed):
    """The TLS handshake or certificate check failed."""


class TimedOut(ConnectionFailed):
    """The server did not answer in time."""


USER_MESSAGES: dict[type[ApiError], str] = {
    ApiError: "The server answered with an unexpected error (HTTP {status}).",
    Unauthorized: (
        "The server did not accept the access token (401). Check that it is typed correctly "
        "and has not expired or been revoked."
    ),
    Forbidden: "The signed-in user is not allowed to do this (403).",
    NotFound: "Not found (404): it does not exist, or the signed-in user cannot see it.",
    Conflict: "This conflicts with something that already exists (409).",
    ValidationFailed: "The server rejected the request as invalid.",
    RateLimited: "The server is receiving too many requests (429). Wait a moment and try again.",
    ExportAlreadyRunning: "You already have an export running for {scope}; it will finish shortly.",
    GraphQLFailed: "The server could not answer the query.",
    Unsupported: "This server does not offer this.",
    ServerError: "The server failed while handling the request (HTTP {status}). Try again later.",
    ConnectionFailed: "The connection to {url} failed.",
    NotConnected: "Not connected to a server. Connect first.",
    InvalidServerUrl: "{url} is not a valid server address. Use a full address such as https://gitlab.example.com.",
    ConnectionRefused: (
        "Nothing is listening at {url}: the connection was refused. Is the server running, and is the port right?"
    ),
    HostNotFound: "The host name in {url} could not be found. Check the server address for typos.",
    TlsFailed: (
        "A secure (TLS) connection to {url} could not be established: the certificate was not "
        "trusted or the server does not speak HTTPS on this port."
    ),
    TimedOut: (
        "{url} did not answer in time. The server may be overloaded, or a firewall may be dropping the connection."
    ),
}


def readable(exc: Exception) -> str:
    """What a person reads about an expected failure (an API's, or the local server's, which says it itself)."""
    return exc.message if isinstance(exc, ApiError) else str(exc)


def _describe_body(body: Any) -> tuple[str, dict[str, list[str]]]:
    """Reduce a GitLab error body to one line plus per-field messages."""
    if not isinstance(body, dict):
        return "", {}
    message = body.get("message")
    if isinstance(message, dict):
        field_errors = {
            str(field): [str(m) for m in (msgs if isinstance(msgs, list) else [msgs])]
            for field, msgs in message.items()
        }
        detail = "; ".join(f"{field} {' and '.join(msgs)}" for field, msgs in field_errors.items())
        return detail, field_errors
    error = body.get("error")
    if isinstance(error, str):
        # Grape joins parameter errors as "a is missing, b is invalid".
        param_errors: dict[str, list[str]] = {}
        for part in error.split(", "):
            field, _, text = part.partition(" ")
            if text:
                param_errors.setdefault(field, []).append(text)
        return error, param_errors
    if isinstance(message, str):
        return message, {}
    if isinstance(body.get("detail"), str):  # Sentry's web API: {"detail": "..."}
        return body["detail"], {}
    graphql_errors = body.get("errors")
    if isinstance(graphql_errors, list):  # GraphQL: {"errors": [{"message": ...}]}
        return "; ".join(str(e.get("message")) for e in graphql_errors if isinstance(e, dict)), {}
    # Sentry's and GlitchTip's web API (Django REST framework): {"field": ["reason", ...],
    # "non_field_errors": [...]}, a field's reasons maybe nested per item. The reasons name their subject.
    field_errors = {str(field): reasons for field, value in body.items() if (reasons := _reasons(value))}
    return "; ".join(reason for reasons in field_errors.values() for reason in reasons), field_errors


def _reasons(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [reason for item in value for reason in _reasons(item)]
    if isinstance(value, dict):
        return [reason for item in value.values() for reason in _reasons(item)]
    return []


def error_from_response(response: httpx.Response, *, url: str = "") -> ApiError:
    """Build the exception for an HTTP error response."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    detail, field_errors = _describe_body(body)
    status = response.status_code
    common = {"status": status, "body": body, "detail": detail, "url": url}
    if status in (400, 422):
        return ValidationFailed(field_errors=field_errors, **common)
    if status == 429:
        retry_after = response.headers.get("Retry-After")
        return RateLimited(retry_after=float(retry_after) if retry_after and retry_after.isdigit() else None, **common)
    by_status: dict[int, type[ApiError]] = {401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict}
    if status in by_status:
        return by_status[status](**common)
    if status >= 500:
        return ServerError(**common)
    return ApiError(**common)


def _causes(exc: BaseException):
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def error_from_transport(exc: Exception, *, url: str) -> ConnectionFailed:
    """Classify a failure that produced no HTTP response."""
    if isinstance(exc, httpx.TimeoutException):
        return TimedOut(url=url)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return InvalidServerUrl(url=url)
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLError):
            return TlsFailed(url=url, detail=getattr(cause, "reason", None) or "")
        if isinstance(cause, socket.gaierror):
            return HostNotFound(url=url)
        if isinstance(cause, ConnectionRefusedError):
            return ConnectionRefused(url=url)
    text = str(exc)
    if "SSL" in text or "CERTIFICATE" in text.upper():
        return TlsFailed(url=url)
    if "Name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text:
        return HostNotFound(url=url)
    if "Connection refused" in text or "Errno 111" in text:
        return ConnectionRefused(url=url)
    return ConnectionFailed(url=url, detail=text)

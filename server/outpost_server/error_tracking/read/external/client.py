"""SentryClient: the calls GitLab makes to an external Sentry's web API, with GitLab's error messages, sent
through the server's one outbound transport (outbound/transport.py).

Every request carries `Authorization: Bearer <token>`, never follows redirects, has connect and read
timeouts and reads at most 1 MB of body. Given a `pin`, each request's host is resolved and vetted
once and the connection goes to exactly that address, with the original Host header and TLS server
name, so a DNS answer that changes after the check (DNS rebinding) cannot redirect it. Failures raise
SentryError with the message and HTTP status GitLab's error tracking controllers answer with.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from outpost_server.outbound.transport import (
    DEFAULT_TIMEOUT,
    BodyTooLarge,
    FailureCause,
    UnexpectedStatus,
    failure_cause,
    send_pinned,
)
from outpost_server.outbound.url_policy import IPAddress

MAX_FOOTPRINT_BYTES = 5 * 1024 * 1024
SORTS = {"last_seen": None, "first_seen": "new", "frequency": "freq"}
_LINK_PART = re.compile(r'rel="(\w+)";\s*results="(\w+)";\s*cursor="([^"]+)"')


class SentryError(Exception):
    def __init__(self, message: str, http_status: int = 400, *, upstream_status: int | None = None):
        super().__init__(message)
        self.message = message
        self.http_status = http_status
        # The status the Sentry answered with, when it answered with a failure.
        self.upstream_status = upstream_status


@dataclass
class SentryResponse:
    data: Any
    headers: httpx.Headers


def squeeze_slashes(url: str) -> str:
    """Sentry answers 404 to paths with doubled slashes."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=re.sub(r"/{2,}", "/", parts.path)))


def parse_pagination(link_header: str | None) -> dict[str, dict[str, str]]:
    """GitLab's reading of Sentry's Link header: only the links that have results."""
    pagination: dict[str, dict[str, str]] = {}
    for part in (link_header or "").split(","):
        match = _LINK_PART.search(part)
        if match and match.group(2) == "true":
            pagination[match.group(1)] = {"cursor": match.group(3)}
    return pagination


def _footprint(value: Any) -> int:
    """A rough size in memory of decoded JSON (GitLab refuses more than 5 MB)."""
    if isinstance(value, dict):
        return 64 + sum(_footprint(k) + _footprint(v) for k, v in value.items())
    if isinstance(value, list):
        return 56 + sum(8 + _footprint(item) for item in value)
    if isinstance(value, str):
        return 49 + len(value)
    return 28


class SentryClient:
    def __init__(self, api_url: str, token: str, *, timeout: httpx.Timeout = DEFAULT_TIMEOUT,
                 pin: Callable[[str], IPAddress] | None = None):
        """`api_url` is `https://HOST/api/0/projects/{org}/{project}/`; `pin` vets a URL and names its address."""
        self.api_url = api_url
        self._token = token
        self._timeout = timeout
        self._pin = pin

    def __repr__(self) -> str:  # the token stays out of logs and tracebacks
        return f"SentryClient({self.api_url!r})"

    # --- URLs ----------------------------------------------------------------------------------

    def _root(self) -> str:
        parts = urlsplit(self.api_url)
        return urlunsplit((parts.scheme, parts.netloc, "", "", ""))

    def _issues_url(self) -> str:
        return squeeze_slashes(self.api_url.rstrip("/") + "/issues/")

    def _issue_url(self, issue_id: str) -> str:
        return squeeze_slashes(f"{self._root()}/api/0/issues/{quote(str(issue_id), safe='')}/")

    def _projects_url(self) -> str:
        return squeeze_slashes(f"{self._root()}/api/0/projects/")

    # --- calls ---------------------------------------------------------------------------------

    def list_projects(self) -> list[dict[str, Any]]:
        data = self._request("GET", self._projects_url()).data
        if not isinstance(data, list):
            raise SentryError("Unexpected Error")
        return data

    def list_issues(self, *, issue_status: str | None, limit: int, search_term: str = "", sort: str = "last_seen",
                    cursor: str | None = None) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
        """Without ``issue_status``, every status (Sentry's search without ``is:``)."""
        if sort not in SORTS:
            raise SentryError("Invalid value for sort param")
        status = f"is:{issue_status} " if issue_status else ""
        params: dict[str, Any] = {"query": f"{status}{search_term}".strip(), "limit": limit}
        if SORTS[sort]:
            params["sort"] = SORTS[sort]
        if cursor:
            params["cursor"] = cursor
        response = self._request("GET", self._issues_url(), params=params)
        if not isinstance(response.data, list):
            raise SentryError("Unexpected Error")
        return response.data, parse_pagination(response.headers.get("link"))

    def project_issues(self, method: str, params: dict[str, Any], body: Any = None) -> SentryResponse:
        """The configured project's issue list as sent (GET), or Sentry's bulk update of its issues (PUT)."""
        return self._request(method, self._issues_url(), params=params, json_body=body)

    def issue_details(self, issue_id: str) -> dict[str, Any]:
        return self._object(self._request("GET", self._issue_url(issue_id)).data)

    def latest_event(self, issue_id: str) -> dict[str, Any]:
        return self._object(self._request("GET", self._issue_url(issue_id) + "events/latest/").data)

    def update_issue(self, issue_id: str, params: dict[str, Any]) -> dict[str, Any]:
        return self._object(self._request("PUT", self._issue_url(issue_id), json_body=params).data)

    def issue_resource(self, issue_id: str, below: str = "", params: dict[str, Any] | None = None
                       ) -> SentryResponse:
        """GET one of Sentry's resources under an issue (`events/`, `events/latest/`, `tags/`, ...)."""
        return self._request("GET", self._issue_url(issue_id) + below, params=params)

    def project_event(self, event_id: str) -> SentryResponse:
        return self._request("GET", squeeze_slashes(f"{self.api_url.rstrip('/')}/events/{quote(event_id, safe='')}/"))

    # --- transport -----------------------------------------------------------------------------

    @staticmethod
    def _object(data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise SentryError("Unexpected Error")
        return data

    def _request(self, method: str, url: str, *, params: dict[str, Any] | None = None,
                 json_body: Any = None) -> SentryResponse:
        headers = {"Authorization": f"Bearer {self._token}", "Content-Type": "application/json"}
        content = json.dumps(json_body).encode() if json_body is not None else None
        try:
            answer = send_pinned(method, url, headers=headers, content=content, params=params, pin=self._pin,
                                 timeout=self._timeout, ok=lambda status: 200 <= status <= 204)
        except UnexpectedStatus as exc:
            raise SentryError(f"Sentry response status code: {exc.status}", upstream_status=exc.status) from None
        except BodyTooLarge as exc:
            raise SentryError(f"Sentry API response is too big. Limit is 1 MB. Got {exc.size} bytes.") from None
        except httpx.TimeoutException:
            raise SentryError("Connection to Sentry timed out") from None
        except httpx.TransportError as exc:
            raise SentryError(_transport_message(exc)) from None
        if not answer.body.strip():
            return SentryResponse(None, answer.headers)
        try:
            data = json.loads(answer.body)
        except ValueError:
            raise SentryError("Unexpected Error") from None
        if _footprint(data) > MAX_FOOTPRINT_BYTES:
            raise SentryError("Sentry API response memory footprint is too big. Limit is 5 MB.")
        return SentryResponse(data, answer.headers)


# GitLab's messages for an unreachable Sentry (ErrorTracking::SentryClient's handle_request_exceptions).
_TRANSPORT_MESSAGES = {FailureCause.REFUSED: "Connection refused",
                       FailureCause.NAME_RESOLUTION: "Received SocketError when trying to connect to Sentry",
                       FailureCause.TLS: "Sentry returned invalid SSL data"}


def _transport_message(exc: httpx.TransportError) -> str:
    cause = failure_cause(exc)
    if cause is not None:
        return _TRANSPORT_MESSAGES[cause]
    text = str(exc)
    if "Connection refused" in text or "Errno 111" in text:
        return "Connection refused"
    if "Name or service not known" in text or "getaddrinfo" in text:
        return "Received SocketError when trying to connect to Sentry"
    if "SSL" in text:
        return "Sentry returned invalid SSL data"
    return "Error when connecting to Sentry"

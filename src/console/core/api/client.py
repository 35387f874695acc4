"""Asynchronous client for the GitLab-compatible REST API under ``<server>/api/v4``.

One :class:`ApiClient` owns one ``httpx.AsyncClient`` (one connection pool) for the
lifetime of a connection; close it with :meth:`ApiClient.aclose`. It has no Qt
dependency, so it runs on qasync's loop in the console and on plain asyncio in tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from console import __version__
from console.core.api.errors import InvalidServerUrl, error_from_response, error_from_transport
from outpost_model import decode
from outpost_model.accounts import User
from outpost_model.instance import Version

if TYPE_CHECKING:
    from console.core.api.server import ServerInfo

API_PREFIX = "/api/v4"
# Sentry's web API, which Outpost serves beside GitLab's; it takes the same token as a Bearer token.
SENTRY_API_PREFIX = "/api/0"
DEFAULT_TIMEOUT = 15.0
# Methods without side effects.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
E = TypeVar("E")


def normalise_base_url(base_url: str) -> str:
    """Return the server root without trailing slash or API prefix; raise InvalidServerUrl."""
    text = base_url.strip().rstrip("/")
    if text.endswith(API_PREFIX):
        text = text[: -len(API_PREFIX)]
    try:
        url = httpx.URL(text)
    except httpx.InvalidURL as exc:
        raise InvalidServerUrl(url=base_url) from exc
    if url.scheme not in ("http", "https") or not url.host:
        raise InvalidServerUrl(url=base_url)
    return text


IDLE_CONNECTION_SECONDS = 3.0


class ApiClient:
    """Authenticated access to one server with one personal access token."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        # What the server is and offers; set once on connecting (console.core.api.detection.detect_server).
        self.server: ServerInfo | None = None
        self._token = token  # for Sentry's web API, which reads it from a Bearer header
        self._http = httpx.AsyncClient(
            base_url=self.base_url + API_PREFIX,
            headers={"PRIVATE-TOKEN": token, "User-Agent": f"outpost-console/{__version__}"},
            transport=transport,
            timeout=timeout,
            # Drop idle connections before servers do (uvicorn closes them after 5 s by default), so a
            # request is never sent on a connection the server is closing.
            limits=httpx.Limits(keepalive_expiry=IDLE_CONNECTION_SECONDS),
        )

    def __repr__(self) -> str:  # never show the token
        return f"ApiClient({self.base_url!r})"

    @property
    def api_url(self) -> str:
        return self.base_url + API_PREFIX

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool | None = None,
    ) -> httpx.Response:
        """Send one request; raise an ``ApiError`` subclass for any failure.

        An idempotent request (by default GET, HEAD and OPTIONS) is sent once more when the connection broke
        under it."""
        if self._http.is_closed:
            # The connection this work was started for has been replaced (reconnect, sign-out): the work is
            # moot, as if it had been cancelled along with the connection.
            raise asyncio.CancelledError(f"the connection to {self.base_url} was closed")
        try:
            resendable = method in SAFE_METHODS if idempotent is None else idempotent
            response = await self._send(method, path, resendable, params=params, json=json, data=data, headers=headers)
        except (httpx.TransportError, httpx.InvalidURL) as exc:
            if self._http.is_closed:  # closed under the request: moot, not a failure of the server
                raise asyncio.CancelledError(f"the connection to {self.base_url} was closed") from None
            raise error_from_transport(exc, url=self.base_url) from exc
        except RuntimeError:
            if self._http.is_closed:  # closed while this request waited for its turn
                raise asyncio.CancelledError(f"the connection to {self.base_url} was closed") from None
            raise
        if response.is_error:
            raise error_from_response(response, url=self.base_url)
        return response

    async def _send(self, method: str, path: str, resendable: bool, **arguments: Any) -> httpx.Response:
        try:
            return await self._http.request(method, path, **arguments)
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
            # A kept-alive connection the server (or a proxy before it) closed just as this request went out:
            # a read is sent once more on a new connection, as browsers do; a write might have been carried
            # out, so its failure is said instead.
            if not resendable or self._http.is_closed:
                raise
            return await self._http.request(method, path, **arguments)

    async def sentry_request(self, path: str, *, params: Mapping[str, Any] | None = None, method: str = "GET",
                             json: Any = None) -> httpx.Response:
        """``<server>/api/0<path>`` (Sentry's web API on an Outpost server), authenticated with a Bearer token."""
        return await self.request(method, self.base_url + SENTRY_API_PREFIX + path, params=params, json=json,
                                  headers={"Authorization": f"Bearer {self._token}"})

    # Every answer is read into a declared type (an outpost_model entity, or a list of them): there is no method
    # that hands back the JSON as dicts to be read by key.
    async def paginate_as(self, kind: type[E], path: str, *, per_page: int = 100, **params: Any
                          ) -> AsyncIterator[E]:
        """Every item of a list endpoint read into ``kind``, page by page, following GitLab's ``X-Next-Page``."""
        async for response in self._pages(path, per_page, params):
            for item in decode(response.content, list[kind]):  # type: ignore[valid-type]
                yield item

    async def _pages(self, path: str, per_page: int, params: dict[str, Any]) -> AsyncIterator[httpx.Response]:
        page = "1"
        while page:
            response = await self.request("GET", path, params={**params, "page": page, "per_page": per_page})
            yield response
            page = response.headers.get("X-Next-Page", "").strip()

    async def get_as(self, kind: type[E], path: str, **params: Any) -> E:
        """One answer read into ``kind`` (an outpost_model entity)."""
        response = await self.request("GET", path, params=params or None)
        return decode(response.content, kind)

    async def get_user(self) -> User:
        """The user the token belongs to (``GET /user``): ``is_admin`` only when they are an administrator."""
        return await self.get_as(User, "/user")

    async def get_version(self) -> Version:
        """The server's version and revision (``GET /version``)."""
        return await self.get_as(Version, "/version")

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

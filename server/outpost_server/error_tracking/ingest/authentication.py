"""The collector's access decision, made once per request.

`Authenticate(endpoint)` checks a store or envelope request for the collector's shortcut: it finds the
public key wherever the SDK put it (`?sentry_key=`, `X-Sentry-Auth`, `Authorization: Sentry`, or the
envelope header's `dsn`), checks project, setting, key and browser origin, decodes the body, and hands
the handler one `CollectorRequest`.

Refusals follow GitLab's collector: 404 for an unknown project, a disabled setting or an unknown key,
400 "Failed to parse sentry request" without a key. A key in the query or a header is checked before
the body is read, so unknown keys cost no decoding; only envelopes naming their key in the body are
read first.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, PlainTextResponse, Response

from outpost_server import http_errors
from outpost_server.db import utcnow
from outpost_server.error_tracking.ingest import collector_access
from outpost_server.error_tracking.ingest.access_cache import DatabaseUnavailable
from outpost_server.error_tracking.ingest.collector_parts import Collector
from outpost_server.error_tracking.ingest.dsn import STORE, extract_public_key
from outpost_server.error_tracking.ingest.origins import origin_allowed
from outpost_server.error_tracking.ingest.protocol import (
    PARSE_FAILURE,
    OpenedRequest,
    PayloadTooLarge,
    ProtocolError,
    body_limit,
    open_request,
)

# Bodies above this are parsed off the event loop so one large envelope cannot stall the others.
INLINE_PARSE_LIMIT = 64 * 1024


@dataclass(frozen=True)
class CollectorRequest:
    """An accepted collector request: the project, the key that admitted it, and the checked content."""

    project_id: int
    endpoint: str
    public_key: str
    allowed_origins: tuple[str, ...]
    origin: str | None
    received_at: dt.datetime
    client_ip: str | None
    # The body as sent and its Content-Encoding: what the spool keeps.
    body: bytes
    content_encoding: str
    content: OpenedRequest


class Refused(Exception):
    """The answer to a request the collector does not accept."""

    def __init__(self, response: Response):
        super().__init__(response.status_code)
        self.response = response


def refusal(error: http_errors.ApiError) -> Refused:
    return Refused(JSONResponse(error.body, status_code=error.status, headers=error.headers))


def protocol_refusal(error: ProtocolError) -> Refused:
    if isinstance(error, PayloadTooLarge):
        # GitLab's compressed-JSON middleware answers this way.
        return Refused(PlainTextResponse("Payload Too Large", status_code=413))
    reason = error.reason.encode("ascii", "replace").decode()
    return Refused(JSONResponse(http_errors.bad_request(error.reason).body, status_code=400,
                                headers={"X-Sentry-Error": reason}))


async def resolve_target(collector: Collector, project_ident: str,
                         public_key: str | None) -> collector_access.CollectorTarget:
    try:
        return await collector.access.target(project_ident, public_key)
    except DatabaseUnavailable:
        raise Refused(JSONResponse({"message": "503 Service Unavailable"}, status_code=503,
                                   headers={"Retry-After": "5"})) from None


async def admitted(collector: Collector, project_ident: str, public_key: str | None,
                   origin: str | None) -> collector_access.CollectorTarget:
    """The target when project, key and origin are accepted; raises `Refused` otherwise."""
    target = await resolve_target(collector, project_ident, public_key)
    if target.refusal is not None:
        raise refusal(http_errors.from_domain(target.refusal))
    assert target.project_id is not None  # set whenever there is no refusal
    if origin is not None and not origin_allowed(origin, list(target.allowed_origins)):
        await collector.origin_refusals.record(target.project_id, origin)
        error = http_errors.forbidden("Invalid origin")
        error.headers["X-Sentry-Error"] = "Invalid origin: " + origin.encode("ascii", "replace").decode()
        raise refusal(error)
    return target


async def _read_body(request: Request, limit: int) -> bytes:
    """The raw body, refused with 413 as soon as it passes the limit (chunked bodies included)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdecimal() and int(declared) > limit:
        raise PayloadTooLarge()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


class Authenticate:
    """The check for one endpoint (store or envelope); `project_id` is the path's, as sent."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint

    async def __call__(self, collector: Collector, request: Request, project_id: str) -> CollectorRequest:
        project_ident = project_id
        received_at = utcnow()
        headers = {name.decode("latin-1").lower(): value.decode("latin-1")
                   for name, value in request.scope["headers"]}
        query = dict(request.query_params) if request.scope["query_string"] else {}
        origin = headers.get("origin")
        outside = extract_public_key(headers, query)
        # Without a key outside the body, the project alone decides first: an unknown project is a
        # 404 even for a request that names no key.
        target = await admitted(collector, project_ident, outside.key or None, origin)
        if not outside.key and (outside.source == "query" or self.endpoint == STORE):
            raise refusal(http_errors.bad_request(PARSE_FAILURE))
        try:
            body = await _read_body(request, body_limit(self.endpoint))

            def parse() -> OpenedRequest:
                return open_request(self.endpoint, headers=headers, query=query, body=body)

            content = await run_in_threadpool(parse) if len(body) > INLINE_PARSE_LIMIT else parse()
        except ProtocolError as error:
            raise protocol_refusal(error) from None
        public_key = content.auth.key
        assert public_key is not None  # open_request refuses requests without one
        if not outside.key:
            target = await admitted(collector, project_ident, public_key, origin)
        assert target.project_id is not None  # admitted() refuses otherwise
        client_ip = request.client.host if request.client else None
        return CollectorRequest(target.project_id, self.endpoint, public_key, target.allowed_origins, origin,
                                received_at, client_ip, body, headers.get("content-encoding", ""), content)

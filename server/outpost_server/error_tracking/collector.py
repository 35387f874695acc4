"""Sentry-compatible ingestion: POST /api/v4/error_tracking/collector/api/:id/{store,envelope}[/].

Plain Starlette endpoints rather than FastAPI ones: they read raw bytes and are on the hot path.
Refusals follow GitLab's collector (404 for an unknown project, a disabled setting or an unknown
key; 400 "Failed to parse sentry request" without a key); malformed bodies get a 400 with the
reason, oversized ones 413.
"""

from __future__ import annotations

import asyncio
import re
import time

import orjson
from fastapi import APIRouter, FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, PlainTextResponse, Response

from outpost_server import errors
from outpost_server.db import session_scope, utcnow

from . import service
from .ingest import IngestWriter, KeyNoLongerActive
from .parsing import ENVELOPE, STORE, body_limit, parse_ingest_request
from .protocol import PARSE_FAILURE, PayloadTooLarge, ProtocolError, extract_public_key
from .rate_limit import SharedRateLimit

router = APIRouter()

# Bodies above this are parsed off the event loop so one large envelope cannot stall the others.
INLINE_PARSE_LIMIT = 64 * 1024
# How long a positive or negative access decision is reused (other replicas' key changes).
ACCESS_TTL_SECONDS = 5.0


def install(app: FastAPI) -> None:
    app.state.error_tracking_access = {}
    app.state.error_tracking_rate_limit = None

    async def start_writer(app: FastAPI) -> None:
        writer = IngestWriter(app.state.engine)
        writer.start()
        app.state.error_tracking_writer = writer
        limit = app.state.settings.error_tracking_rate_limit_per_minute
        if limit > 0:
            app.state.error_tracking_rate_limit = SharedRateLimit(app.state.engine, limit_per_minute=limit)
            app.state.error_tracking_rate_limit.start()

    async def stop_writer(app: FastAPI) -> None:
        await app.state.error_tracking_writer.stop()
        if app.state.error_tracking_rate_limit is not None:
            await app.state.error_tracking_rate_limit.stop()

    app.state.startup_hooks.append(start_writer)
    app.state.shutdown_hooks.append(stop_writer)
    app.add_middleware(CollectorShortcut)


def forget_access(app: FastAPI) -> None:
    """Called after settings or keys change, so this process sees the change at once."""
    app.state.error_tracking_access.clear()


def _error_response(error: errors.ApiError) -> Response:
    return JSONResponse(error.body, status_code=error.status, headers=error.headers)


def _protocol_error_response(error: ProtocolError) -> Response:
    if isinstance(error, PayloadTooLarge):
        # GitLab's compressed-JSON middleware answers this way.
        return PlainTextResponse("Payload Too Large", status_code=413)
    reason = error.reason.encode("ascii", "replace").decode()
    return JSONResponse(errors.bad_request(error.reason).body, status_code=400, headers={"X-Sentry-Error": reason})


async def _check_access(app, project_ident: str, public_key: str | None) -> service.CollectorTarget:
    """The cached access decision; concurrent misses for one key share a single lookup."""
    cache = app.state.error_tracking_access
    cache_key = (project_ident, public_key)
    cached = cache.get(cache_key)
    if isinstance(cached, asyncio.Future):
        return await cached
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]

    def lookup() -> service.CollectorTarget:
        with session_scope(app.state.sessionmaker) as session:
            return service.collector_target(session, project_ident=project_ident, public_key=public_key)

    pending = asyncio.get_running_loop().create_future()
    if len(cache) > 10_000:
        cache.clear()
    cache[cache_key] = pending
    try:
        target = await run_in_threadpool(lookup)
    except BaseException as error:
        cache.pop(cache_key, None)
        pending.set_exception(error)
        pending.exception()  # retrieved: the waiters (if any) re-raise it
        raise
    if cache.get(cache_key) is pending:
        cache[cache_key] = (time.monotonic() + ACCESS_TTL_SECONDS, target)
    pending.set_result(target)
    return target


async def _rate_limited(app, project_id: int, events: int) -> Response | None:
    limiter = app.state.error_tracking_rate_limit
    if limiter is None or events == 0:
        return None
    retry_after = await limiter.admit(project_id, events)
    if retry_after is None:
        return None
    refusal = errors.too_many_requests(retry_after)
    refusal.headers["X-Sentry-Rate-Limits"] = f"{retry_after}:error;default:project"
    return _error_response(refusal)


async def _read_body(request: Request, limit: int) -> bytes:
    """The raw body, refused with 413 as soon as it passes the limit (chunked bodies included)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


def _client_ip(request: Request) -> str | None:
    return request.client.host if request.client else None


async def collect(request: Request, endpoint: str, project_ident: str) -> Response:
    app = request.app
    received_at = utcnow()
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in request.scope["headers"]}
    query = dict(request.query_params) if request.scope["query_string"] else {}
    target = await _check_access(app, project_ident, None)
    if target.refusal is not None:
        return _error_response(target.refusal)
    header_auth = extract_public_key(headers, query)
    public_key = header_auth.key
    if header_auth.key:
        target = await _check_access(app, project_ident, header_auth.key)
        if target.refusal is not None:
            return _error_response(target.refusal)
    elif header_auth.source == "query" or endpoint == STORE:
        return _error_response(errors.bad_request(PARSE_FAILURE))
    try:
        body = await _read_body(request, body_limit(endpoint))
        arguments = dict(headers=headers, query=query, body=body, received_at=received_at,
                         client_ip=_client_ip(request))
        if len(body) > INLINE_PARSE_LIMIT:
            parsed = await run_in_threadpool(lambda: parse_ingest_request(endpoint, **arguments))
        else:
            parsed = parse_ingest_request(endpoint, **arguments)
    except ProtocolError as error:
        return _protocol_error_response(error)
    if parsed.auth.source == "dsn":
        public_key = parsed.auth.key
        target = await _check_access(app, project_ident, parsed.auth.key)
        if target.refusal is not None:
            return _error_response(target.refusal)
    limited = await _rate_limited(app, target.project_id, len(parsed.events))
    if limited is not None:
        return limited
    if parsed.events or parsed.sessions or parsed.session_buckets:
        try:
            await app.state.error_tracking_writer.store(target.project_id, parsed, received_at, public_key)
        except KeyNoLongerActive:
            forget_access(app)
            return _error_response(errors.not_found())
        except RuntimeError:
            return JSONResponse({"message": "503 Service Unavailable"}, status_code=503,
                                headers={"Retry-After": "5"})
    return Response(orjson.dumps({"id": parsed.response_id} if parsed.response_id else {}),
                    media_type="application/json")


COLLECTOR_PATH = re.compile(r"^/api/v4/error_tracking/collector/api/([^/]+)/(store|envelope)/?$")


class CollectorShortcut:
    """Serves collector POSTs before FastAPI's routing and per-route machinery (the hot path).

    The same handler is also mounted as ordinary routes, which this merely reaches sooner.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "POST":
            match = COLLECTOR_PATH.match(scope["path"])
            if match:
                response = await collect(Request(scope, receive), match.group(2), match.group(1))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _route(endpoint: str):
    async def route(request: Request) -> Response:
        return await collect(request, endpoint, request.path_params["project_id"])

    return route


for _endpoint in (STORE, ENVELOPE):
    for _suffix in ("", "/"):
        router.add_route(f"/error_tracking/collector/api/{{project_id}}/{_endpoint}{_suffix}", _route(_endpoint),
                         methods=["POST"])

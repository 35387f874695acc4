"""Sentry-compatible ingestion: POST /api/v4/error_tracking/collector/api/:id/{store,envelope}[/].

Access is decided by the `Authenticate` dependency (authentication.py); this module rate-limits, hands
the content to the writer and answers once it is committed. Browsers get CORS: a preflight answer
on OPTIONS and `Access-Control-Allow-Origin` echoing an origin the project allows.

Plain ASGI in front of FastAPI (`CollectorShortcut`) serves these URLs, POST and OPTIONS, before
FastAPI's routing (the hot path); any other method falls through to GitLab's unknown-route 404.
"""

from __future__ import annotations

import orjson
from fastapi import FastAPI, Request
from starlette.responses import JSONResponse, Response

from outpost_server import http_errors

from . import authentication
from .authentication import Authenticate, CollectorRequest, Refused, admitted
from .dsn import ENDPOINTS, extract_public_key, match_collector_url
from .pipeline.accept import SpoolFull, SpoolUnavailable
from .pipeline.spool import NewEntry

# What the browser SDKs send and need to read (Sentry's Relay allows the same).
CORS_ALLOW_HEADERS = "content-type, content-encoding, authorization, x-sentry-auth, sentry-trace, baggage"
CORS_EXPOSE_HEADERS = "retry-after, x-sentry-error, x-sentry-rate-limits"
CORS_MAX_AGE = "3600"
# How each refusal before the spool is counted in the pipeline's figures (`refused{reason}`).
REFUSAL_REASONS = {400: "invalid", 403: "origin", 404: "unknown_key_or_project", 413: "too_large",
                   503: "database_unavailable"}
# Seconds an SDK is asked to wait when the spool cannot be written (a full disk).
UNAVAILABLE_RETRY_AFTER = 5


def install(app: FastAPI) -> None:
    authentication.install(app)
    app.add_exception_handler(Refused, _refused)
    app.add_middleware(CollectorShortcut)


async def _refused(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return exc.response


def _cors(response: Response, origin: str | None) -> Response:
    """Lets the page read the answer; only called once the origin is known to be allowed."""
    if origin is not None:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSE_HEADERS
        response.headers["Vary"] = "Origin"
    return response


async def _rate_limited(app: FastAPI, project_id: int, events: int) -> Response | None:
    """The refusal when the project's shared per-minute limit (rate_limit.py) has no room for the events."""
    limiter = app.state.error_tracking_rate_limit
    if limiter is None or events == 0:
        return None
    retry_after = await limiter.admit(project_id, events)
    if retry_after is None:
        return None
    refused = http_errors.too_many_requests(retry_after)
    refused.headers["X-Sentry-Rate-Limits"] = f"{retry_after}:error;default:project"
    return JSONResponse(refused.body, status_code=refused.status, headers=refused.headers)


async def collect(request: Request, incoming: CollectorRequest) -> Response:
    app = request.app
    content = incoming.content
    limited = await _rate_limited(app, incoming.project_id, 1 if content.response_id else 0)
    if limited is not None:
        app.state.error_tracking_spool_writer.refused("rate_limited")
        return _cors(limited, incoming.origin)
    if content.stores_something:
        entry = NewEntry(
            project_id=incoming.project_id, public_key=incoming.public_key, endpoint=incoming.endpoint,
            event_id=content.response_id, received_at=incoming.received_at.timestamp(),
            client_ip=incoming.client_ip, encoding=incoming.content_encoding,
            body=app.state.error_tracking_sealer.seal(incoming.body))
        try:
            await app.state.error_tracking_spool_writer.append(entry)
        except SpoolFull as full:
            # Relay's answer under backpressure: the SDK backs off for Retry-After.
            return _cors(JSONResponse({"message": "429 Too Many Requests"}, status_code=429, headers={
                "Retry-After": str(full.retry_after),
                "X-Sentry-Rate-Limits": f"{full.retry_after}::organization"}), incoming.origin)
        except SpoolUnavailable:
            return _cors(JSONResponse({"message": "503 Service Unavailable"}, status_code=503,
                                      headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER)}), incoming.origin)
    body = orjson.dumps({"id": content.response_id} if content.response_id else {})
    return _cors(Response(body, media_type="application/json"), incoming.origin)


async def preflight(request: Request, project_id: str) -> Response:
    """OPTIONS: allowed when the project accepts events and the origin is one it allows."""
    origin = request.headers.get("origin")
    key = extract_public_key({}, dict(request.query_params)).key or None
    await admitted(request.app, project_id, key, origin)
    response = Response(status_code=200, headers={
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
        "Access-Control-Max-Age": CORS_MAX_AGE,
    })
    return _cors(response, origin)


async def _serve(request: Request, endpoint: str, project_id: str) -> Response:
    try:
        if request.method == "OPTIONS":
            return await preflight(request, project_id)
        return await collect(request, await AUTHENTICATE[endpoint](request, project_id))
    except Refused as refused:
        if request.method == "POST":
            request.app.state.error_tracking_spool_writer.refused(
                REFUSAL_REASONS.get(refused.response.status_code, "other"))
        return refused.response


class CollectorShortcut:
    """Serves collector URLs before FastAPI's routing and per-route machinery (the hot path)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in ("POST", "OPTIONS"):
            match = match_collector_url(scope["path"])
            if match:
                response = await _serve(Request(scope, receive), match[1], match[0])
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


AUTHENTICATE = {endpoint: Authenticate(endpoint) for endpoint in ENDPOINTS}

"""Sentry-compatible ingestion: POST /api/v4/error_tracking/collector/api/:id/{store,envelope}[/].

Access is decided by the `Authenticate` dependency (authentication.py); this module rate-limits, hands
the content to the writer and answers once it is committed. Browsers get CORS: a preflight answer
on OPTIONS and `Access-Control-Allow-Origin` echoing an origin the project allows.

Plain ASGI serves these URLs, POST and OPTIONS, and the check-in URL, GET and POST, outside FastAPI (the
hot path): ahead of the framework's whole stack (`OutpostApp.fronts`), with only the request log's
middleware around it (request id, security headers, the log line, the metrics, last-resort 500s). The
collector's URLs pass none of the other middleware (bans, the unauthenticated cap and the write gate all
leave them alone). A path whose encoded slashes the request log's middleware rewrites takes the usual way,
where `CollectorShortcut` serves it before FastAPI's routing; any other method falls through to GitLab's
unknown-route 404.
"""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from outpost_model import encode
from outpost_model.sentry_events import EventAccepted
from outpost_server.deps import OutpostApp, services_of
from outpost_server.error_tracking.ingest import intake
from outpost_server.error_tracking.ingest.authentication import Authenticate, CollectorRequest, Refused, admitted
from outpost_server.error_tracking.ingest.collector_parts import Collector
from outpost_server.error_tracking.ingest.cron_endpoint import cron_check_in
from outpost_server.error_tracking.ingest.dsn import (
    COLLECTOR_PREFIX,
    ENDPOINTS,
    extract_public_key,
    match_collector_url,
    match_cron_url,
)
from outpost_server.error_tracking.ingest.spool import NewEntry
from outpost_server.middleware import RequestMiddleware

# What the browser SDKs send and need to read (Sentry's Relay allows the same).
CORS_ALLOW_HEADERS = "content-type, content-encoding, authorization, x-sentry-auth, sentry-trace, baggage"
CORS_EXPOSE_HEADERS = "retry-after, x-sentry-error, x-sentry-rate-limits"
CORS_MAX_AGE = "3600"


def install(app: OutpostApp) -> None:
    app.add_exception_handler(Refused, _refused)
    app.add_middleware(CollectorShortcut)
    app.fronts.append((taken_ahead, RequestMiddleware(_serve_ahead)))


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


async def collect(collector: Collector, incoming: CollectorRequest) -> Response:
    content = incoming.content
    events = (1 if content.response_id else 0) + content.check_ins
    limited = await intake.rate_limited(collector, incoming.project_id, events)
    if limited is not None:
        collector.writer.refused("rate_limited")
        return _cors(limited, incoming.origin)
    if content.stores_something:
        refused = await intake.spool(collector, NewEntry(
            project_id=incoming.project_id, public_key=incoming.public_key, endpoint=incoming.endpoint,
            event_id=content.response_id, received_at=incoming.received_at.timestamp(),
            client_ip=incoming.client_ip, encoding=incoming.content_encoding,
            body=collector.sealer.seal(incoming.body)))
        if refused is not None:
            return _cors(refused, incoming.origin)
    body = encode(EventAccepted(id=content.response_id) if content.response_id else EventAccepted())
    return _cors(Response(body, media_type="application/json"), incoming.origin)


async def preflight(collector: Collector, request: Request, project_id: str) -> Response:
    """OPTIONS: allowed when the project accepts events and the origin is one it allows."""
    origin = request.headers.get("origin")
    key = extract_public_key({}, dict(request.query_params)).key or None
    await admitted(collector, project_id, key, origin)
    response = Response(status_code=200, headers={
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
        "Access-Control-Max-Age": CORS_MAX_AGE,
    })
    return _cors(response, origin)


async def _serve(collector: Collector, request: Request, endpoint: str, project_id: str) -> Response:
    try:
        if request.method == "OPTIONS":
            return await preflight(collector, request, project_id)
        return await collect(collector, await AUTHENTICATE[endpoint](collector, request, project_id))
    except Refused as refused:
        if request.method == "POST":
            collector.writer.refused(intake.REFUSAL_REASONS.get(refused.response.status_code, "other"))
        return refused.response


async def _served(scope, receive, send) -> bool:
    """Serves a collector or check-in request; False for any other."""
    if scope["type"] != "http":
        return False
    if scope["method"] in ("POST", "OPTIONS"):
        match = match_collector_url(scope["path"])
        if match:
            collector = services_of(scope["app"]).part(Collector)
            response = await _serve(collector, Request(scope, receive), match[1], match[0])
            await response(scope, receive, send)
            return True
    if scope["method"] in ("GET", "POST"):
        cron = match_cron_url(scope["path"])
        if cron:
            collector = services_of(scope["app"]).part(Collector)
            response = await cron_check_in(collector, Request(scope, receive), *cron)
            await response(scope, receive, send)
            return True
    return False


def taken_ahead(scope) -> bool:
    """Whether the request is served ahead of the framework: a collector or check-in URL and method, on a
    path without encoded slashes (which the request log's middleware would rewrite before matching)."""
    path = scope["path"]
    if not path.startswith(COLLECTOR_PREFIX) or b"%2f" in scope.get("raw_path", b"").lower():
        return False
    if scope["method"] in ("POST", "OPTIONS") and match_collector_url(path):
        return True
    return scope["method"] in ("GET", "POST") and match_cron_url(path) is not None


async def _serve_ahead(scope, receive, send) -> None:
    served = await _served(scope, receive, send)
    assert served, "taken_ahead() admitted a request the collector does not serve"


class CollectorShortcut:
    """Serves collector URLs before FastAPI's routing and per-route machinery when they come the usual way."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if not await _served(scope, receive, send):
            await self.app(scope, receive, send)


AUTHENTICATE = {endpoint: Authenticate(endpoint) for endpoint in ENDPOINTS}

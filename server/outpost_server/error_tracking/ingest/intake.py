"""What the collector's endpoints share once a request is admitted: the project's rate limit and the
append to the spool, with the answers Relay gives when either says no."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from outpost_server import http_errors
from outpost_server.error_tracking.ingest.accept import SpoolFull, SpoolUnavailable
from outpost_server.error_tracking.ingest.collector_parts import Collector
from outpost_server.error_tracking.ingest.spool import NewEntry

# How each refusal before the spool is counted in the pipeline's figures (`refused{reason}`).
REFUSAL_REASONS = {400: "invalid", 403: "origin", 404: "unknown_key_or_project", 413: "too_large",
                   503: "database_unavailable"}
# Seconds an SDK is asked to wait when the spool cannot be written (a full disk).
UNAVAILABLE_RETRY_AFTER = 5


async def rate_limited(collector: Collector, project_id: int, events: int) -> Response | None:
    """The refusal when the project's shared per-minute limit (rate_limit.py) has no room for the events."""
    limiter = collector.rate_limit
    if limiter is None or events == 0:
        return None
    retry_after = await limiter.admit(project_id, events)
    if retry_after is None:
        return None
    refused = http_errors.too_many_requests(retry_after)
    refused.headers["X-Sentry-Rate-Limits"] = f"{retry_after}:error;default;monitor:project"
    return JSONResponse(refused.body, status_code=refused.status, headers=refused.headers)


async def spool(collector: Collector, entry: NewEntry) -> Response | None:
    """Appends the accepted entry to the spool; the refusal to answer when it cannot be kept."""
    try:
        await collector.writer.append(entry)
    except SpoolFull as full:
        # Relay's answer under backpressure: the SDK backs off for Retry-After.
        return JSONResponse({"message": "429 Too Many Requests"}, status_code=429, headers={
            "Retry-After": str(full.retry_after), "X-Sentry-Rate-Limits": f"{full.retry_after}::organization"})
    except SpoolUnavailable:
        return JSONResponse({"message": "503 Service Unavailable"}, status_code=503,
                            headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER)})
    return None

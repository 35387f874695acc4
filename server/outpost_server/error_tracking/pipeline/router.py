"""`GET /-/metrics` (Prometheus text) and `GET /api/v4/error_tracking/ingestion` (an Outpost extension:
the same figures as JSON, for the console's Storage page).

`/-/metrics` gives the pipeline's figures, those of the collectors app.py registers as `MetricsSources`
(made per scrape from the sessions: alerts, exports), and this process's HTTP and process figures
(http_metrics.py)."""

from __future__ import annotations

import ipaddress

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from outpost_server.auth import AdminUserDep, OptionalUserDep
from outpost_server.config import ServerConfig
from outpost_server.deps import Services, ServicesDep
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking.ingest.collector_parts import Collector
from outpost_server.error_tracking.pipeline.metrics import (
    MetricsSources,
    PipelineSnapshot,
    prometheus_text,
    read_snapshot,
)
from outpost_server.http_metrics import HTTP_METRICS

metrics_router = APIRouter(include_in_schema=False)
api_router = APIRouter(tags=["error tracking"])

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# 403, not 404: a scraper refused for its address can tell that from a wrong metrics_path.
REFUSED_BODY = {"message": "403 Forbidden"}


def _address_allowed(request: Request, config: ServerConfig) -> bool:
    host = request.client.host if request.client else None
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in config.metrics_allowed_ips.split(","):
        entry = entry.strip()
        if not entry:
            continue
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


@metrics_router.get("/-/metrics")
async def metrics(request: Request, services: ServicesDep, user: OptionalUserDep) -> Response:
    """For the allowed addresses (OUTPOST_METRICS_ALLOWED_IPS) and administrators' tokens."""
    if not _address_allowed(request, services.config) and not (user is not None and user.is_admin):
        return JSONResponse(REFUSED_BODY, status_code=403)
    return Response(await run_in_threadpool(_text, services), media_type=PROMETHEUS_CONTENT_TYPE)


def _snapshot(services: Services) -> PipelineSnapshot:
    collector = services.optional(Collector)
    pending = collector.writer.pending_refusals() if collector is not None else None
    return read_snapshot(services.config.data_dir, pending)


def _text(services: Services) -> bytes:
    sources = [make(services.sessions) for make in services.part(MetricsSources).makers]
    return prometheus_text(_snapshot(services), *sources) + HTTP_METRICS.text()


@api_router.get("/error_tracking/ingestion")
async def ingestion_status(services: ServicesDep, _admin: AdminUserDep) -> Response:
    """This host's ingest spool and digest figures (administrators)."""
    snapshot = await run_in_threadpool(_snapshot, services)
    return EntityResponse(snapshot.entity())

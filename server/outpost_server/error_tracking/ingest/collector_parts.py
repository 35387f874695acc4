"""What a collector request passes through in this process: the parts pipeline/runtime.py starts and stops,
received by the collector's endpoints (collector.py, cron_endpoint.py, authentication.py, intake.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends

from outpost_server.deps import part_of
from outpost_server.error_tracking.ingest.accept import SpoolWriter
from outpost_server.error_tracking.ingest.access_cache import AccessCache
from outpost_server.error_tracking.ingest.origin_refusals import OriginRefusals
from outpost_server.error_tracking.ingest.rate_limit import SharedRateLimit
from outpost_server.error_tracking.ingest.sealing import Sealer


@dataclass(frozen=True)
class Collector:
    """What a collector request passes through in this process (collector.py, authentication.py)."""

    access: AccessCache
    sealer: Sealer
    writer: SpoolWriter
    rate_limit: SharedRateLimit | None  # None without OUTPOST_ERROR_TRACKING_RATE_LIMIT_PER_MINUTE
    origin_refusals: OriginRefusals


CollectorDep = Annotated[Collector, Depends(part_of(Collector))]

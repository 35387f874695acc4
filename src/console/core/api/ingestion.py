"""The server's ingestion pipeline figures (`GET /error_tracking/ingestion`, administrators; an Outpost
extension, so a GitLab answers 404), read into outpost_model's ``Ingestion``."""

from __future__ import annotations

from console.core.api.client import ApiClient
from outpost_model.ingestion import Ingestion


def describe_ingestion(status: Ingestion) -> str:
    """One paragraph for the Storage page."""
    queue = status.queue
    oldest = f", the oldest for {queue.oldest_age_seconds:.1f} s" if queue.oldest_age_seconds is not None else ""
    lag = (f" Events are listed about {status.mean_lag_seconds * 1000:,.0f} ms after they arrive (mean)."
           if status.mean_lag_seconds is not None else "")
    text = (f"Ingestion on this server: {queue.entries:,} requests waiting to be digested{oldest}. "
            f"Accepted {status.accepted:,}, digested {status.digested.get('events', 0):,} events.{lag}")
    if status.refused:
        text += " Refused: " + _pairs(status.refused) + "."
    if status.dropped:
        text += " Dropped at digest: " + _pairs(status.dropped) + "."
    return text


def _pairs(counts: dict[str, int]) -> str:
    return ", ".join(f"{count:,} {reason.replace('_', ' ')}" for reason, count in sorted(counts.items()))


async def ingestion_status(client: ApiClient) -> Ingestion:
    return await client.get_as(Ingestion, "/error_tracking/ingestion")

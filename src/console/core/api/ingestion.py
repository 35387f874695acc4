"""The server's ingestion pipeline figures (`GET /error_tracking/ingestion`, administrators; an Outpost
extension, so a GitLab answers 404)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from console.core.api.client import ApiClient


@dataclass(frozen=True)
class IngestionStatus:
    waiting: int
    waiting_bytes: int
    oldest_age_seconds: float | None
    accepted: int
    digested_events: int
    mean_lag_seconds: float | None
    refused: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> IngestionStatus:
        queue = body.get("queue") or {}
        return cls(waiting=int(queue.get("entries") or 0), waiting_bytes=int(queue.get("bytes") or 0),
                   oldest_age_seconds=queue.get("oldest_age_seconds"), accepted=int(body.get("accepted") or 0),
                   digested_events=int((body.get("digested") or {}).get("events") or 0),
                   mean_lag_seconds=body.get("mean_lag_seconds"),
                   refused={str(k): int(v) for k, v in (body.get("refused") or {}).items()},
                   dropped={str(k): int(v) for k, v in (body.get("dropped") or {}).items()})

    def describe(self) -> str:
        """One paragraph for the Storage page."""
        oldest = f", the oldest for {self.oldest_age_seconds:.1f} s" if self.oldest_age_seconds is not None else ""
        lag = (f" Events are listed about {self.mean_lag_seconds * 1000:,.0f} ms after they arrive (mean)."
               if self.mean_lag_seconds is not None else "")
        text = (f"Ingestion on this server: {self.waiting:,} requests waiting to be digested{oldest}. "
                f"Accepted {self.accepted:,}, digested {self.digested_events:,} events.{lag}")
        if self.refused:
            text += " Refused: " + _pairs(self.refused) + "."
        if self.dropped:
            text += " Dropped at digest: " + _pairs(self.dropped) + "."
        return text


def _pairs(counts: dict[str, int]) -> str:
    return ", ".join(f"{count:,} {reason.replace('_', ' ')}" for reason, count in sorted(counts.items()))


async def ingestion_status(client: ApiClient) -> IngestionStatus:
    return IngestionStatus.from_json(await client.get_json("/error_tracking/ingestion"))

"""Outpost's extension for administrators: the ingestion pipeline's figures on this host
(GET /error_tracking/ingestion), read from the spool's counters."""

from __future__ import annotations

from outpost_model.base import Entity


class SpoolQueue(Entity):
    """Requests accepted and waiting in the spool to be digested."""

    entries: int
    bytes: int
    # None when nothing waits.
    oldest_age_seconds: float | None


class Ingestion(Entity):
    queue: SpoolQueue
    accepted: int
    # Reason -> requests refused (or dropped, or items digested by kind), since the spool was created.
    refused: dict[str, int]
    digested: dict[str, int]
    dropped: dict[str, int]
    # From an event's acceptance to its commit; None before the first.
    mean_lag_seconds: float | None

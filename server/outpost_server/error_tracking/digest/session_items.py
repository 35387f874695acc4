"""Release health: `session` and `sessions` envelope items as the server stores them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from outpost_server.error_tracking.digest.normalize import MAX_SHORT, parse_timestamp
from outpost_server.error_tracking.digest.shapes import as_dict, as_list, as_str, clip

SESSION_STATUSES = {"ok", "exited", "crashed", "abnormal", "errored"}


@dataclass
class SessionUpdate:
    sid: str
    release: str
    environment: str
    started: dt.datetime
    status: str
    errors: int


@dataclass
class SessionBucket:
    release: str
    environment: str
    started: dt.datetime
    exited: int
    errored: int
    abnormal: int
    crashed: int


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return 0
    return int(max(0, min(value, 2**31 - 1)))


def _release_env(attrs: dict[str, Any]) -> tuple[str, str] | None:
    release = clip(as_str(attrs.get("release")), MAX_SHORT)
    if not release:
        return None
    return release, clip(as_str(attrs.get("environment")), MAX_SHORT) or "production"


def normalize_session(payload: dict[str, Any], *, received_at: dt.datetime) -> SessionUpdate | None:
    """One `session` item; None when it lacks the required sid or release."""
    sid = as_str(payload.get("sid"))
    scope = _release_env(as_dict(payload.get("attrs")))
    if not sid or scope is None:
        return None
    status = as_str(payload.get("status")) or "ok"
    return SessionUpdate(
        sid=sid[:MAX_SHORT],
        release=scope[0],
        environment=scope[1],
        started=parse_timestamp(payload.get("started")) or received_at,
        status=status if status in SESSION_STATUSES else "ok",
        errors=_count(payload.get("errors")),
    )


def normalize_session_aggregates(payload: dict[str, Any], *, received_at: dt.datetime) -> list[SessionBucket]:
    """A `sessions` item (request-mode aggregates), at most 100 buckets."""
    scope = _release_env(as_dict(payload.get("attrs")))
    if scope is None:
        return []
    buckets = []
    for bucket in as_list(payload.get("aggregates"))[:100]:
        if not isinstance(bucket, dict):
            continue
        buckets.append(
            SessionBucket(
                release=scope[0],
                environment=scope[1],
                started=parse_timestamp(bucket.get("started")) or received_at,
                exited=_count(bucket.get("exited")),
                errored=_count(bucket.get("errored")),
                abnormal=_count(bucket.get("abnormal")),
                crashed=_count(bucket.get("crashed")),
            )
        )
    return buckets

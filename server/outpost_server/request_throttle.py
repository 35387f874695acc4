"""GitLab's unauthenticated request throttles: requests that carry no token, counted per address in fixed
windows across every process and replica (shared_counter.py), answered 429 `Retry later` with GitLab's
RateLimit headers once over the limit.

A request "carries a token" when it has any of the headers or query parameters a token travels in; a
wrong token is the failed-authentication ban's business (auth_bans.py), not this throttle's.
"""

from __future__ import annotations

import logging
import math
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass
from email.utils import formatdate
from typing import Self

from sqlalchemy.engine import Engine

from outpost_server.accounts.models import UnauthenticatedRequestWindow
from outpost_server.shared_counter import SharedWindowCounter

log = logging.getLogger("outpost.auth")

TOKEN_HEADERS = frozenset({b"private-token", b"job-token", b"authorization", b"deploy-token"})
TOKEN_PARAMETERS = (b"private_token=", b"access_token=", b"job_token=")


@dataclass(frozen=True)
class Throttle:
    name: str
    limit: int
    period_seconds: int


def carries_token(scope) -> bool:
    if any(name in TOKEN_HEADERS for name, _ in scope["headers"]):
        return True
    query = scope.get("query_string", b"")
    return any(query.startswith(parameter) or b"&" + parameter in query for parameter in TOKEN_PARAMETERS)


def throttled_headers(throttle: Throttle, *, observed: int, now: float) -> list[tuple[bytes, bytes]]:
    """GitLab's headers of a throttled answer (Gitlab::RackAttack::RequestThrottleData)."""
    seconds = int(now)
    retry_after = throttle.period_seconds - seconds % throttle.period_seconds
    reset = seconds + retry_after
    values = {
        "RateLimit-Name": throttle.name,
        "RateLimit-Limit": str(math.ceil(throttle.limit * 60 / throttle.period_seconds)),
        "RateLimit-Observed": str(observed),
        "RateLimit-Remaining": str(max(throttle.limit - observed, 0)),
        "RateLimit-Reset": str(reset),
        "RateLimit-ResetTime": formatdate(reset, usegmt=True),
        "Retry-After": str(retry_after),
    }
    return [(name.lower().encode(), value.encode()) for name, value in values.items()]


class UnauthenticatedThrottles:
    """The API and web throttles of one process; each counts in its own windows."""

    def __init__(self, engine: Engine, throttles: list[Throttle], clock=time.time):
        self.clock = clock
        self._counters = {
            throttle.name: (throttle, SharedWindowCounter(
                engine, model=UnauthenticatedRequestWindow, key_column="ip", count_column="requests",
                window_seconds=throttle.period_seconds, name=throttle.name, log=log,
                count_refused=True, scope={"throttle": throttle.name}, clock=clock))
            for throttle in throttles if throttle.limit > 0}
        self._running = AsyncExitStack()

    async def __aenter__(self) -> Self:
        for _, counter in self._counters.values():
            await self._running.enter_async_context(counter)
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self._running.aclose()

    async def refusal(self, scope) -> list[tuple[bytes, bytes]] | None:
        """The throttled answer's headers when this request is over its throttle's limit, else None."""
        if not self._counters or carries_token(scope):
            return None
        client = scope.get("client")
        if not client:
            return None
        name = "throttle_unauthenticated_api" if scope["path"].startswith("/api/") else "throttle_unauthenticated_web"
        entry = self._counters.get(name)
        if entry is None:
            return None
        throttle, counter = entry
        try:
            decision = await counter.count(client[0], 1, limit=throttle.limit)
        except Exception:
            # The database cannot say how many came before: let the request through (it gets its own
            # 503 if it needs the database); the counter's sync reports the outage.
            return None
        if decision.admitted:
            return None
        return throttled_headers(throttle, observed=decision.used, now=self.clock())

"""The failed-authentication ban at the door: a banned address gets GitLab's throttled answer
(429 `Retry later` with Retry-After) for every request but the collector's, in every process.

Failures are counted in the database (accounts/auth_failures.py), so all processes and replicas count
together; each process reads the active bans back every second, so a request never waits on the
database to be let in.
"""

from __future__ import annotations

import datetime as dt
import logging
import math

from outpost_server.accounts.auth_failures import BanPolicy, active_bans, record_failure
from outpost_server.background import BackgroundWorker
from outpost_server.db import session_scope, utcnow
from outpost_server.deps import services_of
from outpost_server.request_throttle import UnauthenticatedThrottles

log = logging.getLogger("outpost.auth")

REFRESH_SECONDS = 1.0
UNGATED_PREFIX = "/api/v4/error_tracking/collector/"


class BanList(BackgroundWorker):
    """The addresses banned now, read from the database every REFRESH_SECONDS, so a ban decided in any
    process or replica applies here too."""

    def __init__(self, factory, policy: BanPolicy):
        super().__init__(name="auth-bans", log=log, what="reading the authentication bans",
                         interval_seconds=REFRESH_SECONDS)
        self._factory = factory
        self.policy = policy
        self._bans: dict[str, dt.datetime] = {}

    def start(self) -> None:
        if self.policy.enabled:
            super().start()

    def retry_after(self, ip: str | None) -> int | None:
        """Seconds until the address's ban ends, or None when it is not banned."""
        until = self._bans.get(ip) if ip else None
        if until is None:
            return None
        left = (until - utcnow()).total_seconds()
        return math.ceil(left) if left > 0 else None

    def failed(self, ip: str | None) -> None:
        """Counts a failed authentication (called from the request's thread)."""
        if not ip or not self.policy.enabled or self.policy.exempt(ip):
            return
        with session_scope(self._factory) as session:
            until = record_failure(session, ip=ip, policy=self.policy, now=utcnow())
        if until is not None and ip not in self._bans:
            log.warning("banning %s until %s after %d failed authentications", ip, until.isoformat(),
                        self.policy.max_failures)
        if until is not None:
            self._bans[ip] = until

    async def tick(self) -> None:
        self._bans = await self.blocking(self._read)

    def _read(self) -> dict[str, dt.datetime]:
        with session_scope(self._factory) as session:
            return active_bans(session, now=utcnow())


class BanGate:
    """ASGI middleware answering banned addresses, and requests over the unauthenticated throttles
    (request_throttle.py), before anything else runs."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(UNGATED_PREFIX) and "app" in scope:
            services = services_of(scope["app"])
            client = scope.get("client")
            retry_after = services.part(BanList).retry_after(client[0] if client else None)
            headers = None if retry_after is None else [(b"retry-after", str(retry_after).encode())]
            if headers is None:
                headers = await services.part(UnauthenticatedThrottles).refusal(scope)
            if headers is not None:
                # GitLab's throttled answer (Rack::Attack's throttled_responder).
                await send({"type": "http.response.start", "status": 429,
                            "headers": [(b"content-type", b"text/plain"), *headers]})
                await send({"type": "http.response.body", "body": b"Retry later\n"})
                return
        await self.app(scope, receive, send)

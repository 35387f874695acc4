"""A cap on the requests without a token one address has in flight at once.

Such a request costs nothing to open and may hold its connection until the body timeout; without a cap,
one address could open them by the thousand and take every connection a process serves
(`max_connections`). Requests that carry a token are not counted (a wrong one is the failed-authentication
ban's business), nor are the collector's, whose SDKs authenticate with their DSN key.
"""

from __future__ import annotations

from collections import Counter

from outpost_server.request_throttle import carries_token

UNCAPPED_PREFIX = "/api/v4/error_tracking/collector/"


class UnauthenticatedRequestCap:
    """ASGI middleware: beyond `per_address` token-less requests in flight from one address, GitLab's
    throttled answer (429 `Retry later`), and the connection is closed."""

    def __init__(self, app, *, per_address: int) -> None:
        self.app = app
        self.per_address = per_address
        self._in_flight: Counter[str] = Counter()

    async def __call__(self, scope, receive, send) -> None:
        client = scope.get("client")
        if (scope["type"] != "http" or self.per_address <= 0 or not client
                or scope["path"].startswith(UNCAPPED_PREFIX) or carries_token(scope)):
            await self.app(scope, receive, send)
            return
        address = client[0]
        if self._in_flight[address] >= self.per_address:
            await send({"type": "http.response.start", "status": 429, "headers": [
                (b"content-type", b"text/plain"), (b"retry-after", b"1"), (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": b"Retry later\n"})
            return
        self._in_flight[address] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight[address] -= 1
            if not self._in_flight[address]:
                del self._in_flight[address]

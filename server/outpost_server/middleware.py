"""ASGI middleware: request ids, the structured request log, last-resort 500s and encoded slashes."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import threading
import time
import uuid
from functools import lru_cache
from urllib.parse import unquote

import orjson
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine
from starlette.requests import ClientDisconnect

from outpost_server.accounts.service import ENCODED_SLASH
from outpost_server.db import database_unavailable
from outpost_server.http_metrics import HTTP_METRICS

request_log = logging.getLogger("outpost.request")
error_log = logging.getLogger("outpost.error")

SECURITY_HEADERS = [(b"x-frame-options", b"SAMEORIGIN"), (b"x-content-type-options", b"nosniff")]
INTERNAL_ERROR_BODY = b'{"message":"500 Internal Server Error"}'
UNAVAILABLE_BODY = b'{"message":"503 Service Unavailable"}'


RETRY_AFTER_SECONDS = b"5"
# What the request log says of a request its client abandoned (nginx's convention).
CLIENT_CLOSED = 499


class _RepeatedErrors:
    """Logs an unexpected error with its traceback the first time; the same error again (same type and
    message) at most once a minute, with how often it happened meanwhile, so a failing route cannot
    flood the log."""

    EVERY_SECONDS = 60.0

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def report(self, error: Exception, request_id: str) -> None:
        key = (type(error).__name__, str(error)[:200])
        now = time.monotonic()
        last = self._seen.get(key)
        if last is None:
            if len(self._seen) > 1000:
                self._seen.clear()
            self._seen[key] = (now, 0)
            error_log.error("unhandled error in request %s", request_id, exc_info=error)
        elif now - last[0] >= self.EVERY_SECONDS:
            self._seen[key] = (now, 0)
            error_log.error("unhandled error in request %s (the same %s %d more times since it was last logged)",
                            request_id, key[0], last[1] + 1)
        else:
            self._seen[key] = (last[0], last[1] + 1)


REPEATED_ERRORS = _RepeatedErrors()


class _DatabaseOutage:
    """Logs an outage once when a request finds the database away, and once when a statement succeeds
    again. Only a statement ends it: an answer that never touched the database (a collector's 200, a 404,
    a 401) says nothing of it, and ending on those made the log flap."""

    def __init__(self) -> None:
        self.since: float | None = None
        self._lock = threading.Lock()

    def watch(self, engine: Engine) -> None:
        """Every statement the engine runs successfully ends an outage under way."""
        event.listen(engine, "after_cursor_execute", lambda *_args: self.end())

    def begin(self, error: Exception) -> None:
        with self._lock:
            if self.since is not None:
                return
            self.since = time.monotonic()
        error_log.error("the database is unreachable; answering 503 until it is back (%s)",
                        type(error.orig if isinstance(error, sa_exc.DBAPIError) else error).__name__)

    def end(self) -> None:
        if self.since is None:  # the common case, without the lock
            return
        with self._lock:
            if self.since is None:
                return
            lasted, self.since = time.monotonic() - self.since, None
        error_log.warning("the database is reachable again after %.1f s", lasted)


DATABASE_OUTAGE = _DatabaseOutage()


class RequestMiddleware:
    """Gives each request an id, logs one line per request and turns escaped errors into GitLab's 500.

    The log line carries method, path (never the query string, which may hold a token), status,
    duration and request id.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        _keep_encoded_slashes(scope)
        _normalize_client(scope)
        request_id = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_headers(message):
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                headers.extend(SECURITY_HEADERS)
                message = {**message, "headers": headers}
            await send(message)

        app = _refuse_null_bytes if "\x00" in scope["path"] else self.app
        try:
            await app(scope, receive, send_with_headers)
        except asyncio.CancelledError:
            # The server cancels the requests still running when its shutdown grace period ends. Answer
            # them 503 instead of letting uvicorn log the cancellation as an application error.
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                raise
            task.uncancel()
            error_log.warning("request %s cancelled: the shutdown grace period ended", request_id)
            status = 503
            if not response_started:
                await _send_error(send, request_id, 503, UNAVAILABLE_BODY, retry_after=True)
        except ClientDisconnect:
            # The client went away before sending its whole request: nothing to answer, nothing broken.
            error_log.info("request %s: the client disconnected before sending its whole request", request_id)
            # 408 when the server gave up waiting for the body (http_protocol.py answered it).
            status = scope["state"].get("answered_status", CLIENT_CLOSED)
        except Exception as error:
            if database_unavailable(error):
                # PostgreSQL restarting, or SQLite's lock held too long: the client may retry, and the log
                # says so once per outage rather than once per request.
                DATABASE_OUTAGE.begin(error)
                status = 503
                if not response_started:
                    await _send_error(send, request_id, 503, UNAVAILABLE_BODY, retry_after=True)
            else:
                REPEATED_ERRORS.report(error, request_id)
                status = 500
                if not response_started:
                    await _send_error(send, request_id, 500, INTERNAL_ERROR_BODY)
        finally:
            route = scope.get("route")
            HTTP_METRICS.observe(route=getattr(route, "path", None), method=scope["method"], status=status,
                                 seconds=time.perf_counter() - started)
            request_log.info(orjson.dumps({
                "request_id": request_id,
                "method": scope["method"],
                "path": loggable_path(scope.get("raw_path", b"").decode("latin-1") or scope["path"]),
                "status": status,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                "user_id": scope["state"].get("user_id"),
            }).decode())


# What the tokens Outpost issues look like (security.PAT_PREFIX and the root token's, client keys, webhook
# signing secrets), wherever they stand: after `private_token=`, `private_token:`, `%20=%20`, or as a path
# segment of their own. Filtering by a parameter's spelling missed every form it did not foresee.
_TOKEN_SHAPES = re.compile(r"(?:glpat-|glet_|whsec_)[A-Za-z0-9_-]{8,}")
FILTERED = "[FILTERED]"


class _LiteralSecrets:
    """Secrets of no known shape the request log must never show (an OUTPOST_ROOT_TOKEN of the
    administrator's choosing); app.py registers them."""

    def __init__(self) -> None:
        self.values: tuple[str, ...] = ()

    def add(self, value: str) -> None:
        if value and value not in self.values:
            # Longest first, so a secret that contains another is filtered whole.
            self.values = tuple(sorted((*self.values, value), key=len, reverse=True))


LITERAL_SECRETS = _LiteralSecrets()


def loggable_path(path: str) -> str:
    """The path for the request log; if it carries a token (however often percent-encoded), the decoded
    path with each token replaced by [FILTERED]."""
    decoded, previous = path, None
    while decoded != previous and "%" in decoded:
        previous, decoded = decoded, unquote(decoded)
    filtered = _TOKEN_SHAPES.sub(FILTERED, decoded)
    for secret in LITERAL_SECRETS.values:
        filtered = filtered.replace(secret, FILTERED)
    return path if filtered == decoded else filtered


async def _send_error(send, request_id: str, status: int, body: bytes, *, retry_after: bool = False) -> None:
    retry = [(b"retry-after", RETRY_AFTER_SECONDS)] if retry_after else []
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"x-request-id", request_id.encode()), *retry,
        *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


async def _refuse_null_bytes(_scope, _receive, send) -> None:
    """GitLab refuses NUL bytes in a request (its HandleNullBytes middleware); PostgreSQL cannot store them."""
    await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"message":"400 Bad request"}'})


def _normalize_client(scope) -> None:
    """The client's address in one spelling, before anything counts, bans or throttles by it: an IPv4
    address mapped into IPv6 (`::ffff:10.9.9.9`, from a dual-stack socket or X-Forwarded-For) is the IPv4
    address, and an IPv6 address is in its compressed lowercase form. Otherwise one address had several
    spellings, and a ban on one was dodged through another."""
    client = scope.get("client")
    if not client:
        return
    spelling = _one_spelling(client[0])
    if spelling != client[0]:
        scope["client"] = (spelling, *client[1:])


@lru_cache(maxsize=4096)
def _one_spelling(host: str) -> str:
    """The address's one spelling (the host as it came when it is no IP address). Cached: clients come
    back, and parsing an address on every request cost more than the rest of the request log's work."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def _keep_encoded_slashes(scope) -> None:
    # "/projects/group%2Fproject" must route as one segment, as on GitLab.
    raw_path = scope.get("raw_path")
    if raw_path and b"%2f" in raw_path.lower():
        segments = raw_path.decode("latin-1").split("/")
        scope["path"] = "/".join(unquote(segment).replace("/", ENCODED_SLASH) for segment in segments)

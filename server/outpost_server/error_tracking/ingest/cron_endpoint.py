"""Sentry's HTTP check-in endpoint (Relay's monitor endpoint): `GET` or `POST
…/api/{project_id}/cron/{monitor_slug}/{public_key}/?status=ok` (the key may instead come as
`?sentry_key=` or an auth header), for jobs that have no SDK, such as a `curl` at the end of a script.

The query carries `status`, `check_in_id`, `environment` and `duration`; a JSON body (Content-Type
application/json) carries a whole check-in, `monitor_config` included, the path naming its slug. The
check-in becomes a `check_in` envelope item and takes the events' way: the same key and project check,
the project's rate limit (429), the spool; it is answered 202 once kept.
"""

from __future__ import annotations

import orjson
from fastapi import Request
from starlette.responses import Response

from outpost_server import http_errors
from outpost_server.db import utcnow
from outpost_server.error_tracking.ingest import intake
from outpost_server.error_tracking.ingest.authentication import Refused, admitted, protocol_refusal, refusal
from outpost_server.error_tracking.ingest.check_in_items import InvalidCheckIn, read_check_in
from outpost_server.error_tracking.ingest.collector_parts import Collector
from outpost_server.error_tracking.ingest.dsn import ENVELOPE, extract_public_key
from outpost_server.error_tracking.ingest.protocol import MAX_EVENT_ITEM, PARSE_FAILURE, ProtocolError, load_json_object
from outpost_server.error_tracking.ingest.spool import NewEntry

QUERY_FIELDS = ("check_in_id", "environment")


def _from_query(query: dict[str, str]) -> dict:
    if "status" not in query:
        raise ProtocolError("invalid check-in: status is missing")
    check_in: dict = {"status": query["status"], **{name: query[name] for name in QUERY_FIELDS if name in query}}
    if "duration" in query:
        try:
            check_in["duration"] = float(query["duration"])
        except ValueError:
            raise ProtocolError("invalid check-in: duration is not a number") from None
    return check_in


async def _read_json(request: Request) -> dict:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_EVENT_ITEM:
            raise ProtocolError("check-in is too large", 413)
    return load_json_object(body, "check-in")


def envelope_of(check_in: dict) -> bytes:
    """The one-item envelope the digest reads, as Relay builds it from the request."""
    payload = orjson.dumps(check_in)
    header = orjson.dumps({"type": "check_in", "length": len(payload)})
    return b"{}\n" + header + b"\n" + payload


async def cron_check_in(collector: Collector, request: Request, project_ident: str, slug: str,
                        path_key: str | None) -> Response:
    received_at = utcnow()
    headers = {name.lower(): value for name, value in request.headers.items()}
    query = dict(request.query_params)
    try:
        key = path_key or extract_public_key(headers, query).key
        target = await admitted(collector, project_ident, key or None, None)
        if not key:
            raise refusal(http_errors.bad_request(PARSE_FAILURE))
        try:
            if headers.get("content-type", "").startswith("application/json"):
                check_in = await _read_json(request)
            else:
                check_in = _from_query(query)
            check_in["monitor_slug"] = slug
            read_check_in(check_in)
        except InvalidCheckIn as invalid:
            raise protocol_refusal(ProtocolError(str(invalid))) from None
        except ProtocolError as error:
            raise protocol_refusal(error) from None
    except Refused as refused:
        collector.writer.refused(intake.REFUSAL_REASONS.get(refused.response.status_code, "other"))
        return refused.response
    assert target.project_id is not None  # admitted() refuses otherwise
    limited = await intake.rate_limited(collector, target.project_id, 1)
    if limited is not None:
        collector.writer.refused("rate_limited")
        return limited
    refused_by_spool = await intake.spool(collector, NewEntry(
        project_id=target.project_id, public_key=key, endpoint=ENVELOPE, event_id=None,
        received_at=received_at.timestamp(), client_ip=request.client.host if request.client else None,
        encoding="", body=collector.sealer.seal(envelope_of(check_in))))
    return refused_by_spool or Response(status_code=202)


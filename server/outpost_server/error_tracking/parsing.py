"""From one collector request (headers, query, raw body) to what must be stored.

Pure and database-free; raises only `ProtocolError` (400 or 413).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from .normalize import (
    NormalizedEvent,
    SessionBucket,
    SessionUpdate,
    normalize_event,
    normalize_event_id,
    normalize_session,
    normalize_session_aggregates,
)
from .protocol import (
    MAX_ENVELOPE_BODY,
    MAX_EVENT_ITEM,
    MAX_SESSION_ITEMS,
    MAX_STORE_BODY,
    PARSE_FAILURE,
    AuthInfo,
    ProtocolError,
    decode_content,
    decode_store_body,
    extract_public_key,
    load_json_object,
    parse_envelope,
)

STORE = "store"
ENVELOPE = "envelope"
# Items accepted without being stored.
IGNORED_ITEMS = {"client_report", "transaction"}


@dataclass
class IngestRequest:
    auth: AuthInfo
    # The id answered to the SDK: None for envelopes without an event (answer `{}`).
    response_id: str | None = None
    events: list[NormalizedEvent] = field(default_factory=list)
    sessions: list[SessionUpdate] = field(default_factory=list)
    session_buckets: list[SessionBucket] = field(default_factory=list)


def body_limit(endpoint: str) -> int:
    return MAX_STORE_BODY if endpoint == STORE else MAX_ENVELOPE_BODY


def parse_ingest_request(
    endpoint: str,
    *,
    headers: dict[str, str],
    query: dict[str, str],
    body: bytes,
    received_at: dt.datetime,
    client_ip: str | None = None,
) -> IngestRequest:
    """Decode, authenticate (find the key) and normalise one store or envelope request.

    `headers` must have lower-case names. A request without any key raises the GitLab
    collector's 400 "Failed to parse sentry request".
    """
    limit = body_limit(endpoint)
    data = decode_content(body, headers.get("content-encoding"), limit)
    if endpoint == STORE:
        request = _parse_store(data, headers, query, received_at, client_ip)
    else:
        request = _parse_envelope(data, headers, query, received_at, client_ip)
    if not request.auth.key:
        raise ProtocolError(PARSE_FAILURE)
    return request


def _parse_store(data, headers, query, received_at, client_ip) -> IngestRequest:
    auth = extract_public_key(headers, query)
    if not auth.key:
        raise ProtocolError(PARSE_FAILURE)
    data = decode_store_body(data, MAX_STORE_BODY)
    if not data.strip():
        raise ProtocolError("empty store body")
    event = normalize_event(
        load_json_object(data, "event"), received_at=received_at, client_ip=client_ip, raw_payload=data
    )
    return IngestRequest(auth, event.event_id, [event])


def _parse_envelope(data, headers, query, received_at, client_ip) -> IngestRequest:
    envelope = parse_envelope(data)
    auth = extract_public_key(headers, query, envelope.headers.get("dsn"))
    if not auth.key:
        raise ProtocolError(PARSE_FAILURE)
    header_event_id = normalize_event_id(envelope.headers.get("event_id"))
    request = IngestRequest(auth)
    session_items = 0
    for item in envelope.items:
        if item.type == "event":
            if request.events:
                raise ProtocolError("envelope has more than one event item")
            if len(item.payload) > MAX_EVENT_ITEM:
                raise ProtocolError("envelope exceeded size limits for type 'event'")
            event = normalize_event(
                load_json_object(item.payload, "event item"),
                received_at=received_at,
                envelope_event_id=header_event_id,
                client_ip=client_ip,
                raw_payload=item.payload,
            )
            request.events.append(event)
            request.response_id = event.event_id
        elif item.type in ("session", "sessions"):
            session_items += 1
            if session_items > MAX_SESSION_ITEMS:
                raise ProtocolError("envelope exceeded size limits for type 'session'")
            payload = load_json_object(item.payload, f"{item.type} item")
            if item.type == "session":
                update = normalize_session(payload, received_at=received_at)
                if update is not None:
                    request.sessions.append(update)
            else:
                request.session_buckets.extend(normalize_session_aggregates(payload, received_at=received_at))
        # client_report, transaction and unknown types are accepted and not stored.
    return request

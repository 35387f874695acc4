"""The digest's decoding of what the accept stage queued: a request's body (as `decode_body` gives it)
turned into normalized events, session updates and check-ins.

The accept stage checked the framing and that every stored item is a JSON object; a body it accepted
fails here only when the code changed between the two (counted as dropped, invalid).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from outpost_server.error_tracking.digest.normalize import NormalizedEvent, normalize_event
from outpost_server.error_tracking.digest.session_items import (
    SessionBucket,
    SessionUpdate,
    normalize_session,
    normalize_session_aggregates,
)
from outpost_server.error_tracking.ingest.check_in_items import CheckInItem
from outpost_server.error_tracking.ingest.dsn import STORE, AuthInfo
from outpost_server.error_tracking.ingest.protocol import check_in_of, load_json_object, open_request, parse_envelope


@dataclass
class IngestRequest:
    """What one request brings: the key it names and its decoded content."""

    auth: AuthInfo
    # The id answered to the SDK: None for envelopes without an event (answer `{}`).
    response_id: str | None = None
    events: list[NormalizedEvent] = field(default_factory=list)
    sessions: list[SessionUpdate] = field(default_factory=list)
    session_buckets: list[SessionBucket] = field(default_factory=list)
    check_ins: list[CheckInItem] = field(default_factory=list)




def read_request(endpoint: str, data: bytes, *, public_key: str | None, response_id: str | None,
                 received_at: dt.datetime, client_ip: str | None,
                 symbolicate: Callable[[dict[str, Any]], bool] | None = None) -> IngestRequest:
    """Digest-time decoding of what `open_request` accepted (`data` as `decode_body` gives it): the events
    normalized (and scrubbed), the sessions read. The event keeps the id the collector answered with."""
    auth = AuthInfo(public_key, None)
    if endpoint == STORE:
        event = normalize_event(load_json_object(data, "event"), received_at=received_at,
                                envelope_event_id=response_id, client_ip=client_ip, raw_payload=data,
                                symbolicate=symbolicate)
        return IngestRequest(auth, event.event_id, [event])
    request = IngestRequest(auth, response_id)
    for item in parse_envelope(data).items:
        if item.type == "event":
            request.events.append(normalize_event(
                load_json_object(item.payload, "event item"), received_at=received_at,
                envelope_event_id=response_id, client_ip=client_ip, raw_payload=item.payload,
                symbolicate=symbolicate))
        elif item.type == "session":
            update = normalize_session(load_json_object(item.payload, "session item"), received_at=received_at)
            if update is not None:
                request.sessions.append(update)
        elif item.type == "sessions":
            request.session_buckets.extend(normalize_session_aggregates(
                load_json_object(item.payload, "sessions item"), received_at=received_at))
        elif item.type == "check_in" and (check_in := check_in_of(item)) is not None:
            request.check_ins.append(check_in)
    return request


def parse_ingest_request(endpoint: str, *, headers: dict[str, str], query: dict[str, str], body: bytes,
                         received_at: dt.datetime, client_ip: str | None = None) -> IngestRequest:
    """Both stages at once, for callers that store what they decode (tests, the demo data)."""
    opened = open_request(endpoint, headers=headers, query=query, body=body)
    return read_request(endpoint, opened.data, public_key=opened.auth.key, response_id=opened.response_id,
                        received_at=received_at, client_ip=client_ip)

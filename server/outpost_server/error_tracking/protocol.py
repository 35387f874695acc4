"""The Sentry wire protocol, decoded in one place: from one collector request's headers, query and
raw body to what must be stored.

The body goes through here once, in order: Content-Encoding, then the store body's raven
encodings or the envelope's framing, then JSON, then normalisation (normalize.py), finding the
public key on the way (dsn.py). Pure functions with no database access. Every failure is a
`ProtocolError` carrying the HTTP status the collector answers with (400 for malformed input,
413 for oversized bodies).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Any

import msgspec

from outpost_server import json_text

from .check_in_items import CheckInItem, InvalidCheckIn, read_check_in
from .dsn import STORE, AuthInfo, extract_public_key
from .normalize import NormalizedEvent, normalize_event, normalize_event_id
from .session_items import SessionBucket, SessionUpdate, normalize_session, normalize_session_aggregates

# Size limits (Relay's documented ones, trimmed for a small server).
MAX_STORE_BODY = 1024 * 1024
MAX_ENVELOPE_BODY = 20 * 1024 * 1024
MAX_EVENT_ITEM = 1024 * 1024
MAX_SESSION_ITEMS = 100

PARSE_FAILURE = "Failed to parse sentry request"


class ProtocolError(Exception):
    """Input the collector refuses; `status` is the HTTP status to answer with."""

    def __init__(self, reason: str, status: int = 400):
        super().__init__(reason)
        self.reason = reason
        self.status = status


class PayloadTooLarge(ProtocolError):
    def __init__(self, reason: str = "Payload Too Large"):
        super().__init__(reason, 413)


# --- body decoding --------------------------------------------------------------------------

_IDENTITY_ENCODINGS = {"", "identity", "utf-8", "utf8"}


def _inflate(data: bytes, wbits: int, limit: int) -> bytes:
    """Decompress with an output cap, so a small bomb cannot expand without bound."""
    decompressor = zlib.decompressobj(wbits)
    out = decompressor.decompress(data, limit + 1)
    if len(out) > limit or decompressor.unconsumed_tail:
        raise PayloadTooLarge()
    out += decompressor.flush()
    if len(out) > limit:
        raise PayloadTooLarge()
    if not decompressor.eof:
        raise zlib.error("incomplete compressed stream")
    return out


def decompress(data: bytes, encoding: str, limit: int) -> bytes:
    try:
        if encoding in ("gzip", "x-gzip"):
            return _inflate(data, 16 + zlib.MAX_WBITS, limit)
        if encoding == "deflate":
            try:
                return _inflate(data, zlib.MAX_WBITS, limit)
            except zlib.error:
                return _inflate(data, -zlib.MAX_WBITS, limit)
    except zlib.error as exc:
        raise ProtocolError(f"invalid {encoding} body: {exc}") from None
    raise ProtocolError(f"unsupported Content-Encoding: {encoding}")


def decode_content(body: bytes, content_encoding: str | None, limit: int) -> bytes:
    """Undo Content-Encoding (possibly a comma-separated chain); empty and UTF-8 mean identity."""
    encodings = [part.strip().lower() for part in (content_encoding or "").split(",")]
    for encoding in reversed(encodings):
        if encoding not in _IDENTITY_ENCODINGS:
            body = decompress(body, encoding, limit)
    if len(body) > limit:
        raise PayloadTooLarge()
    return body


def decode_store_body(body: bytes, limit: int = MAX_STORE_BODY) -> bytes:
    """Raven-style store bodies: JSON as is, else base64, else base64 of zlib."""
    stripped = body.lstrip()
    if not stripped or stripped.startswith(b"{"):
        return body
    try:
        decoded = base64.b64decode(stripped, validate=False)
    except (binascii.Error, ValueError):
        raise ProtocolError("store body is neither JSON nor base64") from None
    if decoded.lstrip().startswith(b"{"):
        return decoded
    try:
        return _inflate(decoded, zlib.MAX_WBITS, limit)
    except zlib.error:
        raise ProtocolError("store body is neither JSON nor base64 of zlib-compressed JSON") from None


# --- JSON -----------------------------------------------------------------------------------


class _EventHead(msgspec.Struct):
    """The one field of an event the collector needs before queueing it."""

    event_id: Any = None


class _AnyObject(msgspec.Struct):
    pass


# Typed decoders skip every other field without building it, yet check the whole text's JSON syntax:
# the collector validates what it queues at a fraction of a full parse.
_EVENT_HEAD = msgspec.json.Decoder(_EventHead)
_ANY_OBJECT = msgspec.json.Decoder(_AnyObject)


def check_event(data: bytes, what: str) -> Any:
    """Checks that `data` is a JSON object and returns its `event_id` (as sent)."""
    try:
        return _EVENT_HEAD.decode(data).event_id
    except (msgspec.DecodeError, RecursionError):
        # What the strict decoder refuses is judged by the full parse, as before (NaN, UTF-16, errors).
        return load_json_object(data, what).get("event_id")


def check_object(data: bytes, what: str) -> None:
    try:
        _ANY_OBJECT.decode(data)
    except (msgspec.DecodeError, RecursionError):
        load_json_object(data, what)


def load_json_object(data: bytes, what: str) -> dict[str, Any]:
    """Parse a JSON object; anything else (bad UTF-8, nesting bombs, arrays) is a ProtocolError. Unpaired
    surrogate escapes become U+FFFD: an accepted event must not be lost over one character."""
    try:
        value = json_text.loads(data)
    except (ValueError, RecursionError) as exc:
        # ValueError covers JSONDecodeError and UnicodeDecodeError.
        raise ProtocolError(f"{what} is not valid JSON: {type(exc).__name__}") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"{what} is not a JSON object")
    return value


# --- envelopes ------------------------------------------------------------------------------


@dataclass
class EnvelopeItem:
    type: str
    headers: dict[str, Any]
    payload: bytes


@dataclass
class Envelope:
    headers: dict[str, Any]
    items: list[EnvelopeItem] = field(default_factory=list)


def parse_envelope(data: bytes) -> Envelope:
    """Parse newline-delimited envelope bytes (items with or without `length`)."""
    if not data.strip():
        raise ProtocolError("empty envelope")
    end = data.find(b"\n")
    if end < 0:
        end = len(data)
    envelope = Envelope(load_json_object(data[:end], "envelope header"))
    pos = end + 1
    size = len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        if end < 0:
            end = size
        line = data[pos:end]
        pos = end + 1
        if not line.strip():
            continue  # tolerate blank lines between items
        item_headers = load_json_object(line, "envelope item header")
        item_type = item_headers.get("type")
        if not isinstance(item_type, str) or not item_type:
            raise ProtocolError("envelope item header has no type")
        length = item_headers.get("length")
        if length is not None:
            if isinstance(length, bool) or not isinstance(length, int) or length < 0:
                raise ProtocolError("envelope item length is invalid")
            if pos + length > size:
                raise ProtocolError("envelope item is truncated")
            payload = data[pos:pos + length]
            pos += length
            if pos < size:
                if data[pos:pos + 1] != b"\n":
                    raise ProtocolError("envelope item is longer than its length")
                pos += 1
        else:
            end = data.find(b"\n", pos)
            if end < 0:
                end = size
            payload = data[pos:end]
            pos = end + 1
        envelope.items.append(EnvelopeItem(item_type, item_headers, payload))
    return envelope


# --- one request -----------------------------------------------------------------------------

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


@dataclass
class OpenedRequest:
    """What the collector learns of a request before queueing it."""

    auth: AuthInfo
    # The id answered to the SDK: None for envelopes without an event (answer `{}`).
    response_id: str | None
    # The body with its encodings undone (the spool keeps it as sent, which is smaller).
    data: bytes
    # Whether it carries anything that is stored (an event, sessions, check-ins).
    stores_something: bool
    # How many monitor check-ins it carries (each counts against the rate limit, as an event does).
    check_ins: int = 0


def body_limit(endpoint: str) -> int:
    return MAX_STORE_BODY if endpoint == STORE else MAX_ENVELOPE_BODY


def open_request(endpoint: str, *, headers: dict[str, str], query: dict[str, str], body: bytes) -> OpenedRequest:
    """Accept-time checks of one store or envelope request, as far as Sentry refuses with 400 or 413.

    Undoes the encodings, checks the framing and that every item to be stored is a JSON object, and
    finds the public key and the event id to answer with. `headers` must have lower-case names. A
    request without any key raises the GitLab collector's 400 "Failed to parse sentry request".
    """
    data = decode_body(endpoint, body, headers.get("content-encoding"))
    if endpoint == STORE:
        auth = _required_key(extract_public_key(headers, query))
        if not data.strip():
            raise ProtocolError("empty store body")
        event_id = check_event(data, "event")
        return OpenedRequest(auth, normalize_event_id(event_id) or uuid.uuid4().hex, data, True)
    envelope = parse_envelope(data)
    auth = _required_key(extract_public_key(headers, query, envelope.headers.get("dsn")))
    header_event_id = normalize_event_id(envelope.headers.get("event_id"))
    response_id, stored_items, session_items, check_ins = None, 0, 0, 0
    for item in envelope.items:
        if item.type == "event":
            if response_id is not None:
                raise ProtocolError("envelope has more than one event item")
            if len(item.payload) > MAX_EVENT_ITEM:
                raise ProtocolError("envelope exceeded size limits for type 'event'")
            event_id = check_event(item.payload, "event item")
            response_id = header_event_id or normalize_event_id(event_id) or uuid.uuid4().hex
            stored_items += 1
        elif item.type in ("session", "sessions"):
            session_items += 1
            if session_items > MAX_SESSION_ITEMS:
                raise ProtocolError("envelope exceeded size limits for type 'session'")
            check_object(item.payload, f"{item.type} item")
            stored_items += 1
        elif item.type == "check_in" and _check_in(item) is not None:
            check_ins += 1
            stored_items += 1
        # client_report, transaction and unknown types are accepted and not stored; so are the check-ins
        # Relay drops.
    return OpenedRequest(auth, response_id, data, stored_items > 0, check_ins)


def _check_in(item: EnvelopeItem) -> CheckInItem | None:
    """The item's check-in, or None when Relay would drop it (the envelope is accepted all the same)."""
    try:
        return read_check_in(load_json_object(item.payload, "check_in item"))
    except (ProtocolError, InvalidCheckIn):
        return None


def decode_body(endpoint: str, body: bytes, content_encoding: str | None) -> bytes:
    """The body as sent with its encodings undone (Content-Encoding, and raven's base64 for the store)."""
    data = decode_content(body, content_encoding, body_limit(endpoint))
    return decode_store_body(data, MAX_STORE_BODY) if endpoint == STORE else data


def read_request(endpoint: str, data: bytes, *, public_key: str | None, response_id: str | None,
                 received_at: dt.datetime, client_ip: str | None) -> IngestRequest:
    """Digest-time decoding of what `open_request` accepted (`data` as `decode_body` gives it): the events
    normalized (and scrubbed), the sessions read. The event keeps the id the collector answered with."""
    auth = AuthInfo(public_key, None)
    if endpoint == STORE:
        event = normalize_event(load_json_object(data, "event"), received_at=received_at,
                                envelope_event_id=response_id, client_ip=client_ip, raw_payload=data)
        return IngestRequest(auth, event.event_id, [event])
    request = IngestRequest(auth, response_id)
    for item in parse_envelope(data).items:
        if item.type == "event":
            request.events.append(normalize_event(
                load_json_object(item.payload, "event item"), received_at=received_at,
                envelope_event_id=response_id, client_ip=client_ip, raw_payload=item.payload))
        elif item.type == "session":
            update = normalize_session(load_json_object(item.payload, "session item"), received_at=received_at)
            if update is not None:
                request.sessions.append(update)
        elif item.type == "sessions":
            request.session_buckets.extend(normalize_session_aggregates(
                load_json_object(item.payload, "sessions item"), received_at=received_at))
        elif item.type == "check_in" and (check_in := _check_in(item)) is not None:
            request.check_ins.append(check_in)
    return request


def parse_ingest_request(endpoint: str, *, headers: dict[str, str], query: dict[str, str], body: bytes,
                         received_at: dt.datetime, client_ip: str | None = None) -> IngestRequest:
    """Both stages at once, for callers that store what they decode (tests, the demo data)."""
    opened = open_request(endpoint, headers=headers, query=query, body=body)
    return read_request(endpoint, opened.data, public_key=opened.auth.key, response_id=opened.response_id,
                        received_at=received_at, client_ip=client_ip)


def _required_key(auth: AuthInfo) -> AuthInfo:
    if not auth.key:
        raise ProtocolError(PARSE_FAILURE)
    return auth

"""The Sentry wire protocol as the accept stage reads it: one collector request's headers, query and raw
body checked as far as Sentry refuses them.

In order: Content-Encoding undone, then the store body's raven encodings or the envelope's framing,
every stored item checked to be a JSON object, and the public key found on the way (dsn.py). Turning
the items into what is stored is the digest's (digest/decode.py). Pure functions with no database
access. Every failure is a `ProtocolError` carrying the HTTP status the collector answers with (400
for malformed input, 413 for oversized bodies).
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Any

import msgspec

from outpost_server import json_text
from outpost_server.error_tracking.ingest.check_in_items import CheckInItem, InvalidCheckIn, read_check_in
from outpost_server.error_tracking.ingest.dsn import STORE, AuthInfo, extract_public_key

# Size limits (Relay's documented ones, trimmed for a small server).
MAX_STORE_BODY = 1024 * 1024
MAX_ENVELOPE_BODY = 20 * 1024 * 1024
MAX_EVENT_ITEM = 1024 * 1024
MAX_SESSION_ITEMS = 100
# Items of any type one envelope may hold. Relay bounds an envelope by its bytes and its sessions, but
# each parsed item costs a dict and a bytes object (300,000 one-byte items took 111 MB), so the count is
# bounded too, far above what SDKs send: an event with a few attachments, or up to 100 sessions.
MAX_ENVELOPE_ITEMS = 1000

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
    """Parse newline-delimited envelope bytes (items with or without `length`); an envelope of more than
    MAX_ENVELOPE_ITEMS items is refused (413) as soon as its next item begins, before it is parsed."""
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
        if len(envelope.items) == MAX_ENVELOPE_ITEMS:
            raise PayloadTooLarge(f"envelope exceeded size limits: more than {MAX_ENVELOPE_ITEMS} items")
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


_PLAIN_EVENT_ID = re.compile(r"[0-9a-f]{32}")


def normalize_event_id(value: Any) -> str | None:
    """32 lower-case hex characters, from either the plain or the dashed UUID form."""
    if not isinstance(value, str):
        return None
    if _PLAIN_EVENT_ID.fullmatch(value):
        return value
    try:
        return uuid.UUID(value.strip()).hex
    except ValueError:
        return None


# --- one request -----------------------------------------------------------------------------

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
        elif item.type == "check_in" and check_in_of(item) is not None:
            check_ins += 1
            stored_items += 1
        # client_report, transaction and unknown types are accepted and not stored; so are the check-ins
        # Relay drops.
    return OpenedRequest(auth, response_id, data, stored_items > 0, check_ins)


def check_in_of(item: EnvelopeItem) -> CheckInItem | None:
    """The item's check-in, or None when Relay would drop it (the envelope is accepted all the same)."""
    try:
        return read_check_in(load_json_object(item.payload, "check_in item"))
    except (ProtocolError, InvalidCheckIn):
        return None


def decode_body(endpoint: str, body: bytes, content_encoding: str | None) -> bytes:
    """The body as sent with its encodings undone (Content-Encoding, and raven's base64 for the store)."""
    data = decode_content(body, content_encoding, body_limit(endpoint))
    return decode_store_body(data, MAX_STORE_BODY) if endpoint == STORE else data


def _required_key(auth: AuthInfo) -> AuthInfo:
    if not auth.key:
        raise ProtocolError(PARSE_FAILURE)
    return auth

"""Sentry wire protocol: authentication, body decoding and envelope/store parsing.

Pure functions with no database access. Every failure is a `ProtocolError` carrying the
HTTP status the collector answers with (400 for malformed input, 413 for oversized bodies).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson

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


# --- authentication -------------------------------------------------------------------------

_AUTH_SCHEME = re.compile(r"^\s*sentry\s+", re.IGNORECASE)


def parse_auth_header(value: str) -> dict[str, str]:
    """`Sentry k=v, k=v` (spaces optional, Java sends none) into a dict."""
    match = _AUTH_SCHEME.match(value)
    if not match:
        return {}
    pairs: dict[str, str] = {}
    for part in value[match.end():].split(","):
        name, sep, val = part.strip().partition("=")
        if sep:
            pairs[name.strip()] = val.strip()
    return pairs


def key_from_dsn(dsn: Any) -> str | None:
    """The public key (user name) of a full DSN string, as sent in an envelope header."""
    if not isinstance(dsn, str) or "@" not in dsn:
        return None
    try:
        username = urlsplit(dsn).username
    except ValueError:
        return None
    return username or None


@dataclass(frozen=True)
class AuthInfo:
    """Where the public key came from; `key` is None when no source carried one."""

    key: str | None
    source: str | None


def extract_public_key(headers: dict[str, str], query: dict[str, str], envelope_dsn: Any = None) -> AuthInfo:
    """Find the public key: query `sentry_key`, `X-Sentry-Auth`, `Authorization: Sentry`, envelope `dsn`.

    `headers` must have lower-case names. The query parameter wins, as in GitLab's collector.
    """
    if "sentry_key" in query:
        return AuthInfo(query["sentry_key"].strip(), "query")
    for header in ("x-sentry-auth", "authorization"):
        value = headers.get(header)
        if value:
            key = parse_auth_header(value).get("sentry_key")
            if key:
                return AuthInfo(key, header)
    key = key_from_dsn(envelope_dsn)
    if key:
        return AuthInfo(key, "dsn")
    return AuthInfo(None, None)


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


def load_json_object(data: bytes, what: str) -> dict[str, Any]:
    """Parse a JSON object; anything else (bad UTF-8, nesting bombs, arrays) is a ProtocolError."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        # orjson is strict; the standard parser also takes what Python SDKs may emit (NaN,
        # Infinity) and UTF-16/32 bodies.
        try:
            value = json.loads(data)
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

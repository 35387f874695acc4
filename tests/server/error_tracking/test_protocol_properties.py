"""Property tests: no input makes the parsers raise anything but ProtocolError."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import zlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outpost_server.error_tracking.digest.decode import parse_ingest_request
from outpost_server.error_tracking.digest.normalize import normalize_event
from outpost_server.error_tracking.digest.session_items import normalize_session, normalize_session_aggregates
from outpost_server.error_tracking.ingest.protocol import ProtocolError

from .sentry_captures import CAPTURES

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.timezone.utc)
AUTH = {"x-sentry-auth": "Sentry sentry_key=abc"}

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=25,
)
# Values placed where the SDKs put them, so the normaliser's branches are actually reached.
event_keys = st.sampled_from(
    [
        "event_id", "timestamp", "level", "platform", "message", "logentry", "exception", "fingerprint",
        "user", "release", "environment", "culprit", "transaction", "request", "sentry.interfaces.Message",
    ]
)
frames = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "module": json_values, "function": json_values, "filename": json_values, "in_app": json_values,
        },
    ),
    max_size=4,
)
exceptions = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "type": json_values, "value": json_values, "mechanism": json_values,
            "stacktrace": st.fixed_dictionaries({"frames": frames}) | json_values,
        },
    ),
    max_size=3,
)
events = st.dictionaries(event_keys, json_values, max_size=8) | st.fixed_dictionaries(
    {"exception": exceptions | st.fixed_dictionaries({"values": exceptions})},
    optional={
        "fingerprint": st.lists(st.sampled_from(["{{ default }}", "x"]) | json_values, max_size=3),
        "platform": st.sampled_from(["python", "node", "native", "go"]),
        "logentry": st.fixed_dictionaries({"message": json_values, "params": json_values}),
    },
)


def call(endpoint: str, body: bytes, headers: dict[str, str]) -> None:
    try:
        parse_ingest_request(endpoint, headers=headers, query={}, body=body, received_at=NOW, client_ip="127.0.0.1")
    except ProtocolError as error:
        assert error.status in (400, 413)
        assert error.reason


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    endpoint=st.sampled_from(["store", "envelope"]),
    body=st.binary(max_size=300),
    encoding=st.sampled_from([None, "", "gzip", "deflate", "identity", "br", "UTF-8"]),
)
def test_arbitrary_bytes(endpoint, body, encoding):
    headers = dict(AUTH)
    if encoding is not None:
        headers["content-encoding"] = encoding
    call(endpoint, body, headers)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    endpoint=st.sampled_from(["store", "envelope"]),
    capture_index=st.integers(0, len(CAPTURES) - 1),
    cut=st.integers(0, 5000),
    flip=st.integers(0, 5000),
)
def test_truncated_and_corrupted_real_requests(endpoint, capture_index, cut, flip):
    capture = CAPTURES[capture_index]
    data = bytearray(capture.decoded)
    if data:
        data[flip % len(data)] ^= 0x55
    call(endpoint, bytes(data[: cut % (len(data) + 1)]), AUTH)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(event=events, compress=st.sampled_from([None, "gzip", "deflate"]))
def test_structured_store_events(event, compress):
    body = json.dumps(event).encode()
    headers = dict(AUTH)
    if compress == "gzip":
        body, headers["content-encoding"] = gzip.compress(body), "gzip"
    elif compress == "deflate":
        body, headers["content-encoding"] = zlib.compress(body), "deflate"
    call("store", body, headers)


item_headers = st.fixed_dictionaries(
    {"type": st.sampled_from(["event", "session", "sessions", "client_report", "transaction", "attachment", "other"])},
    optional={"length": st.integers(-2, 400) | json_values},
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    header=st.dictionaries(st.sampled_from(["event_id", "dsn", "sent_at"]), json_values, max_size=3),
    items=st.lists(st.tuples(item_headers, events | json_values), max_size=4),
    trailing=st.booleans(),
)
def test_structured_envelopes(header, items, trailing):
    lines = [json.dumps(header)]
    for item_header, payload in items:
        lines += [json.dumps(item_header), json.dumps(payload)]
    body = "\n".join(lines).encode() + (b"\n" if trailing else b"")
    call("envelope", body, AUTH)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(payload=st.dictionaries(st.text(max_size=10), json_values, max_size=6), event=events)
def test_normalisers_are_total(payload, event):
    normalize_event(event, received_at=NOW)
    normalize_event(payload, received_at=NOW)
    normalize_session(payload, received_at=NOW)
    normalize_session_aggregates(payload, received_at=NOW)
    normalize_session({"sid": "s", "attrs": {"release": "r"}, **payload}, received_at=NOW)
    normalize_session_aggregates({"attrs": {"release": "r"}, "aggregates": [payload]}, received_at=NOW)

"""The Sentry wire protocol layer: authentication, decoding and envelope/store parsing."""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import zlib

import pytest

from outpost_server.error_tracking.digest.decode import parse_ingest_request
from outpost_server.error_tracking.ingest.dsn import extract_public_key, parse_auth_header
from outpost_server.error_tracking.ingest.protocol import (
    MAX_STORE_BODY,
    PARSE_FAILURE,
    PayloadTooLarge,
    ProtocolError,
    decode_content,
    decode_store_body,
    parse_envelope,
)

from .sentry_captures import CAPTURES

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.timezone.utc)
KEY = "glet_0123456789abcdef0123456789abcdef"
AUTH = {"x-sentry-auth": f"Sentry sentry_key={KEY}, sentry_version=7, sentry_client=test/1.0"}


def parse(endpoint: str, body: bytes, headers: dict[str, str] | None = None, query: dict[str, str] | None = None):
    return parse_ingest_request(
        endpoint,
        headers=AUTH if headers is None else headers,
        query=query or {},
        body=body,
        received_at=NOW,
    )


def envelope(*items: tuple[dict, bytes], header: dict | None = None, trailing_newline: bool = True) -> bytes:
    lines = [json.dumps(header if header is not None else {}).encode()]
    for item_header, payload in items:
        lines.append(json.dumps(item_header).encode())
        lines.append(payload)
    return b"\n".join(lines) + (b"\n" if trailing_newline else b"")


EVENT = {"event_id": "a" * 32, "message": "hello", "level": "info"}


# --- every recorded request ---------------------------------------------------------------


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda capture: capture.name)
def test_every_capture_parses_with_its_original_headers(capture):
    request = parse_ingest_request(
        capture.endpoint,
        headers=capture.lower_headers,
        query=capture.query,
        body=capture.body,
        received_at=NOW,
    )
    assert request.auth.key == "PUBLICKEY"
    expected_events = capture.events()
    assert [event.event_id for event in request.events] == [event["event_id"] for event in expected_events]
    assert request.response_id == (expected_events[0]["event_id"] if expected_events else None)
    sessions = [payload for header, payload in capture.decoded_items() if header["type"] == "session"]
    assert [session.sid for session in request.sessions] == [session["sid"] for session in sessions]


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda capture: capture.name)
def test_every_capture_decodes_to_the_recorded_text(capture):
    data = decode_content(capture.body, capture.lower_headers.get("content-encoding"), 20 * 1024 * 1024)
    if capture.endpoint == "store":
        data = decode_store_body(data)
    assert data == capture.decoded


EXPECTED_TITLES = {
    "python-sentry-sdk-1.21.0/2-default-no-tracing/0001-post-store": (
        "KeyError: 'missing'", "__main__ in level3", "error"),
    "python-sentry-sdk-1.21.0/2-default-no-tracing/0002-post-store": (
        "Something happened: order 42 failed", None, "warning"),
    "python-sentry-sdk-1.21.0/4-chained-and-logging/0001-post-envelope": (
        "RuntimeError: config could not be loaded",
        "__main__ in load_config",
        "error",
    ),
    "python-sentry-sdk-1.21.0/4-chained-and-logging/0002-post-envelope": (
        "Payment pay_123 failed for user 42", None, "error"),
    "python-raven-6.10.0/0001-post-store": ("KeyError: 'missing'", "__main__ in level3", "error"),
    "node-raven-2.6.4/0002-post-store": (
        "TypeError: Cannot read properties of undefined (reading 'toFixed')",
        "run at level3",
        "error",
    ),
    "node-sentry-node-7.38.0/1-handled/0004-post-envelope": (
        "TypeError: Cannot read properties of undefined (reading 'toFixed')",
        "level3(run)",
        "error",
    ),
    "node-sentry-node-7.38.0/2-unhandled-crash/0002-post-envelope": (
        "SyntaxError: Expected property name or '}' in JSON at position 1",
        "parse(run_unhandled)",
        "fatal",
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_TITLES))
def test_titles_culprits_and_levels_of_recorded_events(name):
    capture = next(capture for capture in CAPTURES if capture.name == name)
    request = parse_ingest_request(
        capture.endpoint, headers=capture.lower_headers, query=capture.query, body=capture.body, received_at=NOW
    )
    (event,) = request.events
    assert (event.title, event.culprit, event.level) == EXPECTED_TITLES[name]


def test_same_exception_from_raven_and_sentry_sdk_groups_together():
    def fingerprint(name):
        capture = next(capture for capture in CAPTURES if capture.name == name)
        request = parse_ingest_request(
            capture.endpoint, headers=capture.lower_headers, query=capture.query, body=capture.body, received_at=NOW
        )
        return request.events[0].fingerprint

    store = fingerprint("python-sentry-sdk-1.21.0/2-default-no-tracing/0001-post-store")
    assert store == fingerprint("python-sentry-sdk-1.21.0/1-tracing-enabled-envelope/0001-post-envelope")
    # The SDK's own fingerprint ["custom-group", "{{ default }}"] makes a separate group.
    assert fingerprint("python-sentry-sdk-1.21.0/2-default-no-tracing/0004-post-store") != fingerprint(
        "python-sentry-sdk-1.21.0/1-tracing-enabled-envelope/0001-post-envelope"
    )


# --- authentication -------------------------------------------------------------------------


def test_auth_header_with_and_without_spaces():
    assert parse_auth_header("Sentry sentry_key=abc, sentry_version=7")["sentry_key"] == "abc"
    header = "Sentry sentry_version=7,sentry_client=sentry.java/6.18.1,sentry_key=abc"
    assert parse_auth_header(header)["sentry_key"] == "abc"
    assert parse_auth_header("sentry sentry_key=abc")["sentry_key"] == "abc"
    assert parse_auth_header("Bearer abc") == {}


@pytest.mark.parametrize(
    ("headers", "query", "dsn", "source"),
    [
        ({"x-sentry-auth": f"Sentry sentry_key={KEY}, sentry_secret=s"}, {}, None, "x-sentry-auth"),
        ({"authorization": f"Sentry sentry_key={KEY}"}, {}, None, "authorization"),
        ({}, {"sentry_key": KEY, "sentry_version": "7"}, None, "query"),
        ({}, {}, f"http://{KEY}@example.com/api/v4/error_tracking/collector/1", "dsn"),
        ({"x-sentry-auth": "Sentry sentry_key=other"}, {"sentry_key": KEY}, None, "query"),
    ],
)
def test_key_sources(headers, query, dsn, source):
    auth = extract_public_key(headers, query, dsn)
    assert auth.key == KEY
    assert auth.source == source


def test_envelope_authenticated_by_its_dsn_header():
    body = envelope(({"type": "event"}, json.dumps(EVENT).encode()), header={"dsn": f"https://{KEY}@h/api/v4/x/7"})
    assert parse("envelope", body, headers={}).auth.key == KEY


@pytest.mark.parametrize("endpoint", ["store", "envelope"])
def test_missing_key_is_the_gitlab_parse_failure(endpoint):
    event = json.dumps(EVENT).encode()
    body = event if endpoint == "store" else envelope(({"type": "event"}, event))
    with pytest.raises(ProtocolError) as raised:
        parse(endpoint, body, headers={"x-sentry-auth": "Sentry sentry_version=7"})
    assert (raised.value.status, raised.value.reason) == (400, PARSE_FAILURE)
    with pytest.raises(ProtocolError):
        parse(endpoint, body, headers={}, query={"sentry_key": ""})


# --- body decoding --------------------------------------------------------------------------


RAW = json.dumps(EVENT).encode()


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip.compress(RAW, mtime=0)),
        ("GZIP", gzip.compress(RAW, mtime=0)),
        ("deflate", zlib.compress(RAW)),
        ("deflate", raw_deflate(RAW)),
        ("identity", RAW),
        ("", RAW),
        ("UTF-8", RAW),
        (None, RAW),
    ],
)
def test_content_encodings(encoding, body):
    headers = dict(AUTH)
    if encoding is not None:
        headers["content-encoding"] = encoding
    (event,) = parse("store", body, headers=headers).events
    assert event.title == "hello"


def test_unknown_or_corrupt_encoding_is_a_400():
    with pytest.raises(ProtocolError) as raised:
        parse("store", RAW, headers={**AUTH, "content-encoding": "compress"})
    assert raised.value.status == 400
    with pytest.raises(ProtocolError) as raised:
        parse("store", gzip.compress(RAW)[:-10], headers={**AUTH, "content-encoding": "gzip"})
    assert raised.value.status == 400


def test_decompression_bomb_is_refused_without_inflating_it():
    bomb = gzip.compress(b"{" + b" " * (50 * 1024 * 1024))
    assert len(bomb) < MAX_STORE_BODY
    with pytest.raises(PayloadTooLarge) as raised:
        parse("envelope", bomb, headers={**AUTH, "content-encoding": "gzip"})
    assert raised.value.status == 413
    with pytest.raises(PayloadTooLarge):
        parse("store", base64.b64encode(zlib.compress(b"{" + b" " * (5 * 1024 * 1024))), headers=AUTH)


def test_oversized_store_body_is_413():
    with pytest.raises(PayloadTooLarge):
        parse("store", b"{" + b" " * MAX_STORE_BODY + b"}")


def test_raven_store_bodies():
    assert parse("store", base64.b64encode(zlib.compress(RAW))).events[0].title == "hello"
    assert parse("store", base64.b64encode(RAW)).events[0].title == "hello"
    with pytest.raises(ProtocolError):
        parse("store", b"not json and not base64 !!!")


@pytest.mark.parametrize("body", [b"", b"   ", b"[1,2]", b'"********"', b"{bad json", b"\xff\xfe{}"])
def test_malformed_store_bodies_are_400(body):
    with pytest.raises(ProtocolError) as raised:
        parse("store", body)
    assert raised.value.status == 400


def test_deeply_nested_json_is_400_not_a_crash():
    with pytest.raises(ProtocolError):
        parse("store", b'{"a":' * 100000 + b"1" + b"}" * 100000)


# --- envelopes ------------------------------------------------------------------------------


def test_items_with_and_without_length_and_no_trailing_newline():
    event = json.dumps(EVENT).encode()
    session = json.dumps({"sid": "s1", "status": "ok", "started": "2026-11-22T02:00:00Z",
                          "attrs": {"release": "r1"}}).encode()
    body = envelope(
        ({"type": "event", "length": len(event)}, event),
        ({"type": "session"}, session),
        header={"event_id": "b" * 32},
        trailing_newline=False,
    )
    request = parse("envelope", body)
    assert request.response_id == "b" * 32  # the envelope header wins
    assert [event.event_id for event in request.events] == ["b" * 32]
    assert [(session.sid, session.release, session.environment) for session in request.sessions] == [
        ("s1", "r1", "production")
    ]


def test_length_prefixed_payload_may_contain_newlines():
    event = json.dumps(EVENT, indent=2).encode()
    assert b"\n" in event
    body = envelope(({"type": "event", "length": len(event)}, event), ({"type": "client_report"}, b"{}"))
    assert parse("envelope", body).events[0].title == "hello"


def test_unknown_and_ignored_items_are_skipped():
    body = envelope(
        ({"type": "attachment", "length": 3, "filename": "a.txt"}, b"abc"),
        ({"type": "transaction"}, b'{"type":"transaction"}'),
        ({"type": "client_report"}, b'{"discarded_events":[]}'),
        ({"type": "something_new"}, b"whatever"),
    )
    request = parse("envelope", body)
    assert (request.events, request.sessions, request.response_id) == ([], [], None)


def test_header_only_and_blank_line_envelopes():
    assert parse("envelope", b'{"event_id":"' + b"c" * 32 + b'"}').events == []
    event = json.dumps(EVENT).encode()
    assert len(parse("envelope", b"{}\n\n" + b'{"type":"event"}\n' + event + b"\n\n").events) == 1


def test_sessions_aggregates_item():
    payload = {
        "attrs": {"release": "r2", "environment": "staging"},
        "aggregates": [{"started": "2026-11-22T02:00:00Z", "exited": 5, "errored": 2, "crashed": 1}],
    }
    request = parse("envelope", envelope(({"type": "sessions"}, json.dumps(payload).encode())))
    (bucket,) = request.session_buckets
    counts = (bucket.release, bucket.environment, bucket.exited, bucket.errored, bucket.crashed)
    assert counts == ("r2", "staging", 5, 2, 1)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json\n",
        b"[]\n",
        b'{}\n{"type":"event","length":100}\n{}',
        b'{}\n{"type":"event","length":2}\n{}xx',
        b'{}\n{"type":"event","length":-1}\n{}',
        b'{}\n{"type":"event","length":"2"}\n{}',
        b'{}\n{"length":2}\n{}',
        b"{}\nnot a header\n{}",
        b'{}\n{"type":"event"}\nnot json',
        b'{}\n{"type":"event"}\n[]',
        b'{}\n{"type":"event"}\n{}\n{"type":"event"}\n{}',
        b'{}\n{"type":"session"}\n[1]',
    ],
)
def test_malformed_envelopes_are_400(body):
    with pytest.raises(ProtocolError) as raised:
        parse("envelope", body)
    assert raised.value.status == 400
    assert raised.value.reason


def test_oversized_event_item_is_refused():
    big = json.dumps({"message": "x", "extra": {"blob": "y" * (1024 * 1024)}}).encode()
    with pytest.raises(ProtocolError) as raised:
        parse("envelope", envelope(({"type": "event", "length": len(big)}, big)))
    assert "size limits" in raised.value.reason


def test_parse_envelope_keeps_carriage_return_in_lengthless_payload():
    parsed = parse_envelope(b'{}\n{"type":"x"}\nab\r\n')
    assert [(item.type, item.payload) for item in parsed.items] == [("x", b"ab\r")]

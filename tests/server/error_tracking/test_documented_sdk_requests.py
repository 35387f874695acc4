"""The SDKs we cannot run here (Go, Java, PHP, Ruby, Rust), as their documented requests.

Each request is built the way the protocol reference's per-SDK wire matrix describes that SDK's
transport: endpoint, headers, encoding, envelope framing and payload quirks.
"""

from __future__ import annotations

import gzip
import json
import time
import uuid

import httpx


def framed(header: dict, items: list[tuple[dict, dict | bytes]], *, with_length: bool,
           trailing_newline: bool = True) -> bytes:
    lines = [json.dumps(header).encode()]
    for item_header, payload in items:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        if with_length:
            item_header = {**item_header, "length": len(body)}
        lines += [json.dumps(item_header).encode(), body]
    return b"\n".join(lines) + (b"\n" if trailing_newline else b"")


def frame(module: str, function: str, filename: str, lineno: int, in_app: bool = True) -> dict:
    return {"module": module, "function": function, "filename": filename, "abs_path": f"/app/{filename}",
            "lineno": lineno, "in_app": in_app}


def test_go_store_with_a_bare_exception_list_and_rfc3339_offset(collector: httpx.Client, tracked):
    event_id = uuid.uuid4().hex
    event = {
        "event_id": event_id, "platform": "go", "level": "error", "message": "",
        "timestamp": "2026-11-22T07:30:00.123456789+01:00",
        "exception": [
            {"type": "*fs.PathError", "value": "open /etc/shop.yaml: no such file",
             "stacktrace": {"frames": [frame("main", "loadConfig", "config.go", 12)]}},
            {"type": "*errors.errorString", "value": "config unavailable",
             "stacktrace": {"frames": [frame("main", "main", "main.go", 30), frame("main", "start", "main.go", 18)]}},
        ],
        "user": {}, "breadcrumbs": [],
        "sdk": {"name": "sentry.go", "version": "0.20.0", "integrations": [], "packages": []},
    }
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event), headers={
        "Content-Type": "application/json", "User-Agent": "sentry-go/0.20.0",
        "X-Sentry-Auth": f"Sentry sentry_version=7, sentry_timestamp={int(time.time())}, "
                         f"sentry_client=sentry.go/0.20.0, sentry_key={tracked.public_key}"})
    assert (response.status_code, response.json()) == (200, {"id": event_id})
    # The raised error is the last entry of the list, not its cause.
    error = tracked.error_titled("*errors.errorString: config unavailable")
    assert (error.platform, error.level, error.count) == ("go", "error", 1)


def test_go_message_event_keeps_the_sdks_default_info_level(collector: httpx.Client, tracked):
    # sentry-go fills in "info" itself when the caller set no level.
    event = {"event_id": uuid.uuid4().hex, "platform": "go", "level": "info", "message": "cache warmed in 3s",
             "timestamp": "2026-11-22T06:30:00Z", "user": {}}
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event), headers={
        "Content-Type": "application/json",
        "X-Sentry-Auth": f"Sentry sentry_version=7, sentry_client=sentry.go/0.20.0, sentry_key={tracked.public_key}"})
    assert response.status_code == 200
    error = tracked.error_titled("cache warmed in 3s")
    assert error.level == "info"


def test_java_gzip_envelope_with_event_and_session(collector: httpx.Client, tracked):
    event_id = uuid.uuid4().hex
    event = {
        "event_id": event_id, "platform": "java", "level": "error", "timestamp": "2026-11-22T06:31:00.250Z",
        "release": "shop-api@4.1.0", "environment": "production",
        "message": {"formatted": "Checkout failed"},
        "exception": {"values": [{"type": "IllegalStateException", "value": "cart is empty", "module": "java.lang",
                                  "stacktrace": {"frames": [frame("com.shop.Checkout", "pay", "Checkout.java", 88)]}}]},
        "threads": {"values": [{"id": 1, "name": "main", "current": True}]},
        "user": {"id": "u-17"},
    }
    session = {"sid": str(uuid.uuid4()), "did": "u-17", "init": True, "started": "2026-11-22T06:30:00.000Z",
               "timestamp": "2026-11-22T06:31:00.300Z", "status": "ok", "errors": 1, "seq": 1,
               "attrs": {"release": "shop-api@4.1.0", "environment": "production"}}
    body = framed({"event_id": event_id, "sdk": {"name": "sentry.java", "version": "6.18.1"}},
                  [({"content_type": "application/json", "type": "event"}, event),
                   ({"content_type": "application/json", "type": "session"}, session)], with_length=True)
    response = collector.post(tracked.collector_path("envelope"), content=gzip.compress(body), headers={
        "Content-Type": "application/x-sentry-envelope", "Content-Encoding": "gzip", "Accept": "application/json",
        "User-Agent": "sentry.java/6.18.1",
        "X-Sentry-Auth": f"Sentry sentry_version=7,sentry_client=sentry.java/6.18.1,sentry_key={tracked.public_key}"})
    assert response.status_code == 200  # the Java SDK accepts nothing else as success
    assert response.json() == {"id": event_id}
    error = tracked.error_titled("IllegalStateException: cart is empty")
    assert (error.platform, error.users_count, error.last_release) == ("java", 1, "shop-api@4.1.0")
    (health,) = tracked.release_health()
    assert (health.release, health.environment, health.sessions) == ("shop-api@4.1.0", "production", 1)


def test_php_gzip_store_groups_log_messages_by_template(collector: httpx.Client, tracked):
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip", "User-Agent": "sentry.php/3.18.0",
               "X-Sentry-Auth": f"Sentry sentry_version=7, sentry_client=sentry.php/3.18.0, "
                                f"sentry_key={tracked.public_key}"}
    for name in ("bob", "alice"):
        event = {"event_id": uuid.uuid4().hex, "platform": "php", "level": "warning", "timestamp": time.time(),
                 "message": {"message": "Login failed for %s", "params": [name],
                             "formatted": f"Login failed for {name}"},
                 "breadcrumbs": {"values": []}}
        response = collector.post(tracked.collector_path("store"), content=gzip.compress(json.dumps(event).encode()),
                                  headers=headers)
        assert response.status_code == 200, response.text
    (error,) = tracked.errors()
    assert (error.count, error.level, error.platform) == (2, "warning", "php")


def test_ruby_envelope_without_lengths_with_client_report_and_session_aggregates(collector: httpx.Client, tracked):
    event_id = uuid.uuid4().hex
    event = {"event_id": event_id, "platform": "ruby", "level": "error", "timestamp": "2026-11-22T06:32:05Z",
             "message": "", "release": "storefront@2.0.0", "environment": "production",
             "exception": {"values": [{"type": "ActiveRecord::RecordNotFound", "value": "Couldn't find Order",
                                       "module": "ActiveRecord",
                                       "stacktrace": {"frames": [frame("OrdersController", "show",
                                                                       "app/controllers/orders_controller.rb", 9)]}}]},
             "breadcrumbs": {"values": []}}
    client_report = {"timestamp": time.time(), "discarded_events": [{"reason": "queue_overflow", "category": "error",
                                                                      "quantity": 1}]}
    aggregates = {"attrs": {"release": "storefront@2.0.0", "environment": "production"},
                  "aggregates": [{"started": "2026-11-22T06:00:00Z", "exited": 3, "errored": 1}]}
    dsn = tracked.dsn
    body = framed({"event_id": event_id, "dsn": dsn, "sent_at": "2026-11-22T06:32:05Z"},
                  [({"type": "event", "content_type": "application/json"}, event),
                   ({"type": "client_report"}, client_report),
                   ({"type": "sessions"}, aggregates)], with_length=False)
    response = collector.post(tracked.collector_path("envelope"), content=body, headers={
        "Content-Type": "application/x-sentry-envelope", "Content-Encoding": "", "User-Agent": "sentry-ruby/5.9.0",
        "X-Sentry-Auth": f"Sentry sentry_version=7, sentry_client=sentry-ruby/5.9.0, "
                         f"sentry_timestamp={int(time.time())}, sentry_key={tracked.public_key}"})
    assert (response.status_code, response.json()) == (200, {"id": event_id})
    error = tracked.error_titled("ActiveRecord::RecordNotFound: Couldn't find Order")
    assert (error.platform, error.last_environment) == ("ruby", "production")
    (health,) = tracked.release_health()
    assert (health.release, health.sessions, health.errored) == ("storefront@2.0.0", 4, 1)


def test_rust_envelope_with_dashed_event_id_and_no_content_headers(collector: httpx.Client, tracked):
    event_id = uuid.uuid4()
    event = {"event_id": str(event_id), "platform": "native", "level": "fatal", "timestamp": time.time(),
             "release": "indexer@0.9.1", "environment": "production",
             "exception": {"values": [{"type": "ParseError", "value": "unexpected end of input",
                                       "module": "indexer::parse",
                                       "stacktrace": {"frames": [frame("indexer::parse", "read_header",
                                                                       "src/parse.rs", 41)]}}]}}
    session = {"sid": str(uuid.uuid4()), "did": "host-7", "init": True, "started": "2026-11-22T06:33:00Z",
               "status": "crashed", "errors": 1, "attrs": {"release": "indexer@0.9.1", "environment": "production"}}
    body = framed({"event_id": str(event_id)},
                  [({"type": "event"}, event), ({"type": "session"}, session)], with_length=True,
                  trailing_newline=False)
    # reqwest's transport sends the auth header and nothing else of note.
    request = collector.build_request("POST", tracked.collector_path("envelope"), content=body, headers={
        "X-Sentry-Auth": f"Sentry sentry_version=7, sentry_timestamp={time.time()}, "
                         f"sentry_client=sentry.rust/0.31.0, sentry_key={tracked.public_key}"})
    request.headers.pop("Content-Type", None)
    response = collector.send(request)
    assert response.status_code == 200, response.text
    assert response.json()["id"].replace("-", "") == event_id.hex
    error = tracked.error_titled("ParseError: unexpected end of input")
    assert error.level == "fatal"
    (health,) = tracked.release_health()
    assert (health.release, health.sessions, health.crashed) == ("indexer@0.9.1", 1, 1)

"""The collector endpoints over real HTTP: every recorded SDK request, auth, limits and refusals."""

from __future__ import annotations

import base64
import gzip
import json
import uuid
import zlib

import httpx
import pytest

from outpost_server.error_tracking.ingest.protocol import MAX_ENVELOPE_ITEMS

from .sentry_captures import CAPTURES, Capture

HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding"}


def replay(client: httpx.Client, tracked, capture: Capture) -> httpx.Response:
    """Send a recorded request with its original headers and raw body, re-addressed to `tracked`."""
    path = capture.path.replace("/api/42/", f"/api/{tracked.id}/")
    query = {name: value.replace("PUBLICKEY", tracked.public_key) for name, value in capture.query.items()}
    headers = [(name, value.replace("PUBLICKEY", tracked.public_key)) for name, value in capture.headers
               if name.lower() not in HOP_HEADERS]
    if "Transfer-Encoding" in dict(capture.headers):
        # Node sends chunked bodies: stream the body so httpx does the same.
        return client.post(path, params=query, headers=headers, content=iter([capture.body[:100], capture.body[100:]]))
    return client.post(path, params=query, headers=headers, content=capture.body)


def event_body(**fields) -> dict:
    event = {"event_id": uuid.uuid4().hex, "platform": "python", "level": "error",
             "exception": {"values": [{"type": "KeyError", "value": "'x'", "stacktrace": {"frames": [
                 {"module": "shop.cart", "function": "total", "filename": "shop/cart.py", "lineno": 3,
                  "in_app": True}]}}]}}
    event.update(fields)
    return event


def auth_headers(key: str) -> dict[str, str]:
    return {"X-Sentry-Auth": f"Sentry sentry_key={key}, sentry_version=7, sentry_client=test/1.0"}


def envelope(event: dict, *, header: dict | None = None) -> bytes:
    payload = json.dumps(event).encode()
    head = header if header is not None else {"event_id": event["event_id"]}
    return b"\n".join([json.dumps(head).encode(), json.dumps({"type": "event", "length": len(payload)}).encode(),
                       payload]) + b"\n"


# --- every recorded request -----------------------------------------------------------------


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda capture: capture.name)
def test_each_recorded_request_is_accepted_as_sentry_answers(collector, tracked, capture):
    response = replay(collector, tracked, capture)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    events = capture.events()
    assert response.json() == ({"id": events[0]["event_id"]} if events else {})


def test_all_recorded_requests_group_into_the_expected_errors(collector, tracked):
    for capture in CAPTURES:
        assert replay(collector, tracked, capture).status_code == 200
    by_title = {error.title: error for error in tracked.errors()}
    key_error = by_title["KeyError: 'missing'"]
    # Python SDK store + envelope, and raven-python: the same raised exception and in-app frames.
    assert (key_error.count, key_error.culprit, key_error.level, key_error.platform) == (
        3, "__main__ in level3", "error", "python")
    assert key_error.users_count == 1
    assert key_error.last_release == "myapp@1.2.3"
    # The SDK's own fingerprint ["custom-group", "{{ default }}"] is a group of its own... twice.
    assert by_title["ZeroDivisionError: division by zero"].count == 2
    chained = by_title["RuntimeError: config could not be loaded"]
    assert (chained.exception_type, chained.culprit) == ("RuntimeError", "__main__ in load_config")
    logged = by_title["Payment pay_123 failed for user 42"]
    assert (logged.kind, logged.level) == ("default", "error")
    crash = by_title["SyntaxError: Expected property name or '}' in JSON at position 1"]
    assert (crash.level, crash.culprit, crash.platform) == ("fatal", "parse(run_unhandled)", "node")
    # The same message from five SDK requests is one error.
    assert by_title["Something happened: order 42 failed"].count == 5
    assert sum(error.count for error in by_title.values()) == sum(len(capture.events()) for capture in CAPTURES)
    payload = tracked.latest_payload(chained)
    assert [value["type"] for value in payload["exception"]["values"]] == ["FileNotFoundError", "RuntimeError"]
    health = {(row.release, row.environment): row for row in tracked.release_health()}
    production = health[("myapp@1.2.3", "production")]
    staging = health[("myapp@1.2.3", "staging")]
    # Node's handled run: one session (start, then an update with an error); Python: two exited sessions.
    assert (production.sessions, production.crashed, production.errored) == (3, 0, 3)
    assert (staging.sessions, staging.crashed) == (2, 2)
    assert staging.crash_free_rate == 0.0


def test_replaying_the_same_event_stores_it_once(collector, tracked):
    capture = next(capture for capture in CAPTURES if capture.name.endswith("2-default-no-tracing/0001-post-store"))
    for _ in range(3):
        assert replay(collector, tracked, capture).status_code == 200
    (error,) = tracked.errors()
    assert error.count == 1


# --- paths, auth and encodings --------------------------------------------------------------


@pytest.mark.parametrize("slash", [True, False])
@pytest.mark.parametrize("endpoint", ["store", "envelope"])
def test_with_and_without_trailing_slash(collector, tracked, endpoint, slash):
    event = event_body()
    body = json.dumps(event).encode() if endpoint == "store" else envelope(event)
    response = collector.post(tracked.collector_path(endpoint, slash), content=body,
                              headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (200, {"id": event["event_id"]})


@pytest.mark.parametrize("where", ["authorization", "query", "dsn", "java-no-spaces"])
def test_every_key_location(collector, tracked, where):
    event = event_body()
    headers, params, header = {}, {}, None
    if where == "authorization":
        headers["Authorization"] = f"Sentry sentry_key={tracked.public_key}, sentry_version=7"
    elif where == "query":
        params = {"sentry_key": tracked.public_key, "sentry_version": "7"}
    elif where == "dsn":
        header = {"event_id": event["event_id"], "dsn": tracked.dsn}
    else:
        headers["X-Sentry-Auth"] = ("Sentry sentry_version=7,sentry_client=sentry.java/6.18.1,"
                                    f"sentry_key={tracked.public_key}")
    response = collector.post(tracked.collector_path("envelope"), content=envelope(event, header=header),
                              headers=headers, params=params)
    assert response.status_code == 200, response.text
    assert tracked.errors()[0].count == 1


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", raw_deflate),
        ("", bytes),
        ("identity", bytes),
        ("UTF-8", bytes),
    ],
    ids=["gzip", "deflate-zlib", "deflate-raw", "empty", "identity", "utf-8"],
)
def test_content_encodings(collector, tracked, encoding, encode):
    event = event_body()
    body = encode(json.dumps(event).encode())
    response = collector.post(tracked.collector_path("store"), content=body,
                              headers={**auth_headers(tracked.public_key), "Content-Encoding": encoding})
    assert response.status_code == 200, response.text


def test_raven_style_base64_zlib_store_body(collector, tracked):
    event = event_body()
    body = base64.b64encode(zlib.compress(json.dumps(event).encode()))
    response = collector.post(tracked.collector_path("store"), content=body,
                              headers={**auth_headers(tracked.public_key), "Content-Type": "application/octet-stream"})
    assert (response.status_code, response.json()) == (200, {"id": event["event_id"]})


def test_an_event_with_unpaired_surrogate_escapes_is_kept_with_replacement_characters(collector, tracked):
    # Python's json.dumps writes an unpaired surrogate as "\\ud800"; no database can store it as text.
    event = event_body(exception={"values": [{"type": "Broken\udfffName", "value": "half \ud83d of an emoji"}]})
    body = json.dumps(event)
    assert "\\udfff" in body
    response = collector.post(tracked.collector_path("store"), content=body, headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (200, {"id": event["event_id"]})
    assert tracked.error_titled("Broken\ufffdName: half \ufffd of an emoji").count == 1


def test_missing_key_is_400_as_gitlab(collector, tracked):
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event_body()))
    assert response.status_code == 400
    assert response.json() == {"message": "400 Bad request - Failed to parse sentry request"}
    response = collector.post(tracked.collector_path("envelope"), content=envelope(event_body()),
                              params={"sentry_key": ""})
    assert response.status_code == 400


def test_unknown_or_deleted_key_is_404(collector, tracked, api):
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event_body()),
                              headers=auth_headers("glet_" + "0" * 32))
    assert (response.status_code, response.json()) == (404, {"message": "404 Not Found"})
    (key,) = api.root.get(f"/projects/{tracked.id}/error_tracking/client_keys").json()
    assert api.root.delete(f"/projects/{tracked.id}/error_tracking/client_keys/{key['id']}").status_code == 200
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event_body()),
                              headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (404, {"message": "404 Not Found"})


def test_only_enabled_integrated_projects_accept_events(collector, tracked, api, et_sessions):
    from outpost_server.error_tracking.models import ErrorTrackingSetting

    body = json.dumps(event_body())
    # An enabled setting on the external backend (written directly: the API would also want a
    # reachable Sentry) refuses events, before this process has cached any decision.
    with et_sessions() as session:
        setting = session.query(ErrorTrackingSetting).filter_by(project_id=tracked.id).one()
        setting.integrated = False
        session.commit()
    response = collector.post(tracked.collector_path("store"), content=body, headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (404, {"message": "404 Not Found"})
    assert api.root.put(f"/projects/{tracked.id}/error_tracking/settings",
                        json={"active": True, "integrated": True}).status_code == 200
    response = collector.post(tracked.collector_path("store"), content=body, headers=auth_headers(tracked.public_key))
    assert response.status_code == 200
    assert api.root.patch(f"/projects/{tracked.id}/error_tracking/settings", json={"active": False}).status_code == 200
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event_body()),
                              headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (404, {"message": "404 Not Found"})
    project = api.project()
    response = collector.post(f"/api/v4/error_tracking/collector/api/{project['id']}/store/", content=body,
                              headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (404, {"message": "404 Not Found"})
    response = collector.post("/api/v4/error_tracking/collector/api/999999999/store/", content=body,
                              headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (404, {"message": "404 Project Not Found"})


@pytest.mark.parametrize(
    ("endpoint", "body"),
    [
        ("store", b""),
        ("store", b"{not json"),
        ("store", b"[1, 2]"),
        ("store", b'"********"'),
        ("envelope", b""),
        ("envelope", b"{}\n{\"type\":\"event\",\"length\":999}\n{}"),
        ("envelope", b"{}\nnot json\n{}"),
        ("envelope", b'{}\n{"type":"event"}\n[1]'),
    ],
)
def test_malformed_bodies_are_400_with_a_reason(collector, tracked, endpoint, body):
    response = collector.post(tracked.collector_path(endpoint), content=body, headers=auth_headers(tracked.public_key))
    assert response.status_code == 400
    message = response.json()["message"]
    assert message.startswith("400 Bad request - ") and len(message) > len("400 Bad request - ")
    assert response.headers["x-sentry-error"]


def test_corrupt_gzip_is_400(collector, tracked):
    body = gzip.compress(json.dumps(event_body()).encode())[:-12]
    response = collector.post(tracked.collector_path("store"), content=body,
                              headers={**auth_headers(tracked.public_key), "Content-Encoding": "gzip"})
    assert response.status_code == 400


def test_oversized_bodies_and_decompression_bombs_are_413(collector, tracked):
    headers = auth_headers(tracked.public_key)
    response = collector.post(tracked.collector_path("store"), content=b"{" + b" " * (2 * 1024 * 1024) + b"}",
                              headers=headers)
    assert (response.status_code, response.text) == (413, "Payload Too Large")
    bomb = gzip.compress(b"{}\n" + b" " * (64 * 1024 * 1024))
    response = collector.post(tracked.collector_path("envelope"), content=bomb,
                              headers={**headers, "Content-Encoding": "gzip"})
    assert response.status_code == 413
    # The server is still healthy afterwards.
    event = event_body()
    response = collector.post(tracked.collector_path("store"), content=json.dumps(event), headers=headers)
    assert response.status_code == 200


def test_an_envelope_of_many_tiny_items_is_413_whatever_their_type(collector, tracked):
    headers = auth_headers(tracked.public_key)

    def envelope(items: int, item_type: str) -> bytes:
        return b"{}\n" + (b'{"type":"%s","length":1}\nx\n' % item_type.encode()) * items

    for item_type in ("unknown_kind", "client_report", "attachment"):
        refused = collector.post(tracked.collector_path("envelope"), headers=headers,
                                 content=envelope(MAX_ENVELOPE_ITEMS + 1, item_type))
        assert refused.status_code == 413, item_type
    # 300,000 of them (the probe's 7.8 MB body) are refused the same way, and as many as the limit pass.
    assert collector.post(tracked.collector_path("envelope"), headers=headers,
                          content=envelope(300_000, "unknown_kind")).status_code == 413
    assert collector.post(tracked.collector_path("envelope"), headers=headers,
                          content=envelope(MAX_ENVELOPE_ITEMS, "unknown_kind")).status_code == 200


def test_envelope_with_event_session_and_unknown_items(collector, tracked):
    event = event_body(release="shop@2.0.0", environment="production", user={"email": "a@example.com"})
    event_payload = json.dumps(event).encode()
    session = json.dumps({"sid": uuid.uuid4().hex, "init": True, "started": "2026-11-22T02:00:00Z", "status": "crashed",
                          "errors": 1, "attrs": {"release": "shop@2.0.0", "environment": "production"}}).encode()
    body = b"\n".join([
        json.dumps({"event_id": event["event_id"]}).encode(),
        b'{"type":"event","content_type":"application/json"}', event_payload,
        b'{"type":"session"}', session,
        b'{"type":"client_report"}', b'{"discarded_events":[]}',
        b'{"type":"brand_new_item","length":3}', b"xyz",
    ])  # no trailing newline, items without length (Ruby style)
    response = collector.post(tracked.collector_path("envelope"), content=body,
                              headers={**auth_headers(tracked.public_key), "Content-Encoding": ""})
    assert (response.status_code, response.json()) == (200, {"id": event["event_id"]})
    (error,) = tracked.errors()
    assert (error.count, error.users_count, error.last_release, error.last_environment) == (
        1, 1, "shop@2.0.0", "production")
    (health,) = tracked.release_health()
    assert (health.release, health.sessions, health.crashed) == ("shop@2.0.0", 1, 1)


def test_transaction_and_client_report_envelopes_answer_empty(collector, tracked):
    body = b'{}\n{"type":"transaction"}\n{"type":"transaction","spans":[]}\n{"type":"client_report"}\n{}\n'
    response = collector.post(tracked.collector_path("envelope"), content=body,
                              headers=auth_headers(tracked.public_key))
    assert (response.status_code, response.json()) == (200, {})
    assert tracked.errors() == []


def test_users_affected_and_regressions(collector, tracked, et_sessions):
    from outpost_server.error_tracking.read import tracked_errors

    headers = auth_headers(tracked.public_key)
    users = [{"id": "1"}, {"id": "1", "email": "x@example.com"}, {"email": "b@example.com"}, {"username": "c"},
             {"ip_address": "10.0.0.9"}, {}]
    for user in users:
        assert collector.post(tracked.collector_path("store"), content=json.dumps(event_body(user=user)),
                              headers=headers).status_code == 200
    (error,) = tracked.errors()
    assert (error.count, error.users_count, error.status) == (6, 4, "unresolved")
    with et_sessions() as session:
        stored = tracked_errors.get_error(session, project=_project(session, tracked.id), error_id=error.id)
        tracked_errors.update_error_status(session, error=stored, status="resolved")
        session.commit()
    assert tracked.errors(status="resolved")[0].id == error.id
    assert collector.post(tracked.collector_path("store"), content=json.dumps(event_body()),
                          headers=headers).status_code == 200
    (error,) = tracked.errors()
    assert (error.status, error.regressed, error.count) == ("unresolved", True, 7)


def _project(session, project_id):
    from outpost_server.accounts.models import Project

    return session.get(Project, project_id)


def test_hourly_and_daily_counts(collector, tracked, et_sessions):
    from outpost_server.error_tracking.read import integrated, tracked_errors

    headers = auth_headers(tracked.public_key)
    for _ in range(3):
        assert collector.post(tracked.collector_path("store"), content=json.dumps(event_body()),
                              headers=headers).status_code == 200
    (error,) = tracked.errors()
    with et_sessions() as session:
        hourly = integrated.hourly_frequency(session, [error.id])[error.id]
        daily = tracked_errors.daily_counts(session, error=error)
    assert len(hourly) == 24 and hourly[-1][1] == 3 and sum(count for _, count in hourly) == 3
    assert len(daily) == 30 and daily[-1][1] == 3

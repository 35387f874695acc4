"""One pass per event, in Sentry's order: scrubbed, then symbolicated, then derived, once.

The digest hands normalize_event its symbolication step, so the title, culprit and fingerprint are derived
from the mapped frames in the same pass that scrubbed the event, and symbolication only ever sees a
scrubbed event.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from outpost_server.error_tracking.digest.normalize import normalize_event

NOW = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.timezone.utc)


def _minified_event() -> dict[str, Any]:
    return {
        "platform": "javascript",
        "request": {"url": "https://shop.example.com/", "headers": {"Authorization": "Bearer secret-token"}},
        "exception": {"values": [{"type": "TypeError", "value": "x is undefined", "stacktrace": {"frames": [
            {"abs_path": "https://shop.example.com/app.min.js", "filename": "app.min.js", "function": "a",
             "lineno": 1, "colno": 120, "in_app": True}]}}]},
    }


def _mapping(seen: list[dict[str, Any]]):
    def symbolicate(event: dict[str, Any]) -> bool:
        seen.append(json.loads(json.dumps(event)))
        frame = event["exception"]["values"][0]["stacktrace"]["frames"][0]
        frame.update(filename="src/cart.ts", abs_path="webpack:///src/cart.ts", function="addToCart", lineno=42)
        return True
    return symbolicate


def test_the_title_culprit_and_fingerprint_follow_the_mapped_frames():
    minified = normalize_event(_minified_event(), received_at=NOW)
    mapped = normalize_event(_minified_event(), received_at=NOW, symbolicate=_mapping([]))
    assert mapped.culprit == "addToCart(src/cart.ts)"
    assert mapped.fingerprint != minified.fingerprint
    stored = json.loads(mapped.raw_payload or b"")
    assert stored["exception"]["values"][0]["stacktrace"]["frames"][0]["function"] == "addToCart"


def test_symbolication_sees_the_event_scrubbed():
    seen: list[dict[str, Any]] = []
    normalize_event(_minified_event(), received_at=NOW, symbolicate=_mapping(seen))
    assert [event["request"]["headers"]["Authorization"] for event in seen] == ["[Filtered]"]


def test_an_event_symbolication_leaves_alone_keeps_its_bytes_as_sent():
    raw = json.dumps(_minified_event() | {"request": {"url": "https://shop.example.com/"}}).encode()
    event = normalize_event(json.loads(raw), received_at=NOW, raw_payload=raw, symbolicate=lambda event: False)
    assert event.raw_payload == raw

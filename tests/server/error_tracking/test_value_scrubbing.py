"""Relay's default scrubbing of values, not only of names: a card number, a URL's password, a `token=` in a
breadcrumb, an `?api_key=` in the message are filtered wherever Relay's legacy scrubber reaches, and none of
them is left in any file of the server's data directory."""

from __future__ import annotations

import secrets
import uuid

from .conftest import make_tracked_project, server_sessionmaker
from .test_pipeline import files_holding, post_event


def test_secrets_inside_values_are_scrubbed_as_relay_scrubs_them(server):
    secret, user = secrets.token_hex(8), "u" + secrets.token_hex(4)
    card = "4111 1111 1111 1111"
    tracked = make_tracked_project(server, server_sessionmaker(server))
    event = {
        "event_id": uuid.uuid4().hex, "level": "error",
        "message": f"charge {card} failed at https://{user}:{secret}@pay.example.com/v1?api_key={secret}&page=2",
        "extra": {"database": f"postgres://{user}:{secret}@db/x", "card": card, "home": f"/home/{user}/app.py",
                  "plain": "nothing to see", "count": 3},
        "breadcrumbs": {"values": [
            {"category": "navigation", "data": {"from": f"/callback?access_token={secret}", "to": "/orders"}},
            {"category": "console", "message": f"sent Bearer {secret} upstream"}]},
        "request": {"url": "https://shop.example.com/checkout", "method": "POST",
                    "data": {"note": f"card {card}"}, "headers": {"User-Agent": "Mozilla/5.0", "X-Card": card}},
        "exception": {"values": [{"type": "PaymentError", "value": "declined", "stacktrace": {"frames": [
            {"filename": "app.py", "function": "pay", "vars": {"dsn": f"mysql://root:{secret}@db", "n": "1"}}]}}]},
    }
    assert post_event(server, tracked.id, tracked.public_key, event).status_code == 200
    server.wait_for_digest()
    [error] = tracked.errors()
    payload = tracked.latest_payload(error)
    assert payload["message"] == (f"charge [creditcard] failed at https://{user}:[Filtered]@pay.example.com/v1"
                                  "?api_key=[Filtered]&page=2")
    assert payload["extra"] == {"database": f"postgres://{user}:[Filtered]@db/x", "card": "[Filtered]",
                                "home": "/home/[Filtered]/app.py", "plain": "nothing to see", "count": 3}
    navigation, console = payload["breadcrumbs"]["values"]
    assert navigation["data"] == {"from": "[Filtered]", "to": "/orders"}
    assert console["message"] == "sent [Filtered] upstream"
    assert payload["request"]["data"] == {"note": "card [Filtered]"}
    assert payload["request"]["headers"] == {"User-Agent": "Mozilla/5.0", "X-Card": "[Filtered]"}
    [frame] = payload["exception"]["values"][0]["stacktrace"]["frames"]
    assert frame["vars"] == {"dsn": "mysql://root:[Filtered]@db", "n": "1"}
    assert files_holding(server.data_dir, [secret.encode(), card.encode()]) == {}


def test_custom_contexts_are_scrubbed_and_known_contexts_and_tags_kept_as_relay_does(server):
    # Not the other test's card: this one is stored as sent (in a tag and typed contexts), and that test
    # looks for its card in every file of the shared server.
    card = "4012 8888 8888 1881"
    tracked = make_tracked_project(server, server_sessionmaker(server))
    event = {
        "event_id": uuid.uuid4().hex, "level": "error", "message": "checkout failed",
        # Relay's Event.tags is pii = maybe: its default rules leave tag values as sent.
        "tags": {"order": f"card {card}"},
        "contexts": {
            "payment": {"last_card": card, "gateway": "postgres://shop:hunter2@db/pay", "attempts": 2},
            "renamed": {"type": "checkout", "card": card},
            "os": {"name": "Linux", "build": card},
            "device_alias": {"type": "device", "model": card},
        },
    }
    assert post_event(server, tracked.id, tracked.public_key, event).status_code == 200
    server.wait_for_digest()
    [error] = tracked.errors()
    payload = tracked.latest_payload(error)
    contexts = payload["contexts"]
    assert contexts["payment"] == {"last_card": "[Filtered]", "gateway": "postgres://shop:[Filtered]@db/pay",
                                   "attempts": 2}
    assert contexts["renamed"] == {"type": "checkout", "card": "[Filtered]"}
    assert contexts["os"]["build"] == card and contexts["device_alias"]["model"] == card
    assert dict(payload["tags"])["order"] == f"card {card}"

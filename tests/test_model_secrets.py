"""Client keys are secrets (their DSN and public key let anyone send events), so outpost_model's ClientKey
never shows them when printed, logged or inspected: only its id and whether it is active."""

from __future__ import annotations

import logging
import pprint

from outpost_model import decode, encode
from outpost_model.error_tracking import ClientKey

PUBLIC_KEY = "glet_" + "7" * 32
DSN = f"https://{PUBLIC_KEY}@errors.example.com/api/42"


def _key() -> ClientKey:
    return decode(encode(ClientKey(id=42, active=True, public_key=PUBLIC_KEY, sentry_dsn=DSN)), ClientKey)


def _shows_no_secret(text: str) -> None:
    assert "42" in text and "ClientKey" in text  # it still says which key it is
    assert PUBLIC_KEY not in text and DSN not in text and "7777" not in text


def test_repr_and_str_show_neither_the_dsn_nor_the_key():
    key = _key()
    for text in (repr(key), str(key), f"{key}", f"{key!r}", repr([key]), str({"key": key}), pprint.pformat(key)):
        _shows_no_secret(text)


def test_a_logged_key_shows_no_secret(caplog):
    with caplog.at_level(logging.INFO):
        logging.getLogger("tests.model_secrets").info("saved %s among %r", _key(), [_key()])
    _shows_no_secret(caplog.text)


def test_rich_repr_shows_no_secret():
    shown = dict(_key().__rich_repr__())
    assert shown == {"id": 42, "active": True}


def test_the_json_still_carries_the_fields():
    # The answer is GitLab's exactly: hiding them from repr must not drop them from the wire.
    assert decode(encode(_key()), dict) == {"id": 42, "active": True, "public_key": PUBLIC_KEY, "sentry_dsn": DSN}

"""Event normalisation: levels, timestamps, messages, titles, culprits and grouping."""

from __future__ import annotations

import datetime as dt

import pytest

from outpost_server.error_tracking.digest.event_messages import format_message
from outpost_server.error_tracking.digest.grouping import fingerprint_of
from outpost_server.error_tracking.digest.normalize import normalize_event, normalize_level, parse_timestamp
from outpost_server.error_tracking.digest.session_items import normalize_session

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.timezone.utc)
UTC = dt.timezone.utc


def norm(event: dict, **kwargs):
    return normalize_event(event, received_at=NOW, **kwargs)


def frame(module: str, function: str, *, in_app: bool | None = True, lineno: int = 1) -> dict:
    data = {"module": module, "function": function, "filename": f"{module}.py", "lineno": lineno}
    if in_app is not None:
        data["in_app"] = in_app
    return data


def exception(exc_type: str, value: str, *frames: dict) -> dict:
    return {"type": exc_type, "value": value, "stacktrace": {"frames": list(frames)}}


@pytest.mark.parametrize(
    ("value", "level"),
    [
        ("error", "error"),
        ("WARNING", "warning"),
        ("warn", "warning"),
        ("critical", "fatal"),
        ("log", "info"),
        (40, "error"),
        (30, "warning"),
        (50, "fatal"),
        (10, "debug"),
        ("20", "info"),
        (None, "error"),
        ("nonsense", "error"),
        (True, "error"),
        (40.0, "error"),
        (float("inf"), "error"),
        (float("nan"), "error"),
        ({"a": 1}, "error"),
        ("\u00b2", "error"),  # a digit to str.isdigit, not to int()
    ],
)
def test_levels(value, level):
    assert normalize_level(value) == level


def test_missing_level_defaults_to_error():
    assert norm({"message": "m"}).level == "error"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1795313429.833, dt.datetime(2026, 11, 22, 2, 10, 29, 833000, tzinfo=UTC)),
        (1795313429, dt.datetime(2026, 11, 22, 2, 10, 29, tzinfo=UTC)),
        ("1795313429.5", dt.datetime(2026, 11, 22, 2, 10, 29, 500000, tzinfo=UTC)),
        (1795313429833, dt.datetime(2026, 11, 22, 2, 10, 29, 833000, tzinfo=UTC)),
        ("2026-11-22T02:09:22.287118Z", dt.datetime(2026, 11, 22, 2, 9, 22, 287118, tzinfo=UTC)),
        ("2026-11-22T02:10:14Z", dt.datetime(2026, 11, 22, 2, 10, 14, tzinfo=UTC)),
        ("2026-11-22T02:10:58", dt.datetime(2026, 11, 22, 2, 10, 58, tzinfo=UTC)),
        ("2023-04-12T15:04:05.123456789+02:00", dt.datetime(2023, 4, 12, 13, 4, 5, 123456, tzinfo=UTC)),
        ("2026-11-22T02:10:14.5-01:30", dt.datetime(2026, 11, 22, 3, 40, 14, 500000, tzinfo=UTC)),
    ],
)
def test_timestamps(value, expected):
    assert parse_timestamp(value) == expected


@pytest.mark.parametrize("value", ["yesterday", "", None, True, [], {}, float("nan"), 1e300, "9999-99-99T00:00:00"])
def test_unusable_timestamps_fall_back_to_receive_time(value):
    assert parse_timestamp(value) is None
    assert norm({"message": "m", "timestamp": value}).occurred_at == NOW


def test_logentry_with_params_and_no_formatted_text():
    event = norm({"logentry": {"message": "Payment %s failed for user %s", "params": ["pay_123", 42]}})
    assert (event.title, event.kind, event.message) == ("Payment pay_123 failed for user 42", "default", event.title)


def test_messages_in_every_shape():
    assert norm({"message": "plain"}).title == "plain"
    assert norm({"message": {"formatted": "java formatted"}}).title == "java formatted"
    assert norm({"message": {"message": "php %s", "params": ["x"]}}).title == "php x"
    assert norm({"logentry": {"message": "brace {} {}", "params": [1, 2]}}).title == "brace 1 2"
    assert norm({"logentry": {"message": "named %(who)s", "params": {"who": "me"}}}).title == "named me"
    legacy = {"sentry.interfaces.Message": {"message": "legacy", "formatted": None}, "message": "legacy"}
    assert norm(legacy).title == "legacy"
    assert norm({"message": "first line\nsecond"}).title == "first line"
    assert norm({}).title == "<unlabeled event>"
    assert norm({"message": ""}).title == "<unlabeled event>"
    assert len(norm({"message": "x" * 500}).title) == 100


def test_format_message_never_fails_or_explodes():
    assert format_message("%d items", ["many"]) == "many items"
    assert format_message("%s and %s", ["one"]) == "one and %s"
    assert format_message("100%% of %s", ["x"]) == "100% of x"
    assert format_message("%999999999d", [1]) == "%999999999d"
    assert format_message("%5.2f", [3.14159]) == " 3.14"
    assert format_message("{0.__class__}", [1]) == "{0.__class__}"
    assert format_message("no params", None) == "no params"


def test_exception_as_values_or_bare_list():
    values = [exception("ValueError", "bad", frame("app.main", "run"))]
    assert norm({"exception": {"values": values}}).title == "ValueError: bad"
    assert norm({"exception": values}).title == "ValueError: bad"
    assert norm({"exception": values}).kind == "error"


def test_last_exception_is_the_raised_one():
    chained = norm(
        {
            "exception": {
                "values": [
                    exception("FileNotFoundError", "no file", frame("app.io", "read")),
                    exception("RuntimeError", "config could not be loaded", frame("app.config", "load")),
                ]
            }
        }
    )
    assert (chained.title, chained.exception_type, chained.culprit) == (
        "RuntimeError: config could not be loaded",
        "RuntimeError",
        "app.config in load",
    )


def test_title_variants():
    assert norm({"exception": [{"type": "KeyError"}]}).title == "KeyError"
    assert norm({"exception": [{"value": "only value"}]}).title == "only value"
    assert norm({"exception": [{"stacktrace": {"frames": [frame("m", "fn")]}}]}).title == "fn"
    assert norm({"exception": [{}]}).title == "<unknown>"
    synthetic = norm({"exception": [{"type": "SIGSEGV", "value": "x", "mechanism": {"synthetic": True}}]})
    assert synthetic.exception_type is None


def test_culprit_styles_by_platform():
    values = [exception("E", "v", frame("lib", "outer", in_app=False), frame("app", "inner"),
                        frame("lib", "deep", in_app=False))]
    assert norm({"exception": values, "platform": "python"}).culprit == "app in inner"
    assert norm({"exception": values, "platform": "node"}).culprit == "inner(app)"
    assert norm({"exception": values, "platform": "native"}).culprit == "inner"
    assert norm({"exception": values, "culprit": "given"}).culprit == "given"
    assert norm({"exception": values, "transaction": "/checkout"}).culprit == "/checkout"
    assert norm({"message": "m", "request": {"url": "http://x/y"}}).culprit == "http://x/y"


def test_users_affected_identity():
    assert norm({"user": {"id": 7, "email": "a@b"}}).user_key == "id:7"
    assert norm({"user": {"email": "a@b", "username": "u"}}).user_key == "email:a@b"
    assert norm({"user": {"username": "u", "ip_address": "1.2.3.4"}}).user_key == "username:u"
    assert norm({"user": {"ip_address": "1.2.3.4"}}).user_key == "ip:1.2.3.4"
    assert norm({"user": {"ip_address": "{{auto}}"}}, client_ip="10.0.0.1").user_key == "ip:10.0.0.1"
    assert norm({"user": {}}).user_key is None
    assert norm({"user": "not a dict"}).user_key is None


def test_event_id_forms():
    dashed = "22d00b3f-d1b1-4b5d-8d20-49d138cd8a9c"
    assert norm({"event_id": dashed}).event_id == dashed.replace("-", "")
    assert norm({"event_id": "A" * 32}).event_id == "a" * 32
    generated = norm({"event_id": "nope"}).event_id
    assert len(generated) == 32 and int(generated, 16) >= 0


# --- grouping -------------------------------------------------------------------------------


def test_grouping_ignores_the_exception_value_and_library_frames():
    first = {"exception": [exception("KeyError", "'a'", frame("lib", "x", in_app=False), frame("app", "f"))]}
    second = {"exception": [exception("KeyError", "'b'", frame("lib", "y", in_app=False), frame("app", "f", lineno=9))]}
    assert fingerprint_of(first) == fingerprint_of(second)


def test_grouping_splits_on_type_and_in_app_frames():
    base = {"exception": [exception("KeyError", "v", frame("app", "f"))]}
    other_type = {"exception": [exception("ValueError", "v", frame("app", "f"))]}
    other_function = {"exception": [exception("KeyError", "v", frame("app", "g"))]}
    other_module = {"exception": [exception("KeyError", "v", frame("app2", "f"))]}
    prints = {fingerprint_of(event) for event in (base, other_type, other_function, other_module)}
    assert len(prints) == 4


def test_grouping_uses_the_last_exception_not_the_first():
    cause = exception("FileNotFoundError", "x", frame("app", "read"))
    one = {"exception": {"values": [cause, exception("RuntimeError", "r", frame("app", "load"))]}}
    two = {"exception": {"values": [cause, exception("TypeError", "r", frame("app", "load"))]}}
    same_raised = {"exception": {"values": [exception("OSError", "y", frame("app", "other")),
                                            exception("RuntimeError", "z", frame("app", "load"))]}}
    assert fingerprint_of(one) != fingerprint_of(two)
    assert fingerprint_of(one) == fingerprint_of(same_raised)


def test_grouping_without_frames_uses_type_and_value():
    assert (fingerprint_of({"exception": [{"type": "E", "value": "a"}]})
            != fingerprint_of({"exception": [{"type": "E", "value": "b"}]}))


def test_message_grouping_uses_the_template():
    one = {"logentry": {"message": "Payment %s failed", "params": ["a"]}}
    two = {"logentry": {"message": "Payment %s failed", "params": ["b"]}}
    assert fingerprint_of(one) == fingerprint_of(two)
    assert fingerprint_of({"message": "a"}) != fingerprint_of({"message": "b"})


def test_client_fingerprint_with_default_expansion():
    exc = {"exception": [exception("KeyError", "v", frame("app", "f"))]}
    exc_other = {"exception": [exception("ValueError", "v", frame("app", "f"))]}
    custom = {"fingerprint": ["custom-group"]}
    assert fingerprint_of({**exc, **custom}) == fingerprint_of({**exc_other, **custom})
    with_default = {"fingerprint": ["custom-group", "{{ default }}"]}
    assert fingerprint_of({**exc, **with_default}) != fingerprint_of({**exc_other, **with_default})
    assert fingerprint_of({**exc, **with_default}) != fingerprint_of(exc)
    assert fingerprint_of({**exc, "fingerprint": []}) == fingerprint_of(exc)


def test_sessions_need_sid_and_release():
    payload = {"sid": "x", "status": "crashed", "errors": 1, "started": "2026-11-22T02:00:00Z",
               "attrs": {"release": "r"}}
    session = normalize_session(payload, received_at=NOW)
    assert (session.status, session.errors, session.environment) == ("crashed", 1, "production")
    assert normalize_session({**payload, "attrs": {}}, received_at=NOW) is None
    assert normalize_session({**payload, "sid": None}, received_at=NOW) is None
    assert normalize_session({**payload, "status": "weird", "errors": "many"}, received_at=NOW).status == "ok"
    assert normalize_session({**payload, "errors": float("inf")}, received_at=NOW).errors == 2**31 - 1
    assert normalize_session({**payload, "errors": -3}, received_at=NOW).errors == 0

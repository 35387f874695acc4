"""A small app reporting to Outpost with the real sentry-sdk: `python_sentry_sdk.py MODE DSN`.

MODE is `store` (the SDK's default without tracing), `envelope` (tracing configured, so events
go to the envelope endpoint) or `crash` (an unhandled exception in an application-mode session).
"""

import atexit
import logging
import sys
from typing import Any

import sentry_sdk

mode, dsn = sys.argv[1], sys.argv[2]
options: dict[str, Any] = {"dsn": dsn, "release": "shop@1.0.0", "environment": "production"}
if mode == "envelope":
    # Any traces_sample_rate, even 0.0, switches sentry-sdk 1.21 to the envelope endpoint.
    options["traces_sample_rate"] = 0.0
sentry_sdk.init(**options)
sentry_sdk.set_user({"id": "u-1", "email": "jane@example.com"})


def level3(data):
    return data["missing"]


def level2(data):
    return level3(data)


def parse(text):
    return int(text)


if mode == "crash":
    hub = sentry_sdk.Hub.current
    hub.start_session(session_mode="application")
    # Runs before the SDK's own exit hook (atexit is last-in, first-out), which then flushes.
    atexit.register(hub.end_session)
    parse("not-a-number")

try:
    level2({})
except KeyError:
    sentry_sdk.capture_exception()
sentry_sdk.capture_message("Something happened: order 42 failed", level="warning")
logging.getLogger("billing").error("Payment %s failed for user %s", "pay_123", 42)
sentry_sdk.flush(timeout=10)

"""Sends errors with the real sentry-sdk until told to stop: `python sdk_sender.py DSN STOP_FILE`.

Three kinds of error in turn, about 50 events a second. After every ten it flushes the SDK's transport (so
the server has answered them) and prints their event ids, one line each: `acked <id>`. With `once` for the
stop file it sends one event of the first kind.
"""

import sys
import time
from pathlib import Path

import sentry_sdk

dsn, stop = sys.argv[1], Path(sys.argv[2])
sentry_sdk.init(dsn=dsn, release="shop@2.0.0", environment="production")


def fail(kind: int) -> None:
    if kind == 0:
        raise KeyError("missing-field")
    if kind == 1:
        raise ValueError("bad amount")
    raise RuntimeError("gateway down")


sent: list[str] = []
number = 0
once = sys.argv[2] == "once"
while not stop.exists() and not (once and number):
    try:
        fail(number % 3)
    except Exception:
        event_id = sentry_sdk.capture_exception()
        if event_id:
            sent.append(event_id)
    number += 1
    if len(sent) >= 10:
        sentry_sdk.flush(timeout=30)
        print("\n".join(f"acked {event_id}" for event_id in sent), flush=True)
        sent.clear()
    time.sleep(0.02)
sentry_sdk.flush(timeout=30)
print("\n".join(f"acked {event_id}" for event_id in sent), flush=True)

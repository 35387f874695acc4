"""The newest sentry-sdk 2.x reporting to Outpost: `python python_latest.py DSN` (run with the SDK's own path)."""

import sys

import sentry_sdk

print("sentry-sdk", sentry_sdk.VERSION)
sentry_sdk.init(dsn=sys.argv[1], release="shop-python@2.0.0", environment="production")


def charge_card(amount):
    raise ValueError(f"card declined for {amount}")


try:
    charge_card(42)
except ValueError:
    sentry_sdk.capture_exception()
sentry_sdk.capture_message("queue backlog", level="warning")
sentry_sdk.flush(timeout=10)

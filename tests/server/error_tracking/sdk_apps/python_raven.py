"""A small app reporting to Outpost with the legacy raven client: `python_raven.py DSN`."""

import sys

from raven import Client
from raven.transport.http import HTTPTransport

client = Client(sys.argv[1], transport=HTTPTransport, release="shop@1.0.0", environment="production",
                raise_send_errors=True)
client.user_context({"id": "u-2"})


def level3(data):
    return data["missing"]


try:
    level3({})
except KeyError:
    client.captureException()
client.captureMessage("Something happened: order 42 failed", level="warning")

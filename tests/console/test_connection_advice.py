"""Each failure of an external Sentry's connection test is named, with its remedy (no Qt, no server)."""

import pytest

from console.core.api.errors import ConnectionRefused, Forbidden, NotFound, ValidationFailed
from console.core.errors.connection_advice import explain_test_failure

HOST = "https://sentry.example.com"


@pytest.mark.parametrize(("error", "expected"), [
    (ValidationFailed(status=400, detail="Api url is blocked: Requests to the local network are not allowed"),
     "requests to the local network are not allowed. The server refuses"),
    (ValidationFailed(status=400, detail="Api url is blocked: Host cannot be resolved or invalid"),
     "could not resolve the host name sentry.example.com (DNS)"),
    (ValidationFailed(status=400, detail="Received SocketError when trying to connect to Sentry"),
     "(DNS)"),
    (ValidationFailed(status=400, detail="Sentry response status code: 401"), "did not accept the auth token"),
    (ValidationFailed(status=400, detail="Sentry response status code: 403"), "project:read, event:read"),
    (ValidationFailed(status=400, detail="Sentry response status code: 404"), "has no API at this address"),
    (ValidationFailed(status=400, detail="Sentry response status code: 502"), "failed while answering"),
    (ValidationFailed(status=400, detail="Token is a required field"), "incomplete or invalid"),
    (Forbidden(status=403, detail="403 Forbidden"), "Maintainer role"),
    (NotFound(status=404, detail="404 Not Found"), "Monitor feature"),
    (ConnectionRefused(url="http://outpost.example.com"), "did not reach the server"),
])
def test_each_failure_is_named(error, expected):
    text = explain_test_failure(error, HOST).text
    assert expected in text
    assert "check auth token" not in text.lower()

"""What the Settings page says when the test of an external Sentry fails: what really failed and how to fix it.

The server answers the test with GitLab's messages ("Api url is blocked: Requests to localhost are not allowed",
"Sentry response status code: 401", "Connection refused", ...); each is turned into a sentence naming the
failing step. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from console.core.api.errors import ApiError, ConnectionFailed, Forbidden, NotFound

# The words a user reads; the API path and the setting's name an administrator types are in the details.
ALLOW_LOCAL = (
    "The server refuses to send requests into its own network unless an administrator allows it with the "
    "server setting \u201cAllow requests to the local network from webhooks and integrations\u201d (on GitLab: "
    "Admin area > Settings > Network > Outbound requests)."
)
ALLOW_LOCAL_DETAILS = (
    "On Outpost, an administrator allows it through the API: PUT /api/v4/application/settings with "
    "allow_local_requests_from_web_hooks_and_services=true."
)
LOCAL_REFUSALS = ("Requests to localhost", "Requests to the local network", "Requests to the link local network")


def _host(api_host: str) -> str:
    try:
        return urlsplit(api_host).netloc or api_host or "the Sentry"
    except ValueError:
        return api_host or "the Sentry"


@dataclass(frozen=True)
class Advice:
    """What a failed test means in plain words, and the details (the server's own message, API and setting
    names) for whoever wants them."""

    text: str
    details: str = ""


def explain_test_failure(error: ApiError, api_host: str) -> Advice:
    """Which step failed (this console's request, the server's address check, DNS, the Sentry's answer) and
    what to do about it; the server's own words in the details."""
    said = error.detail or error.message
    extra = ALLOW_LOCAL_DETAILS if _local_refusal(error, api_host) is not None else ""
    return Advice(_explain(error, api_host),
                  "\n".join(filter(None, (f"The server said: {said}" if said else "", extra))))


def _local_refusal(error: ApiError, api_host: str) -> str | None:
    if isinstance(error, ConnectionFailed):
        return None
    lowered = (error.detail or error.message).lower()
    refusal = next((text for text in LOCAL_REFUSALS if text.lower() in lowered), None)
    if refusal is None:
        return None
    return (f"The server did not contact {_host(api_host)}: {refusal[0].lower()}{refusal[1:]} are not allowed. "
            f"{ALLOW_LOCAL}")


def _explain(error: ApiError, api_host: str) -> str:
    if isinstance(error, ConnectionFailed):  # the console never reached its own server
        return f"The test did not reach the server. {error.message}"
    detail = error.detail or error.message
    host = _host(api_host)
    lowered = detail.lower()
    refusal = _local_refusal(error, api_host)
    if refusal is not None:
        return refusal
    if "cannot be resolved" in lowered or "socketerror" in lowered:
        return (f"The server could not resolve the host name {host} (DNS). Check the API URL for typos; the name "
                "must resolve on the server, not only on this computer.")
    if isinstance(error, Forbidden) and "status code" not in lowered:
        return ("You may not change this project's error tracking settings (403): that takes the Maintainer role "
                "or higher.")
    if isinstance(error, NotFound) and "status code" not in lowered:
        return ("The server has no error tracking settings for this project that you can reach (404): the "
                "project's Monitor feature may be disabled, or the project gone. Check the project's settings.")
    if "is required" in lowered or "is invalid" in lowered or "is a required field" in lowered:
        return f"The settings are incomplete or invalid: {detail}. Enter the Sentry's address and an auth token."
    for status, advice in (
        ("401", "the Sentry did not accept the auth token (401). Check the token, and that it has not been revoked."),
        ("403", "the auth token lacks a permission (403). Give it the scopes project:read, event:read and "
                "event:write."),
        ("404", "the Sentry has no API at this address (404). Enter the Sentry's own address, such as "
                "https://sentry.example.com, without a path."),
    ):
        if f"status code: {status}" in lowered:
            return f"The server reached {host}, but {advice}"
    if "status code: 5" in lowered:
        return f"{host} failed while answering ({detail}). Try again later, or check the Sentry's health."
    if "connection refused" in lowered:
        return (f"Nothing is listening at {host}: the connection was refused. Check the address and port, and that "
                "the Sentry is running.")
    if "timed out" in lowered:
        return (f"{host} did not answer in time. Check that the server can reach it (firewall, proxy) and that it "
                "is not overloaded.")
    if "ssl" in lowered or "certificate" in lowered or "tls" in lowered:
        return (f"The secure connection to {host} failed: {detail}. Check that the address uses https:// on a port "
                "that speaks it, and that its certificate is valid.")
    return f"The connection test failed: {detail}"

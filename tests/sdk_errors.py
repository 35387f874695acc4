"""Real errors for error tracking tests: the Python Sentry SDK (1.21.0) run as a separate process."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from tests.support import wait_for_digest_at

# Each scenario raises or captures something distinct; the SDK sends it to the DSN given as argv[1].
SCRIPT = r'''
import sys
import sentry_sdk

dsn, scenario = sys.argv[1], sys.argv[2]
release, environment = sys.argv[3], sys.argv[4]
sentry_sdk.init(dsn=dsn, release=release, environment=environment, default_integrations=False)


def parse_quantity(text):
    return int(text) // 0


def load_order(text):
    try:
        parse_quantity(text)
    except ZeroDivisionError as error:
        raise ValueError("order could not be loaded") from error


if scenario == "chained":
    for user in ("ada", "bob", "cyd"):
        sentry_sdk.set_user({"id": user})
        try:
            load_order("12")
        except ValueError:
            sentry_sdk.capture_exception()
elif scenario == "keyerror":
    # Raised from a callback inside the json library, so the trace mixes application and library frames.
    import json

    sentry_sdk.set_user({"id": "dee"})
    try:
        json.loads('{"sku": 7}', object_hook=lambda document: document["missing-key"])
    except KeyError:
        sentry_sdk.capture_exception()
elif scenario == "crash":
    # An unhandled exception in a tracked session: the SDK's hook reports it and the session as crashed.
    sentry_sdk.init(dsn=dsn, release=release, environment=environment)
    sentry_sdk.Hub.current.start_session(session_mode="application")
    raise RuntimeError("payment service unreachable")
elif scenario == "web":
    # A WSGI app behind the SDK's middleware: each request logs (breadcrumbs through the logging
    # integration), sets its user, a tag and the browser and os the app read from the User-Agent, then fails.
    import logging
    from wsgiref.util import setup_testing_defaults

    from sentry_sdk.integrations.logging import LoggingIntegration
    from sentry_sdk.integrations.wsgi import SentryWsgiMiddleware

    logging.basicConfig(level=logging.INFO, stream=sys.stdout)
    sentry_sdk.init(dsn=dsn, release=release, environment=environment, default_integrations=False,
                    integrations=[LoggingIntegration(level=logging.INFO, event_level=None)], server_name="web-1")
    log = logging.getLogger("shop.checkout")

    def charge_card(cart):
        raise ConnectionError(f"card processor refused cart {cart}")

    def checkout(environ, start_response):
        user = environ["HTTP_X_SHOP_USER"]
        sentry_sdk.set_user({"id": user, "email": f"{user}@example.com"})
        sentry_sdk.set_tag("payment_provider", environ["HTTP_X_PAYMENT_PROVIDER"])
        browser, version, system = environ["HTTP_USER_AGENT"].split("/")
        sentry_sdk.set_context("browser", {"name": browser, "version": version})
        sentry_sdk.set_context("os", {"name": system})
        log.info("checkout started for %s", user)
        log.warning("inventory service answered slowly")
        return charge_card(environ["QUERY_STRING"].split("=")[1])

    app = SentryWsgiMiddleware(checkout)
    for user, provider, agent, cart in (("ada", "stripe", "Firefox/121.0/Linux", "41"),
                                        ("bob", "stripe", "Chrome/120.0/Windows", "42"),
                                        ("cyd", "adyen", "Firefox/121.0/Linux", "43")):
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/checkout", "QUERY_STRING": f"cart={cart}",
                   "HTTP_HOST": "shop.example.com", "HTTP_USER_AGENT": agent, "HTTP_X_SHOP_USER": user,
                   "HTTP_X_PAYMENT_PROVIDER": provider}
        setup_testing_defaults(environ)
        try:
            app(environ, lambda status, headers: None)
        except ConnectionError:
            pass
elif scenario == "logged":
    # logger.exception: the SDK's logging integration sends the log message (logentry) with the exception.
    import logging

    from sentry_sdk.integrations.logging import LoggingIntegration

    sentry_sdk.init(dsn=dsn, release=release, environment=environment, default_integrations=False,
                    integrations=[LoggingIntegration(event_level=logging.ERROR)])
    try:
        parse_quantity("seven")
    except ValueError:
        logging.getLogger("shop.orders").exception("Order %s could not be read", "ord_7")
elif scenario.startswith("messages:"):
    for number in range(int(scenario.split(":")[1])):
        sentry_sdk.capture_message(f"distinct message {number:03d}", level="warning")
else:
    sentry_sdk.capture_message(scenario, level="info")
sentry_sdk.flush(timeout=10)
'''


def send_errors(dsn: str, scenario: str, *, release: str = "shop@1.0.0", environment: str = "production") -> None:
    # Run from a file so frames carry source context lines, as in a real application.
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "shop_app.py"
        script.write_text(SCRIPT)
        finished = subprocess.run([sys.executable, str(script), dsn, scenario, release, environment], timeout=60,
                                  cwd=directory,  # the SDK marks frames under the working directory as in-app
                                  capture_output=True, text=True)
    crashed = scenario == "crash"
    expected_code = 1 if crashed else 0
    if finished.returncode != expected_code or (crashed and "payment service unreachable" not in finished.stderr):
        raise RuntimeError(f"the SDK script failed:\n{finished.stderr}")
    # A 200 means queued: wait until the server has digested what the SDK sent, so it is listed.
    parts = urlsplit(dsn)
    wait_for_digest_at(f"{parts.scheme}://{parts.hostname}:{parts.port}")


def enable_integrated(root: httpx.Client, project_id: int) -> str:
    """Turns on integrated error tracking and returns the project's first DSN."""
    response = root.put(f"/projects/{project_id}/error_tracking/settings", json={"active": True, "integrated": True})
    response.raise_for_status()
    keys = root.get(f"/projects/{project_id}/error_tracking/client_keys")
    keys.raise_for_status()
    return keys.json()[0]["sentry_dsn"]


def wait_for_list(web: httpx.Client, project_path: str, ready, *, timeout: float = 30, **params) -> dict:
    """Polls the error list until `ready(body)` holds (accepted events may be processed a moment later)."""
    deadline = time.monotonic() + timeout
    while True:
        body = web.get(f"/{project_path}/-/error_tracking.json", params=params).json()
        if ready(body) or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


def failed_checkouts(server, api) -> dict:
    """A new project holding one error of three events from the "web" scenario (ada, bob, cyd); returns it."""
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "web")
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        wait_for_list(web, project["path_with_namespace"], lambda body: [e["count"] for e in body["errors"]] == [3])
    return project


# The margin outlasts any test (5 minutes at most): with the default minute, an ok check-in in the last seconds
# before 03:00 UTC was marked missed, and failing, by the server's clock while the test still ran.
NIGHTLY = {"schedule": {"type": "crontab", "value": "0 3 * * *"}, "checkin_margin": 10}


def nightly_report(server, api, project: dict) -> Callable[[str], None]:
    """Checks the project's "nightly-report" cron monitor in over HTTP with a status, once digested."""
    dsn = urlsplit(enable_integrated(api.root, project["id"]))
    url = (f"{server.url}/api/v4/error_tracking/collector/api/{project['id']}/cron/nightly-report/"
           f"{dsn.username}/")

    def check_in(status: str) -> None:
        assert httpx.post(url, json={"status": status, "monitor_config": NIGHTLY}).status_code == 202
        server.wait_for_digest()

    return check_in

"""A watched project's cron monitor that fails, then recovers, reaches the notification list once each."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

import httpx

from tests.console.shell.conftest import WAIT, connect
from tests.console.shell.test_journeys import poll_until, watch
from tests.sdk_errors import enable_integrated

CONFIG = {"schedule": {"type": "crontab", "value": "0 3 * * *"}}


def nightly_report(server, api, project: dict) -> Callable[[str], None]:
    """Checks the project's "nightly-report" monitor in over HTTP with a status, once digested."""
    dsn = urlsplit(enable_integrated(api.root, project["id"]))
    url = (f"{server.url}/api/v4/error_tracking/collector/api/{project['id']}/cron/nightly-report/"
           f"{dsn.username}/")

    def check_in(status: str) -> None:
        assert httpx.post(url, json={"status": status, "monitor_config": CONFIG}).status_code == 202
        server.wait_for_digest()

    return check_in


def test_a_failing_and_recovered_monitor_is_news(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    check_in = nightly_report(server, api, project)
    check_in("ok")
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    watch(window, path)
    # The first look, which records what already fails, is over once its poll is done.
    qtbot.waitUntil(lambda: window.watcher._running is not None and window.watcher._running.done(), timeout=WAIT)
    news = window.context.messages.news

    def said(start: str) -> list[str]:
        return [message.text for message in news() if message.text.startswith(start)]

    check_in("error")
    poll_until(qtbot, window, lambda: bool(said("Monitor failing")))
    check_in("ok")
    poll_until(qtbot, window, lambda: bool(said("Monitor recovered")))
    window.watcher.poll()
    qtbot.waitUntil(lambda: window.watcher._running is not None and window.watcher._running.done(), timeout=WAIT)
    assert said("Monitor") == [f"Monitor failing in {path}: nightly-report",
                               f"Monitor recovered in {path}: nightly-report"]

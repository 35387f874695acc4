"""A watched project's cron monitor that fails, then recovers, reaches the notification list once each."""

from __future__ import annotations

from tests.console.shell.conftest import WAIT, connect
from tests.console.shell.test_journeys import poll_until, watch
from tests.sdk_errors import nightly_report


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

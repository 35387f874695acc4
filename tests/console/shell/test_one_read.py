"""Journeys where two places on screen once showed two different reads of the same thing: the Monitors page and
the Overview, a notification and the error list, the Events section and the error's row, a page shown again and
the server. Each now shows what the console's repositories hold (console.core.repositories)."""

from __future__ import annotations

from typing import Any

from console.overview.model import ProjectErrorsModel
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.console.shell.test_journeys import detail_texts, poll_until, row_texts, watch
from tests.sdk_errors import enable_integrated, nightly_report, send_errors


def project_with(server, api, title: str) -> tuple[str, str]:
    """A new project holding one error sent by the real SDK; its path and DSN."""
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, title)
    error_list(server, project["path_with_namespace"], lambda body: len(body["errors"]) == 1)
    return project["path_with_namespace"], dsn


def open_project(qtbot, window, path: str):
    """The Error tracking tab with ``path`` chosen, its list on screen."""
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    return errors


def failing_on_overview(qtbot, window, path: str) -> str:
    """The Overview's "Failing monitors" cell for ``path``, after a Refresh there."""
    overview = window.tabs.show_tab("overview")
    with qtbot.waitSignal(overview.loaded, timeout=WAIT):
        overview.refresh()
    model = overview.model
    row = next(row for row in range(model.rowCount()) if model.index(row, ProjectErrorsModel.PROJECT).data() == path)
    return model.index(row, ProjectErrorsModel.MONITORS).data()


def test_a_monitor_the_overview_counts_failing_is_failing_on_the_monitors_page(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    check_in = nightly_report(server, api, project)
    check_in("ok")
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    errors = open_project(qtbot, window, path)
    page = errors.monitors_page
    errors.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    assert page.model.index(0, 2).data() == "ok"

    check_in("error")
    assert failing_on_overview(qtbot, window, path) == "1"
    window.tabs.show_tab("errors")  # back to the Monitors page, without a Refresh
    assert page.model.index(0, 2).data() == "failing"


def test_a_new_error_announced_is_in_the_list_when_it_is_announced(qtbot, make_window, server, api):
    path, dsn = project_with(server, api, "first trouble")
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    watch(window, path)
    qtbot.waitUntil(lambda: window.context.error_news.has_looked(path), timeout=WAIT)
    page = open_project(qtbot, window, path).errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)

    listed_when_announced: list[tuple[str, bool]] = []

    def announced(_title: str, message: str, target: Any) -> None:
        error_id = target[1][1]  # ("errors", (path, error id))
        listed_when_announced.append((message, page.model.row_of(error_id) >= 0))

    window.context.news.connect(announced)
    send_errors(dsn, "second trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 2)
    poll_until(qtbot, window, lambda: bool(listed_when_announced))
    assert listed_when_announced == [("second trouble", True)]


def test_the_events_section_and_the_row_and_summary_count_the_same_events(qtbot, make_window, server, api):
    path, dsn = project_with(server, api, "counted trouble")
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    errors = open_project(qtbot, window, path)
    errors.refresh_timer.stop()  # the list's interval poll would bring the new count too; the Events read must
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.copy_button.isEnabled(), timeout=WAIT)  # its details are in
    assert row_texts(page)[1] == "1" and detail_texts(page)[1] == "1"

    send_errors(dsn, "counted trouble")  # a second event, while the stack trace is on screen
    error_list(server, path, lambda body: [error["count"] for error in body["errors"]] == [2])
    page.detail.sections.setCurrentWidget(page.events_pane)
    position = page.events_pane.navigator.position
    qtbot.waitUntil(lambda: position.text() == "event 2 of 2", timeout=WAIT)
    assert row_texts(page)[1] == "2" and detail_texts(page)[1] == "2"


def test_the_errors_page_shown_again_shows_what_arrived_meanwhile(qtbot, make_window, server, api):
    path, dsn = project_with(server, api, "early trouble")
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    errors = open_project(qtbot, window, path)
    errors.refresh_timer.stop()  # the interval's poll is not what is under test: showing the page again is
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)

    errors.pages.setCurrentWidget(errors.keys_page)
    send_errors(dsn, "later trouble")
    error_list(server, path, lambda body: len(body["errors"]) == 2)
    qtbot.wait(1_100)  # what the list read is over a second old, as it is after minutes on another page
    errors.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)

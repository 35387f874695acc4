"""What the window remembers per profile, and the notifications of the watcher (recorded, not shown)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from console.core.api.exports import ExportsApi, ExportScope
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.settings_keys import profile_key
from console.errors.models import ErrorListModel
from console.main_window import DEFAULT_SIZE
from console.operations import Op
from console.variables.models import VariablesModel
from outpost_model.exports import Export
from tests.console.conftest import OFFSCREEN_NOISE
from tests.console.shell.conftest import WAIT, connect, error_list, resolve
from tests.sdk_errors import enable_integrated, send_errors


def test_window_restores_its_geometry(qtbot, make_window):
    first = make_window()
    first.resize(760, 540)  # fits the offscreen screen, which restoreGeometry respects
    qtbot.waitUntil(lambda: (first.width(), first.height()) == (760, 540), timeout=WAIT)
    first.close()
    second = make_window()
    assert (second.width(), second.height()) == (760, 540)


def test_window_restores_tab_project_and_sort_per_profile(qtbot, make_window, server, noisy):
    path = noisy["path_with_namespace"]
    first = make_window()
    connect(first, qtbot, server.url, server.root_token)
    first.open_target(("errors", path))
    errors = first.tabs.current_feature()
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == path,
                    timeout=WAIT)
    variables = first.tabs.show_tab("variables")
    variables.table.sortByColumn(VariablesModel.KEY, Qt.SortOrder.DescendingOrder)
    first.close()  # saves the geometry and disconnects

    second = make_window()
    connect(second, qtbot, server.url, server.root_token)
    assert second.tabs.current_name() == "variables"
    header = second.tabs.current_feature().table.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (VariablesModel.KEY,
                                                                          Qt.SortOrder.DescendingOrder)
    errors = second.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == path,
                    timeout=WAIT)


def errors_page_as(make_window, qtbot, server, token: str):
    """A new window connected with ``token`` (root's profile or another user's), on its Errors page, at the
    default size: restoreGeometry would fit the window to the offscreen screen, which is smaller."""
    window = make_window()
    window.resize(*DEFAULT_SIZE)
    connect(window, qtbot, server.url, token)
    return window, window.tabs.show_tab("errors").errors_page


def test_error_list_sort_is_remembered_per_profile(qtbot, make_window, server, api):
    first, page = errors_page_as(make_window, qtbot, server, server.root_token)
    assert page.filters.sort.currentData() == "last_seen"
    page.filters.sort.setCurrentIndex(page.filters.sort.findData("frequency"))
    first.close()

    second, page = errors_page_as(make_window, qtbot, server, server.root_token)
    assert page.filters.sort.currentData() == "frequency"
    second.close()
    _user, token = api.user(admin=True)
    _other, page = errors_page_as(make_window, qtbot, server, token)
    assert page.filters.sort.currentData() == "last_seen"


def test_splitter_sizes_are_restored_per_profile(qtbot, make_window, server, api):
    first, page = errors_page_as(make_window, qtbot, server, server.root_token)
    qtbot.waitUntil(lambda: min(page.splitter.sizes()) > 0, timeout=WAIT)  # laid out in the shown tab
    initial = page.splitter.sizes()
    page.splitter.moveSplitter(initial[0] - 150, 1)  # what dragging the handle does
    moved = page.splitter.sizes()
    assert moved[0] == initial[0] - 150
    first.close()

    second, page = errors_page_as(make_window, qtbot, server, server.root_token)
    qtbot.waitUntil(lambda: page.splitter.sizes() == moved, timeout=WAIT)
    second.close()
    _user, token = api.user(admin=True)
    other, page = errors_page_as(make_window, qtbot, server, token)
    qtbot.waitUntil(lambda: sum(page.splitter.sizes()) == sum(initial), timeout=WAIT)
    assert page.splitter.sizes() == initial


def test_first_start_uses_the_default_size_and_the_project_with_the_latest_error(qtbot, make_window, server, api):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "the very latest problem")
    error_list(server, project["path_with_namespace"], lambda body: len(body["errors"]) == 1)
    window = make_window()
    assert (window.width(), window.height()) == (1100, 700)
    connect(window, qtbot, server.url, server.root_token)
    assert window.tabs.current_name() == "overview"
    overview = window.tabs.current_feature()
    qtbot.waitUntil(lambda: overview.model.rowCount() > 0, timeout=WAIT)
    assert overview.model.rows[0].path == project["path_with_namespace"]
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project is not None, timeout=WAIT)
    assert errors.project.path_with_namespace == project["path_with_namespace"]


def watch(window, *projects: str) -> None:
    window.state.set_value("watch/enabled", True)
    window.state.set_value("watch/projects", list(projects))


def test_watching_is_off_by_default(qtbot, make_window, server, notifier):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    assert not window.state.watch_enabled and not window.watcher.timer.isActive()


# The offscreen platform cannot raise windows (the marker replaces conftest's, so it repeats that one).
@pytest.mark.qt_log_ignore("This plugin does not support raise", OFFSCREEN_NOISE)
def test_notifications_on_a_finished_export_and_a_new_or_regressed_error(qtbot, make_window, server, api, notifier,
                                                                          tmp_path):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "already known")
    body = error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    watch(window, path)
    window.state.set_value("watch/interval_seconds", 3600)  # polls below are started by the test
    window.watcher.restart()
    assert window.watcher.timer.isActive() and window.watcher.timer.interval() == 3600 * 1000
    qtbot.waitUntil(lambda: window.context.error_news.has_looked(path), timeout=WAIT)  # the first look
    assert notifier.sent == []

    async def request_export() -> Export:
        return await ExportsApi(window.context.client).create(ExportScope("project", project["id"], path))

    created: list[Export] = []
    Op(window.context, request_export(), description="Requesting").success(created.append).run()
    qtbot.waitUntil(lambda: bool(created), timeout=WAIT)
    export = created[0]
    ExportHistory(tmp_path / "exports", profile_key(server.url, "root")).save([
        ExportRecord(id=export.id, scope_kind="project", scope_id=project["id"], scope_label=path,
                     status=export.status, created_at=export.created_at or "")])
    send_errors(dsn, "brand new")
    resolve(server, path, body["errors"][0]["id"])
    send_errors(dsn, "already known")
    error_list(server, path, lambda body: len(body["errors"]) == 2 and sum(e["count"] for e in body["errors"]) == 3)

    news = window.context.messages.news

    def polled_until(count: int) -> bool:
        window.watcher.poll()
        return len(news()) >= count

    qtbot.waitUntil(lambda: polled_until(3), timeout=60_000)
    texts = {message.text: message.target for message in news()}
    assert texts[f"Vulnerability export: Export {export.id} of {path} finished"] == ("exports", export.id)
    assert f"New error in {path}: brand new" in texts
    assert f"Regressed error in {path}: already known" in texts
    assert window.notifications_button.text() == "Notifications: 3 new"
    window.watcher.poll()
    qtbot.waitUntil(lambda: window.watcher._running is not None and window.watcher._running.done(), timeout=WAIT)
    assert len(news()) == 3  # each once

    # Clicking the error's notification opens the project with that error selected.
    target = texts[f"New error in {path}: brand new"]
    window.tray.activated.emit(target)
    errors = window.tabs.current_feature()
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.selected_error() is not None and page.selected_error().id == target[1][1],
                    timeout=WAIT)
    window.tray.activated.emit(("exports", export.id))
    assert window.tabs.current_name() == "exports"
    exports = window.tabs.current_feature()
    # The history is read off the UI thread; the export is selected as soon as it is listed.
    qtbot.waitUntil(lambda: exports.selected() is not None and exports.selected().id == export.id, timeout=WAIT)


def test_notification_settings_dialog_saves_per_profile(qtbot, make_window, server, noisy):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.current_feature()
    qtbot.waitUntil(lambda: overview.model.rowCount() > 0, timeout=WAIT)
    dialog = window.commands.open_notification_settings()
    assert not dialog.enabled.isChecked()
    dialog.enabled.setChecked(True)
    dialog.interval.setValue(120)
    items = [dialog.projects.item(row) for row in range(dialog.projects.count())]
    next(item for item in items if item.text() == noisy["path_with_namespace"]).setCheckState(Qt.CheckState.Checked)
    dialog.accept()
    assert window.state.watch_enabled and window.state.watch_seconds == 120
    assert window.state.watched_projects == [noisy["path_with_namespace"]]
    assert window.watcher.timer.isActive() and window.watcher.timer.interval() == 120_000
    window.state.set_value("watch/enabled", False)
    window.watcher.restart()


def test_error_list_fits_the_default_window(qtbot, make_window, server, noisy):
    window = make_window()
    assert (window.width(), window.height()) == (1100, 700)
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", noisy["path_with_namespace"]))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    header, viewport = page.table.horizontalHeader(), page.table.viewport()
    for column in (ErrorListModel.STATUS, ErrorListModel.TREND):  # status and frequency bars in full view
        assert 0 <= header.sectionViewportPosition(column)
        assert header.sectionViewportPosition(column) + header.sectionSize(column) <= viewport.width()
    assert header.sectionSize(ErrorListModel.TITLE) >= 200  # the title column takes what is left
    # The summary scrolls on its own above the stack trace, which keeps room of its own.
    assert page.detail.splitter.widget(0) is page.detail.summary_scroll
    assert page.detail.splitter.widget(1) is page.detail.sections
    assert page.detail.sections.height() >= 250
    left, right = page.splitter.sizes()
    assert left > right > 0


def test_an_export_finished_in_its_tab_is_notified_once_through_the_window_notifier(qtbot, make_window, server,
                                                                                   notifier):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    watch(window)
    window.state.set_value("watch/interval_seconds", 3600)  # polls below are started by the test
    window.watcher.restart()
    exports = window.tabs.show_tab("exports")
    said: list[str] = []
    window.context.status_message.connect(said.append)
    other_window = QWidget()  # the console in the background is when an export's finish is announced
    qtbot.addWidget(other_window)
    other_window.show()
    other_window.activateWindow()
    qtbot.waitUntil(lambda: not window.isActiveWindow(), timeout=WAIT)
    exports.picker.set_kind("instance")
    exports.request_export()

    def finished() -> bool:
        window.watcher.poll()  # the watcher looks at the same export while the tab watches it
        return any(record.status == "finished" for record in exports.model.records)

    qtbot.waitUntil(finished, timeout=WAIT)
    record = exports.model.records[0]
    qtbot.waitUntil(lambda: bool(notifier.sent), timeout=WAIT)
    window.watcher.poll()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible(), timeout=WAIT)
    # One path: the tab reports to the window's notifier (no popup or status line of its own), and the
    # watcher's poll that saw the same export does not announce it a second time.
    text = f"Export {record.id} of {record.scope_label} finished"
    assert notifier.sent == [("Vulnerability export", text, ("exports", record.id))]
    assert not any(text in message for message in said)

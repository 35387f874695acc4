"""The error list in the main window at its default size (1100×700) against the real server: the search's clear
button lists every error again, the status filter has "All", and the search's placeholder is read whole."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QStyle, QStyleOptionFrame, QToolButton

from console.errors.models import ErrorListModel
from console.main_window import DEFAULT_SIZE
from tests.console.shell.conftest import WAIT, connect, error_list, resolve
from tests.sdk_errors import enable_integrated, send_errors


@pytest.fixture(scope="module")
def triaged(server, api):
    """Two errors: "gamma broke" unresolved, "delta broke" resolved."""
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "gamma broke")
    send_errors(dsn, "delta broke")
    body = error_list(server, path, lambda body: len(body["errors"]) == 2)
    delta = next(error for error in body["errors"] if error["title"] == "delta broke")
    resolve(server, path, delta["id"])
    return project


def errors_page(qtbot, make_window, server, project):
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1 and not page.loading, timeout=WAIT)
    return page


def titles(page) -> set[str]:
    return {error.title for error in page.model.errors}


def test_clearing_the_search_with_its_clear_button_lists_every_error_again(qtbot, make_window, server, api):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "alpha broke")
    send_errors(dsn, "beta broke")
    error_list(server, project["path_with_namespace"], lambda body: len(body["errors"]) == 2)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: titles(page) == {"alpha broke", "beta broke"}, timeout=WAIT)
    qtbot.keyClicks(page.filters.search, "alpha")
    qtbot.keyClick(page.filters.search, "\r")
    qtbot.waitUntil(lambda: titles(page) == {"alpha broke"} and not page.loading, timeout=WAIT)

    search = page.filters.search
    clear = next(button for button in search.findChildren(QToolButton) if button.isVisibleTo(search))
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)  # the field's ✕
    assert page.filters.search.text() == ""
    qtbot.waitUntil(lambda: titles(page) == {"alpha broke", "beta broke"}, timeout=WAIT)


def test_the_status_filter_offers_all(qtbot, make_window, server, triaged):
    page = errors_page(qtbot, make_window, server, triaged)
    assert titles(page) == {"gamma broke"}
    assert [page.filters.status.itemText(index) for index in range(page.filters.status.count())] == [
        "Unresolved", "Resolved", "Ignored", "All"]
    page.filters.status.setCurrentIndex(page.filters.status.findText("All"))
    qtbot.waitUntil(lambda: titles(page) == {"gamma broke", "delta broke"}, timeout=WAIT)
    statuses = {page.model.data(page.model.index(row, ErrorListModel.TITLE)):
                page.model.data(page.model.index(row, ErrorListModel.STATUS)) for row in range(2)}
    assert statuses == {"gamma broke": "Unresolved", "delta broke": "Resolved"}
    page.filters.status.setCurrentIndex(page.filters.status.findText("Resolved"))
    qtbot.waitUntil(lambda: titles(page) == {"delta broke"}, timeout=WAIT)


def test_the_search_placeholder_is_read_whole_and_titles_in_full_in_tooltips(qtbot, make_window, server, triaged):
    page = errors_page(qtbot, make_window, server, triaged)
    field: QLineEdit = page.filters.search
    option = QStyleOptionFrame()
    field.initStyleOption(option)
    text_area = field.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, field)
    clear_button = 24  # the ✕ takes the right end of the field
    assert field.fontMetrics().horizontalAdvance(field.placeholderText()) <= text_area.width() - clear_button
    assert "is:resolved" in field.toolTip() and "release:" in field.toolTip()
    model = page.model
    tooltip = model.data(model.index(0, ErrorListModel.TITLE), 3)  # Qt.ToolTipRole
    assert tooltip.startswith("gamma broke")


def test_the_search_filters_as_you_type(qtbot, make_window, server, api):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "alpha broke")
    send_errors(dsn, "beta broke")
    error_list(server, project["path_with_namespace"], lambda body: len(body["errors"]) == 2)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: titles(page) == {"alpha broke", "beta broke"}, timeout=WAIT)
    qtbot.keyClicks(page.filters.search, "beta")  # no Enter
    qtbot.waitUntil(lambda: titles(page) == {"beta broke"} and not page.loading, timeout=WAIT)
    assert page.filters.searched == "beta"

"""Findings of a walk at 1100×700 and 900×600 with events arriving: the header at 900 px, the selection through a
Status filter change, tag values in the Tags pane, the question about a draft rule on quit."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from tests.console.shell.conftest import WAIT, connect
from tests.console.shell.test_hour_of_use import alert_rule_drafted, project_page_shown, two_errors_listed
from tests.sdk_errors import failed_checkouts
from tests.support import ApiHelper


def test_the_header_keeps_the_whole_server_address_at_900_px(qtbot, make_window, server):
    """The walk's header read "Connected to local server http://127.0.0.1:32…": the address is what says where
    everything on screen comes from; the user's name gives way first."""
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.resize(900, 600)
    bar = window.connection_bar
    bar.show_connection(window.context, local=True)  # the longest wording: the demo's local server
    qtbot.waitUntil(lambda: bar.server_label.width() > 0 and window.width() == 900, timeout=WAIT)
    qtbot.wait(50)  # the layout settles after the resize
    assert bar.server_label.full_text() == f"Connected to local server {server.url}"
    assert not bar.server_label.is_cut(), (bar.server_label.width(), bar.server_label.text())
    assert bar.user_label.width() > 0 and bar.user_label.full_text().startswith("as ")


def test_a_status_filter_change_keeps_the_selected_error_where_it_is_still_listed(qtbot, make_window, server, api):
    _window, page, _path = two_errors_listed(qtbot, make_window, server, api)
    page.table.selectRow(1)
    chosen = page.model.error_at(1)
    qtbot.waitUntil(lambda: page.detail.error_id == chosen.id, timeout=WAIT)
    status = page.filters.status
    status.setCurrentIndex(status.findData("all"))  # every status: the chosen error is still listed
    qtbot.waitUntil(lambda: not page.loading and page.model.rowCount() == 2, timeout=WAIT)
    qtbot.waitUntil(lambda: page.detail.error_id == chosen.id, timeout=WAIT)
    selected = page.selected_error()
    assert selected is not None and selected.id == chosen.id
    status.setCurrentIndex(status.findData("resolved"))  # not listed there: nothing is selected, nothing shown
    qtbot.waitUntil(lambda: not page.loading and page.model.rowCount() == 0, timeout=WAIT)
    assert page.selected_error() is None and page.detail.error_id is None


def test_tag_values_are_whole_in_the_tags_pane_at_900x600(qtbot, make_window, server, api):
    """The walk at 900×600 read release values as "we…": the share bar and the key kept their width while the
    values, what the pane is for, got what was left; and the facets had 1½ rows' height."""
    project = failed_checkouts(server, api)
    window = make_window()
    window.resize(900, 600)
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    page.detail.sections.setCurrentWidget(page.facets_pane)
    facets = page.facets_pane.facets
    qtbot.waitUntil(lambda: facets.facets.rowCount() > 0, timeout=WAIT)
    qtbot.wait(50)  # the layout settles
    model, header, metrics = facets.facets, facets.horizontalHeader(), facets.fontMetrics()
    values = [model.index(row, model.VALUE).data() for row in range(model.rowCount())]
    # Every value the length of a release or a browser ("shop@1.0.0", "Firefox 121.0") is whole; longer ones are
    # cut with the whole value in the row's tooltip.
    limit = metrics.horizontalAdvance("Firefox 121.0")
    short = [value for value in values if metrics.horizontalAdvance(value) <= limit]
    assert "shop@1.0.0" in short
    widest = max(metrics.horizontalAdvance(value) for value in short)
    assert header.sectionSize(model.VALUE) >= widest + 8, (header.sectionSize(model.VALUE), values)
    assert header.sectionSize(model.VALUE) == max(header.sectionSize(column) for column in range(model.columnCount()))
    share = model.SHARE
    assert header.sectionViewportPosition(share) + header.sectionSize(share) <= facets.viewport().width()
    # The facets have the pane's height until a value is chosen (they showed 1½ rows beside an empty event list).
    pane = page.facets_pane
    assert not pane.tagged.isVisible()
    assert facets.viewport().height() >= 3 * facets.verticalHeader().defaultSectionSize()
    facets.choose("release", "shop@1.0.0")
    qtbot.waitUntil(lambda: pane.tagged.isVisible() and pane.tagged.events.rowCount() > 0, timeout=WAIT)


def test_quitting_with_an_unsaved_rule_shows_the_alerts_page_holding_it(qtbot, make_window, server, api):
    """The walk's question about a draft rule stood over the Settings page, far from the draft."""
    window, tab, page = alert_rule_drafted(qtbot, make_window, server, api)
    tab.pages.setCurrentWidget(tab.settings_page)  # the user moves on, the draft left behind
    window.tabs.show_tab("overview")
    window.close()  # Ctrl+Q
    qtbot.waitUntil(lambda: page.question is not None and page.question.isVisible(), timeout=WAIT)
    assert window.tabs.current_feature() is tab and tab.pages.currentWidget() is page
    assert page.editor.name.text() == "Night shift"
    page.question.button(QMessageBox.StandardButton.Discard).click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT)


def settings_drafted(qtbot, make_window, server, api):
    """A window whose Settings page holds an external Sentry typed in, not saved; (window, tab, page)."""
    _project, window, tab, page = project_page_shown(qtbot, make_window, server, api, "settings_page")
    qtbot.waitUntil(lambda: page.loaded is not None, timeout=WAIT)
    page.external.setChecked(True)
    page.api_host.setText("http://127.0.0.1:9000")
    return window, tab, page


def test_unsaved_settings_of_the_last_connection_do_not_stay_after_connecting_as_someone_else(
        qtbot, make_window, server, api):
    """The walk connected as another user with an external Sentry half typed in Settings: the greyed form kept the
    address, the masked token, the failed test and the window's modified mark until a project was chosen."""
    window, tab, page = settings_drafted(qtbot, make_window, server, api)
    page.token.setText("sntrys-typed-by-root")
    assert page.modified and window.isWindowModified()
    _user, token = ApiHelper(server).user()
    connect(window, qtbot, server.url, token)
    qtbot.waitUntil(lambda: not window.context.is_admin and tab.project is None, timeout=WAIT)
    qtbot.waitUntil(lambda: not page.modified and not window.isWindowModified(), timeout=WAIT)
    assert page.api_host.text() == "" and page.token.text() == "" and page.connection_status.text() == ""

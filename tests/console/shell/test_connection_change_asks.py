"""A connection change drops what a tab holds unsaved, so Connect…, Start local server and Disconnect ask first,
as quitting does: Save, Discard or Cancel, over the page holding the changes."""

from __future__ import annotations

from tests.console.shell.conftest import WAIT
from tests.console.shell.test_hour_of_use import alert_rule_drafted
from tests.console.shell.test_unsaved_settings import Answer, answer
from tests.console.shell.test_walk_findings import settings_drafted


def test_disconnect_asks_about_unsaved_settings_over_the_settings_page(qtbot, make_window, server, api):
    window, tab, page = settings_drafted(qtbot, make_window, server, api)
    tab.pages.setCurrentWidget(tab.errors_page)  # asked to leave: Discard would lose the draft, so keep it
    answer(qtbot, page, Answer.Cancel)
    window.tabs.show_tab("overview")

    window.connection_bar.disconnect_button.click()
    answer(qtbot, page, Answer.Cancel)  # the draft stays, and so does the connection
    assert window.tabs.current_feature() is tab and tab.pages.currentWidget() is page
    assert window.context.is_connected and page.api_host.text() == "http://127.0.0.1:9000"

    window.actions_.by_name["disconnect"].trigger()  # Ctrl+Shift+D
    answer(qtbot, page, Answer.Discard)
    qtbot.waitUntil(lambda: not window.context.is_connected, timeout=WAIT)


def test_connect_and_start_local_server_ask_about_an_unsaved_rule(qtbot, make_window, server, api):
    window, tab, page = alert_rule_drafted(qtbot, make_window, server, api)
    window.tabs.show_tab("overview")
    window.actions_.by_name["local_server"].trigger()  # Ctrl+L
    answer(qtbot, page, Answer.Cancel)
    assert window.local_server is None and window.context.client.base_url == server.url
    assert window.tabs.current_feature() is tab and tab.pages.currentWidget() is page

    window.connection_bar.connect_button.click()
    answer(qtbot, page, Answer.Cancel)
    assert window.connection_dialog is None and page.editor.name.text() == "Night shift"
    window.actions_.by_name["connect"].trigger()  # Ctrl+O
    answer(qtbot, page, Answer.Discard)
    qtbot.waitUntil(lambda: window.connection_dialog is not None and window.connection_dialog.isVisible(),
                    timeout=WAIT)
    window.connection_dialog.reject()

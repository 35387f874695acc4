"""The Settings page's connection test of an external Sentry, in the main window at its default size against the
real server: a failure says what really failed and how to fix it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QToolTip

from console.main_window import DEFAULT_SIZE
from tests.console.shell.conftest import WAIT, connect

ALLOW_LOCAL = {"allow_local_requests_from_web_hooks_and_services": False}


def settings_page(qtbot, make_window, server, api):
    api.root.put("/application/settings", json=ALLOW_LOCAL).raise_for_status()  # the server's default
    project = api.project()
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    tab = window.tabs.current_feature()
    qtbot.waitUntil(lambda: tab.project is not None, timeout=WAIT)
    tab.pages.setCurrentWidget(tab.settings_page)
    page = tab.settings_page
    qtbot.waitUntil(lambda: page.loaded is not None, timeout=WAIT)
    return page


def try_connection(qtbot, page, api_host: str) -> str:
    page.external.setChecked(True)
    page.api_host.setText(api_host)
    page.token.setText("sntrys-some-token")
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.connect_button.isEnabled() and page.connection_status.text() != "Connecting…",
                    timeout=WAIT)
    return page.connection_status.text()



def test_a_refused_loopback_address_says_how_an_administrator_allows_it(qtbot, make_window, server, api):
    """In plain words, naming the setting as the admin area labels it; the API path and the setting's own name
    an administrator types are in the details (the tooltip), not in the sentence."""
    page = settings_page(qtbot, make_window, server, api)
    text = try_connection(qtbot, page, "http://127.0.0.1:9000")
    assert "auth token" not in text.lower()
    assert "requests to localhost are not allowed" in text
    assert "Admin area > Settings > Network > Outbound requests" in text
    assert "\u201cAllow requests to the local network from webhooks and integrations\u201d" in text
    assert "/api/" not in text and "allow_local_requests" not in text and "_" not in text
    details = page.connection_status.toolTip()
    assert "PUT /api/v4/application/settings" in details
    assert "allow_local_requests_from_web_hooks_and_services=true" in details
    assert "Requests to localhost are not allowed" in details  # the server's own words
    # The details read as a tooltip, in the tooltip's colours: the message's red is its own.
    QToolTip.showText(page.connection_status.mapToGlobal(QPoint(4, 4)), details, page.connection_status)
    qtbot.waitUntil(QToolTip.isVisible, timeout=WAIT)
    tip = next(widget for widget in QApplication.topLevelWidgets() if widget.objectName() == "qtooltip_label")
    tip.ensurePolished()
    assert tip.palette().color(QPalette.ColorRole.WindowText) != page.connection_status.palette().color(
        QPalette.ColorRole.WindowText)
    QToolTip.hideText()
    assert page.connection_status.isVisible() and page.connection_status.width() > 0


def test_a_dns_failure_says_the_host_name_did_not_resolve(qtbot, make_window, server, api):
    page = settings_page(qtbot, make_window, server, api)
    text = try_connection(qtbot, page, "https://sentry.no-such-host.invalid")
    assert "auth token" not in text.lower()
    assert "could not resolve the host name sentry.no-such-host.invalid (DNS)" in text
    assert "/api/" not in text and page.connection_status.toolTip().startswith("The server said: ")

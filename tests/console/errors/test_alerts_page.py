"""The Alerts page against the real server: the editor validates as you type, saves through GlitchTip's
alerts API, sends test notifications to a real receiver and shows the delivery log with failures in red."""

from __future__ import annotations

import datetime as dt

import pytest
from PySide6.QtCore import Qt

from console.core.api.alerts import RecipientDraft, RuleDraft
from console.errors.alert_models import DeliveryModel
from console.looks import colour
from outpost_server.accounts import access
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab
from tests.server.alerts.flows import allow_local_requests
from tests.server.alerts.receivers import HttpReceiver, receiver  # noqa: F401


def _open_alerts(qtbot, context, server, token, path):
    connect(qtbot, context, server.url, token)
    tab = open_tab(qtbot, context)
    choose_project(qtbot, tab, path)
    tab.pages.setCurrentWidget(tab.alerts_page)
    page = tab.alerts_page
    # The editor is filled in only once the project's rules are on screen (loading resets it).
    qtbot.waitUntil(lambda: page.loaded_project == tab.project.id, timeout=WAIT)
    return page


def _add(page, channel: str, target: str) -> None:
    page.editor.channel.setCurrentIndex(page.editor.channel.findData(channel))
    page.editor.target.setText(target)


def test_the_editor_explains_as_you_type_and_saves_a_rule(qtbot, qtmodeltester, qloop_running, context, server, api,
                                                          receiver: HttpReceiver):  # noqa: F811
    project = api.project()
    allow_local_requests(server)
    try:
        page = _open_alerts(qtbot, context, server, server.root_token, project["path_with_namespace"])
        page.editor.name.setText("")
        assert not page.editor.save_button.isEnabled()
        assert "Give the rule a name." in page.editor.problems.text()
        page.editor.name.setText("Production errors")
        page.editor.on_new.setChecked(False)
        assert "Choose at least one condition." in page.editor.problems.text()
        page.editor.count_events.setChecked(True)
        page.editor.quantity.setValue(3)
        page.editor.environments.setText("production, canary")
        _add(page, "json_webhook", "ftp://example.com/hook")
        assert "Enter the receiver's http:// or https:// URL." in page.editor.problems.text()
        assert not page.editor.add_recipient_button.isEnabled()
        page.editor.target.setText(receiver.url + "/from-console")
        assert page.editor.add_recipient_button.isEnabled()
        page.editor.add_recipient_button.click()
        assert page.editor.problems.text() == "" and page.editor.save_button.isEnabled()
        page.editor.save_button.click()
        qtbot.waitUntil(lambda: page.editor.result.text().startswith("Copy the signing secret now"), timeout=WAIT)
        qtbot.waitUntil(lambda: page.rules.rowCount() == 1, timeout=WAIT)

        organization, slug = project["path_with_namespace"].split("/")
        [stored] = api.root.get(f"{server.url}/api/0/projects/{organization}/{slug}/alerts/",
                                headers={"Authorization": f"Bearer {server.root_token}"}).json()
        assert (stored["name"], stored["quantity"], stored["environments"]) == (
            "Production errors", 3, ["canary", "production"])
        assert stored["alertRecipients"][0]["url"] == receiver.url + "/from-console"

        page.rule_table.selectRow(0)
        qtbot.waitUntil(lambda: page.editor.test_button.isEnabled(), timeout=WAIT)
        receiver.statuses[:] = [500]
        page.editor.test_button.click()
        qtbot.waitUntil(lambda: "failed: the receiver answered 500" in page.editor.result.text(), timeout=WAIT)
        qtbot.waitUntil(lambda: page.deliveries.rowCount() == 1, timeout=WAIT)
        failed = page.deliveries.index(0, DeliveryModel.HEADERS.index("Last error"))
        assert page.deliveries.data(failed) == "the receiver answered 500"
        assert page.deliveries.data(failed, Qt.ItemDataRole.ForegroundRole).color() == colour("error")
        page.editor.test_button.click()
        qtbot.waitUntil(lambda: page.editor.result.text() == "Webhook (signed JSON): sent", timeout=WAIT)
        assert len(receiver.at("/from-console")) == 2
        for model in (page.rules, page.editor.recipients, page.deliveries):
            qtmodeltester.check(model)
    finally:
        allow_local_requests(server, False)


@pytest.mark.expected_log(r"WARNING console\.context Saving the alert rule failed: .*not allowed to do this \(403\)")
def test_developers_are_told_they_cannot_change_rules(qtbot, qloop_running, context, server, api):
    project, tokens = api.project_with_roles({"developer": access.DEVELOPER})
    page = _open_alerts(qtbot, context, server, tokens["developer"], project["path_with_namespace"])
    page.editor.name.setText("Mine")
    _add(page, "email", "me@example.com")
    page.editor.add_recipient_button.click()
    page.editor.save_button.click()
    qtbot.waitUntil(lambda: "Only Maintainers and Owners" in page.editor.result.text(), timeout=WAIT)
    assert page.rules.rowCount() == 0


def test_a_rule_on_failing_monitors_alone_is_saved_with_its_monitor(qtbot, qloop_running, context, server, api):
    project = api.project()
    page = _open_alerts(qtbot, context, server, server.root_token, project["path_with_namespace"])
    page.editor.name.setText("Nightly jobs")
    page.editor.on_new.setChecked(False)
    assert "Choose at least one condition." in page.editor.problems.text()
    page.editor.on_monitor.setChecked(True)
    page.editor.monitor_slug.setText(" nightly-backup ")
    _add(page, "email", "ops@example.com")
    page.editor.add_recipient_button.click()
    assert page.editor.problems.text() == "" and page.editor.save_button.isEnabled()
    page.editor.save_button.click()
    qtbot.waitUntil(lambda: page.rules.rowCount() == 1, timeout=WAIT)
    assert page.rules.data(page.rules.index(0, 1)) == "monitor nightly-backup fails"
    organization, slug = project["path_with_namespace"].split("/")
    [stored] = api.root.get(f"{server.url}/api/0/projects/{organization}/{slug}/alerts/",
                            headers={"Authorization": f"Bearer {server.root_token}"}).json()
    assert (stored["onMonitorFailure"], stored["monitorSlug"], stored["onNewError"]) == (True, "nightly-backup", False)


@pytest.mark.expected_log(r"WARNING console\.context Saving the alert rule failed: The server rejected the request "
                          r"as invalid\. Server said: recipient 1: url is blocked: Requests to localhost")
def test_a_refused_rule_says_the_server_s_reason(qtbot, qloop_running, context, server, api):
    project = api.project()
    page = _open_alerts(qtbot, context, server, server.root_token, project["path_with_namespace"])
    page.editor.name.setText("To my laptop")
    _add(page, "json_webhook", "http://127.0.0.1:9/hook")  # local addresses are refused unless allowed
    page.editor.add_recipient_button.click()
    page.editor.save_button.click()
    qtbot.waitUntil(lambda: page.editor.result.text().startswith("Not saved:"), timeout=WAIT)
    assert "url is blocked: Requests to localhost are not allowed" in page.editor.result.text()
    assert "allow_local_requests_from_web_hooks_and_services" in page.editor.result.text()
    assert page.rules.rowCount() == 0


def test_email_is_said_to_wait_where_the_server_cannot_send_it(qtbot, qloop_running, context, server, api):
    assert not api.root.get("/application/mail").json()["configured"], "this server has no SMTP settings"
    project = api.project()
    page = _open_alerts(qtbot, context, server, server.root_token, project["path_with_namespace"])
    assert page.editor.channel.currentData() == "email"
    qtbot.waitUntil(lambda: page.editor.mail_note.isVisible(), timeout=WAIT)
    assert "cannot send email" in page.editor.mail_note.text()
    _add(page, "json_webhook", "https://example.com/hook")
    assert not page.editor.mail_note.isVisible()
    _add(page, "email", "")
    page.editor.add_recipient_button.click()
    _add(page, "json_webhook", "")
    assert page.editor.mail_note.isVisible(), "an Email recipient is on the rule"


def test_the_delivery_log_says_when_in_words_and_is_read_again_when_looked_at(
        qtbot, qloop_running, context, server, api, receiver: HttpReceiver):  # noqa: F811
    project = api.project()
    allow_local_requests(server)
    try:
        page = _open_alerts(qtbot, context, server, server.root_token, project["path_with_namespace"])
        page.editor.name.setText("Hooked")
        _add(page, "json_webhook", receiver.url + "/log")
        page.editor.add_recipient_button.click()
        page.editor.save_button.click()
        qtbot.waitUntil(lambda: page.rules.rowCount() == 1 and page.editor.test_button.isEnabled(), timeout=WAIT)
        assert page.deliveries.rowCount() == 0
        # A delivery made elsewhere (another console, the server's own alerts) while the log is not on screen.
        organization, slug = project["path_with_namespace"].split("/")
        rule_id = page.editing.id
        made_from = dt.datetime.now()
        api.root.post(f"{server.url}/api/0/projects/{organization}/{slug}/alerts/{rule_id}/test/",
                      headers={"Authorization": f"Bearer {server.root_token}"}).raise_for_status()
        page.sections.setCurrentIndex(1)  # Delivery log
        qtbot.waitUntil(lambda: page.deliveries.rowCount() == 1, timeout=WAIT)
        when = page.deliveries.index(0, 0)
        assert page.deliveries.data(when) == "just now"
        # The delivery's local year: the one it was made in, or the next if local New Year fell since.
        years = {str(moment.year) for moment in (made_from, dt.datetime.now())}
        assert page.deliveries.data(when, Qt.ItemDataRole.ToolTipRole)[:4] in years
    finally:
        allow_local_requests(server, False)


def test_email_says_delivery_depends_on_the_mail_setup_a_non_administrator_cannot_see(qtbot, qloop_running, context,
                                                                                      server, api):
    """Only administrators may read /application/mail: anyone else choosing Email is told plainly that delivery
    depends on a setup only an administrator can see."""
    project, tokens = api.project_with_roles({"maintainer": access.MAINTAINER})
    page = _open_alerts(qtbot, context, server, tokens["maintainer"], project["path_with_namespace"])
    assert not context.is_admin and page.editor.channel.currentData() == "email"
    qtbot.waitUntil(lambda: page.editor.mail_note.isVisible(), timeout=WAIT)
    assert "only an administrator can see" in page.editor.mail_note.text()
    _add(page, "json_webhook", "https://example.com/hook")
    assert not page.editor.mail_note.isVisible()


def test_the_alerts_page_shown_again_shows_a_rule_added_meanwhile(qtbot, qloop_running, context, server, api):
    """The rules are read again when the page is shown and what it holds is no longer fresh: a rule another
    console added while another page was on screen shows without a Refresh."""
    project = api.project()
    path = project["path_with_namespace"]
    page = _open_alerts(qtbot, context, server, server.root_token, path)
    tab = page.host
    assert page.rules.rowCount() == 0
    tab.pages.setCurrentWidget(tab.keys_page)
    organization, slug = path.split("/")
    draft = RuleDraft(name="Added elsewhere", onNewError=True,
                      alertRecipients=(RecipientDraft("email", addresses=("ops@example.com",)),))
    api.root.post(f"{server.url}/api/0/projects/{organization}/{slug}/alerts/", json=draft.body(),
                  headers={"Authorization": f"Bearer {server.root_token}"}).raise_for_status()
    qtbot.wait(1_100)  # what the page read is over a second old, as it is after minutes on another page
    tab.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.rules.rowCount() == 1, timeout=WAIT)
    assert page.rules.item_at(0).name == "Added elsewhere"

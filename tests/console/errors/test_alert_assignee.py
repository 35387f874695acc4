"""The alert rule editor offers the error's assignee as a recipient: nothing to enter, saved as the server's
`assignee` channel (against the real server)."""

from __future__ import annotations

from console.core.errors.alert_form import CHANNEL_LABELS
from tests.console.errors.conftest import WAIT
from tests.console.errors.test_alerts_page import _open_alerts


def test_a_rule_notifies_the_error_s_assignee(qtbot, qloop_running, context, server, api):
    project = api.project()
    page = _open_alerts(qtbot, context, server, server.root_token, project["path_with_namespace"])
    editor = page.editor
    editor.name.setText("Tell whoever has it")
    editor.on_regression.setChecked(True)
    editor.channel.setCurrentIndex(editor.channel.findData("assignee"))
    assert not editor.target.isEnabled() and editor.add_recipient_button.isEnabled()
    editor.add_recipient_button.click()
    assert [(editor.recipients.data(editor.recipients.index(0, column))) for column in (0, 1)] == [
        CHANNEL_LABELS["assignee"], "the error's assignee"]
    assert editor.save_button.isEnabled(), editor.problems.text()
    editor.save_button.click()
    qtbot.waitUntil(lambda: page.rules.rowCount() == 1, timeout=WAIT)
    organization, slug = project["path_with_namespace"].split("/")
    [stored] = api.root.get(f"{server.url}/api/0/projects/{organization}/{slug}/alerts/",
                            headers={"Authorization": f"Bearer {server.root_token}"}).json()
    assert [recipient["recipientType"] for recipient in stored["alertRecipients"]] == ["assignee"]

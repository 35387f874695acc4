"""Journeys through the real console against the real server: the variables table, the exports list, the Alerts
page and the Overview show what the console's one store holds, whoever wrote it, and nothing of an earlier
connection."""

from __future__ import annotations

import uuid
from dataclasses import replace

import msgspec
from PySide6.QtWidgets import QMessageBox

from console.core.api.alerts import AlertRule, AlertsApi, RecipientDraft, RuleDraft
from console.core.api.exports import ExportScope
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.settings_keys import profile_key
from console.operations import Op
from console.variables.models import VariablesModel
from outpost_model.exports import Export
from tests.console.shell.conftest import WAIT, connect
from tests.console.shell.test_journeys import poll_until, watch
from tests.sdk_errors import enable_integrated


def variable_key() -> str:
    return f"JOURNEY_{uuid.uuid4().hex[:8].upper()}"


def test_a_variable_changed_elsewhere_shows_after_a_refresh_and_its_reveal_does_not_linger(
        qtbot, qtmodeltester, make_window, server, api):
    key = api.root.post("/admin/ci/variables", json={"key": variable_key(), "value": "first-secret-value",
                                                     "masked": True}).raise_for_status().json()["key"]
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    variables = window.tabs.show_tab("variables")
    qtbot.waitUntil(lambda: variables.model.row_of(key) is not None, timeout=WAIT)
    variables.select_key(key)
    variables.toggle_reveal()
    row = variables.model.row_of(key)
    assert variables.model.index(row, VariablesModel.VALUE).data() == "first-secret-value"

    # Another client changes it; the user refreshes the Overview, which reads the variables to count them.
    api.root.put(f"/admin/ci/variables/{key}", json={"value": "second-secret-value"}).raise_for_status()
    overview = window.tabs.show_tab("overview")
    with qtbot.waitSignal(overview.loaded, timeout=WAIT):
        overview.refresh()
    row = variables.model.row_of(key)
    assert variables.model.variable(row).value == "second-secret-value"
    assert variables.model.is_hidden(row)  # the old value's reveal does not carry over to the new value
    assert variables.reveal_button.text() == "Reveal value"
    qtmodeltester.check(variables.model)

    # Deleted in the tab: the Overview's count follows at once, without reading the server again.
    window.tabs.show_tab("variables")
    variables.select_key(key)
    box = variables.delete_selected()
    assert box is not None
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: variables.model.row_of(key) is None, timeout=WAIT)
    shown = overview.variables_button.text()
    on_server = len(api.root.get("/admin/ci/variables", params={"per_page": 100}).json())
    assert shown.startswith(f"Instance variables: {on_server} ")


def test_an_export_finished_seen_by_the_watcher_shows_in_the_overview_and_the_list_at_once(
        qtbot, qtmodeltester, make_window, server, tmp_path):
    scope = ExportScope("instance")
    with server.client() as rest:
        body = rest.post(scope.create_path).raise_for_status().json()
    # Requested from this console earlier: its history lists it as just created.
    requested = ExportRecord.from_api(msgspec.convert({**body, "status": "created"}, Export), scope)
    ExportHistory(tmp_path / "exports", profile_key(server.url, "root")).save([requested])
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.feature("overview")
    qtbot.waitUntil(lambda: overview.exports_button.text() == "Your exports: 1 running, 0 finished", timeout=WAIT)

    watch(window, "")
    poll_until(qtbot, window, lambda: bool(window.context.messages.news()))
    assert window.context.messages.news()[0].text.endswith(f"Export {requested.id} of {requested.scope_label} finished")
    assert overview.exports_button.text() == "Your exports: 0 running, 1 finished"
    exports = window.tabs.show_tab("exports")
    assert [(record.id, record.status) for record in exports.model.records] == [(requested.id, "finished")]
    qtmodeltester.check(exports.model)


def test_an_alert_rule_changed_elsewhere_shows_after_the_watchers_poll(qtbot, qtmodeltester, make_window, server,
                                                                      api):
    project = api.project()
    path = project["path_with_namespace"]
    enable_integrated(api.root, project["id"])  # watched: its errors, then its alert rules, are looked at
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    rule = RuleDraft(name="Night shift", onNewError=True,
                     alertRecipients=(RecipientDraft(recipientType="email", addresses=("ops@example.com",)),))
    answers: list[AlertRule] = []
    saved = Op(window.context, AlertsApi(window.context.client).save(path, rule), description="Saving").success(
        answers.append).run()
    qtbot.waitUntil(saved.done, timeout=WAIT)
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    errors.pages.setCurrentWidget(errors.alerts_page)
    page = errors.alerts_page
    qtbot.waitUntil(lambda: page.rules.rowCount() == 1, timeout=WAIT)
    page.rule_table.selectRow(0)
    assert page.editor.name.text() == "Night shift"

    # Another client renames it; the watcher's next look reads the project's rules.
    renamed = Op(window.context, AlertsApi(window.context.client).save(path, replace(rule, name="Day shift"),
                                                                       answers[0].id), description="Saving").run()
    qtbot.waitUntil(renamed.done, timeout=WAIT)
    watch(window, path)
    qtbot.waitUntil(lambda: page.rules.item_at(0) is not None and page.rules.item_at(0).name == "Day shift",
                    timeout=WAIT)
    assert page.editor.name.text() == "Day shift"  # the editor held no change of the user's: it follows
    qtmodeltester.check(page.rules)


def test_a_new_connection_shows_nothing_of_the_old_one(qtbot, make_window, server, api, tmp_path):
    project = api.project()
    path = project["path_with_namespace"]
    key = api.root.post("/admin/ci/variables", json={"key": variable_key(), "value": "old"}).json()["key"]
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    rule = RuleDraft(name="Old rule", onNewError=True,
                     alertRecipients=(RecipientDraft(recipientType="email", addresses=("ops@example.com",)),))
    saved = Op(window.context, AlertsApi(window.context.client).save(path, rule), description="Saving").run()
    qtbot.waitUntil(saved.done, timeout=WAIT)
    variables = window.tabs.show_tab("variables")
    qtbot.waitUntil(lambda: variables.model.row_of(key) is not None, timeout=WAIT)
    exports = window.tabs.show_tab("exports")
    exports.picker.set_kind("instance")
    exports.request_export()
    qtbot.waitUntil(lambda: exports.model.rowCount() == 1, timeout=WAIT)
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.findText(path) >= 0, timeout=WAIT)
    errors.select_project(path)
    errors.pages.setCurrentWidget(errors.alerts_page)
    page = errors.alerts_page
    qtbot.waitUntil(lambda: page.rules.rowCount() == 1, timeout=WAIT)
    page.rule_table.selectRow(0)

    # Signed in again as someone else (as after a demo reset: other data behind the same address).
    _user, token = api.user()
    with qtbot.waitSignal(window.context.connection_changed, timeout=WAIT):
        Op(window.context, window.context.connect_to(server.url, token), description="Connecting").run()
    assert page.rules.rowCount() == 0 and page.editing is None and page.editor.name.text() == ""
    assert variables.model.rowCount() == 0
    assert exports.model.rowCount() == 0
    assert window.context.repositories.alerts.rules(path) == []

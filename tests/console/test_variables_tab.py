"""The CI/CD variables tab, driven through its widgets against a real server with demo data."""

import json
import stat

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from console.core.api.variables import new_variable
from console.core.variables.bulk import ImportPlan, PlannedChange
from console.operations import Op
from console.variables.models import HIDDEN_VALUE, ImportPlanModel, VariablesFilterProxy, VariablesModel
from console.variables.views import VariablesTab
from tests.support import ApiHelper, start_server, unique

WAIT = 20_000


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    # A private server: these tests change the variables and the limit.
    with start_server(tmp_path_factory.mktemp("variables-gui"), demo=True) as running:
        yield running


@pytest.fixture
def rest(demo_server):
    with demo_server.client() as client:
        yield client


def connect(qtbot, context, url, token):
    Op(context, context.connect_to(url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)


@pytest.fixture
def tab(qtbot, qloop_running, context, demo_server, rest):
    connect(qtbot, context, demo_server.url, demo_server.root_token)
    widget = VariablesTab(context)
    qtbot.addWidget(widget)
    widget.resize(1100, 500)
    widget.show()
    qtbot.waitUntil(lambda: widget.model.rowCount() > 0 and widget.limit is not None, timeout=WAIT)
    yield widget
    for dialog in (widget.dialog, widget.import_dialog, widget.confirmation):
        if dialog is not None:
            dialog.close()


def row_by_key(tab, key):
    row = tab.model.row_of(key)
    assert row is not None, key
    return row


def shown_value(tab, key):
    return tab.model.index(row_by_key(tab, key), VariablesModel.VALUE).data()


def test_models_pass_the_model_tester(qtmodeltester):
    model = VariablesModel()
    model.set_variables([new_variable("A", "plain"), new_variable("B", "maskable-value", masked=True, protected=True),
                         new_variable("C", "multi\nline", "file", raw=True, description="described")])
    model.set_revealed(1, True)
    qtmodeltester.check(model)
    proxy = VariablesFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(VariablesModel.MASKED, Qt.SortOrder.DescendingOrder)
    proxy.set_filter_text("a")
    qtmodeltester.check(proxy)
    plan_model = ImportPlanModel()
    plan_model.set_plan(ImportPlan([PlannedChange("added", new_variable("N", "v")),
                                    PlannedChange("changed", new_variable("A", "w"), ("value",)),
                                    PlannedChange("invalid", new_variable("B-", "v"), (), ("bad key",))]))
    plan_model.set_result(0, "Done", failed=False)
    plan_model.set_result(1, "value is invalid", failed=True)
    qtmodeltester.check(plan_model)


def test_table_shows_variables_hidden_values_and_the_count_against_the_limit(tab, rest):
    on_server = rest.get("/admin/ci/variables", params={"per_page": 100}).json()
    limit = rest.get("/application/plan_limits").json()["ci_instance_level_variables"]
    assert tab.count_label.text() == f"{len(on_server)} of {limit}"
    assert tab.model.rowCount() == len(on_server)
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == HIDDEN_VALUE
    assert shown_value(tab, "DOCKER_REGISTRY") == "registry.acme.example:5000"
    expand = tab.model.index(row_by_key(tab, "SENTRY_AUTH_TOKEN"), VariablesModel.EXPAND)
    assert expand.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked  # raw
    # Sorted by key; the header sorts by other columns too.
    keys = [tab.proxy.index(row, 0).data() for row in range(tab.proxy.rowCount())]
    assert keys == sorted(keys, key=str.lower)
    tab.table.sortByColumn(VariablesModel.MASKED, Qt.SortOrder.DescendingOrder)
    assert tab.proxy.index(0, VariablesModel.MASKED).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked


def test_filter_as_you_type(tab, qtbot):
    total = tab.model.rowCount()
    qtbot.keyClicks(tab.filter_edit, "sonar")
    assert sorted(tab.proxy.index(row, 0).data() for row in range(tab.proxy.rowCount())) == [
        "SONAR_HOST_URL", "SONAR_TOKEN"]
    assert tab.count_label.text().startswith(f"2 shown · {total} of ")
    # A hidden value is not searchable, or the filter would leak it.
    tab.filter_edit.setText("dckr_pat")
    assert tab.proxy.rowCount() == 0
    tab.filter_edit.clear()
    assert tab.proxy.rowCount() == total


def test_reveal_row_by_row_and_copy(tab, rest):
    secret = rest.get("/admin/ci/variables/DOCKER_AUTH_TOKEN").json()["value"]
    tab.select_key("DOCKER_AUTH_TOKEN")
    assert tab.reveal_button.text() == "Reveal value"
    tab.reveal_button.click()
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == secret
    assert shown_value(tab, "SONAR_TOKEN") == HIDDEN_VALUE  # only the selected row
    assert tab.reveal_button.text() == "Hide value"
    tab.reveal_button.click()
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == HIDDEN_VALUE
    tab.copy_button.click()
    assert QGuiApplication.clipboard().text() == secret


def test_a_revealed_value_is_hidden_again_when_the_selection_moves_or_the_table_reloads(tab, qtbot, rest):
    secret = rest.get("/admin/ci/variables/DOCKER_AUTH_TOKEN").json()["value"]
    tab.select_key("DOCKER_AUTH_TOKEN")
    tab.reveal_button.click()
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == secret
    tab.select_key("SONAR_TOKEN")
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == HIDDEN_VALUE
    assert tab.reveal_button.text() == "Reveal value"

    tab.select_key("DOCKER_AUTH_TOKEN")
    tab.reveal_button.click()
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == secret
    reload = tab.refresh()
    qtbot.waitUntil(reload.done, timeout=WAIT)
    assert shown_value(tab, "DOCKER_AUTH_TOKEN") == HIDDEN_VALUE


def test_add_variable_explains_problems_while_typing(tab, qtbot, rest):
    dialog = tab.add_variable()
    qtbot.waitExposed(dialog)
    assert not dialog.save_button.isEnabled() and dialog.problems_label.isHidden()
    qtbot.keyClicks(dialog.key_edit, "BAD-KEY")
    assert dialog.problems_label.isVisible()
    assert "only letters, digits and '_' (not '-')" in dialog.problems_label.text()
    dialog.key_edit.clear()
    key = unique("GUI_")
    qtbot.keyClicks(dialog.key_edit, key)
    dialog.masked_check.setChecked(True)
    qtbot.keyClicks(dialog.value_edit, "pa$$")
    text = dialog.problems_label.text()
    assert "A masked value needs at least 8 characters; this one has 4." in text
    assert "(it contains '$')" in text and "Clear \"Expand variable reference\"" in text
    assert not dialog.save_button.isEnabled()
    dialog.expand_check.setChecked(False)
    qtbot.keyClicks(dialog.value_edit, "word!")
    assert dialog.problems_label.isHidden() and dialog.save_button.isEnabled()
    dialog.protected_check.setChecked(True)
    dialog.type_combo.setCurrentIndex(dialog.type_combo.findData("file"))
    qtbot.keyClicks(dialog.description_edit, "Made in the console")
    dialog.save_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible() and tab.model.row_of(key) is not None, timeout=WAIT)
    assert rest.get(f"/admin/ci/variables/{key}").json() == {
        "variable_type": "file", "key": key, "value": "pa$$word!", "protected": True, "masked": True, "raw": True,
        "description": "Made in the console"}
    assert shown_value(tab, key) == HIDDEN_VALUE


@pytest.mark.expected_log(r"WARNING console\.context Saving variable \w+ failed: .* has already been taken")
def test_server_refusal_is_shown_in_the_dialog(tab, qtbot, rest):
    key = unique("RACE_")
    dialog = tab.add_variable()
    qtbot.keyClicks(dialog.key_edit, key)
    qtbot.keyClicks(dialog.value_edit, "mine")
    # Someone else creates the same key after the tab loaded its list.
    assert rest.post("/admin/ci/variables", data={"key": key, "value": "theirs"}).status_code == 201
    dialog.save_button.click()
    qtbot.waitUntil(lambda: dialog.server_error_label.isVisible(), timeout=WAIT)
    assert f"({key}) has already been taken" in dialog.server_error_label.text()
    assert dialog.isVisible() and dialog.save_button.isEnabled()
    assert rest.get(f"/admin/ci/variables/{key}").json()["value"] == "theirs"
    dialog.reject()


def test_edit_variable(tab, qtbot, rest):
    key = unique("EDIT_")
    rest.post("/admin/ci/variables", data={"key": key, "value": "before", "description": "first"})
    tab.refresh()
    qtbot.waitUntil(lambda: tab.model.row_of(key) is not None, timeout=WAIT)
    tab.select_key(key)
    tab.edit_button.click()
    dialog = tab.dialog
    assert dialog.key_edit.isReadOnly() and dialog.key_edit.text() == key
    dialog.value_edit.setPlainText("after $HOME")
    dialog.expand_check.setChecked(False)
    dialog.description_edit.clear()
    dialog.save_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT)
    assert rest.get(f"/admin/ci/variables/{key}").json() == {
        "variable_type": "env_var", "key": key, "value": "after $HOME", "protected": False, "masked": False,
        "raw": True, "description": ""}
    assert shown_value(tab, key) == "after $HOME"


def test_edit_dialog_shows_why_a_value_cannot_be_masked(tab, qtbot):
    tab.select_key("DOCKER_AUTH_TOKEN")
    dialog = tab.edit_selected()
    dialog.value_edit.setPlainText("with space")
    assert "A masked value must be a single line without spaces (it contains a space)." in dialog.problems_label.text()
    assert not dialog.save_button.isEnabled()
    dialog.reject()


def test_delete_asks_for_confirmation_naming_the_key(tab, qtbot, rest):
    key = unique("GONE_")
    rest.post("/admin/ci/variables", data={"key": key, "value": "v"})
    tab.refresh()
    qtbot.waitUntil(lambda: tab.model.row_of(key) is not None, timeout=WAIT)
    tab.select_key(key)
    tab.delete_button.click()
    box = tab.confirmation
    assert key in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert rest.get(f"/admin/ci/variables/{key}").status_code == 200
    tab.select_key(key)
    box = tab.delete_selected()
    assert box.button(QMessageBox.StandardButton.Yes).text() == f"Delete {key}"
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: tab.model.row_of(key) is None, timeout=WAIT)
    assert rest.get(f"/admin/ci/variables/{key}").status_code == 404


def test_import_shows_a_preview_and_reports_each_failure(tab, qtbot, rest, tmp_path):
    count = len(rest.get("/admin/ci/variables", params={"per_page": 100}).json())
    new_keys = [unique("IMPORTED_") for _ in range(3)]
    path = tmp_path / "team.env"
    path.write_text(
        "# exported from the old CI\n"
        "LOG_FORMAT=json\n"  # unchanged
        "RELEASE_CHANNEL=beta\n"  # changed
        f"{new_keys[0]}=one\n{new_keys[1]}=two\n{new_keys[2]}=three\n"
        "BAD-KEY=rejected before sending\n")
    # Room for one more variable only: two of the three additions are refused by the server.
    rest.put("/application/plan_limits", data={"plan_name": "default", "ci_instance_level_variables": count + 1})
    try:
        tab.import_file(path)
        qtbot.waitUntil(lambda: tab.import_dialog is not None and tab.import_dialog.isVisible(), timeout=WAIT)
        dialog = tab.import_dialog
        assert dialog.summary_label.text() == (
            "3 to add, 1 to change, 1 unchanged, 1 invalid (will not be sent).")
        kinds = [(dialog.model.index(row, 0).data(), dialog.model.index(row, 1).data())
                 for row in range(dialog.model.rowCount())]
        assert kinds[:4] == [("Add", new_keys[0]), ("Add", new_keys[1]), ("Add", new_keys[2]),
                             ("Change", "RELEASE_CHANNEL")]
        assert set(kinds[4:]) == {("Invalid", "BAD-KEY"), ("Unchanged", "LOG_FORMAT")}
        dialog.exact_sync_check.setChecked(True)
        assert f"{count - 2} to remove" in dialog.summary_label.text()
        dialog.exact_sync_check.setChecked(False)
        assert "to remove" not in dialog.summary_label.text()

        dialog.apply_button.click()
        qtbot.waitUntil(lambda: dialog.result_label.text().startswith("Applied"), timeout=WAIT)
        assert dialog.result_label.text() == "Applied 2 of 4 changes. 3 failed: see the Result column."
        assert dialog.progress.value() == dialog.progress.maximum() == 4
        results = {dialog.model.index(row, 1).data(): dialog.model.result(row)
                   for row in range(dialog.model.rowCount())}
        assert results["RELEASE_CHANNEL"] == "Done"
        assert results["BAD-KEY"].startswith("Not sent: The key can contain only letters")
        refused = [key for key in new_keys if "Maximum number of ci instance level variables" in results[key]]
        assert len(refused) == 2
        created = [key for key in new_keys if results[key] == "Done"]
        assert len(created) == 1
    finally:
        rest.put("/application/plan_limits", data={"plan_name": "default", "ci_instance_level_variables": 25})
    assert rest.get("/admin/ci/variables/RELEASE_CHANNEL").json()["value"] == "beta"
    assert rest.get(f"/admin/ci/variables/{created[0]}").status_code == 200
    qtbot.waitUntil(lambda: tab.model.row_of(created[0]) is not None, timeout=WAIT)  # the tab reloaded
    rest.put("/admin/ci/variables/RELEASE_CHANNEL", data={"value": "stable"})
    rest.delete(f"/admin/ci/variables/{created[0]}")


def test_export_to_json_and_dotenv(tab, qtbot, rest, tmp_path):
    on_server = rest.get("/admin/ci/variables", params={"per_page": 100}).json()
    json_path, env_path = tmp_path / "variables.json", tmp_path / "variables.env"
    tab.export_to(json_path)
    qtbot.waitUntil(json_path.exists, timeout=WAIT)
    qtbot.waitUntil(lambda: json.loads(json_path.read_text() or "null") is not None, timeout=WAIT)
    exported = json.loads(json_path.read_text())
    assert sorted(exported, key=lambda v: v["key"]) == sorted(on_server, key=lambda v: v["key"])
    assert stat.S_IMODE(json_path.stat().st_mode) == 0o600  # it holds secrets
    tab.export_to(env_path)
    qtbot.waitUntil(lambda: env_path.exists() and env_path.read_text().endswith("\n"), timeout=WAIT)
    from console.core.variables.bulk import parse_dotenv

    assert {entry.variable.key: entry.variable.value for entry in parse_dotenv(env_path.read_text())} == {
        variable["key"]: variable["value"] for variable in on_server}


def test_non_administrators_are_told_why_the_tab_is_empty(qtbot, qloop_running, context, demo_server):
    _, token = ApiHelper(demo_server).user()
    connect(qtbot, context, demo_server.url, token)
    widget = VariablesTab(context)
    qtbot.addWidget(widget)
    assert widget.notice_label.text() == "Instance CI/CD variables can only be managed by an administrator."
    assert widget.model.rowCount() == 0 and widget.count_label.text() == "0 variables"


@pytest.mark.expected_log(r"WARNING console\.context Cannot import spaced\.env: Line 2: the key “bad key” contains")
def test_an_import_line_with_a_space_in_its_key_says_so(tab, qtbot, tmp_path):
    path = tmp_path / "spaced.env"
    path.write_text("GOOD_KEY=1\nbad key=1\n")
    tab.import_file(path)
    qtbot.waitUntil(lambda: tab.message_bar.isVisible(), timeout=WAIT)
    assert ("Line 2: the key “bad key” contains a space; keys are letters, digits and _ only (e.g. bad_key)."
            in tab.message_bar.label.text())
    assert "expected KEY=value" not in tab.message_bar.label.text()

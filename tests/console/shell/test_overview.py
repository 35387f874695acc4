"""The overview tab: its numbers against the real server, and what it says against a GitLab."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from PySide6.QtCore import Qt

from console.core.exports.store import ExportHistory, ExportRecord
from console.core.overview.data import Count, ProjectErrors
from console.core.settings_keys import profile_key
from console.errors.models import FREQUENCY_ROLE
from console.operations import Op
from console.overview.model import PROJECT_ROLE, ProjectErrorsModel
from console.overview.view import OverviewTab
from console.project_picker import COUNT_ROLE
from tests.console.conftest import OFFSCREEN_NOISE
from tests.console.shell.conftest import WAIT, connect
from tests.recorded_gitlab import TOKEN as GITLAB_TOKEN
from tests.recorded_gitlab import RecordedGitLab

NOW = dt.datetime.now(dt.UTC).isoformat()


def record(export_id: int, status: str) -> ExportRecord:
    return ExportRecord(id=export_id, scope_kind="instance", scope_id=None, scope_label="Instance", status=status,
                        created_at=NOW, finished_at=NOW if status == "finished" else None)


def row_of(model: ProjectErrorsModel, path: str) -> int:
    return next(row for row in range(model.rowCount()) if model.index(row, 0).data(PROJECT_ROLE) == path)


def _failing_monitor(server, root_client, project: dict) -> None:
    """A cron monitor of the project whose one check-in failed, and a healthy one beside it (whose margin
    outlasts the test: with the default minute, a check-in in an hour's last seconds was missed a minute past it)."""
    key = root_client.get(f"/projects/{project['id']}/error_tracking/client_keys").json()[0]["public_key"]
    config = {"schedule": {"type": "crontab", "value": "0 * * * *"}, "checkin_margin": 10}
    for slug, status in (("nightly-report", "error"), ("hourly-sync", "ok")):
        response = httpx.post(f"{server.api_url}/error_tracking/collector/api/{project['id']}/cron/{slug}/{key}/",
                              json={"status": status, "monitor_config": config})
        assert response.status_code == 202, response.text
    server.wait_for_digest()


def test_overview_numbers(qtbot, make_window, server, noisy, tmp_path, root_client):
    _failing_monitor(server, root_client, noisy)
    history = tmp_path / "exports"
    ExportHistory(history, profile_key(server.url, "root")).save([record(1, "running"), record(2, "finished"),
                                                                   record(3, "finished")])
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.feature("overview")
    assert isinstance(overview, OverviewTab)
    path = noisy["path_with_namespace"]
    qtbot.waitUntil(lambda: any(row.path == path for row in overview.model.rows), timeout=WAIT)

    assert overview.kind_value.text() == "Outpost"
    assert overview.role_value.text() == "Administrator"
    variables = len(root_client.get("/admin/ci/variables", params={"per_page": 100}).json())
    limit = root_client.get("/application/plan_limits").json()["ci_instance_level_variables"]
    assert overview.variables_button.text() == f"Instance variables: {variables} of {limit}"
    assert overview.exports_button.text() == "Your exports: 1 running, 2 finished"
    model = overview.model
    row = row_of(model, path)
    texts = [model.index(row, column).data() for column in range(model.columnCount())]
    assert texts[:4] == [path, "2", "2", "1"]  # both new today, both unresolved, beta regressed
    assert texts[ProjectErrorsModel.MONITORS] == "1"  # nightly-report failed; hourly-sync is fine
    assert sum(model.index(row, ProjectErrorsModel.TREND).data(FREQUENCY_ROLE)) == 3  # events in the last 24 hours


def test_overview_items_open_their_tab_filtered(qtbot, make_window, server, noisy, tmp_path):
    ExportHistory(tmp_path / "exports", profile_key(server.url, "root")).save([record(7, "finished")])
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.feature("overview")
    path = noisy["path_with_namespace"]
    qtbot.waitUntil(lambda: any(row.path == path for row in overview.model.rows), timeout=WAIT)

    overview.table.doubleClicked.emit(overview.model.index(row_of(overview.model, path), 0))
    errors = window.tabs.current_feature()
    assert window.tabs.current_name() == "errors"
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == path, timeout=WAIT)
    qtbot.waitUntil(lambda: errors.errors_page.model.rowCount() == 2, timeout=WAIT)

    overview.exports_button.click()
    exports = window.tabs.current_feature()
    assert window.tabs.current_name() == "exports"
    # The history is read off the UI thread; the export is selected as soon as it is listed.
    qtbot.waitUntil(lambda: exports.selected() is not None and exports.selected().id == 7, timeout=WAIT)
    overview.variables_button.click()
    assert window.tabs.current_name() == "variables"


def test_against_gitlab_the_overview_counts_through_graphql_and_says_what_is_missing(qtbot, qloop_running,
                                                                                      context, tmp_path):
    with RecordedGitLab() as gitlab:
        Op(context, context.connect_to(gitlab.url, GITLAB_TOKEN), description="Connecting").run()
        qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
        tab = OverviewTab(context, history_dir=tmp_path)
        qtbot.addWidget(tab)
        tab.show()
        qtbot.waitUntil(lambda: tab.overview is not None, timeout=WAIT)
        assert tab.kind_value.text() == "GitLab"
        # The recorded list: one unresolved error, first seen in 2024, ten events in its last hour.
        [row] = tab.model.rows
        assert (row.path, row.new_today.text, row.unresolved.text, sum(row.frequency)) == (
            "diaspora/diaspora-client", "0", "1", 10)
        assert row.regressions.text == "not available"
        index = tab.model.index(0, ProjectErrorsModel.REGRESSIONS)
        reason = "GitLab's API does not say which errors regressed"
        assert index.data(Qt.ItemDataRole.ToolTipRole) == f"Not available: {reason}"
        assert "Some numbers are not available" in tab.projects_note.text()
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def test_overview_shows_reasons_instead_of_zeros(qtbot, qapp, context, tmp_path):
    tab = OverviewTab(context, history_dir=tmp_path)
    qtbot.addWidget(tab)
    missing = Count(None, "this server serves error lists to browser sessions only")
    tab.model.set_rows([ProjectErrors("group/app", missing, missing, missing)])
    index = tab.model.index(0, ProjectErrorsModel.UNRESOLVED)
    assert index.data() == "not available"
    assert index.data(Qt.ItemDataRole.ToolTipRole) == f"Not available: {missing.reason}"


def test_project_errors_model_passes_the_model_tester(qtmodeltester, qapp):
    model = ProjectErrorsModel()
    model.set_rows([ProjectErrors("a/b", Count(1), Count(5, capped=True), Count(0), (0, 2, 1), NOW),
                    ProjectErrors("c/d", Count(None, "no"), Count(None, "no"), Count(None, "no"))])
    qtmodeltester.check(model)
    assert model.index(0, ProjectErrorsModel.UNRESOLVED).data() == "5+"


# The completion popup asks for what the offscreen platform cannot do (the marker replaces conftest's).
@pytest.mark.qt_log_ignore("This plugin does not support raise", "does not support grabbing", OFFSCREEN_NOISE)
def test_error_tracking_picker_filters_as_you_type_and_shows_counts(qtbot, make_window, server, noisy):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.feature("overview")
    path = noisy["path_with_namespace"]
    qtbot.waitUntil(lambda: any(row.path == path for row in overview.model.rows), timeout=WAIT)
    errors = window.tabs.show_tab("errors")
    picker = errors.project_picker
    qtbot.waitUntil(lambda: picker.findText(path) >= 0, timeout=WAIT)
    qtbot.waitUntil(lambda: picker.itemData(picker.findText(path), COUNT_ROLE) == "2", timeout=WAIT)

    picker.setFocus()
    picker.lineEdit().clear()
    qtbot.keyClicks(picker.lineEdit(), path.split("/")[-1][-6:])  # the end of the name, not its start
    completer = picker.completer()
    qtbot.waitUntil(lambda: completer.completionCount() >= 1, timeout=WAIT)
    completions = [completer.completionModel().index(row, 0).data() for row in range(completer.completionCount())]
    assert path in completions
    completer.activated[str].emit(path)
    qtbot.waitUntil(lambda: errors.project is not None and errors.project.path_with_namespace == path,
                    timeout=WAIT)

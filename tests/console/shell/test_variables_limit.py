"""The instance's limit on its CI/CD variables is held once, by the variables repository: whichever page read it
last, the variables tab and the Overview show the same figure."""

from __future__ import annotations

from tests.console.shell.conftest import WAIT, connect


def test_a_limit_read_by_the_variables_tab_shows_on_the_overview_without_its_refresh(qtbot, make_window, server,
                                                                                     api):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    overview = window.tabs.feature("overview")
    before = api.root.get("/application/plan_limits").json()["ci_instance_level_variables"]
    qtbot.waitUntil(lambda: overview.variables_button.text().endswith(f" of {before}"), timeout=WAIT)
    raised = before + 7
    api.root.put("/application/plan_limits",
                 json={"plan_name": "default", "ci_instance_level_variables": raised}).raise_for_status()
    try:
        variables = window.tabs.show_tab("variables")  # its load reads the limit again
        qtbot.waitUntil(lambda: variables.count_label.text().endswith(f" of {raised}"), timeout=WAIT)
        assert variables.limit == raised
        # The Overview was not shown, so it read nothing; it draws the limit the repository holds now.
        assert overview.variables_button.text().endswith(f" of {raised}")
    finally:
        api.root.put("/application/plan_limits",
                     json={"plan_name": "default", "ci_instance_level_variables": before}).raise_for_status()

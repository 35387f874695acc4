"""One action registry: the menus show what the window and the tabs declare, and a tab's buttons and context
menus use the very same actions, so an action is enabled alike wherever it appears."""

from __future__ import annotations

from console.errors.actions import ACTIONS as ERROR_ACTIONS
from console.errors.actions import TRIAGE
from console.exports.actions import ACTIONS as EXPORT_ACTIONS
from console.themes import MENU_TEXTS
from console.variables.actions import ACTIONS as VARIABLE_ACTIONS
from tests.console.shell.conftest import WAIT, connect, error_list
from tests.sdk_errors import enable_integrated, send_errors

TAB_ACTIONS = {"variables": VARIABLE_ACTIONS, "exports": EXPORT_ACTIONS, "errors": ERROR_ACTIONS}


def menu_texts(window, menu: str) -> list[str]:
    return [action.text() for action in window.menus[menu].actions() if not action.isSeparator()]


def test_the_menus_show_what_is_declared_and_nothing_else(make_window):
    window = make_window()
    declared = window.commands.declared()
    tab_specs = [spec for specs in TAB_ACTIONS.values() for spec in specs]
    assert set(window.actions_.by_name) == {spec.name for spec in declared} | {spec.name for spec in tab_specs}
    for menu in window.menus:
        expected = [spec.text for spec in declared if spec.menu == menu] + [
            spec.text for spec in tab_specs if spec.menu == menu]
        if menu == "view":  # and the choice of theme, a submenu that console.themes declares
            expected.append("&Theme")
        assert menu_texts(window, menu) == expected
    theme = next(action.menu() for action in window.menus["view"].actions() if action.text() == "&Theme")
    assert [action.text() for action in theme.actions()] == list(MENU_TEXTS.values())
    # The window's own actions in their declared order, the edit protocol's among them.
    assert menu_texts(window, "edit") == ["&Find", "&Copy", "&Delete…"]


def test_a_built_tab_s_actions_are_the_ones_in_the_menus_and_on_its_buttons(qtbot, make_window, server):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    stand_in = window.actions_.by_name["new_variable"]
    variables = window.tabs.show_tab("variables")
    own = variables.tab_actions()["new_variable"]
    assert window.actions_.by_name["new_variable"] is own is not stand_in
    assert own in window.menus["variables"].actions() and stand_in not in window.menus["variables"].actions()
    assert own.isEnabled() and variables.add_button.isEnabled()
    own.setEnabled(False)  # what disables the action disables its button
    assert not variables.add_button.isEnabled()
    variables.update_actions()
    assert variables.add_button.isEnabled()

    qtbot.waitUntil(lambda: variables.model.rowCount() > 0, timeout=WAIT)
    delete = window.actions_.by_name["delete"]
    variables.table.clearSelection()
    assert not delete.isEnabled() and not variables.delete_button.isEnabled()
    variables.table.selectRow(0)
    assert delete.isEnabled() and variables.delete_button.isEnabled()


def test_the_context_menu_offers_no_status_the_error_already_has(qtbot, make_window, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    send_errors(enable_integrated(api.root, project["id"]), "resolved already")
    error_list(server, path, lambda body: len(body["errors"]) == 1)
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", path))
    errors = window.tabs.current_feature()
    page = errors.errors_page
    actions = {name: window.actions_.by_name[name] for name in ("resolve", "ignore", "unresolve")}
    # The context menu: the shown error's status, then the triage of every selected row.
    assert page.table.actions() == [*actions.values(), *(window.actions_.by_name[name] for name in TRIAGE)]
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    assert not any(action.isEnabled() for action in actions.values())  # no error chosen yet
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: actions["resolve"].isEnabled(), timeout=WAIT)
    assert actions["ignore"].isEnabled() and not actions["unresolve"].isEnabled()  # it is unresolved

    actions["resolve"].trigger()
    qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=WAIT)
    page.filters.status.setCurrentIndex(page.filters.status.findData("resolved"))
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.status == "resolved", timeout=WAIT)
    assert not actions["resolve"].isEnabled()
    assert actions["ignore"].isEnabled() and actions["unresolve"].isEnabled()
    buttons = page.detail.action_buttons
    assert [buttons[status].isEnabled() for status in ("resolved", "ignored", "unresolved")] == [
        action.isEnabled() for action in actions.values()]

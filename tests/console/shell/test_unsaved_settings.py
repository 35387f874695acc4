"""Error tracking > Settings against the real server: changes not saved are marked, and nothing typed is lost
without asking, whether the user picks another project, another page or closes the window."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from tests.console.shell.conftest import WAIT, connect

Answer = QMessageBox.StandardButton


def answer(qtbot, page, button: QMessageBox.StandardButton) -> None:
    qtbot.waitUntil(lambda: page.question is not None and page.question.isVisible(), timeout=WAIT)
    page.question.button(button).click()


def active_on_server(api, project) -> bool:
    response = api.root.get(f"/projects/{project['id']}/error_tracking/settings")
    if response.status_code == 404:  # never set up
        return False
    return bool(response.raise_for_status().json()["active"])


def test_settings_mark_unsaved_changes_and_ask_before_they_are_lost(qtbot, make_window, server, api):
    first, second = api.project(), api.project()
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    tab = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: tab.project_picker.findText(second["path_with_namespace"]) >= 0, timeout=WAIT)
    tab.select_project(first["path_with_namespace"])
    page = tab.settings_page
    tab.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.baseline is not None, timeout=WAIT)
    settings_index = tab.pages.indexOf(page)
    assert not page.save_button.isEnabled() and not window.isWindowModified()

    # Marked while it differs from what the server holds; changed back, no longer.
    was_active = page.active.isChecked()
    page.active.setChecked(not was_active)
    assert page.save_button.isEnabled() and window.isWindowModified()
    assert tab.pages.tabText(settings_index) == "Settings*" and page.saved_label.text() == "Unsaved changes"
    page.active.setChecked(was_active)
    assert not page.save_button.isEnabled() and not window.isWindowModified()
    assert tab.pages.tabText(settings_index) == "Settings"

    # Another project: asked first; Cancel keeps the project and the change.
    page.active.setChecked(not was_active)
    tab.select_project(second["path_with_namespace"])
    answer(qtbot, page, Answer.Cancel)
    assert tab.project.path_with_namespace == first["path_with_namespace"]
    assert tab.project_picker.currentText() == first["path_with_namespace"]
    assert page.modified and page.active.isChecked() != was_active

    # Discard: the other project opens, nothing was saved.
    tab.select_project(second["path_with_namespace"])
    answer(qtbot, page, Answer.Discard)
    qtbot.waitUntil(lambda: tab.project is not None and tab.project.id == second["id"], timeout=WAIT)
    assert active_on_server(api, first) == was_active
    qtbot.waitUntil(lambda: page.baseline is not None and not page.modified, timeout=WAIT)

    # Another page: Save saves, then the page changes.
    second_active = page.active.isChecked()
    page.active.setChecked(not second_active)
    tab.pages.setCurrentWidget(tab.keys_page)
    assert tab.pages.currentWidget() is page  # still on screen while the user answers
    answer(qtbot, page, Answer.Save)
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.keys_page, timeout=WAIT)
    assert active_on_server(api, second) == (not second_active)
    assert not page.modified and not window.isWindowModified()

    # Closing the window: Cancel keeps it open; Discard closes it.
    tab.pages.setCurrentWidget(page)
    page.active.setChecked(second_active)
    window.close()
    answer(qtbot, page, Answer.Cancel)
    assert window.isVisible()
    window.close()
    answer(qtbot, page, Answer.Discard)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT)
    assert active_on_server(api, second) == (not second_active)

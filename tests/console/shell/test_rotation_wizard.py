"""The client key rotation wizard opened from the main window at its default size (1100×700), against the real
server: its last step can go back or be cancelled, and Finish does not wait for the old key to be deleted."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from console.main_window import DEFAULT_SIZE
from tests.console.shell.conftest import WAIT, connect
from tests.sdk_errors import enable_integrated


def test_the_last_step_offers_back_cancel_and_finish_before_deleting(qtbot, make_window, server, api):
    project = api.project()
    enable_integrated(api.root, project["id"])
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    tab = window.tabs.current_feature()
    qtbot.waitUntil(lambda: tab.project is not None, timeout=WAIT)
    keys_page = tab.keys_page
    tab.pages.setCurrentWidget(keys_page)
    qtbot.waitUntil(lambda: keys_page.model.rowCount() == 1, timeout=WAIT)
    old_key = keys_page.model.key_at(0)

    wizard = keys_page.open_rotate_wizard()
    qtbot.mouseClick(wizard.create_page.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(wizard.create_page.isComplete, timeout=WAIT)
    wizard.next()
    qtbot.waitUntil(wizard.list_page.isComplete, timeout=WAIT)
    wizard.next()
    wizard.confirm_page.confirmed.setChecked(True)
    wizard.next()
    assert wizard.currentPage() is wizard.delete_page

    back, cancel, finish = (wizard.button(which) for which in (
        QWizard.WizardButton.BackButton, QWizard.WizardButton.CancelButton, QWizard.WizardButton.FinishButton))
    assert back.isVisible() and back.isEnabled()
    assert cancel.isVisible() and cancel.isEnabled()
    assert finish.isVisible() and finish.isEnabled(), "Finish does not wait for the old key to be deleted"
    explanation = wizard.delete_page.explanation.text()
    assert f"Delete key {old_key.id} now" in explanation and "delete it later on the Client keys page" in explanation

    qtbot.mouseClick(back, Qt.MouseButton.LeftButton)
    assert wizard.currentPage() is wizard.confirm_page
    wizard.next()
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)  # without deleting: both keys stay
    qtbot.waitUntil(lambda: not wizard.isVisible(), timeout=WAIT)
    qtbot.waitUntil(lambda: keys_page.model.rowCount() == 2, timeout=WAIT)
    remaining = api.root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()
    assert {key["id"] for key in remaining} == {old_key.id, wizard.new_key.id}

"""The Error tracking tab shown again reads its project list once more when what it listed has aged, as its pages
read theirs: a project made meanwhile is offered, and the project chosen stays chosen."""

from __future__ import annotations

from tests.console.shell.conftest import WAIT, connect
from tests.sdk_errors import enable_integrated


def test_a_project_made_while_another_tab_was_shown_is_offered_when_the_tab_comes_back(qtbot, make_window, server,
                                                                                        api):
    project = api.project()
    enable_integrated(api.root, project["id"])
    chosen = project["path_with_namespace"]
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    errors = window.tabs.show_tab("errors")
    picker = errors.project_picker
    qtbot.waitUntil(lambda: picker.findText(chosen) >= 0, timeout=WAIT)
    errors.select_project(chosen)

    window.tabs.show_tab("overview")
    later = api.project()["path_with_namespace"]
    qtbot.wait(1_100)  # what the tab listed is over a second old, as it is after minutes on another tab
    assert picker.findText(later) < 0
    window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: picker.findText(later) >= 0, timeout=WAIT)
    assert picker.currentText() == chosen
    assert errors.project is not None and errors.project.path_with_namespace == chosen

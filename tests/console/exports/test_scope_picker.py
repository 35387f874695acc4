"""The exports tab's scope picker against a real server: it offers only what the user may export
(Developer or more, through GitLab's min_access_level) and explains a choice deleted meanwhile."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from outpost_server.accounts import access
from tests.console.exports.conftest import WAIT, connect, make_tab
from tests.support import ApiHelper, unique


@pytest.fixture
def exporter(server):
    """A user who is Developer in one group, Reporter in another and Guest of a third group's project."""
    api = ApiHelper(server)
    user, token = api.user()
    prefix = unique("pick")
    levels = {"dev": access.DEVELOPER, "rep": access.REPORTER, "guest": None}
    groups, projects = {}, {}
    for name, level in levels.items():
        response = api.root.post("/groups", json={"name": f"{prefix}-{name}", "path": f"{prefix}-{name}"})
        response.raise_for_status()
        groups[name] = response.json()
        projects[name] = api.project(group_id=groups[name]["id"])
        if level is not None:
            api.member("groups", groups[name]["id"], user["id"], level)
        else:
            api.member("projects", projects[name]["id"], user["id"], access.GUEST)
    return api, token, prefix, groups, projects


def listed(tab) -> list[str]:
    return [tab.picker.results.itemText(row) for row in range(tab.picker.results.count())]


def search(qtbot, tab, kind: str, text: str, expected_count: int) -> None:
    tab.picker.set_kind(kind)
    tab.picker.search_edit.setText(text)
    tab.picker.search()
    qtbot.waitUntil(lambda: tab.picker.results.count() == expected_count, timeout=WAIT)


def test_picker_lists_only_what_the_user_can_export(qtbot, qtmodeltester, live_context, server, tmp_path, exporter):
    _, token, prefix, groups, projects = exporter
    connect(qtbot, live_context, server.url, token)
    tab = make_tab(qtbot, live_context, tmp_path / "history")

    search(qtbot, tab, "project", prefix, 1)
    assert listed(tab) == [projects["dev"]["path_with_namespace"]]
    qtmodeltester.check(tab.picker.results.model())
    search(qtbot, tab, "group", prefix, 1)
    assert listed(tab) == [groups["dev"]["full_path"]]


@pytest.mark.expected_log(r"WARNING console\.context Cannot export \S+: The project \S+ no longer exists")
def test_a_deleted_choice_is_explained_and_the_list_refreshed(qtbot, live_context, server, tmp_path, exporter):
    api, token, prefix, _, projects = exporter
    connect(qtbot, live_context, server.url, token)
    tab = make_tab(qtbot, live_context, tmp_path / "history")
    search(qtbot, tab, "project", prefix, 1)
    reported = []
    live_context.error_reported.connect(lambda title, message: reported.append((title, message)))
    path = projects["dev"]["path_with_namespace"]
    assert api.root.delete(f"/projects/{projects['dev']['id']}").status_code == 202

    qtbot.mouseClick(tab.request_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: bool(reported), timeout=WAIT)
    assert reported == [(f"Cannot export {path}", f"The project {path} no longer exists, or you can no longer "
                         "export it. The project list has been refreshed: pick another.")]
    qtbot.waitUntil(lambda: tab.picker.results.count() == 0, timeout=WAIT)
    assert tab.model.rowCount() == 0

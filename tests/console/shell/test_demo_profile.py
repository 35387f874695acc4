"""The local demo server, started from the main window at its default size (1100×700): its root token is shown
with how to use it with the REST API, and what the console remembers survives the server's new port."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from console.app import reset_demo
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.repositories.exports import EXPORTS
from console.core.settings_keys import profile_key
from console.main_window import DEFAULT_SIZE, LOCAL_DEMO_PROFILE

START = 90_000  # a fresh demo server loads its demo data first


def start_demo(qtbot, window):
    window.start_local_server()
    qtbot.waitUntil(lambda: window.context.is_connected, timeout=START)
    return window.local_server


def test_the_demo_token_is_shown_and_the_profile_survives_a_new_port(qtbot, make_window):
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    local = start_demo(qtbot, window)
    first_url, token = local.url, local.root_token
    about = window.commands.show_about()
    assert about.token is not None and about.curl is not None
    assert token and about.token.field.text() == token
    assert about.curl.field.text() == f'curl -H "PRIVATE-TOKEN: {token}" {first_url}/api/v4/user'
    assert str(local.data_dir) in about.data_folder.text() and "make demo-reset" in about.data_folder.text()
    for copied in (about.token, about.curl):
        qtbot.mouseClick(copied.copy_button, Qt.MouseButton.LeftButton)
        assert QGuiApplication.clipboard().text() == copied.field.text()
    # The curl line is one line in a field of its own, not wrapped across the dialog.
    assert about.curl.field.height() < 2 * about.curl.field.fontMetrics().height() + 12
    about.close()

    # Things to remember: the Error tracking tab on a project, and an export of the instance.
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.count() > 0, timeout=START)
    path = errors.project_picker.itemText(errors.project_picker.count() - 1)
    errors.select_project(path)
    exports = window.tabs.show_tab("exports")
    exports.picker.set_kind("instance")
    exports.request_export()
    qtbot.waitUntil(lambda: exports.model.rowCount() == 1, timeout=START)
    export_id = exports.model.records[0].id
    # The history file is written in a worker thread: closing waits for nothing.
    qtbot.waitUntil(lambda: exports.history is not None and [r.id for r in exports.history.load()] == [export_id],
                    timeout=START)
    window.tabs.show_tab("errors")
    window.close()  # stops the demo server
    qtbot.waitUntil(lambda: window.local_server is None, timeout=START)

    again = make_window()
    with socket.socket() as holder:  # another program took the demo's port meanwhile
        holder.bind(("127.0.0.1", urlsplit(first_url).port))
        holder.listen()
        local = start_demo(qtbot, again)
    assert local.url != first_url and local.root_token != token, "a new port and a new token"
    said = [message.text for message in again.context.messages.news()]
    assert any(f"Port {urlsplit(first_url).port} was taken" in text and local.url in text for text in said)
    assert again.tabs.current_name() == "errors"
    errors = again.tabs.current_feature()
    qtbot.waitUntil(lambda: errors.project is not None, timeout=START)
    assert errors.project.path_with_namespace == path
    exports = again.tabs.show_tab("exports")
    qtbot.waitUntil(lambda: [record.id for record in exports.model.records] == [export_id], timeout=START)
    # Both windows follow the one context: closing them while their answers are on the way would leave
    # answers for deleted widgets.
    qtbot.waitUntil(lambda: not again.status_line.progress.isVisible(), timeout=START)


def test_after_a_demo_reset_the_exports_of_the_old_data_are_not_listed(qtbot, make_window, tmp_path):
    # The console asked the old demo data for an export (its history is kept per profile, across ports).
    history = ExportHistory(tmp_path / "exports", profile_key(LOCAL_DEMO_PROFILE, "root"))
    history.save([ExportRecord(id=1, scope_kind="instance", scope_id=None, scope_label="Instance",
                               status="finished", created_at="2026-11-27T09:00:00Z")])
    (tmp_path / "local-server").mkdir()
    assert reset_demo(tmp_path / "local-server", history_dir=tmp_path / "exports") == 0
    window = make_window()
    start_demo(qtbot, window)
    exports = window.tabs.show_tab("exports")
    qtbot.waitUntil(lambda: exports.history is not None, timeout=START)
    assert exports.model.records == [] and window.context.store.items(EXPORTS, "") == {}


def test_demo_reset_removes_the_demo_data(tmp_path, capsys):
    folder = tmp_path / "local-server"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "outpost.db").write_text("demo")
    (folder / "port").write_text("43210\n")
    history = tmp_path / "exports"
    history.mkdir()
    (history / "some other profile.json").write_text("[]")
    assert reset_demo(folder, history_dir=history) == 0
    assert [path.name for path in folder.iterdir()] == ["port"], "the next demo listens where the old one did"
    assert (folder / "port").read_text() == "43210\n"
    assert [path.name for path in history.iterdir()] == ["some other profile.json"]
    said = capsys.readouterr().out
    assert f"Removed the demo data in {folder}" in said and "copy the DSNs into your applications again" in said
    assert reset_demo(folder, history_dir=history) == 0
    assert "No demo data to remove" in capsys.readouterr().out


def test_demo_reset_refuses_while_the_demo_runs_and_its_data_survives(qtbot, make_window, tmp_path, capsys):
    window = make_window()
    local = start_demo(qtbot, window)
    before = sorted(path.name for path in local.data_dir.iterdir())
    assert reset_demo(local.data_dir, history_dir=tmp_path / "exports") == 1
    said = capsys.readouterr()
    assert "The demo is running" in said.err and "Nothing was removed" in said.err and "Removed" not in said.out
    assert sorted(path.name for path in local.data_dir.iterdir()) == before
    # The server still has its data: the error tracking tab lists the demo's projects.
    errors = window.tabs.show_tab("errors")
    qtbot.waitUntil(lambda: errors.project_picker.count() > 0, timeout=START)
    window.close()
    qtbot.waitUntil(lambda: window.local_server is None, timeout=START)
    assert reset_demo(local.data_dir, history_dir=tmp_path / "exports") == 0
    assert [path.name for path in local.data_dir.iterdir()] == ["port"]

"""Findings of a walk at 1100×700 and 900×600 with events arriving: the header at 900 px, the selection through a
Status filter change, tag values in the Tags pane."""

from __future__ import annotations

from tests.console.shell.conftest import WAIT, connect


def test_the_header_keeps_the_whole_server_address_at_900_px(qtbot, make_window, server):
    """The walk's header read "Connected to local server http://127.0.0.1:32…": the address is what says where
    everything on screen comes from; the user's name gives way first."""
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    window.resize(900, 600)
    bar = window.connection_bar
    bar.show_connection(window.context, local=True)  # the longest wording: the demo's local server
    qtbot.waitUntil(lambda: bar.server_label.width() > 0 and window.width() == 900, timeout=WAIT)
    qtbot.wait(50)  # the layout settles after the resize
    assert bar.server_label.full_text() == f"Connected to local server {server.url}"
    assert not bar.server_label.is_cut(), (bar.server_label.width(), bar.server_label.text())
    assert bar.user_label.width() > 0 and bar.user_label.full_text().startswith("as ")

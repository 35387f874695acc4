"""The variable dialog opened from the main window at its default size (1100×700), against the real server: its
layout keeps still when validation messages appear, one or several."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QWidget

from console.main_window import DEFAULT_SIZE
from tests.console.shell.conftest import WAIT, connect


def geometry(dialog) -> dict[str, QRect]:
    def on_dialog(widget: QWidget) -> QRect:
        return QRect(widget.mapTo(dialog, QPoint(0, 0)), widget.size())

    return {"dialog": QRect(QPoint(0, 0), dialog.size()), "key": on_dialog(dialog.key_edit),
            "value": on_dialog(dialog.value_edit), "description": on_dialog(dialog.description_edit),
            "masked": on_dialog(dialog.masked_check), "buttons": on_dialog(dialog.buttons)}


def test_the_variable_dialog_keeps_still_when_a_message_appears(qtbot, make_window, server):
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    connect(window, qtbot, server.url, server.root_token)
    variables = window.tabs.show_tab("variables")
    qtbot.waitUntil(lambda: variables.limit is not None, timeout=WAIT)
    dialog = variables.add_variable()
    qtbot.waitExposed(dialog)
    try:
        qtbot.wait(50)
        before = geometry(dialog)
        assert dialog.problems_label.isHidden()

        qtbot.keyClicks(dialog.key_edit, "BAD-KEY")
        qtbot.wait(50)
        assert dialog.problems_label.isVisible()
        assert geometry(dialog) == before

        dialog.masked_check.setChecked(True)
        qtbot.keyClicks(dialog.value_edit, "p a$")  # three more problems: length, a space, '$'
        qtbot.wait(50)
        assert dialog.problems_label.text().count("•") == 4
        assert geometry(dialog) == before
        # The messages stay readable: they scroll within their space.
        assert dialog.messages.isVisible() and dialog.messages.height() >= 3 * dialog.fontMetrics().lineSpacing()
    finally:
        dialog.reject()

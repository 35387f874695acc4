"""Accessible names for every control a keyboard or a screen reader can reach.

Tabs name their special widgets themselves; this fills in the rest from what a sighted user reads: a
button's text, a field's placeholder or the label next to it (its buddy or the form row's label), a
table's enclosing group. Run once a tab is built.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)


def _plain(text: str) -> str:
    return text.replace("&", "").replace("…", "").strip()


def _labelled_by(widget: QWidget) -> str:
    window = widget.window()
    for label in window.findChildren(QLabel):
        if label.buddy() is widget and label.text():
            return _plain(label.text())
    parent = widget.parentWidget()
    layout = parent.layout() if parent is not None else None
    if isinstance(layout, QFormLayout):
        row_label = layout.labelForField(widget)
        if isinstance(row_label, QLabel) and row_label.text():
            return _plain(row_label.text())
    return _label_before(layout, widget) if layout is not None else ""


def _label_before(layout: QLayout, widget: QWidget) -> str:
    """The text of a label placed just before ``widget`` in the same row, as in "Project [picker]"."""
    previous: QWidget | None = None
    for position in range(layout.count()):
        item = layout.itemAt(position)
        if item is None:
            continue
        inner = item.layout()
        if inner is not None:
            found = _label_before(inner, widget)
            if found:
                return found
        if item.widget() is widget:
            return _plain(previous.text()) if isinstance(previous, QLabel) and previous.text() else ""
        previous = item.widget() or previous
    return ""


def _enclosing_title(widget: QWidget) -> str:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QGroupBox) and parent.title():
            return _plain(parent.title())
        grand = parent.parentWidget()
        if grand is not None and isinstance(grand.parentWidget(), QTabWidget):
            tabs = grand.parentWidget()
            assert isinstance(tabs, QTabWidget)
            index = tabs.indexOf(parent)
            if index >= 0:
                return _plain(tabs.tabText(index))
        parent = grand
    return ""


def describe(widget: QWidget) -> str:
    """What a screen reader should call ``widget``, from what is written on or around it."""
    owner = widget.parentWidget()
    if isinstance(widget, QTabBar) and isinstance(owner, QTabWidget):
        return describe(owner) or "Tabs"
    if isinstance(widget, QTabWidget):
        return _plain(widget.accessibleName()) or ", ".join(_plain(widget.tabText(i)) for i in range(widget.count()))
    if isinstance(widget, QAbstractButton):
        return _plain(widget.text()) or widget.toolTip()
    if isinstance(widget, QLineEdit):
        return _labelled_by(widget) or widget.placeholderText() or widget.toolTip()
    if isinstance(widget, QComboBox):
        return (_labelled_by(widget) or widget.placeholderText() or widget.toolTip() or widget.currentText()
                or _enclosing_title(widget))
    if isinstance(widget, (QTextEdit, QPlainTextEdit)):
        return _labelled_by(widget) or widget.placeholderText() or widget.toolTip()
    if isinstance(widget, QAbstractItemView):
        return _labelled_by(widget) or _enclosing_title(widget) or widget.toolTip()
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        # A count beside a check box ("at least [5] events of one error") is named by its unit.
        return (_labelled_by(widget) or widget.toolTip()
                or " ".join(part.strip() for part in (widget.prefix(), widget.suffix()) if part.strip()))
    return _labelled_by(widget) or widget.toolTip()


def give_accessible_names(root: QWidget) -> list[QWidget]:
    """Names every focusable control under ``root`` that has no name yet; returns those still unnamed."""
    unnamed = []
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.accessibleName() or widget.focusPolicy() == Qt.FocusPolicy.NoFocus:
            continue
        if isinstance(widget, QLabel) or isinstance(widget.parentWidget(), QAbstractSpinBox):
            continue  # a label reads its own text; a spin box's inner field is the spin box
        name = describe(widget)
        if name:
            widget.setAccessibleName(name)
        else:
            unnamed.append(widget)
    return unnamed

"""Every tab rendered with a dark palette: its text stays readable (WCAG's 4.5:1 for text)."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QDialog,
    QLabel,
    QLineEdit,
    QRadioButton,
    QStackedWidget,
    QStyle,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QTabWidget,
    QWidget,
)

from console.errors.tag_facets import SHARE_ROLE, ShareBarDelegate
from console.looks import DARK, LIGHT, colour, is_dark
from tests.console.shell.conftest import WAIT, connect

TEXT_CONTRAST = 4.5
FADE_SECONDS = 1.0  # Qt fades a line edit's clear icon in over 160 ms
# A dark palette as a desktop's dark scheme sets it (Qt derives nothing from Window alone).
DARK_PALETTE = {
    QPalette.ColorRole.Window: "#202124", QPalette.ColorRole.WindowText: "#e8eaed",
    QPalette.ColorRole.Base: "#1b1b1f", QPalette.ColorRole.AlternateBase: "#26262b",
    QPalette.ColorRole.Text: "#e8eaed", QPalette.ColorRole.PlaceholderText: "#9aa0a6",
    QPalette.ColorRole.Button: "#303134", QPalette.ColorRole.ButtonText: "#e8eaed",
    QPalette.ColorRole.Highlight: "#8ab4f8", QPalette.ColorRole.HighlightedText: "#202124",
    QPalette.ColorRole.ToolTipBase: "#303134", QPalette.ColorRole.ToolTipText: "#e8eaed",
    QPalette.ColorRole.Light: "#505155", QPalette.ColorRole.Midlight: "#3c3d40", QPalette.ColorRole.Mid: "#5f6368",
    QPalette.ColorRole.Dark: "#151517", QPalette.ColorRole.Shadow: "#000000",
    QPalette.ColorRole.BrightText: "#ffffff", QPalette.ColorRole.Link: "#8ab4f8",
}


def luminance(colour_: QColor) -> float:
    def channel(value: int) -> float:
        share = value / 255
        return share / 12.92 if share <= 0.03928 else ((share + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour_.red()) + 0.7152 * channel(colour_.green()) + 0.0722 * channel(colour_.blue())


def contrast(first: QColor, second: QColor) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def rendered_contrast(image: QImage) -> float:
    """The contrast of the strongest pixel against the commonest one (the background) of rendered text."""
    pixels = Counter(image.pixel(x, y) for x in range(image.width()) for y in range(image.height()))
    background = QColor.fromRgb(pixels.most_common(1)[0][0])
    return max(contrast(QColor.fromRgb(pixel), background) for pixel in pixels)


def as_colour(value: object, fallback: QColor) -> QColor:
    if isinstance(value, QBrush):
        return value.color()
    return value if isinstance(value, QColor) else fallback


@pytest.fixture
def dark_palette(qapp):
    original = qapp.palette()
    dark = QPalette(original)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        for role, value in DARK_PALETTE.items():
            dark.setColor(group, role, QColor(value))
    qapp.setPalette(dark)
    yield dark
    qapp.setPalette(original)


def low_contrast_labels(root: QWidget) -> list[str]:
    found = []
    for label in root.findChildren(QLabel):
        if not label.isVisible() or not label.text().strip() or label.width() < 4 or label.height() < 4:
            continue
        if not label.isEnabled():  # WCAG's contrast minimum exempts inactive components (a page while it loads)
            continue
        ratio = rendered_contrast(label.grab().toImage())
        if ratio < TEXT_CONTRAST:
            found.append(f"label {label.text()[:40]!r}: {ratio:.2f}")
    return found


def low_contrast_cells(view: QAbstractItemView, rows: int = 40) -> list[str]:
    model, palette = view.model(), view.palette()
    text, base = palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base)
    found = []

    def walk(parent: QModelIndex) -> None:
        for row in range(min(model.rowCount(parent), rows)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                if not str(index.data() or "").strip():
                    continue
                foreground = as_colour(index.data(Qt.ItemDataRole.ForegroundRole), text)
                background = as_colour(index.data(Qt.ItemDataRole.BackgroundRole), base)
                ratio = contrast(foreground, background)
                if ratio < TEXT_CONTRAST:
                    found.append(f"{type(model).__name__} {str(index.data())[:40]!r}: {ratio:.2f}")
            walk(model.index(row, 0, parent))

    walk(QModelIndex())
    return found


def settled(qtbot, window) -> None:
    """The page just shown has its answers and its layout: what it asked for has started on the loop (a first
    pass of events), nothing runs any more, and the layout that the answers asked for is done (a last pass)."""
    QApplication.processEvents()
    qtbot.waitUntil(lambda: not window.status_line.progress.isVisible(), timeout=WAIT)
    QApplication.processEvents()


def low_contrast_controls(root: QWidget) -> list[str]:
    """Check boxes' and radio buttons' indicators (unchecked too) and line edits' clear icons, by their pixels."""
    found = []
    for button in root.findChildren(QAbstractButton):
        if not isinstance(button, (QCheckBox, QRadioButton)) or not button.isVisible() or not button.isEnabled():
            continue
        option = QStyleOptionButton()
        button.initStyleOption(option)
        element = (QStyle.SubElement.SE_CheckBoxIndicator if isinstance(button, QCheckBox)
                   else QStyle.SubElement.SE_RadioButtonIndicator)
        box = button.style().subElementRect(element, option, button).adjusted(-2, -2, 2, 2)
        ratio = rendered_contrast(button.grab().toImage().copy(box))
        if ratio < TEXT_CONTRAST:
            found.append(f"{type(button).__name__} {button.text()[:40]!r}: {ratio:.2f}")
    for edit in root.findChildren(QLineEdit):
        clear = [child for child in edit.children() if isinstance(child, QWidget) and child.isVisible()
                 and child.metaObject().className() == "QLineEditIconButton"]
        for icon in clear:
            ratio = faded_in_contrast(edit, icon)
            if ratio < TEXT_CONTRAST:
                found.append(f"clear icon of {edit.accessibleName()!r}: {ratio:.2f}")
    return found


def faded_in_contrast(edit: QLineEdit, icon: QWidget) -> float:
    """The clear icon's contrast once shown: Qt fades it in (about 160 ms) when the field gets its text, so a
    reading taken midway is retried until the fade can have ended."""
    deadline = time.monotonic() + FADE_SECONDS
    while True:
        ratio = rendered_contrast(edit.grab().toImage().copy(icon.geometry()))
        if ratio >= TEXT_CONTRAST or time.monotonic() > deadline:
            return ratio
        QTest.qWait(50)


def test_the_console_s_own_colours_are_readable_in_both_schemes():
    for scheme, background, text in ((LIGHT, "#ffffff", "#000000"), (DARK, DARK_PALETTE[QPalette.ColorRole.Base],
                                                                    DARK_PALETTE[QPalette.ColorRole.Text])):
        for name in ("error", "fatal", "warning", "success", "muted"):
            assert contrast(QColor(scheme[name]), QColor(background)) >= TEXT_CONTRAST, name
        assert contrast(QColor(scheme["notice"]), QColor(text)) >= TEXT_CONTRAST
        assert contrast(QColor(scheme["error"]), QColor(scheme["notice"])) >= TEXT_CONTRAST  # the crash's level


def test_the_share_percentage_is_drawn_in_the_view_s_text_colour(qapp, dark_palette):
    assert is_dark()
    model = QStandardItemModel(1, 1)  # one tag value with 42% of the events
    item = QStandardItem("42%")
    item.setData(0.42, SHARE_ROLE)
    model.setItem(0, 0, item)
    image = QImage(180, 24, QImage.Format.Format_ARGB32)
    image.fill(dark_palette.color(QPalette.ColorRole.Base))
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, 180, 24)
    option.palette = dark_palette
    painter = QPainter(image)
    painter.setPen(QColor("#000000"))  # what a view's painter may hold: the delegate must not write with it
    ShareBarDelegate().paint(painter, option, model.index(0, 0))
    painter.end()
    assert rendered_contrast(image.copy(180 - 44, 0, 40, 24)) >= TEXT_CONTRAST
    assert image.pixelColor(6, 12) == colour("bar") and image.pixelColor(120, 12) == colour("track")


def test_every_tab_is_readable_with_a_dark_palette(qtbot, dark_palette, make_window, server, noisy):
    window = make_window()
    assert is_dark()
    connect(window, qtbot, server.url, server.root_token)
    problems: list[str] = []
    for name in window.tabs.names:
        feature = window.tabs.show_tab(name)
        settled(qtbot, window)
        problems += low_contrast_labels(feature)
        problems += [problem for view in feature.findChildren(QAbstractItemView) if view.isVisible()
                     for problem in low_contrast_cells(view)]
    # The error tracking tab with an error open: its details, stack trace and events.
    window.open_target(("errors", noisy["path_with_namespace"]))
    errors = window.tabs.current_feature()
    page = errors.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.stack_trace.topLevelItemCount() > 0 and page.shown_error is not None,
                    timeout=WAIT)
    for section in range(page.detail.sections.count()):
        page.detail.sections.setCurrentIndex(section)
        settled(qtbot, window)
        problems += low_contrast_labels(page)
        problems += [problem for view in page.findChildren(QAbstractItemView) if view.isVisible()
                     for problem in low_contrast_cells(view)]
    problems += low_contrast_labels(window.connection_bar)
    assert problems == []


@pytest.fixture
def restored_looks(qapp):
    palette, style = QPalette(qapp.palette()), qapp.style().name()
    yield
    qapp.setStyle(style)
    qapp.setPalette(palette)


def test_the_dark_theme_is_readable_everywhere_and_remembered(qtbot, restored_looks, make_window, server, noisy):
    window = make_window()
    assert not is_dark()
    theme_menu = next(action.menu() for action in window.menus["view"].actions()
                      if action.menu() is not None and action.text() == "&Theme")
    dark = next(action for action in theme_menu.actions() if action.text() == "&Dark")
    dark.trigger()
    assert is_dark() and dark.isChecked()
    connect(window, qtbot, server.url, server.root_token)
    problems: list[str] = []
    for name in window.tabs.names:
        feature = window.tabs.show_tab(name)
        settled(qtbot, window)
        for page in [feature, *(tabs.widget(index) for tabs in feature.findChildren(QTabWidget)
                                for index in range(tabs.count()))]:
            page.window().activateWindow()
            parent = page.parentWidget()
            if isinstance(parent, QStackedWidget) and parent.indexOf(page) >= 0:
                parent.setCurrentWidget(page)  # a tab widget's page: show it
                settled(qtbot, window)
            problems += low_contrast_labels(page) + low_contrast_controls(page)
            problems += [problem for view in page.findChildren(QAbstractItemView) if view.isVisible()
                         for problem in low_contrast_cells(view)]
    problems += low_contrast_labels(window.connection_bar) + low_contrast_controls(window.connection_bar)
    window.commands.open_notification_settings()
    settings_dialog = next(widget for widget in QApplication.topLevelWidgets()
                           if isinstance(widget, QDialog) and widget.isVisible())
    problems += low_contrast_labels(settings_dialog) + low_contrast_controls(settings_dialog)
    settings_dialog.close()
    assert sorted(set(problems)) == []

    window.close()
    again = make_window()  # the next start: dark from its first frame
    assert is_dark() and again.themes.choice == "dark"
    system = next(action for action in again.menus["view"].actions() if action.menu() is not None
                  and action.text() == "&Theme").menu().actions()[0]
    system.trigger()
    assert again.themes.choice == "system" and not is_dark()

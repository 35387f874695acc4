"""The error tracking tab in the main window at its default size (1100×700) against the real server: the detail
pane fits its width with Events or Tags open, the stack trace is in view without scrolling, and what does not
fit is in a tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from console.errors.detail import ErrorDetailView
from console.main_window import DEFAULT_SIZE
from tests.console.shell.conftest import WAIT, connect
from tests.sdk_errors import failed_checkouts

TITLE = "ConnectionError: card processor refused cart 43"


@pytest.fixture(scope="module")
def checkout(server, api):
    """One error of three events (ada, bob, cyd) with breadcrumbs, a request, contexts and tags."""
    return failed_checkouts(server, api)


def open_errors(qtbot, make_window, server, project):
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    connect(window, qtbot, server.url, server.root_token)
    window.open_target(("errors", project["path_with_namespace"]))
    page = window.tabs.current_feature().errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.fields["Release health"].text() != "", timeout=WAIT)
    return window, page


def on_window(widget: QWidget) -> QRect:
    return QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size())


def outside(container: ErrorDetailView) -> list[str]:
    """The visible widgets inside ``container`` (outside any scrolled content) that reach beyond its right edge."""
    right = on_window(container).right()
    found = []
    for child in container.findChildren(QWidget):
        if not child.isVisibleTo(container.window()) or _inside_scrolled_content(child, container):
            continue
        if on_window(child).right() > right:
            found.append(f"{type(child).__name__} {child.objectName() or child.accessibleName()!r}: "
                         f"{on_window(child).right()} > {right}")
    return found


def _inside_scrolled_content(widget: QWidget, container: ErrorDetailView) -> bool:
    """Cells and items a table or tree scrolls are theirs to clip; the summary's scroll area scrolls only up
    and down, so its content is checked."""
    parent = widget.parentWidget()
    while parent is not None and parent is not container:
        if isinstance(parent, QAbstractScrollArea) and parent is not container.summary_scroll \
                and widget is not parent and parent.viewport().isAncestorOf(widget):
            return True
        parent = parent.parentWidget()
    return False


@pytest.mark.parametrize("section", ["events_pane", "facets_pane"])
def test_the_detail_fits_its_width_with_events_or_tags_open(qtbot, make_window, server, checkout, section):
    window, page = open_errors(qtbot, make_window, server, checkout)
    detail = page.detail
    detail.sections.setCurrentWidget(getattr(page, section))
    qtbot.waitUntil(lambda: page.events_pane.navigator.position.text() == "event 3 of 3", timeout=WAIT)
    qtbot.waitUntil(lambda: page.facets_pane.facets.facets.rowCount() > 0, timeout=WAIT)
    page.events_pane.sections.setCurrentWidget(page.events_pane.breadcrumbs)
    qtbot.wait(50)  # the layout settles

    assert on_window(detail).right() <= on_window(window.centralWidget()).right()
    assert outside(detail) == []
    # The actions stay in view, in full.
    for button in (*detail.action_buttons.values(), detail.copy_button):
        assert button.isVisible() and button.width() >= button.sizeHint().width()
    navigator = page.events_pane.navigator
    if section == "events_pane":
        for button in (navigator.oldest_button, navigator.previous_button, navigator.next_button,
                       navigator.latest_button):
            assert button.isVisible() and button.width() >= button.sizeHint().width()
    # The sections (stack trace, events, tags) are on screen without scrolling the summary.
    sections = on_window(detail.sections)
    assert sections.top() < on_window(detail).bottom() - 200
    assert detail.summary_scroll.verticalScrollBar().value() == 0
    # The title is whole in its tooltips, and so is the exception heading the stack trace; the facets' share
    # bars are in view.
    assert detail.title.toolTip() == TITLE
    assert detail.stack_trace.topLevelItem(0).toolTip(0) == TITLE
    if section == "facets_pane":
        facets = page.facets_pane.facets
        header = facets.horizontalHeader()
        share = facets.facets.SHARE
        assert header.sectionViewportPosition(share) + header.sectionSize(share) <= facets.viewport().width()


def test_latest_is_disabled_on_the_latest_event(qtbot, make_window, server, checkout):
    _window, page = open_errors(qtbot, make_window, server, checkout)
    page.detail.sections.setCurrentWidget(page.events_pane)
    navigator = page.events_pane.navigator
    qtbot.waitUntil(lambda: navigator.position.text() == "event 3 of 3", timeout=WAIT)
    assert not navigator.latest_button.isEnabled() and not navigator.next_button.isEnabled()
    qtbot.mouseClick(navigator.previous_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 2 of 3", timeout=WAIT)
    assert navigator.latest_button.isEnabled() and navigator.next_button.isEnabled()
    qtbot.mouseClick(navigator.latest_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: navigator.position.text() == "event 3 of 3", timeout=WAIT)
    assert not navigator.latest_button.isEnabled()

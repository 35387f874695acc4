"""The detail pane's *Events* section: the navigator, then the shown event in full (its stack trace,
breadcrumbs, and request, user, contexts and tags)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from console.core.api.sentry_events import Event, event_exceptions, event_log_message
from console.errors.breadcrumbs import BreadcrumbsView
from console.errors.event_context import EventContextView
from console.errors.event_navigator import EventNavigator
from console.errors.stacktrace import StackTraceView


class EventPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.navigator = EventNavigator()
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.stack_trace = StackTraceView()
        self.breadcrumbs = BreadcrumbsView()
        self.context = EventContextView()
        self.sections = QTabWidget()
        self.sections.addTab(self.stack_trace, "Stack trace")
        self.sections.addTab(self.breadcrumbs, "Breadcrumbs")
        self.sections.addTab(self.context, "Request and context")
        layout = QVBoxLayout(self)
        layout.addWidget(self.navigator)
        layout.addWidget(self.notice)
        layout.addWidget(self.sections, 1)
        self.clear()

    def clear(self) -> None:
        self.navigator.clear()
        self.notice.hide()
        self._show_content(None)

    def say(self, text: str) -> None:
        """Explains why no event is shown (loading, not offered by this server, failed)."""
        self.notice.setText(text)
        self.notice.show()

    def show_event(self, event: Event, position: str) -> None:
        self.notice.hide()
        self.navigator.show_event(event, position)
        self._show_content(event)

    def _show_content(self, event: Event | None) -> None:
        if event is None:
            self.stack_trace.clear()
        elif exceptions := event_exceptions(event):
            self.stack_trace.show_exceptions(exceptions, event_log_message(event))
        else:
            self.stack_trace.show_message(f"No stack trace: reported as a message ({event.message or event.title})")
        self.breadcrumbs.show_event(event)
        self.context.show_event(event)

"""The detail pane's *Tags* section: the error's tag facets, and below them the events carrying a chosen value."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from console.errors.tag_facets import TagFacetsView
from console.errors.tagged_events import TaggedEventsView
from outpost_model.sentry_events import EventSummary
from outpost_model.sentry_issues import TagKey, TagValue

HINT = "Click a value to list the events that carry it."


class FacetsPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.facets = TagFacetsView()
        self.tagged_title = QLabel()
        self.tagged_title.setWordWrap(True)
        self.tagged = TaggedEventsView()
        # The events of a chosen value, below the facets; hidden until a value is chosen, so the facets have the
        # pane's height (at 900×600 the two shared it and the facets showed 1½ rows).
        below = self.below = QWidget()
        below_layout = QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addWidget(self.tagged_title)
        below_layout.addWidget(self.tagged, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.facets)
        splitter.addWidget(below)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(splitter, 1)
        self.clear()

    def clear(self) -> None:
        self.notice.clear()
        self.facets.facets.set_facets([])
        self.tagged.events.set_events([])
        self.tagged_title.setText(HINT)
        self.below.hide()

    def say(self, text: str) -> None:
        self.notice.setText(text)

    def show_facets(self, facets: list[TagKey]) -> None:
        self.notice.setText(f"Top values per tag, counted over every event of this error. {HINT}" if facets
                            else "No event of this error carries tags.")
        self.facets.facets.set_facets(facets)
        self.tagged.events.set_events([])
        self.tagged_title.setText(HINT)
        self.below.hide()

    def listing(self, value: TagValue) -> None:
        self.below.show()
        self.tagged.events.set_events([])
        self.tagged_title.setText(f"Loading the events with {value.key} = {value.name}…")

    def show_tagged(self, value: TagValue, events: list[EventSummary], *, more_available: bool) -> None:
        self.tagged.events.set_events(events, more_available=more_available)
        shown = f"the latest {len(events)}" if more_available else str(len(events))
        self.tagged_title.setText(f"Events with {value.key} = {value.name}: {shown} stored "
                                  f"(of {value.count} received). Click one to show it under Events.")

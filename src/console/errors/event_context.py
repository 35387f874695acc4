"""What surrounded an event: its request (URL, method, query, headers), user, contexts (os, runtime,
browser, device, ...) and tags, one section each, as name/value rows."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

from console.core.api.sentry_events import Event, event_contexts, event_request, event_user, pairs

SECTIONS = ("Request", "User", "Contexts", "Tags")


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return "" if value is None else str(value)


class EventContextView(QTreeWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setColumnCount(2)
        self.setHeaderLabels(["Name", "Value"])
        self.setUniformRowHeights(True)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.sections: dict[str, QTreeWidgetItem] = {}

    def show_event(self, event: Event | None) -> None:
        self.clear()
        self.sections = {}
        if event is None:
            return
        request, sent = self._section("Request"), event_request(event)
        if sent is None:
            self._row(request, "—", "no request was sent with this event")
        else:
            self._row(request, "URL", sent.url)
            self._row(request, "Method", sent.method)
            self._pairs(request, "Query", pairs(sent.query))
            self._pairs(request, "Headers", pairs(sent.headers))
        user, fields = self._section("User"), event_user(event)
        for name, value in fields.items():
            self._row(user, name, value)
        if not fields:
            self._row(user, "—", "no user was set")
        contexts = self._section("Contexts")
        for name, values in event_contexts(event):
            item = QTreeWidgetItem(contexts, [name, self._summary(values)])
            for key, value in values.items():
                if key != "type":
                    self._row(item, key, value)
        tags = self._section("Tags")
        for tag in event.tags:
            self._row(tags, tag.key, tag.value)
        for item in self.sections.values():
            item.setExpanded(True)

    def _section(self, title: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self, [title])
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        self.sections[title] = item
        return item

    def _row(self, parent: QTreeWidgetItem, name: str, value: Any) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent, [name, _text(value)])
        item.setToolTip(1, _text(value))
        return item

    def _pairs(self, parent: QTreeWidgetItem, name: str, pairs: list[tuple[str, str]]) -> None:
        group = self._row(parent, name, f"{len(pairs)}" if pairs else "none")
        for key, value in pairs:
            self._row(group, key, value)
        group.setExpanded(True)

    @staticmethod
    def _summary(values: dict[str, Any]) -> str:
        """``CPython 3.11.4``, ``Linux 6.1``: a context's name and version at a glance."""
        return " ".join(str(values[key]) for key in ("name", "version") if values.get(key))

    def rows(self, section: str) -> dict[str, str]:
        """The section's name -> value texts (its nested rows by ``parent/name``), for reading what is shown."""
        found: dict[str, str] = {}

        def walk(item: QTreeWidgetItem, prefix: str) -> None:
            for position in range(item.childCount()):
                child = item.child(position)
                if child is None:
                    continue
                found[prefix + child.text(0)] = child.text(1)
                walk(child, f"{prefix}{child.text(0)}/")

        if section in self.sections:
            walk(self.sections[section], "")
        return found

"""Everything the console says, by kind, kept since it started; no Qt here.

Each kind has its own place, so none is lost under another:

- **progress** ("Loading errors…") and **done** (the outcome of what the user did, when it worked) are
  transient lines in the status bar;
- a **failure** of what the user did stays where the user acted (the tab's or the window's message bar)
  until dismissed or the action is tried again;
- **news** from the server (a new error, a regression, an export that finished or failed) goes to the
  notification list, which counts what is unread, and to the desktop when the window is not active.

Background polls say nothing unless they find news. The log keeps every message with its time and kind
for the Messages view.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

MAX_KEPT = 10_000  # a console left running for weeks keeps its latest messages, not all


class Kind(Enum):
    PROGRESS = "Progress"
    DONE = "Done"
    FAILURE = "Failure"
    NEWS = "News"


@dataclass(frozen=True)
class Message:
    kind: Kind
    text: str
    time: dt.datetime = field(default_factory=lambda: dt.datetime.now().astimezone())
    # What news is about, for opening it: ("exports", export id) or ("errors", (project path, error id)).
    target: Any = None
    # An operation's own line ("Loading the error…", "Loading the error: done"), not the outcome of what the
    # user did: in the status bar it does not replace an outcome said a moment before (console.status_line).
    routine: bool = False


class MessageLog:
    """The messages said since start, oldest first, and how many pieces of news are unread."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.unread = 0
        self._listeners: list[Callable[[Message], object]] = []
        self._read_listeners: list[Callable[[], object]] = []

    def subscribe(self, listener: Callable[[Message], object]) -> Callable[[], None]:
        """Call ``listener`` with every message added; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def on_read(self, listener: Callable[[], object]) -> None:
        """Call ``listener`` when the unread news has been read."""
        self._read_listeners.append(listener)

    def add(self, kind: Kind, text: str, *, target: Any = None, routine: bool = False) -> Message:
        message = Message(kind, text, target=target, routine=routine)
        self.messages.append(message)
        del self.messages[:-MAX_KEPT]
        if kind is Kind.NEWS:
            self.unread += 1
        for listener in list(self._listeners):
            listener(message)
        return message

    def news(self) -> list[Message]:
        return [message for message in self.messages if message.kind is Kind.NEWS]

    def mark_read(self) -> None:
        if self.unread:
            self.unread = 0
            for listener in list(self._read_listeners):
                listener()

"""What the *Events* section knows of the selected error, kept without Qt: the error, its issue from Sentry's
API, the ids of its stored events (newest first, for "event 3 of 25") and the event shown.

console.errors.event_history (the QObject) asks the server and fills the panes; this says whether an
answer belongs to the listed error, where an event stands among the stored ones, and when the stored ids must
be walked again.
"""

from __future__ import annotations

from dataclasses import dataclass

from console.core.api.sentry_events import Event, StoredEvents, issue_count
from console.core.timestamps import parse_time
from outpost_model.sentry_issues import IssueDetails


def same_moment(one: str | None, other: str | None) -> bool:
    """Whether two timestamps name the same second (the list and Sentry's API write them differently)."""
    try:
        first, second = parse_time(one), parse_time(other)
    except ValueError:
        return False
    return first is not None and second is not None and abs((first - second).total_seconds()) < 1


@dataclass
class EventHistoryState:
    error_id: str | None = None  # the selected error
    issue: IssueDetails | None = None  # from Sentry's API, once loaded
    stored: StoredEvents | None = None  # its stored events' ids
    shown: Event | None = None  # the event on screen

    def clear(self) -> None:
        self.error_id, self.issue, self.stored, self.shown = None, None, None, None

    def select(self, error_id: str) -> None:
        """A newly selected error: nothing of the previous one is kept."""
        self.clear()
        self.error_id = error_id

    @staticmethod
    def is_listed_error(issue: IssueDetails, first_seen: str | None) -> bool:
        """Whether the server's issue is the error the list showed. The server answers for the project's
        current backend: an id listed before a switch between the integrated store and an external Sentry
        may name another error there, seen first at another moment."""
        return same_moment(issue.firstSeen, first_seen)

    def loaded(self, issue: IssueDetails, stored: StoredEvents) -> None:
        self.issue, self.stored = issue, stored

    @property
    def browsable(self) -> bool:
        """Whether another event of the selected error can be asked for (its issue has been loaded)."""
        return self.error_id is not None and self.issue is not None

    def needs_recount(self, event_id: str) -> bool:
        """Whether the event arrived after the stored ids were walked, so they must be walked again."""
        return self.stored is not None and event_id not in self.stored.ids

    def recounted(self, stored: StoredEvents | None) -> None:
        self.stored = stored

    def show(self, event: Event) -> str:
        """Records the event as shown; its position among the stored events ("event 3 of 25")."""
        self.shown = event
        total = issue_count(self.issue) if self.issue else 0
        return self.stored.describe(event.id, total) if self.stored else ""

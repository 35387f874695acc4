"""What the Events section knows of the selected error (console.core.errors.event_state), without Qt or a server."""

from __future__ import annotations

from console.core.api.sentry_events import Event, StoredEvents
from console.core.errors.event_state import EventHistoryState, same_moment
from tests.console.errors.sentry_event_json import sentry_event, sentry_issue

ISSUE = sentry_issue("42", count="25", firstSeen="2026-11-20T08:00:00.123Z")


def event(event_id: str) -> Event:
    return sentry_event(event_id, groupID="42")


def test_same_moment_is_the_same_second_whatever_the_spelling():
    assert same_moment("2026-11-20T08:00:00.123Z", "2026-11-20T08:00:00+00:00")
    assert same_moment("2026-11-20T09:00:00+01:00", "2026-11-20T08:00:00Z")
    assert not same_moment("2026-11-20T08:00:01.5Z", "2026-11-20T08:00:00Z")
    assert not same_moment(None, "2026-11-20T08:00:00Z") and not same_moment(None, None)
    assert not same_moment("not a time", "2026-11-20T08:00:00Z")


def test_selecting_an_error_forgets_the_previous_one():
    state = EventHistoryState()
    state.select("41")
    state.loaded(ISSUE, StoredEvents(["c", "b", "a"], complete=True))
    state.show(event("c"))
    state.select("42")
    assert state == EventHistoryState(error_id="42")
    assert not state.browsable  # its issue is not loaded yet
    state.clear()
    assert state == EventHistoryState()


def test_the_issue_must_be_the_listed_error():
    assert EventHistoryState.is_listed_error(ISSUE, "2026-11-20T08:00:00Z")
    assert not EventHistoryState.is_listed_error(ISSUE, "2026-11-21T08:00:00Z")  # another backend's error


def test_an_event_shown_is_placed_among_the_stored_ones():
    state = EventHistoryState()
    state.select("42")
    state.loaded(ISSUE, StoredEvents(["c", "b", "a"], complete=True))
    assert state.browsable
    assert state.show(event("b")) == "event 2 of 3 stored (25 received; retention pruned the others)"
    assert state.shown is not None and state.shown.id == "b"
    assert state.show(event("z")) == "an event of 25"


def test_the_stored_ids_are_walked_again_for_an_event_that_arrived_after_them():
    state = EventHistoryState()
    assert not state.needs_recount("d")  # nothing walked yet: nothing to walk again
    state.select("42")
    state.loaded(ISSUE, StoredEvents(["c", "b", "a"], complete=True))
    assert not state.needs_recount("a") and state.needs_recount("d")
    state.recounted(StoredEvents(["d", "c", "b", "a"], complete=True))
    assert not state.needs_recount("d")
    assert state.show(event("d")) == "event 4 of 4 stored (25 received; retention pruned the others)"


def test_without_a_loaded_issue_or_stored_ids_the_position_is_empty():
    state = EventHistoryState()
    assert state.show(event("a")) == ""

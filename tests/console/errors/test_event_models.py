"""The event history's models under qtmodeltester, and what it derives without Qt: the position text
("event 3 of 25"), the Markdown of an error, and the records read from Sentry's event JSON."""

from __future__ import annotations

from dataclasses import replace

import pytest

from console.core.api.sentry_events import (
    StoredEvents,
    event_breadcrumbs,
    event_contexts,
    event_exceptions,
    event_log_message,
    event_release,
    event_request,
    event_user,
    pairs,
    tag_query,
    value_query,
)
from console.core.errors.markdown import ErrorFacts, error_markdown
from console.errors.breadcrumbs import CRASH_ROLE, BreadcrumbModel
from console.errors.tag_facets import SHARE_ROLE, VALUE_ROLE, TagFacetModel
from console.errors.tagged_events import TaggedEventsModel
from outpost_model.sentry_events import Event
from tests.console.errors.sentry_event_json import (
    breadcrumb,
    event_row,
    exception_entry,
    frame,
    release,
    request_entry,
    sentry_event,
    sentry_issue,
    tag_key,
    tag_value,
)


def event() -> Event:
    return sentry_event("a" * 32, dateCreated="2026-11-20T10:00:02Z", title="ValueError: bad | input",
                        culprit="shop.orders in load", release=release("shop@2.0.0"), entries=(
                            exception_entry(("ValueError", "bad | input", [
                                frame("lib/http.py", "send", 5, in_app=False),
                                frame("shop/orders.py", "load", 12, in_app=True),
                                frame("shop/parse.py", "parse", 3, in_app=True)])),
                            {"type": "breadcrumbs", "data": {"values": [
                                breadcrumb("2026-11-20T10:00:00Z", "http", "info", None,
                                           {"url": "/cart", "status_code": 200}),
                                breadcrumb("2026-11-20T10:00:01Z", "shop", "warning", "slow", None)]}}))


def test_breadcrumb_model(qtmodeltester):
    model = BreadcrumbModel()
    model.show_event(event())
    qtmodeltester.check(model)
    assert model.rowCount() == 3 and model.crash_row == 2
    assert model.data(model.index(0, BreadcrumbModel.MESSAGE)) == "url=/cart  status_code=200", "data when no message"
    assert model.data(model.index(2, BreadcrumbModel.MESSAGE)) == "ValueError: bad | input"
    assert [model.data(model.index(row, 0), CRASH_ROLE) for row in range(3)] == [False, False, True]
    model.show_event(None)
    qtmodeltester.check(model)
    assert model.rowCount() == 0


def test_tag_facet_model(qtmodeltester):
    browsers = tag_key("browser", "Browser", 4, [tag_value("browser", "Firefox 121", "Firefox 121", 3),
                                                 tag_value("browser", "Chrome 120", "Chrome 120", 1)])
    users = tag_key("user", "User", 4, [tag_value("user", "id:ada", "ada", 4, 'user.id:"ada"')])
    model = TagFacetModel()
    model.set_facets([browsers, users])
    qtmodeltester.check(model)
    texts = [[model.data(model.index(row, column)) for column in range(4)] for row in range(3)]
    assert texts == [["Browser", "Firefox 121", 3, "75%"], ["", "Chrome 120", 1, "25%"], ["User", "ada", 4, "100%"]]
    assert model.data(model.index(1, TagFacetModel.SHARE), SHARE_ROLE) == 0.25
    assert value_query(model.data(model.index(2, 0), VALUE_ROLE)) == 'user.id:"ada"'  # Sentry's, for a user
    assert value_query(model.data(model.index(1, 0), VALUE_ROLE)) == tag_query("browser", "Chrome 120")
    assert model.row_of("browser", "Chrome 120") == 1 and model.row_of("os", "Linux") == -1


def test_tagged_events_model(qtmodeltester):
    model = TaggedEventsModel()
    model.set_events([event_row("b" * 32, dateCreated="2026-11-20T10:00:00Z", user={"username": "ada"},
                                tags=[{"key": "release", "value": "shop@2.0.0"}]),
                      event_row("c" * 32)], more_available=True)
    qtmodeltester.check(model)
    assert model.data(model.index(0, TaggedEventsModel.EVENT)) == "b" * 12
    assert model.data(model.index(0, TaggedEventsModel.RELEASE)) == "shop@2.0.0"
    assert model.data(model.index(0, TaggedEventsModel.USER)) == "ada"
    assert model.event_at(1).eventID == "c" * 32 and model.event_at(2) is None


@pytest.mark.parametrize(("stored", "event_id", "total", "text"), [
    (StoredEvents(["c", "b", "a"], complete=True), "b", 3, "event 2 of 3"),
    (StoredEvents(["c", "b", "a"], complete=True), "a", 25,
     "event 1 of 3 stored (25 received; retention pruned the others)"),
    (StoredEvents(["c", "b"], complete=False), "b", 5000, "event 2 from the latest of 5000"),
    (StoredEvents(["c", "b"], complete=True), "z", 2, "an event of 2"),
])
def test_position_text_is_honest_about_pruning(stored, event_id, total, text):
    assert stored.describe(event_id, total) == text


def test_markdown_of_an_error():
    issue = ErrorFacts.of_issue(sentry_issue(
        "7", title="ValueError: bad | input", culprit="shop.orders in load", count="25", userCount=4,
        firstSeen="2026-11-01T08:00:00Z", lastSeen="2026-11-20T10:00:02Z", firstRelease=release("shop@1.0.0"),
        lastRelease=release("shop@2.0.0"), permalink="https://o.example/p/-/e/7"))
    text = error_markdown(issue, event_exceptions(event()))
    assert text.startswith("### ValueError: bad | input\n\n`shop.orders in load`\n")
    assert "| Events | 25 |" in text and "| Releases | shop@1.0.0 → shop@2.0.0 |" in text
    assert [line for line in text.splitlines() if line.startswith("- ")] == [
        "- `shop/parse.py in parse at line 3`", "- `shop/orders.py in load at line 12`"], "in-app, innermost first"
    assert text.endswith("[Open the error](https://o.example/p/-/e/7)\n")
    linked = error_markdown(issue, [], "outpost://o.example/g/p/-/error_tracking/7")
    assert linked.endswith("[Open in Outpost](outpost://o.example/g/p/-/error_tracking/7) · "
                           "[API](https://o.example/p/-/e/7)\n")
    same_release = replace(issue, first_release="a|b", last_release="a|b", permalink=None)
    assert "| Releases | a\\|b |" in error_markdown(same_release, []), "a pipe would end the table cell"


def test_what_is_shown_of_an_event_from_sentry_json():
    parsed = sentry_event(
        "d" * 32, groupID="9", title="T", dateCreated="2026-11-20T10:00:00Z", release=release("shop@2.0.0"),
        previousEventID="e" * 32, user={"id": "ada", "email": None, "data": None},
        contexts={"runtime": {"name": "CPython", "version": "3.11"}, "os": {"name": "Linux"}, "gpu": "x"},
        tags=[{"key": "browser", "value": "Firefox 121"}],
        entries=(exception_entry(("KeyError", "'k'", [frame("a.py", "f", 1, in_app=True)])),
                 request_entry("https://shop/x", "GET", headers=[["Accept", "*/*"]], query=[["q", "1"]])))
    assert event_exceptions(parsed)[0].frames[0].in_app is True
    assert event_user(parsed) == {"id": "ada"}
    assert [name for name, _values in event_contexts(parsed)] == ["os", "runtime"], "standard order; no non-objects"
    sent = event_request(parsed)
    assert sent is not None and pairs(sent.query) == [("q", "1")]
    assert event_breadcrumbs(parsed) == [] and event_release(parsed) == "shop@2.0.0" and parsed.nextEventID is None
    assert event_log_message(parsed) is None

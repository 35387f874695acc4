"""The console's store (no Qt): one copy per server object, listeners told only of real changes, and
nothing kept across connections; errors written from a list and from a detail never disagree."""

from __future__ import annotations

from console.core.api.error_tracking import ErrorSummary
from console.core.errors import records
from console.core.store import EVERYTHING, Change, Store


def summary(error_id: str, *, status: str = "unresolved", count: int = 1) -> ErrorSummary:
    return ErrorSummary(id=error_id, title="ValueError: x", type="error", count=count, user_count=0,
                        first_seen="2026-01-01T00:00:00Z", last_seen="2026-01-01T00:00:00Z", status=status,
                        culprit=None, message=None, frequency=())


def test_listeners_hear_of_changes_only():
    store, heard = Store(), []
    store.subscribe(heard.append)
    assert store.put("error", "acme/shop", "1", "a")
    assert not store.put("error", "acme/shop", "1", "a")  # the same value again: nobody is told
    store.put_many("error", "acme/shop", {"1": "a", "2": "b"})
    assert heard == [Change("error", "acme/shop", frozenset({"1"})), Change("error", "acme/shop", frozenset({"2"}))]
    assert heard[-1].touches("error", "acme/shop", "2") and not heard[-1].touches("error", "acme/shop", "1")
    assert not heard[-1].touches("error", "acme/other")


def test_a_full_list_forgets_what_it_no_longer_has():
    store = Store()
    store.put_many("export", "", {"1": "finished", "2": "running"})
    store.replace_all("export", "", {"2": "finished"})
    assert store.items("export", "") == {"2": "finished"}


def test_a_new_connection_drops_everything_and_says_so():
    store, heard = Store(), []
    store.begin("http://one\nroot")
    store.put("export", "", "1", "finished")
    store.subscribe(heard.append)
    store.begin("http://two\nroot")
    assert store.items("export", "") == {} and store.scope == "http://two\nroot"
    assert heard[0].kind == EVERYTHING and heard[0].touches("error", "any/project", "7")


def test_a_detail_and_a_list_row_of_one_error_never_disagree():
    store = Store()
    records.write_summaries(store, "acme/shop", [summary("7", count=2)])
    records.write_detail(store, "acme/shop", {"id": 7, "status": "unresolved", "count": 2, "title": "ValueError"})
    records.write_status(store, "acme/shop", "7", "resolved")  # Resolve
    assert records.summary(store, "acme/shop", "7").status == "resolved"
    assert records.detail(store, "acme/shop", "7")["status"] == "resolved"
    # The SDK sends it again: the watcher's poll (a list) sees it unresolved with more events.
    records.write_summaries(store, "acme/shop", [summary("7", count=4)])
    assert records.detail(store, "acme/shop", "7")["count"] == 4
    assert records.detail(store, "acme/shop", "7")["status"] == "unresolved"
    assert records.detail(store, "acme/shop", "7")["title"] == "ValueError"  # what only the detail knew stays
    # A newer detail fetch carries its counts into the row.
    records.write_detail(store, "acme/shop", {"id": 7, "status": "unresolved", "count": 5})
    assert records.summary(store, "acme/shop", "7").count == 5

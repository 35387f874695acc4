"""The console's store (no Qt): one copy per server object, listeners told only of real changes, and
nothing kept across connections; errors written from a list and from a detail never disagree."""

from __future__ import annotations

import os
from pathlib import Path

import mypy.api

from console.core.api.error_tracking import ErrorSummary
from console.core.errors import records
from console.core.store import EVERYTHING, Change, Kind, Store
from tests.console.error_details import details, extras


def summary(error_id: str, *, status: str = "unresolved", count: int = 1) -> ErrorSummary:
    return ErrorSummary(id=error_id, title="ValueError: x", type="error", count=count, user_count=0,
                        first_seen="2026-01-01T00:00:00Z", last_seen="2026-01-01T00:00:00Z", status=status,
                        culprit=None, message=None, frequency=())


NOTES: Kind[str] = Kind("note")  # kinds of the tests' own, declared once as the console's are
STATES: Kind[str] = Kind("state")


def test_listeners_hear_of_changes_only():
    store, heard = Store(), []
    store.subscribe(heard.append)
    assert store.put(NOTES, "acme/shop", "1", "a")
    assert not store.put(NOTES, "acme/shop", "1", "a")  # the same value again: nobody is told
    store.put_many(NOTES, "acme/shop", {"1": "a", "2": "b"})
    assert heard == [Change(NOTES, "acme/shop", frozenset({"1"})), Change(NOTES, "acme/shop", frozenset({"2"}))]
    assert heard[-1].touches(NOTES, "acme/shop", "2") and not heard[-1].touches(NOTES, "acme/shop", "1")
    assert not heard[-1].touches(NOTES, "acme/other")


def test_kinds_are_told_apart_by_identity_not_by_name():
    store, heard = Store(), []
    other_notes: Kind[str] = Kind("note")  # another module's kind that happens to share the name
    store.subscribe(heard.append)
    store.put(NOTES, "", "1", "mine")
    store.put(other_notes, "", "1", "theirs")
    assert store.get(NOTES, "", "1") == "mine" and store.get(other_notes, "", "1") == "theirs"
    assert heard[0].touches(NOTES) and not heard[0].touches(other_notes)


def test_a_full_list_forgets_what_it_no_longer_has():
    store = Store()
    store.put_many(STATES, "", {"1": "finished", "2": "running"})
    store.replace_all(STATES, "", {"2": "finished"})
    assert store.items(STATES, "") == {"2": "finished"}


def test_a_new_connection_drops_everything_and_says_so():
    store, heard = Store(), []
    store.begin("http://one\nroot")
    store.put(STATES, "", "1", "finished")
    store.subscribe(heard.append)
    store.begin("http://two\nroot")
    assert store.items(STATES, "") == {} and store.scope == "http://two\nroot"
    assert heard[0].kind is EVERYTHING and heard[0].touches(NOTES, "any/project", "7")


def test_a_detail_and_a_list_row_of_one_error_never_disagree():
    store = Store()
    records.write_summaries(store, "acme/shop", [summary("7", count=2)])
    records.write_detail(store, "acme/shop", details("7", count=2, title="ValueError"))
    records.write_status(store, "acme/shop", "7", "resolved")  # Resolve
    assert records.summary(store, "acme/shop", "7").status == "resolved"
    assert records.detail(store, "acme/shop", "7").status == "resolved"
    # The SDK sends it again: the watcher's poll (a list) sees it unresolved with more events.
    records.write_summaries(store, "acme/shop", [summary("7", count=4)])
    held = records.detail(store, "acme/shop", "7")
    assert (held.error.count, held.status, held.error.title) == (4, "unresolved", "ValueError")  # the title stays
    # A newer detail fetch carries its counts into the row.
    records.write_detail(store, "acme/shop", details("7", count=5))
    assert records.summary(store, "acme/shop", "7").count == 5


def test_what_only_an_earlier_detail_read_said_stays():
    store = Store()
    records.write_detail(store, "acme/shop", details("7", extras=extras("7", environment="staging")))
    records.write_detail(store, "acme/shop", details("7", count=2))  # a read without Outpost's extras
    held = records.detail(store, "acme/shop", "7")
    assert held.error.count == 2 and held.environment == "staging"
    # A read whose extras leave the environment out (an external Sentry's) keeps the one held.
    records.write_detail(store, "acme/shop", details("7", count=3, extras=extras("7", exception_type="KeyError")))
    held = records.detail(store, "acme/shop", "7")
    assert (held.error.count, held.exception_type, held.environment) == (3, "KeyError", "staging")


# What mypy says of code that writes the wrong type to a kind: the store's typing is checked, not only documented.
WRITES = '''
from console.core.store import Kind, Store

COUNTS: Kind[int] = Kind("count")
store = Store()
store.put(COUNTS, "", "1", 1)
store.put(COUNTS, "", "2", "two")
store.put_many(COUNTS, "", {"3": 3.5})
store.replace_all(COUNTS, "", {"4": None})
reveal_type(store.get(COUNTS, "", "1"))
reveal_type(store.items(COUNTS, ""))
'''


def test_mypy_refuses_a_value_of_another_type_and_reads_give_the_kinds_type(tmp_path, monkeypatch):
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)  # the configuration's mypy_path is relative to the repository
    snippet = tmp_path / "writes.py"
    snippet.write_text(WRITES, encoding="utf-8")
    out, _, status = mypy.api.run([str(snippet), "--config-file", str(root / "pyproject.toml"), "--cache-dir",
                                   os.devnull, "--no-error-summary", "--no-warn-unused-configs"])
    errors = sorted(int(line.split(":")[1]) for line in out.splitlines() if ": error:" in line)
    assert status == 1 and errors == [7, 8, 9], out  # the three wrong writes, and the right one passes
    assert 'Revealed type is "int | None"' in out and 'Revealed type is "dict[str, int]"' in out

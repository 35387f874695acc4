"""The watcher's decisions about a watched project's errors (console.core.error_watch), without Qt or a server."""

from __future__ import annotations

from dataclasses import dataclass

from console.core.error_watch import NEW, REGRESSED, ErrorWatch, newest


@dataclass(frozen=True)
class Error:
    id: str
    first_seen: str | None
    last_seen: str | None


OLD = Error("1", "2026-11-20T08:00:00Z", "2026-11-26T09:00:00Z")
OLDER = Error("2", "2026-11-19T08:00:00Z", "2026-11-25T09:00:00Z")


def ids(candidates):
    return [(candidate.error.id, candidate.kind) for candidate in candidates]


def test_newest_is_the_latest_last_seen_and_never_goes_back():
    assert newest([OLD, OLDER], "") == "2026-11-26T09:00:00Z"
    assert newest([OLDER], "2026-11-26T09:00:00Z") == "2026-11-26T09:00:00Z"
    assert newest([Error("3", None, None)], "") == ""
    assert newest([], "2026-11-26T09:00:00Z") == "2026-11-26T09:00:00Z"


def test_the_first_look_only_records_what_is_there():
    watch = ErrorWatch()
    assert watch.is_first_look("acme/web")
    watch.first_look("acme/web", [OLD, OLDER], regressed=["2"])
    look = watch.look("acme/web")
    assert look is not None and not watch.is_first_look("acme/web")
    assert (look.since, look.known, look.listed) == ("2026-11-26T09:00:00Z", {"2"}, {"1", "2"})
    assert ids(watch.next_look("acme/web", [OLD, OLDER])) == [("1", REGRESSED)]  # events in the same second


def test_an_error_first_seen_since_the_last_look_is_new_and_may_regress_later():
    watch = ErrorWatch()
    watch.first_look("acme/web", [OLD], regressed=[])
    fresh = Error("9", "2026-11-26T09:05:00Z", "2026-11-26T09:05:00Z")
    candidates = watch.next_look("acme/web", [fresh, OLD])
    assert ids(candidates) == [("9", NEW), ("1", REGRESSED)]  # "1" has events in the look's second: ask
    assert candidates[0].new and not candidates[1].new
    later = Error("9", "2026-11-26T09:05:00Z", "2026-11-26T09:07:00Z")
    # Not new again; resolved and sent again it regressed, which only the server can tell: ask it.
    assert ids(watch.next_look("acme/web", [later])) == [("9", REGRESSED)]
    assert watch.look("acme/web").since == "2026-11-26T09:07:00Z"


def test_an_error_listed_before_is_not_new_however_late_its_first_event_looks():
    watch = ErrorWatch()
    watch.first_look("acme/web", [Error("5", "2026-11-26T10:00:00Z", "2026-11-26T10:00:00Z")], regressed=[])
    # The same error again, its first event now shown later (the server's clock): a regression candidate only.
    again = Error("5", "2026-11-26T10:00:00Z", "2026-11-26T10:00:01Z")
    assert ids(watch.next_look("acme/web", [again])) == [("5", REGRESSED)]


def test_errors_without_events_since_the_last_look_are_not_news():
    watch = ErrorWatch()
    watch.first_look("acme/web", [OLD], regressed=[])
    assert ids(watch.next_look("acme/web", [OLDER])) == []
    look = watch.look("acme/web")
    assert look is not None and look.listed == {"1", "2"} and look.since == "2026-11-26T09:00:00Z"


def test_a_regressed_error_once_reported_is_not_offered_again_and_projects_are_apart():
    watch = ErrorWatch()
    watch.first_look("acme/web", [OLD], regressed=[])
    watch.first_look("acme/api", [OLD], regressed=[])
    again = Error("1", OLD.first_seen, "2026-11-26T09:10:00Z")
    assert ids(watch.next_look("acme/web", [again])) == [("1", REGRESSED)]
    watch.reported("acme/web", "1")
    assert ids(watch.next_look("acme/web", [again])) == []
    assert ids(watch.next_look("acme/api", [again])) == [("1", REGRESSED)]


def test_a_reported_regression_resolved_meanwhile_is_news_again_when_it_regresses_again():
    watch = ErrorWatch()
    watch.first_look("acme/web", [OLD], regressed=["1"])
    watch.next_look("acme/web", [OLDER], complete=False)  # a first page only: "1" may be further down
    assert watch.look("acme/web").known == {"1"}
    watch.next_look("acme/web", [OLDER], complete=True)  # every unresolved error: "1" was resolved
    again = Error("1", OLD.first_seen, "2026-11-26T09:10:00Z")
    assert ids(watch.next_look("acme/web", [again, OLDER], complete=True)) == [("1", REGRESSED)]


def test_clear_makes_every_look_a_first_look_again():
    watch = ErrorWatch()
    watch.first_look("acme/web", [OLD], regressed=[])
    watch.clear()
    assert watch.is_first_look("acme/web") and watch.look("acme/web") is None
    assert watch.next_look("acme/web", [OLD]) == []  # a later look without a first one records it
    assert not watch.is_first_look("acme/web")
    watch.reported("acme/none", "1")  # a project never looked at: nothing to remember
    assert watch.is_first_look("acme/none")

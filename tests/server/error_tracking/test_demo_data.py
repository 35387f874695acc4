"""The demo server carries errors from several platforms and releases, and release health."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from outpost_server.accounts.models import Project
from outpost_server.error_tracking.read import integrated, release_health, tracked_errors
from outpost_server.error_tracking.read.search import SearchQuery, parse_search


def _page(session, project, *, sort="last_seen", limit=100, cursor=None, query=None, status="unresolved"):
    return integrated.list_errors(session, project_id=project.id, status=status, query=query or SearchQuery(),
                                  sort=sort, cursor=cursor, limit=limit)


def test_demo_errors_and_release_health(server, api, et_sessions):
    webshop = api.root.get(f"/projects/{quote('acme/webshop', safe='')}").json()
    settings = api.root.get(f"/projects/{webshop['id']}/error_tracking/settings").json()
    assert (settings["active"], settings["integrated"]) == (True, True)
    assert len(api.root.get(f"/projects/{webshop['id']}/error_tracking/client_keys").json()) == 1
    with et_sessions() as session:
        project = session.get(Project, webshop["id"])
        errors = _page(session, project, sort="frequency", limit=50).errors
        assert {error.platform for error in errors} >= {"python", "node", "ruby"}
        assert errors[0].title == "KeyError: 'sku'" and errors[0].count == 40
        assert all(error.users_count >= 1 for error in errors)
        latest = tracked_errors.latest_event_payload(session, error=errors[0])
        assert latest["exception"]["values"][-1]["type"] == "KeyError"
        assert sum(count for _, count in tracked_errors.daily_counts(session, error=errors[0])) == 40
        health = release_health.release_health(session, project=project)
    assert [row.release for row in health] == ["webshop@1.4.0", "webshop@1.5.0", "webshop@1.6.0"]
    rates = [row.crash_free_rate for row in health]
    assert rates == sorted(rates) and rates[-1] == 100.0


def test_error_list_cursor_walks_every_sort_both_ways(api, et_sessions):
    webshop = api.root.get(f"/projects/{quote('acme/webshop', safe='')}").json()
    with et_sessions() as session:
        project = session.get(Project, webshop["id"])
        for sort in ("last_seen", "first_seen", "frequency"):
            everything = _page(session, project, sort=sort)
            assert everything.pagination == {} and len(everything.errors) > 4
            pages = [_page(session, project, sort=sort, limit=2)]
            while "next" in pages[-1].pagination:
                pages.append(_page(session, project, sort=sort, limit=2, cursor=pages[-1].pagination["next"]["cursor"]))
            assert [e.id for page in pages for e in page.errors] == [e.id for e in everything.errors]
            assert "previous" not in pages[0].pagination and "previous" in pages[-1].pagination
            back = _page(session, project, sort=sort, limit=2, cursor=pages[-1].pagination["previous"]["cursor"])
            assert [e.id for e in back.errors] == [e.id for e in pages[-2].errors]
        found = _page(session, project, query=parse_search("sku"), limit=10).errors
        assert [error.title for error in found] == ["KeyError: 'sku'"]
        ignored = _page(session, project, status="ignored", limit=10)
        assert (ignored.errors, ignored.pagination) == ([], {})


@pytest.mark.parametrize("cursor", ["not-base64!", "bm90IGpzb24", "WyJmcmVxdWVuY3kiLDEsMSwibmV4dCJd",
                                    "WyJsYXN0X3NlZW4iLCJ5ZXN0ZXJkYXkiLDEsIm5leHQiXQ"])
def test_error_list_refuses_foreign_cursors(api, et_sessions, cursor):
    """Garbage, non-JSON, a cursor of another sort and an unparseable time are all InvalidCursor."""
    webshop = api.root.get(f"/projects/{quote('acme/webshop', safe='')}").json()
    with et_sessions() as session:
        project = session.get(Project, webshop["id"])
        with pytest.raises(integrated.InvalidCursor):
            _page(session, project, sort="last_seen", cursor=cursor)

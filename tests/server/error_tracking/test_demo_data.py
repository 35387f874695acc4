"""The demo server carries errors from several platforms and releases, and release health."""

from __future__ import annotations

from urllib.parse import quote

from outpost_server.accounts.models import Project
from outpost_server.error_tracking import service


def test_demo_errors_and_release_health(server, api, et_sessions):
    webshop = api.root.get(f"/projects/{quote('acme/webshop', safe='')}").json()
    settings = api.root.get(f"/projects/{webshop['id']}/error_tracking/settings").json()
    assert (settings["active"], settings["integrated"]) == (True, True)
    assert len(api.root.get(f"/projects/{webshop['id']}/error_tracking/client_keys").json()) == 1
    with et_sessions() as session:
        project = session.get(Project, webshop["id"])
        errors, _ = service.list_errors(session, project=project, sort="frequency", limit=50)
        assert {error.platform for error in errors} >= {"python", "node", "ruby"}
        assert errors[0].title == "KeyError: 'sku'" and errors[0].count == 40
        assert all(error.users_count >= 1 for error in errors)
        assert service.latest_event_payload(session, error=errors[0])["exception"]["values"][-1]["type"] == "KeyError"
        assert sum(count for _, count in service.daily_counts(session, error=errors[0])) == 40
        health = service.release_health(session, project=project)
    assert [row.release for row in health] == ["webshop@1.4.0", "webshop@1.5.0", "webshop@1.6.0"]
    rates = [row.crash_free_rate for row in health]
    assert rates == sorted(rates) and rates[-1] == 1.0


def test_error_list_cursor_walks_every_sort(api, et_sessions):
    webshop = api.root.get(f"/projects/{quote('acme/webshop', safe='')}").json()
    with et_sessions() as session:
        project = session.get(Project, webshop["id"])
        for sort in ("last_seen", "first_seen", "frequency"):
            everything, cursor = service.list_errors(session, project=project, sort=sort, limit=100)
            assert cursor is None
            walked, cursor = service.list_errors(session, project=project, sort=sort, limit=2)
            while cursor:
                page, cursor = service.list_errors(session, project=project, sort=sort, limit=2, cursor=cursor)
                walked += page
            assert [error.id for error in walked] == [error.id for error in everything]
        found, _ = service.list_errors(session, project=project, search="sku", limit=10)
        assert [error.title for error in found] == ["KeyError: 'sku'"]
        assert service.list_errors(session, project=project, status="ignored", limit=10) == ([], None)

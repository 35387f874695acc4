"""What a public DSN key may do to monitors, and how the organization routes pick one: slugs made as
Sentry's check-in consumer makes them, the per-project limit and creation rate, a slug two projects
share, an organization the caller cannot see, and the check-ins a monitor environment takes a minute."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from urllib.parse import quote

import httpx
from sqlalchemy import select

from outpost_server.monitors.check_in_rate import CHECKINS_PER_MINUTE
from outpost_server.monitors.ingest import MAX_CREATED_PER_WINDOW, MAX_MONITORS_PER_PROJECT
from outpost_server.monitors.models import Monitor
from tests.server.error_tracking.conftest import make_tracked_project
from tests.support import ApiHelper

from .monitors_api import MonitorsApi

# The margin outlasts any test: with the default minute, a check-in in the last seconds before 03:00 UTC got a
# missed one beside it from the server's clock a minute past it.
CONFIG = {"schedule": {"type": "crontab", "value": "0 3 * * *"}, "checkin_margin": 10}


def _check_in(monitors: MonitorsApi, slug: str) -> httpx.Response:
    return httpx.post(monitors.cron_url(quote(slug, safe="")), json={"status": "ok", "monitor_config": CONFIG},
                      timeout=30)


def test_slugs_are_made_as_sentry_makes_them_and_unsluggable_ones_refused(monitors):
    sent = {"Nightly Job": "nightly-job", "line\nbreak": "line-break", "\u202eevil": "evil",
            "<script>x</script>": "scriptxscript", "Under_Score-OK": "under_score-ok", "y" * 70: "y" * 50}
    for slug in sent:
        assert _check_in(monitors, slug).status_code == 202, slug
    assert sorted(monitors.all()) == sorted(sent.values())
    # Nothing is left of these once slugified: Relay's "the monitor slug is empty or invalid".
    for slug in ("..\u2215..", "\u202e", "--"):
        refused = _check_in(monitors, slug)
        assert refused.status_code == 400, slug
        assert "slug" in refused.headers["X-Sentry-Error"]
    # The API's slug field takes only what slugify would leave (Sentry's slug field).
    guid = monitors.id_of("nightly-job")
    for bad in ("Has Space", "UPPER", "1234", "a/b"):
        response = monitors.request("PUT", f"{guid}/", json={"slug": bad})
        assert response.status_code == 400, bad
        assert response.json()["slug"][0].startswith("Enter a valid slug consisting of lowercase letters")
    assert monitors.request("PUT", f"{guid}/", json={"slug": "nightly_2"}).json()["slug"] == "nightly_2"


def _add_monitors(monitors: MonitorsApi, count: int, created_at: dt.datetime) -> None:
    with monitors.tracked.sessions.begin() as session:
        session.add_all(Monitor(guid=uuid.uuid4().hex, project_id=monitors.tracked.id, slug=f"filler-{n}",
                                name=f"filler-{n}", status="active", is_muted=False, schedule_type="crontab",
                                schedule="0 3 * * *", created_at=created_at) for n in range(count))


def test_a_project_at_its_monitor_limit_gets_no_new_monitor_but_its_monitors_keep_checking_in(monitors):
    _add_monitors(monitors, MAX_MONITORS_PER_PROJECT, dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    assert _check_in(monitors, "one-too-many").status_code == 202
    assert _check_in(monitors, "filler-7").status_code == 202
    monitors.server.wait_for_digest()
    with monitors.tracked.sessions() as session:
        slugs = set(session.scalars(select(Monitor.slug).where(Monitor.project_id == monitors.tracked.id)))
    assert len(slugs) == MAX_MONITORS_PER_PROJECT and "one-too-many" not in slugs
    filler = monitors.request("GET", "filler-7/checkins/", params={"project": str(monitors.tracked.id)})
    assert [check_in["status"] for check_in in filler.json()] == ["ok"]


def test_check_ins_create_a_bounded_number_of_monitors_a_minute(monitors):
    # Monitors created "now" by earlier check-ins: dated ahead, so they count however slow the digest is.
    _add_monitors(monitors, MAX_CREATED_PER_WINDOW - 1, dt.datetime.now(dt.UTC) + dt.timedelta(hours=1))
    for slug in ("last-allowed", "over-the-rate"):
        assert _check_in(monitors, slug).status_code == 202
        monitors.server.wait_for_digest()
    stored = monitors.all()
    assert "last-allowed" in stored and "over-the-rate" not in stored


def test_a_slug_two_projects_share_needs_its_project(server, monitor_sessions, monitors):
    other = MonitorsApi.of(server, make_tracked_project(server, monitor_sessions))
    assert other.organization == monitors.organization
    shared = f"shared-{uuid.uuid4().hex[:8]}"
    assert _check_in(monitors, shared).status_code == 202
    assert _check_in(other, shared).status_code == 202
    server.wait_for_digest()
    ambiguous = monitors.request("GET", f"{shared}/")
    assert ambiguous.status_code == 400 and "project" in ambiguous.json()["detail"]
    assert monitors.request("GET", f"{shared}/checkins/").status_code == 400
    assert monitors.request("PUT", f"{shared}/", json={"isMuted": True}).status_code == 400
    mine = monitors.request("GET", f"{shared}/", params={"project": str(monitors.tracked.id)})
    assert mine.status_code == 200 and mine.json()["project"]["id"] == str(monitors.tracked.id)
    muted = monitors.request("PUT", f"{shared}/", params={"project": str(other.tracked.id)}, json={"isMuted": True})
    assert muted.status_code == 200
    assert (monitors.all()[shared]["isMuted"], other.all()[shared]["isMuted"]) == (False, True)
    assert monitors.request("DELETE", f"{shared}/", params={"project": str(monitors.tracked.id)}).status_code == 202
    assert shared not in monitors.all() and shared in other.all()
    # Only one is left: the slug alone names it again.
    assert monitors.request("GET", f"{shared}/").status_code == 200


def test_an_outsider_gets_404_for_the_organization_s_monitors_as_for_its_releases(server, monitors):
    _user, token = ApiHelper(server).user()
    headers = {"Authorization": f"Bearer {token}"}
    base = f"{server.url}/api/0/organizations/{monitors.organization}"
    assert _check_in(monitors, "private-job").status_code == 202
    server.wait_for_digest()
    for path in ("/monitors/", "/monitors/private-job/", "/releases/some-version/"):
        response = httpx.get(base + path, headers=headers, timeout=30)
        assert response.status_code == 404, path
        assert response.json() == {"detail": "The requested resource does not exist"}


def _envelope(check_ins: list[dict]) -> bytes:
    lines = [json.dumps({})]
    for check_in in check_ins:
        lines += [json.dumps({"type": "check_in"}), json.dumps(check_in)]
    return ("\n".join(lines) + "\n").encode()


def test_a_monitor_environment_takes_six_check_ins_a_minute_and_the_rest_are_dropped(monitors):
    # One envelope: every item was received in the same minute, so none can fall into the next one.
    sent = [{"check_in_id": uuid.uuid4().hex, "monitor_slug": "busy", "status": "ok", "monitor_config": CONFIG}
            for _ in range(CHECKINS_PER_MINUTE + 3)]
    sent.append({"check_in_id": uuid.uuid4().hex, "monitor_slug": "busy", "status": "ok", "environment": "dev"})
    response = httpx.post(f"{monitors.server.url}{monitors.tracked.collector_path('envelope')}",
                          params={"sentry_key": monitors.tracked.public_key}, content=_envelope(sent), timeout=30)
    # As Relay does, the SDK is answered before the limit is applied; the excess goes unstored.
    assert response.status_code == 200, response.text
    stored = monitors.check_ins("busy")
    assert sorted(check_in["id"] for check_in in stored if check_in["environment"] == "production") == sorted(
        check_in["check_in_id"] for check_in in sent[:CHECKINS_PER_MINUTE])
    # Keyed on the environment: another one of the same monitor is not limited by it.
    assert [check_in["environment"] for check_in in stored].count("dev") == 1

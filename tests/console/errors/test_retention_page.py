"""The Storage page against the real server: usage, limits, instance defaults and roles."""

from __future__ import annotations

from console.core.api.storage import disk_text
from console.errors.retention import MAINTAINER_ONLY, MIB
from outpost_server.accounts import access
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab
from tests.sdk_errors import enable_integrated, send_errors


def _open_storage(qtbot, context, server, token, path):
    connect(qtbot, context, server.url, token)
    tab = open_tab(qtbot, context)
    choose_project(qtbot, tab, path)
    tab.pages.setCurrentWidget(tab.retention_page)
    return tab.retention_page


def test_storage_page_shows_usage_and_saves_limits(qtbot, qloop_running, context, server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "chained")
    page = _open_storage(qtbot, context, server, server.root_token, project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.loaded is not None and page.loaded.stored_events == 3, timeout=WAIT)
    assert "Stored: 3 events" in page.usage.text()
    own = api.root.get(f"/projects/{project['id']}/error_tracking/retention").json()
    assert f", {disk_text(own['disk_bytes'], own['disk_basis'])}. Last pruned:" in page.usage.text()
    assert own["disk_bytes"] > 0 and "on disk (estimated from " in page.usage.text()
    days = page.rows["retention_days"]
    assert days.use_default.isChecked() and not days.value.isEnabled()
    assert days.use_default.text() == "Instance default (90 days)"

    days.use_default.setChecked(False)
    days.value.setValue(14)
    page.rows["max_stored_bytes"].use_default.setChecked(False)
    page.rows["max_stored_bytes"].value.setValue(64)
    page.save_button.click()
    qtbot.waitUntil(lambda: page.saved_label.text() == "Saved.", timeout=WAIT)

    stored = api.root.get(f"/projects/{project['id']}/error_tracking/retention").json()
    assert (stored["retention_days"], stored["max_stored_bytes"]) == (14, 64 * MIB)
    assert stored["overridden"] == ["retention_days", "max_stored_bytes"]

    days.use_default.setChecked(True)
    page.save_button.click()
    qtbot.waitUntil(lambda: page.loaded is not None and page.loaded.overridden == ["max_stored_bytes"],
                    timeout=WAIT)
    assert api.root.get(f"/projects/{project['id']}/error_tracking/retention").json()["retention_days"] == 90


def test_storage_page_explains_that_developers_cannot_see_it(qtbot, qloop_running, context, server, api):
    project, tokens = api.project_with_roles({"developer": access.DEVELOPER})
    page = _open_storage(qtbot, context, server, tokens["developer"], project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.notice.isVisible(), timeout=WAIT)
    assert page.notice.text() == MAINTAINER_ONLY
    assert not page.save_button.isEnabled()


def test_administrators_see_the_ingestion_queue_and_its_lag(qtbot, qloop_running, context, server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "chained")
    page = _open_storage(qtbot, context, server, server.root_token, project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.ingestion.isVisible(), timeout=WAIT)
    figures = api.root.get("/error_tracking/ingestion").json()
    text = page.ingestion.text()
    assert text.startswith("Ingestion on this server: 0 requests waiting to be digested.")
    assert f"Accepted {figures['accepted']:,}, digested {figures['digested']['events']:,} events." in text
    assert "Events are listed about" in text


def test_maintainers_do_not_see_the_ingestion_figures(qtbot, qloop_running, context, server, api):
    project, tokens = api.project_with_roles({"maintainer": access.MAINTAINER})
    page = _open_storage(qtbot, context, server, tokens["maintainer"], project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.loaded is not None or page.notice.isVisible(), timeout=WAIT)
    assert not page.ingestion.isVisible()
    assert page.ingestion.text() == ""

"""The Monitors page against the real server: monitors made by check-ins, their schedule in words, status,
environment and times; the selected monitor's timeline coloured by status; Mute and Pause through Sentry's
monitors API."""

from __future__ import annotations

import httpx
from PySide6.QtCore import Qt

from console.core.api.monitors import is_paused
from console.core.timestamps import parse_time, relative_time
from console.errors.monitors_page import MonitorModel
from console.looks import colour
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab
from tests.server.error_tracking.conftest import make_tracked_project, server_sessionmaker
from tests.server.monitors.monitors_api import MonitorsApi

# The margin outlasts the test: with the default minute, check-ins in the last seconds before 02:00 in Berlin got
# a missed one after them from the server's clock a minute past it, a third check-in on the timeline.
BACKUP = {"schedule": {"type": "crontab", "value": "0 2 * * *"}, "timezone": "Europe/Berlin", "checkin_margin": 10}
SYNC = {"schedule": {"type": "interval", "value": 10, "unit": "minute"}}


def _check_in(monitors: MonitorsApi, slug: str, status: str, config: dict | None = None) -> None:
    body = {"status": status, **({"monitor_config": config} if config else {})}
    assert httpx.post(monitors.cron_url(slug), json=body, timeout=30).status_code == 202


def test_monitors_page_shows_times_timeline_and_mutes_and_pauses(qtbot, qtmodeltester, qloop_running, context,
                                                                  server):
    # Another project of the same organization has a monitor of the same slug, with other check-ins.
    elsewhere = MonitorsApi.of(server, make_tracked_project(server, server_sessionmaker(server)))
    for _ in range(3):
        _check_in(elsewhere, "nightly-backup", "ok", BACKUP)
    tracked = make_tracked_project(server, server_sessionmaker(server))
    monitors = MonitorsApi.of(server, tracked)
    _check_in(monitors, "nightly-backup", "ok", BACKUP)
    _check_in(monitors, "nightly-backup", "error")
    _check_in(monitors, "queue-sync", "ok", SYNC)
    assert set(monitors.all()) == {"nightly-backup", "queue-sync"}
    with server.client() as client:
        path = client.get(f"/projects/{tracked.id}").json()["path_with_namespace"]

    connect(qtbot, context, server.url, server.root_token)
    tab = open_tab(qtbot, context)
    choose_project(qtbot, tab, path)
    tab.pages.setCurrentWidget(tab.monitors_page)
    page = tab.monitors_page
    qtbot.waitUntil(lambda: page.loaded_project == tracked.id and page.model.rowCount() == 2, timeout=WAIT)
    rows = {page.model.monitor_at(row).slug: row for row in range(2)}

    def cell(slug: str, header: str) -> str:
        return page.model.data(page.model.index(rows[slug], MonitorModel.HEADERS.index(header)))

    assert cell("nightly-backup", "Schedule") == "every day at 02:00 Europe/Berlin"
    assert cell("queue-sync", "Schedule") == "every 10 minutes UTC"
    assert (cell("nightly-backup", "Status"), cell("queue-sync", "Status")) == ("failing", "ok")
    assert cell("nightly-backup", "Environment") == "production"
    # Times as the error list gives them: relative to the moment they are shown (read around the cell, so a
    # slow machine crossing a minute between the check-in and the look cannot decide the test), the full
    # time in the tooltip.
    [environment] = page.model.monitor_at(rows["nightly-backup"]).environments
    for header, sent in (("Last check-in", environment.lastCheckIn), ("Next check-in", environment.nextCheckIn)):
        before = relative_time(sent)
        assert cell("nightly-backup", header) in {before, relative_time(sent)}, header
    assert relative_time(environment.nextCheckIn, parse_time(environment.lastCheckIn)).startswith("in ")
    last = page.model.index(rows["nightly-backup"], MonitorModel.LAST_CHECK_IN)
    assert page.model.data(last, Qt.ItemDataRole.ToolTipRole).endswith(")")  # "YYYY-MM-DD HH:MM:SS (UTC±HH:MM)"
    status = page.model.index(rows["nightly-backup"], MonitorModel.HEADERS.index("Status"))
    assert page.model.data(status, Qt.ItemDataRole.ForegroundRole).color() == colour("error")
    qtmodeltester.check(page.model)

    page.table.selectRow(rows["nightly-backup"])
    qtbot.waitUntil(lambda: len(page.timeline.check_ins) == 2, timeout=WAIT)
    assert [page.timeline.colour_name(check_in) for check_in in page.timeline.check_ins] == ["success", "error"]
    page.timeline.grab()  # paints it

    page.mute_button.click()
    qtbot.waitUntil(lambda: page.selected() is not None and page.selected().isMuted, timeout=WAIT)
    assert page.mute_button.text() == "Unmute"
    assert monitors.get("nightly-backup")["isMuted"] is True
    page.pause_button.click()
    qtbot.waitUntil(lambda: page.selected() is not None and is_paused(page.selected()), timeout=WAIT)
    assert cell("nightly-backup", "Status") == "paused, muted"
    assert (page.pause_button.text(), cell("nightly-backup", "Next check-in")) == ("Resume", "")
    assert monitors.get("nightly-backup")["status"] == "disabled"
    page.pause_button.click()
    qtbot.waitUntil(lambda: page.selected() is not None and not is_paused(page.selected()), timeout=WAIT)
    assert monitors.get("nightly-backup")["status"] == "active"

"""Grab the error detail screenshots offscreen from the running console: a local server, a project whose
errors come from the real Python SDK (a WSGI app that logs, sets its user and tags, then fails), and the
detail pane's event navigator with breadcrumbs, the request and contexts, and the tag facets.

    .venv/bin/python scripts/errors_screenshots.py [OUTPUT_DIR]   (default: resources/screenshots)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the SDK scenarios of the tests send the errors

from screenshot_support import local_console, run_grab, settle  # noqa: E402

from console.context import AppContext  # noqa: E402
from console.errors.tab import ErrorTrackingTab  # noqa: E402
from tests.sdk_errors import send_errors  # noqa: E402

SHOTS = ("errors-event-breadcrumbs.png", "errors-event-request.png", "errors-tag-facets.png")


async def storefront_with_errors(context: AppContext) -> str:
    """A project with integrated error tracking and the SDK's failed checkouts; returns its path."""
    client = context.client
    assert client is not None
    project = (await client.request("POST", "/projects", json={"name": "storefront"})).json()
    await client.request("PUT", f"/projects/{project['id']}/error_tracking/settings",
                         json={"active": True, "integrated": True})
    keys = (await client.request("GET", f"/projects/{project['id']}/error_tracking/client_keys")).json()
    await asyncio.to_thread(send_errors, keys[0]["sentry_dsn"], "web", release="storefront@2.4.0")
    # Accepted events are grouped a moment later: wait until the error counts all three.
    organization, slug = project["path_with_namespace"].split("/", 1)
    for _ in range(600):
        issues = (await client.sentry_request(f"/projects/{organization}/{slug}/issues/")).json()
        if issues and issues[0]["count"] == "3":
            break
        await asyncio.sleep(0.1)
    return project["path_with_namespace"]


async def grab(output: Path, workdir: Path) -> None:
    async with local_console(workdir) as window:  # at its default size, as a new administrator sees it
        await settle(lambda: window.context.is_connected)
        path = await storefront_with_errors(window.context)
        window.open_target(("errors", path))  # as a click on the overview does; it supersedes any other
        tab = window.tabs.current_feature()
        assert isinstance(tab, ErrorTrackingTab)
        page = tab.errors_page
        await settle(lambda: tab.project is not None and tab.project.path_with_namespace == path
                     and page.model.rowCount() == 1)
        page.table.selectRow(0)
        events = page.events_pane
        page.detail.sections.setCurrentWidget(events)
        await settle(lambda: events.navigator.position.text() == "event 3 of 3")
        events.navigator.previous_button.click()
        await settle(lambda: events.navigator.position.text() == "event 2 of 3")
        events.sections.setCurrentWidget(events.breadcrumbs)
        await asyncio.sleep(0.3)
        window.grab().save(str(output / SHOTS[0]))
        events.sections.setCurrentWidget(events.context)
        await asyncio.sleep(0.3)
        window.grab().save(str(output / SHOTS[1]))
        page.detail.sections.setCurrentWidget(page.facets_pane)
        await settle(lambda: page.facets_pane.facets.facets.rowCount() > 0)
        page.facets_pane.facets.choose("browser", "Firefox 121.0")
        await settle(lambda: page.facets_pane.tagged.events.rowCount() == 2)
        await asyncio.sleep(0.3)
        window.grab().save(str(output / SHOTS[2]))


def main() -> int:
    output = run_grab(grab)
    print("Saved " + ", ".join(str(output / name) for name in SHOTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())

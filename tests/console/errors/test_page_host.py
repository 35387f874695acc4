"""Pages receive what they use through console.page_host, not through the tab that holds them."""

from __future__ import annotations

import re
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import msgspec

from console.context import AppContext
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.operations import Token
from console.errors.retention import RetentionPage
from outpost_model.projects import Project
from tests.console.errors.conftest import WAIT, connect
from tests.sdk_errors import enable_integrated, send_errors

CONSOLE = Path(__file__).resolve().parents[3] / "src" / "console"


class PlainHost:
    """Only what console.page_host.ProjectHost promises: no tab, no widget."""

    def __init__(self, context: AppContext, project: Project) -> None:
        self.context = context
        self.connection = Token()
        self.project_choice = Token()
        self.project: Project | None = project

    @property
    def api(self) -> ErrorTrackingApi:
        assert self.context.client is not None
        return ErrorTrackingApi(self.context.client)

    def admit(self, work: Coroutine[Any, Any, Any]) -> Coroutine[Any, Any, Any] | None:
        return work


def test_a_page_works_with_any_host_that_offers_the_protocol(qtbot, qloop_running, context, server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "chained")
    connect(qtbot, context, server.url, server.root_token)
    page = RetentionPage(PlainHost(context, msgspec.convert(project, Project)))
    qtbot.addWidget(page)
    page.load()
    qtbot.waitUntil(lambda: page.loaded is not None and page.loaded.stored_events == 3, timeout=WAIT)
    assert "Stored: 3 events" in page.usage.text()


def test_no_page_reaches_into_its_tab():
    reaching = [f"{path.relative_to(CONSOLE)}:{number}" for path in CONSOLE.rglob("*.py")
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if re.search(r"\bself\.tab\b", line)]
    assert reaching == []

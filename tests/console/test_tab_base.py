"""The tab base: one way for every tab to reach its API, run work and drop late answers."""

from __future__ import annotations

import httpx

from console.core.api import error_graphql
from console.core.api.errors import NotConnected, error_from_response
from console.core.api.server import ServerInfo
from console.core.operations import Token
from console.errors.tab import ErrorTrackingTab
from console.exports.views import ExportsTab
from console.operations import Op
from console.tab import ConsoleTab
from console.variables.views import VariablesTab
from outpost_model.instance import Kas, Version


def test_token_keeps_only_the_newest_stamp():
    requests = Token()
    first = requests.advance()
    assert first.current
    second = requests.advance()
    assert not first.current and second.current and requests.stamp() == second


def test_every_tab_extends_the_base_and_refuses_api_use_without_a_connection(qtbot, context, tmp_path):
    tabs = [VariablesTab(context), ExportsTab(context, history_dir=tmp_path), ErrorTrackingTab(context)]
    reported = []
    context.error_reported.connect(lambda title, message: reported.append(title))
    for tab in tabs:
        qtbot.addWidget(tab)
        assert isinstance(tab, ConsoleTab)
        try:
            tab.api  # noqa: B018 - the property is what is tested
        except NotConnected as error:
            assert error.message == "Not connected to a server. Connect first."
        else:
            raise AssertionError(f"{type(tab).__name__}.api answered without a connection")

        async def never() -> None:
            raise AssertionError("work ran without a connection")

        refused = Op(tab, never(), description="Nothing").run()
        assert not refused.started and refused.done()
    assert reported == []


def test_a_connection_change_makes_earlier_answers_stale(qtbot, context):
    tab = VariablesTab(context)
    qtbot.addWidget(tab)
    stamp = tab.connection.stamp()
    context.connection_changed.emit()
    assert not stamp.current


def test_server_kind_comes_from_the_revision():
    kas = Kas(enabled=False, externalUrl=None, version=None)  # as GitLab before 17.6 answers: no proxy URL
    outpost = Version(version="18.6.0", revision="outpost-0.1.0", kas=kas, enterprise=True)
    assert ServerInfo(version=outpost).is_outpost
    gitlab = ServerInfo(version=Version(version="17.5.0-ee", revision="4e963fe", kas=kas, enterprise=True),
                        graphql_error_tracking=True)
    assert not ServerInfo().is_outpost and ServerInfo().version_text == "unknown"
    assert not gitlab.is_outpost and gitlab.product == "GitLab" and not gitlab.web_routes_take_tokens


def test_graphql_statuses_and_errors_become_the_consoles():
    assert error_graphql.status_word("RESOLVED_IN_NEXT_RELEASE") == "resolved"
    assert error_graphql.status_word("IGNORED") == "ignored"
    assert error_graphql.status_enum(error_graphql.status_word("RESOLVED")) == "RESOLVED"
    response = httpx.Response(401, json={"errors": [{"message": "401 Unauthorized"}]})
    assert error_from_response(response).detail == "401 Unauthorized"

"""The overview's Regressions figure against the real server, when newer errors push a regression down the list."""

from __future__ import annotations

from console.overview.model import ProjectErrorsModel
from tests.console.shell.conftest import WAIT, error_list, open_overview, resolve
from tests.sdk_errors import enable_integrated, send_errors

NEWER_ERRORS = 21  # more than a page of the most recently seen errors


def test_a_regression_below_many_newer_errors_is_counted(qtbot, qloop_running, context, server, api, tmp_path):
    """The walk's acme/webshop read "0+": only the 20 most recently seen errors were looked at, and a steady
    stream of new messages had pushed its regression below them."""
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "beta broke")
    [beta] = error_list(server, path, lambda body: len(body["errors"]) == 1)["errors"]
    resolve(server, path, beta["id"])
    send_errors(dsn, "beta broke")  # seen again after its resolution: a regression
    send_errors(dsn, f"messages:{NEWER_ERRORS}")
    error_list(server, path, lambda body: len(body["errors"]) == NEWER_ERRORS + 1, per_page=100)
    tab = open_overview(qtbot, context, server.url, server.root_token, tmp_path)
    qtbot.waitUntil(lambda: any(row.path == path for row in tab.model.rows), timeout=WAIT)
    row = next(index for index, item in enumerate(tab.model.rows) if item.path == path)
    assert tab.model.index(row, ProjectErrorsModel.UNRESOLVED).data() == str(NEWER_ERRORS + 1)
    assert tab.model.index(row, ProjectErrorsModel.REGRESSIONS).data() == "1"

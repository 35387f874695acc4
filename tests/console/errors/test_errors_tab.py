"""The error tracking tab against the real server, with errors sent by the real Python SDK."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from console.core.api.error_tracking import ErrorPage, ErrorSummary
from console.core.errors.access import MAINTAINER_ONLY
from console.core.settings_keys import LOCAL_DEMO_PROFILE
from console.errors.frequency import FrequencyBarDelegate
from console.errors.models import FREQUENCY_ROLE, HIDDEN_DSN, ClientKeyModel, ErrorListModel
from console.errors.stacktrace import ERROR_LINE_ROLE, IN_APP_ROLE, LIBRARY_GROUP_ROLE
from console.looks import colour
from console.main_window import DEFAULT_SIZE
from console.operations import Op
from outpost_model.error_tracking import ClientKey
from outpost_server.accounts import access
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab, select_only_error
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list


@pytest.fixture(scope="module")
def shop(server, api):
    """A project with a chained ValueError (3 events), a KeyError raised inside json, and a message."""
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "chained")
    send_errors(dsn, "keyerror", release="shop@2.0.0", environment="staging")
    send_errors(dsn, "checkout is slow")
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        wait_for_list(web, project["path_with_namespace"],
                      lambda body: len(body["errors"]) == 3 and max(e["count"] for e in body["errors"]) == 3)
    return project


def titles(model: ErrorListModel) -> list[str]:
    return [error.title for error in model.errors]


def test_list_sort_and_search(qtbot, make_root_tab, shop):
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, shop["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=WAIT)
    model = page.model
    row = titles(model).index("ValueError: order could not be loaded")
    assert model.data(model.index(row, ErrorListModel.EVENTS)) == 3
    assert model.data(model.index(row, ErrorListModel.USERS)) == 3
    assert model.data(model.index(row, ErrorListModel.STATUS)) == "Unresolved"
    assert model.data(model.index(row, ErrorListModel.TYPE)) == "error"
    assert sum(model.data(model.index(row, ErrorListModel.TREND), FREQUENCY_ROLE)) == 3
    assert model.data(model.index(row, ErrorListModel.LAST_SEEN))

    page.filters.sort.setCurrentIndex(page.filters.sort.findData("frequency"))
    qtbot.waitUntil(lambda: titles(page.model)[:1] == ["ValueError: order could not be loaded"], timeout=WAIT)

    page.filters.search.setText("release:shop@2.0.0")
    page.filters.search.returnPressed.emit()
    qtbot.waitUntil(lambda: titles(page.model) == ["KeyError: 'missing-key'"], timeout=WAIT)
    page.filters.search.setText("nothing like this")
    page.filters.search.returnPressed.emit()
    qtbot.waitUntil(lambda: page.model.rowCount() == 0 and not page.loading, timeout=WAIT)
    assert page.empty_label.text() == "No errors match."


def test_selecting_another_error_shows_its_detail_from_the_top(qtbot, make_root_tab, shop):
    root_tab = make_root_tab()
    root_tab.resize(900, 560)
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, shop["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.copy_button.isEnabled(), timeout=WAIT)
    scroll = page.detail.summary_scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: scroll.maximum() > 0, timeout=WAIT)
    scroll.setValue(scroll.maximum())
    page.table.selectRow(1)
    assert scroll.value() == 0 and page.detail.title.text() == page.model.error_at(1).title


def test_detail_with_stack_trace_then_resolve(qtbot, make_root_tab, shop):
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, shop["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=WAIT)

    page.table.selectRow(titles(page.model).index("KeyError: 'missing-key'"))
    trace = page.detail.stack_trace
    qtbot.waitUntil(lambda: trace.topLevelItemCount() == 1 and trace.topLevelItem(0).childCount() > 0, timeout=WAIT)
    detail = page.detail
    assert detail.title.text() == "KeyError: 'missing-key'"
    assert detail.exception.text() == "KeyError: 'missing-key'"
    assert detail.fields["Last release"].text() == "shop@2.0.0"
    assert detail.fields["Environment"].text() == "staging"
    assert "platform: python" in detail.fields["Tags"].text()
    exception = trace.topLevelItem(0)
    children = [exception.child(i) for i in range(exception.childCount())]
    groups = [item for item in children if item.data(0, LIBRARY_GROUP_ROLE)]
    app_frames = [item for item in children if item.data(0, IN_APP_ROLE)]
    assert groups and all(not group.isExpanded() for group in groups), "library frames start folded"
    assert "library frame" in groups[0].text(0)
    assert app_frames and all(frame.font(0).bold() for frame in app_frames)
    last_frame = app_frames[-1]
    assert "<lambda>" in last_frame.text(0) and last_frame.isExpanded()
    error_lines = [last_frame.child(i) for i in range(last_frame.childCount())
                   if last_frame.child(i).data(0, ERROR_LINE_ROLE)]
    assert len(error_lines) == 1 and 'document["missing-key"]' in error_lines[0].text(0)

    said: list[str] = []
    root_tab.context.status_message.connect(said.append)
    qtbot.mouseClick(detail.action_buttons["resolved"], Qt.MouseButton.LeftButton)
    resolved_id = detail.error_id
    qtbot.waitUntil(lambda: "The error is now resolved" in said, timeout=WAIT)  # no internal id
    qtbot.waitUntil(lambda: "KeyError: 'missing-key'" not in titles(page.model), timeout=WAIT)
    assert detail.error_id is None and resolved_id is not None, "nothing is selected after it"
    page.filters.status.setCurrentIndex(page.filters.status.findData("resolved"))
    qtbot.waitUntil(lambda: titles(page.model) == ["KeyError: 'missing-key'"], timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: detail.fields["Status"].text() == "Resolved", timeout=WAIT)
    assert not detail.action_buttons["resolved"].isEnabled()
    qtbot.mouseClick(detail.action_buttons["unresolved"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=WAIT)


def test_chained_exceptions_show_in_order(qtbot, make_root_tab, shop):
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, shop["path_with_namespace"])
    qtbot.waitUntil(lambda: "ValueError: order could not be loaded" in titles(page.model), timeout=WAIT)
    page.table.selectRow(titles(page.model).index("ValueError: order could not be loaded"))
    trace = page.detail.stack_trace
    qtbot.waitUntil(lambda: trace.topLevelItemCount() == 2, timeout=WAIT)
    assert "ZeroDivisionError" in trace.topLevelItem(0).text(0)
    assert "led to the next exception" in trace.topLevelItem(0).text(0)
    assert "ValueError: order could not be loaded" in trace.topLevelItem(1).text(0)
    assert page.detail.fields["Users affected"].text() == "3"


def test_ignore_from_the_list(qtbot, make_root_tab, server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "disk almost full")
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    page.table.selectRow(0)
    buttons = page.detail.action_buttons
    qtbot.waitUntil(lambda: buttons["ignored"].isEnabled() and not buttons["unresolved"].isEnabled(), timeout=WAIT)
    qtbot.mouseClick(buttons["ignored"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=WAIT)
    page.filters.status.setCurrentIndex(page.filters.status.findData("ignored"))
    qtbot.waitUntil(lambda: titles(page.model) == ["disk almost full"], timeout=WAIT)


def test_every_page_fits_in_the_default_window(make_root_tab):
    # The pages share one stack, so the tallest page's minimum decides how small the tab can be; the
    # menu bar, tab bars and status bar need the rest of the default window's height.
    root_tab = make_root_tab()
    width, height = DEFAULT_SIZE
    too_big = {root_tab.pages.tabText(index): root_tab.pages.widget(index).minimumSizeHint()
               for index in range(root_tab.pages.count())
               if root_tab.pages.widget(index).minimumSizeHint().height() > height - 200
               or root_tab.pages.widget(index).minimumSizeHint().width() > width - 40}
    assert too_big == {}


def test_scrolling_loads_more_pages(qtbot, make_root_tab, server, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "messages:45")
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        wait_for_list(web, project["path_with_namespace"], lambda body: "next" in body["pagination"])
    root_tab = make_root_tab()
    root_tab.resize(1200, 420)  # short enough that one page overflows and the view does not ask for more
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 20, timeout=WAIT)
    assert page.model.canFetchMore()
    scroll = page.table.verticalScrollBar()
    for expected in (40, 45):
        # The view lays the new rows out after they arrive; scrolling before that moves nothing.
        qtbot.waitUntil(lambda: scroll.value() < scroll.maximum(), timeout=WAIT)
        scroll.setValue(scroll.maximum())
        qtbot.waitUntil(lambda expected=expected: page.model.rowCount() == expected, timeout=WAIT)
    assert not page.model.canFetchMore()
    assert len({error.id for error in page.model.errors}) == 45


def test_reporter_reads_errors_but_not_settings_or_keys(qtbot, qloop_running, context, server, api, shop):
    user, token = api.user()
    api.member("projects", shop["id"], user["id"], access.REPORTER)
    reported = []
    context.error_reported.connect(lambda title, message: reported.append(title))
    connect(qtbot, context, server.url, token)
    tab = open_tab(qtbot, context)
    choose_project(qtbot, tab, shop["path_with_namespace"])
    qtbot.waitUntil(lambda: tab.errors_page.model.rowCount() == 3, timeout=WAIT)
    for page in (tab.settings_page, tab.keys_page):
        tab.pages.setCurrentWidget(page)
        qtbot.waitUntil(lambda page=page: page.notice.text() != "", timeout=WAIT)
    assert tab.settings_page.notice.text() == MAINTAINER_ONLY and not tab.settings_page.form.isEnabled()
    assert tab.keys_page.notice.text() == MAINTAINER_ONLY and not tab.keys_page.create_button.isEnabled()
    assert reported == []


def test_project_without_error_tracking_says_so(qtbot, make_root_tab, api, caplog):
    project = api.project()
    root_tab = make_root_tab()
    reported = []
    root_tab.context.error_reported.connect(lambda title, message: reported.append(f"{title}: {message}"))
    page = root_tab.errors_page
    caplog.set_level("WARNING")
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: not page.loading, timeout=WAIT)  # a failure is reported in the same step
    assert page.empty_label.text() == \
        "Error tracking is not enabled for this project: turn it on in the Settings tab."
    assert page.model.rowCount() == 0
    # The hint is the whole story: no red failure in the status bar, no warning in the terminal.
    assert reported == []
    assert [record.getMessage() for record in caplog.records if record.levelname == "WARNING"] == []


def test_auto_refresh_runs_only_while_visible(qtbot, make_root_tab):
    root_tab = make_root_tab()
    assert root_tab.refresh_timer.isActive()
    root_tab.hide()
    assert not root_tab.refresh_timer.isActive()
    root_tab.show()
    assert root_tab.refresh_timer.isActive()


def test_auto_refresh_shows_new_errors(qtbot, make_root_tab, api):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "first problem")
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    send_errors(dsn, "second problem")

    def refresh_shows_both() -> bool:
        page.auto_refresh()  # the timer's slot, called directly: the test does not wait for the interval
        return page.model.rowCount() == 2

    qtbot.waitUntil(refresh_shows_both, timeout=WAIT)
    assert set(titles(page.model)) == {"first problem", "second problem"}


def test_the_list_is_read_again_as_the_tab_comes_back_on_screen(qtbot, make_root_tab, api):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "first problem")
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    news = root_tab.context.error_news
    qtbot.waitUntil(lambda: page.model.rowCount() == 1 and news.is_settled(project["path_with_namespace"]),
                    timeout=WAIT)  # all read
    root_tab.hide()  # another tab is on screen
    send_errors(dsn, "second problem")
    root_tab.show()  # back, long before the refresh interval is over
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=WAIT)
    assert set(titles(page.model)) == {"first problem", "second problem"}


def test_client_keys_reveal_copy_create_delete(qtbot, make_root_tab, api):
    project = api.project()
    root_tab = make_root_tab()
    enable_integrated(api.root, project["id"])
    keys_page = root_tab.keys_page
    root_tab.pages.setCurrentWidget(keys_page)
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: keys_page.model.rowCount() == 1, timeout=WAIT)
    assert not keys_page.demo_notice.isVisible()  # a server's DSN keeps its address
    model = keys_page.model
    key = model.key_at(0)
    assert model.data(model.index(0, ClientKeyModel.DSN)) == HIDDEN_DSN
    keys_page.table.selectRow(0)
    qtbot.mouseClick(keys_page.reveal_button, Qt.MouseButton.LeftButton)
    assert model.data(model.index(0, ClientKeyModel.DSN)) == key.sentry_dsn
    assert keys_page.reveal_button.text() == "Hide DSN"
    qtbot.mouseClick(keys_page.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == key.sentry_dsn

    qtbot.mouseClick(keys_page.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=WAIT)
    assert model.data(model.index(0, ClientKeyModel.DSN)) == HIDDEN_DSN  # the reloaded table hides it again
    keys_page.table.selectRow(0)
    qtbot.mouseClick(keys_page.reveal_button, Qt.MouseButton.LeftButton)
    keys_page.table.selectRow(1)
    assert model.data(model.index(0, ClientKeyModel.DSN)) == HIDDEN_DSN  # and so does moving the selection
    keys_page.table.selectRow(1)
    created = model.key_at(1)
    qtbot.mouseClick(keys_page.delete_button, Qt.MouseButton.LeftButton)
    box = keys_page.confirm_box
    assert box is not None and box.isVisible()
    delete = next(button for button in box.buttons() if button.text() == "Delete")
    qtbot.mouseClick(delete, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [k.id for k in model.keys] == [key.id], timeout=WAIT)
    remaining = api.root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()
    assert created.id not in [key["id"] for key in remaining]


def test_rotate_wizard(qtbot, make_root_tab, api):
    project = api.project()
    root_tab = make_root_tab()
    old_dsn = enable_integrated(api.root, project["id"])
    keys_page = root_tab.keys_page
    root_tab.pages.setCurrentWidget(keys_page)
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: keys_page.model.rowCount() == 1, timeout=WAIT)
    old_key = keys_page.model.key_at(0)
    wizard = keys_page.open_rotate_wizard()
    assert wizard is not None and wizard.isVisible()
    assert not wizard.create_page.isComplete()
    qtbot.mouseClick(wizard.create_page.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(wizard.create_page.isComplete, timeout=WAIT)
    new_key = wizard.new_key
    assert new_key is not None and wizard.create_page.new_dsn.text() == new_key.sentry_dsn != old_dsn
    wizard.next()
    qtbot.waitUntil(wizard.list_page.isComplete, timeout=WAIT)
    assert {k.id for k in wizard.list_page.model.keys} == {old_key.id, new_key.id}
    assert wizard.list_page.model.highlighted == new_key.id
    assert wizard.list_page.old_key.currentData().id == old_key.id
    wizard.next()
    assert wizard.confirm_page.dsn.text() == new_key.sentry_dsn
    assert not wizard.confirm_page.isComplete()
    wizard.confirm_page.confirmed.setChecked(True)
    assert wizard.confirm_page.isComplete()
    wizard.next()
    assert not wizard.delete_page.done
    qtbot.mouseClick(wizard.delete_page.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: wizard.delete_page.done, timeout=WAIT)
    remaining = api.root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()
    assert [k["id"] for k in remaining] == [new_key.id]
    wizard.accept()
    qtbot.waitUntil(lambda: [k.id for k in keys_page.model.keys] == [new_key.id], timeout=WAIT)


def test_settings_page_shows_the_integrated_backend(qtbot, make_root_tab, api):
    project = api.project()
    root_tab = make_root_tab()
    enable_integrated(api.root, project["id"])
    settings_page = root_tab.settings_page
    root_tab.pages.setCurrentWidget(settings_page)
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: settings_page.loaded is not None, timeout=WAIT)
    assert settings_page.active.isChecked() and settings_page.integrated.isChecked()
    assert not settings_page.external_box.isEnabled()
    settings_page.active.setChecked(False)
    qtbot.mouseClick(settings_page.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: settings_page.saved_label.text() == "Saved.", timeout=WAIT)
    assert api.root.get(f"/projects/{project['id']}/error_tracking/settings").json()["active"] is False
    # Saving reloads the error list; it now says that error tracking is off.
    qtbot.waitUntil(lambda: not root_tab.errors_page.loading, timeout=WAIT)
    assert "not enabled" in root_tab.errors_page.empty_label.text()


def test_settings_page_sets_allowed_origins_and_says_what_was_refused(qtbot, make_root_tab, api, server):
    project = api.project()
    dsn = enable_integrated(api.root, project["id"])
    public_key = dsn.split("//", 1)[1].split("@", 1)[0]
    api.root.patch(f"/projects/{project['id']}/error_tracking/settings",
                   json={"active": True, "allowed_origins": ["https://shop.example.com"]}).raise_for_status()
    # A page elsewhere reports: the server refuses it and counts it.
    refused = httpx.post(f"{server.url}/api/v4/error_tracking/collector/api/{project['id']}/envelope",
                         params={"sentry_key": public_key}, headers={"Origin": "http://evil.example"},
                         content=b'{}\n{"type":"event"}\n{"message":"x"}\n')
    assert refused.status_code == 403
    root_tab = make_root_tab()
    settings_page = root_tab.settings_page
    root_tab.pages.setCurrentWidget(settings_page)
    choose_project(qtbot, root_tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: settings_page.loaded is not None, timeout=WAIT)
    box = settings_page.origins_box
    assert box.isVisibleTo(settings_page) and box.origins.text() == "https://shop.example.com"
    assert box.rejected.text().startswith("1 browser report refused")
    assert "http://evil.example" in box.rejected.text()

    box.origins.setText("https://shop.example.com, http://evil.example")
    qtbot.mouseClick(settings_page.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: settings_page.saved_label.text() == "Saved.", timeout=WAIT)
    saved = api.root.get(f"/projects/{project['id']}/error_tracking/settings").json()
    assert saved["allowed_origins"] == ["https://shop.example.com", "http://evil.example"]


def _summary(number: int) -> ErrorSummary:
    return ErrorSummary(id=str(number), title=f"Error {number}", type="error", count=number, user_count=1,
                        first_seen="2024-01-01T00:00:00.000Z", last_seen="2024-01-02T00:00:00.000Z",
                        status="unresolved", culprit="app.py in run", message="boom", frequency=(0, 1, 2))


def test_models_pass_the_model_tester(qtmodeltester, qapp):
    errors = ErrorListModel()
    errors.reset_page(ErrorPage([_summary(n) for n in range(1, 6)], next_cursor="abc"))
    qtmodeltester.check(errors)
    errors.append_page(ErrorPage([_summary(n) for n in range(6, 9)], next_cursor=None))
    errors.remove_error("3")
    qtmodeltester.check(errors)
    assert errors.rowCount() == 7 and not errors.canFetchMore()

    keys = ClientKeyModel()
    keys.set_keys([ClientKey(id=1, active=True, public_key="glet_" + "a" * 32, sentry_dsn="http://k@h/1"),
                   ClientKey(id=2, active=False, public_key="glet_" + "b" * 32, sentry_dsn="http://j@h/1")])
    keys.set_revealed(2, True)
    qtmodeltester.check(keys)


def test_frequency_bars_are_painted_to_scale(qapp):
    model = ErrorListModel()
    model.reset_page(ErrorPage([_summary(1)], next_cursor=None))  # counts 0, 1, 2
    image = QImage(90, 30, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, 90, 30)
    FrequencyBarDelegate().paint(painter, option, model.index(0, ErrorListModel.TREND))
    painter.end()
    bar = colour("bar").name()

    def bar_height(left: int, right: int) -> int:
        return max((sum(image.pixelColor(x, y).name() == bar for y in range(30)) for x in range(left, right)),
                   default=0)

    # Three slots of 30 px (minus the 4 px margins): empty, half height, full height.
    assert bar_height(4, 30) == 0
    assert 0 < bar_height(34, 56) < bar_height(64, 86)
    assert bar_height(64, 86) == 22


def test_frequency_bars_of_the_selected_row_stand_out_from_the_selection_in_the_dark_theme(qapp):
    from console.themes import dark_palette
    from tests.console.shell.test_contrast import contrast

    model = ErrorListModel()
    model.reset_page(ErrorPage([_summary(1)], next_cursor=None))
    image = QImage(90, 30, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, 90, 30)
    option.palette = dark_palette()
    option.state = QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_Enabled
    FrequencyBarDelegate().paint(painter, option, model.index(0, ErrorListModel.TREND))
    painter.end()
    selection, bar = image.pixelColor(2, 2), image.pixelColor(75, 20)  # the margin; the tallest bar
    assert selection == option.palette.highlight().color()
    assert contrast(bar, selection) >= 4.5


def test_list_shows_the_message_of_an_error_titled_by_a_function(qtmodeltester, qapp):
    """Newer JavaScript SDKs send captureMessage with a synthetic exception, titled by its function."""
    model = ErrorListModel()
    synthetic = replace(_summary(1), title="main", type="error", message="queue backlog\nmore detail")
    plain = replace(_summary(2), title="TypeError: card declined", message="card declined")
    model.reset_page(ErrorPage([synthetic, plain], next_cursor=None))
    qtmodeltester.check(model)
    assert model.data(model.index(0, ErrorListModel.TITLE)) == "main — queue backlog"
    assert model.data(model.index(0, ErrorListModel.TITLE), Qt.ItemDataRole.ToolTipRole) == (
        "main\nqueue backlog\napp.py in run")
    # A title that already says the message stays as it is.
    assert model.data(model.index(1, ErrorListModel.TITLE)) == "TypeError: card declined"


@pytest.mark.expected_log(r"WARNING console\.context Loading errors failed: The project \S+ no longer exists")
def test_a_deleted_project_is_explained_and_the_list_reloaded(qtbot, make_root_tab, api):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "before the deletion")
    root_tab = make_root_tab()
    page = root_tab.errors_page
    choose_project(qtbot, root_tab, path)
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=WAIT)
    reported = []
    root_tab.context.error_reported.connect(lambda title, message: reported.append(message))
    assert api.root.delete(f"/projects/{project['id']}").status_code == 202

    page.reload()

    qtbot.waitUntil(lambda: bool(reported), timeout=WAIT)
    assert reported == [f"The project {path} no longer exists, or you no longer have access to it. "
                        "The project list has been reloaded: choose another."]
    qtbot.waitUntil(lambda: root_tab.project_picker.count() > 0, timeout=WAIT)
    assert root_tab.project_picker.findText(path) < 0 and root_tab.project is None


def test_a_logged_exception_shows_its_log_message_above_the_exception(qtbot, make_root_tab, api):
    project = api.project()
    send_errors(enable_integrated(api.root, project["id"]), "logged")  # logger.exception(...) with the real SDK
    root_tab = make_root_tab()
    page = select_only_error(qtbot, root_tab, project["path_with_namespace"])
    trace = page.detail.stack_trace
    qtbot.waitUntil(lambda: trace.topLevelItemCount() == 2, timeout=WAIT)
    assert trace.topLevelItem(0).text(0) == "Order ord_7 could not be read"
    assert trace.topLevelItem(1).text(0).startswith("ValueError: invalid literal for int()")
    page.detail.sections.setCurrentWidget(page.events_pane)  # the event, from Sentry's API: the same order
    events = page.events_pane.stack_trace
    qtbot.waitUntil(lambda: events.topLevelItemCount() == 2, timeout=WAIT)
    assert [events.topLevelItem(row).text(0)[:12] for row in range(2)] == ["Order ord_7 ", "ValueError: "]


def test_client_keys_on_the_demo_server_warn_that_its_port_may_change(qtbot, qloop_running, context, server, api):
    project = api.project()
    enable_integrated(api.root, project["id"])
    Op(context, context.connect_to(server.url, server.root_token, profile_address=LOCAL_DEMO_PROFILE),
       description="Connecting").run()  # as File > Start local server connects
    qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
    tab = open_tab(qtbot, context)
    tab.pages.setCurrentWidget(tab.keys_page)
    choose_project(qtbot, tab, project["path_with_namespace"])
    qtbot.waitUntil(lambda: tab.keys_page.model.rowCount() == 1, timeout=WAIT)
    assert tab.keys_page.demo_notice.isVisible() and "port" in tab.keys_page.demo_notice.text()

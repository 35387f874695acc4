"""The vulnerability exports tab against a real server: request, watch, save, preview, regenerate."""

import datetime as dt

import httpx
import pytest
from PySide6.QtCore import Qt

from console.core.api.exports import ExportScope
from console.core.exports.options import ExportOptions
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.settings_keys import profile_key
from console.exports.models import ExportsModel, PreviewFilterProxy, PreviewModel
from console.operations import Op
from tests.console.exports.conftest import WAIT, connect, make_tab
from tests.support import start_server


def pick(qtbot, tab, kind, text, label):
    tab.picker.set_kind(kind)
    qtbot.keyClicks(tab.picker.search_edit, text)
    qtbot.waitUntil(lambda: tab.picker.results.findText(label) >= 0, timeout=WAIT)
    tab.picker.results.setCurrentIndex(tab.picker.results.findText(label))


def finished_record(tab, export_id=None):
    records = [r for r in tab.model.records if export_id is None or r.id == export_id]
    return records[0] if records and records[0].status == "finished" else None


def test_models_pass_the_model_tester(qtmodeltester):
    now = dt.datetime.now(dt.timezone.utc)
    stamp = lambda minutes: (now + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")  # noqa: E731
    model = ExportsModel()
    model.set_records([
        ExportRecord(1, "project", 4, "tools/scanner-lab", "finished", stamp(-3), stamp(57), stamp(-3), stamp(-2)),
        ExportRecord(2, "instance", None, "Instance (all my projects)", "running", stamp(-1), stamp(59), stamp(-1)),
        ExportRecord(3, "group", 1, "acme", "finished", stamp(-90), stamp(-30), stamp(-90), stamp(-89), gone=True),
    ])
    model.tick(now)
    qtmodeltester.check(model)
    statuses = [model.index(row, ExportsModel.STATUS).data() for row in range(3)]
    assert statuses == ["expired (deleted)", "running", "finished"]
    assert model.index(2, ExportsModel.TIME_LEFT).data() == "57 min 00 s"
    preview = PreviewModel()
    preview.set_csv(["Severity", "Status", "Vulnerability"],
                    [["low", "detected", "a"], ["critical", "dismissed", "b"], ["high", "detected", "c"]])
    qtmodeltester.check(preview)
    proxy = PreviewFilterProxy()
    proxy.setSourceModel(preview)
    proxy.sort(0, Qt.SortOrder.AscendingOrder)
    assert [proxy.index(row, 0).data() for row in range(3)] == ["critical", "high", "low"]
    proxy.set_filters(severity=None, status="detected")
    qtmodeltester.check(proxy)
    assert proxy.rowCount() == 2


def test_request_watch_save_and_preview(qtbot, live_context, server, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    pick(qtbot, tab, "project", "scanner", "tools/scanner-lab")
    qtbot.mouseClick(tab.request_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    record = finished_record(tab)
    assert (record.scope_kind, record.scope_label) == ("project", "tools/scanner-lab")
    assert tab.notice.text() == f"Export {record.id} of tools/scanner-lab finished"
    tab.model.tick()
    assert tab.model.index(0, ExportsModel.ELAPSED).data().endswith(" s")
    assert tab.model.index(0, ExportsModel.WHAT).data() == "CSV, every vulnerability"
    assert tab.model.index(0, ExportsModel.TIME_LEFT).data().startswith("59 min")

    tab.select_export(record.id)
    qtbot.waitUntil(lambda: tab.save_button.isEnabled(), timeout=WAIT)
    target = tmp_path / "saved.csv"
    dialog = tab.save_as()
    dialog.selectFile(str(target))
    dialog.accept()
    qtbot.waitUntil(lambda: tab.download_task is not None and tab.download_task.done(), timeout=WAIT)
    with httpx.Client(headers={"PRIVATE-TOKEN": server.root_token}) as rest:
        direct = rest.get(f"{server.api_url}/security/vulnerability_exports/{record.id}/download")
    assert direct.status_code == 200
    assert target.read_bytes() == direct.content
    assert not (tmp_path / "saved.csv.part").exists()
    assert tab.notice.text() == f"Export {record.id} saved to {target} ({len(direct.content):,} bytes)"

    qtbot.mouseClick(tab.preview_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.preview_dialog is not None and tab.preview_dialog.isVisible(), timeout=WAIT)
    preview = tab.preview_dialog
    assert preview.model.rowCount() == 4 and preview.model.columnCount() == 19
    preview.severity_filter.setCurrentText("high")
    assert preview.proxy.rowCount() == 1
    assert preview.proxy.index(0, preview.model.column("Vulnerability")).data().startswith("'=HYPERLINK(")
    preview.severity_filter.setCurrentText("All")
    preview.status_filter.setCurrentText("dismissed")
    assert preview.count_label.text() == "1 of 4 vulnerabilities"
    preview.status_filter.setCurrentText("All")
    preview.sort_by("Severity")
    assert [preview.proxy.index(r, 8).data() for r in range(4)] == ["critical", "high", "medium", "low"]
    preview.close()


def test_cancelled_save_leaves_no_file(qtbot, live_context, server, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    tab.picker.set_kind("instance")
    tab.request_export()
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    target = tmp_path / "cancelled.csv"
    task = tab.save_to(finished_record(tab).id, target)
    tab.cancel_download()
    qtbot.waitUntil(task.done, timeout=WAIT)
    assert not target.exists() and not (tmp_path / "cancelled.csv.part").exists()
    assert tab.notice.text().endswith("cancelled")
    assert not tab.progress.isVisible()


def test_history_is_kept_per_profile_and_finish_reported_to_the_window(qtbot, live_context, server, api, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    finished: list[tuple[int, str]] = []
    tab.export_finished.connect(lambda export_id, text: finished.append((export_id, text)))
    pick(qtbot, tab, "group", "acme", "acme")
    tab.request_export()
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    record = finished_record(tab)
    assert (record.scope_kind, record.scope_label) == ("group", "acme")
    # The tab only reports the finish; the window's notifier announces it (tests/console/shell).
    assert finished == [(record.id, f"Export {record.id} of acme finished")]
    again = make_tab(qtbot, context, tmp_path / "history")
    qtbot.waitUntil(lambda: again.history is not None, timeout=WAIT)  # the file is read in a worker thread
    assert [r.id for r in again.model.records] == [record.id]
    user, token = api.user()
    connect_other = context.connect_to(server.url, token)
    Op(context, connect_other, description="Switching user").run()
    qtbot.waitUntil(lambda: context.user is not None and context.user.username == user["username"], timeout=WAIT)
    # The other user's profile has its own (empty) history.
    qtbot.waitUntil(lambda: again.history is not None and again.model.rowCount() == 0 and tab.model.rowCount() == 0,
                    timeout=WAIT)
    assert again.history.path != ExportHistory(tmp_path / "history", profile_key(server.url, "root")).path


def test_expired_export_can_be_regenerated(qtbot, live_context, tmp_path):
    context = live_context
    with start_server(tmp_path / "server", extra_env={"OUTPOST_VULNERABILITY_EXPORT_LIFETIME": "10"}) as short_lived:
        connect(qtbot, context, short_lived.url, short_lived.root_token)
        tab = make_tab(qtbot, context, tmp_path / "history")
        tab.picker.set_kind("instance")
        pdf_of_high = ExportOptions(export_format="pdf", severity=("high",))
        tab.options_bar.set_options(pdf_of_high)
        tab.request_export()
        qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
        first = finished_record(tab)
        tab.options_bar.set_options(ExportOptions())  # Regenerate asks again for what was asked then
        tab.select_export(first.id)
        qtbot.waitUntil(lambda: tab.regenerate_button.isEnabled(), timeout=WAIT)
        assert tab.model.index(0, ExportsModel.STATUS).data() == "expired (deleted)"
        assert not tab.save_button.isEnabled() and not tab.preview_button.isEnabled()
        qtbot.mouseClick(tab.regenerate_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: finished_record(tab) is not None and finished_record(tab).id != first.id, timeout=WAIT)
        assert [r.id for r in tab.model.records] == [finished_record(tab).id]
        assert tab.model.records[0].scope == ExportScope("instance")
        assert tab.model.records[0].export_format == "pdf" and tab.model.records[0].request == pdf_of_high.body()
        # The list says what each export holds: its format and filters.
        assert tab.model.index(0, ExportsModel.WHAT).data() == "PDF, severity high"


@pytest.mark.parametrize("kind", ["project", "group"])
@pytest.mark.expected_log(r"WARNING console\.context No scope chosen: ")
def test_request_without_a_choice_says_so(qtbot, live_context, server, tmp_path, kind):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    errors = []
    context.error_reported.connect(lambda title, message: errors.append((title, message)))
    tab.picker.set_kind(kind)
    tab.picker.results.clear()
    assert tab.request_export() is None
    assert errors == [("No scope chosen", f"Search for a {kind} and pick one first.")]

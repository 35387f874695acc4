"""The exports tab's GitLab 18 options against a real server: PDF (saved, described, opened), filters, the
email flag, the 429 of an unfinished export and the archive export dialog; against a recorded GitLab 17.x, the
explanation of what it does not offer."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import shutil

import httpx
import pypdf
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from console.accessibility import give_accessible_names
from console.core.exports.options import ExportOptions
from console.exports.archive_dialog import NO_PROJECT, NOT_OFFERED, ArchiveExportDialog
from console.exports.views import ULTIMATE_ONLY
from console.operations import Op
from console.path_dialog import PathDialog
from tests.console.conftest import freedesktop_database
from tests.console.exports.conftest import WAIT, connect, make_tab
from tests.console.exports.test_exports_tab import finished_record, pick
from tests.recorded_gitlab import TOKEN as GITLAB_TOKEN
from tests.recorded_gitlab import RecordedGitLab
from tests.support import ApiHelper, start_server

SCANNER_LAB = "tools/scanner-lab"


def choose(qtbot, tab, **changes):
    """Set the next export's options through the dialog, as a person does."""
    dialog = tab.options_bar.open_dialog()
    if "export_format" in changes:
        dialog.set_format(changes.pop("export_format"))
    email = changes.pop("send_email", None)
    if email is not None:
        dialog.email.setChecked(email)
    for key, values in changes.items():
        dialog.tick(key, *values)
    dialog.accept()
    return dialog


def rest_get(server, path):
    with httpx.Client(headers={"PRIVATE-TOKEN": server.root_token}) as rest:
        return rest.get(f"{server.api_url}{path}")


def test_pdf_export_is_saved_described_and_opened(qtbot, live_context, server, tmp_path, monkeypatch):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    pick(qtbot, tab, "project", "scanner", SCANNER_LAB)
    qtbot.waitUntil(lambda: tab.options_bar.mail_configured is False, timeout=WAIT)  # no SMTP settings here
    dialog = choose(qtbot, tab, export_format="pdf")
    # GitLab's default for a PDF is to email it; a server that cannot send email is not asked to, and says so.
    assert not dialog.email.isChecked() and not dialog.email.isEnabled()
    assert dialog.note.isVisibleTo(dialog) and "This server cannot send email" in dialog.note.text()
    assert give_accessible_names(dialog) == []
    assert tab.options_bar.summary.full_text() == "PDF, every vulnerability"
    qtbot.mouseClick(tab.request_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    record = finished_record(tab)
    assert record.export_format == "pdf"
    body = rest_get(server, f"/security/vulnerability_exports/{record.id}").json()
    assert (body["format"], body["send_email"]) == ("pdf", False)

    tab.select_export(record.id)
    qtbot.waitUntil(tab.save_button.isEnabled, timeout=WAIT)
    assert not tab.preview_button.isEnabled()  # a PDF has no table to preview
    target = tmp_path / "report.pdf"
    save_dialog = tab.save_as()
    assert save_dialog.selectedFiles()[0].endswith(".pdf")
    save_dialog.selectFile(str(target))
    save_dialog.accept()
    qtbot.waitUntil(lambda: tab.download_task is not None and tab.download_task.done(), timeout=WAIT)
    data = target.read_bytes()
    assert data.startswith(b"%PDF")
    pages = len(pypdf.PdfReader(io.BytesIO(data)).pages)
    noun = "page" if pages == 1 else "pages"
    assert tab.notice.text() == f"Export {record.id} saved to {target} (PDF, {pages} {noun}, {len(data):,} bytes)"

    opened = []
    if shutil.which("xdg-mime"):  # a PDF viewer is known to the desktop
        freedesktop_database(monkeypatch, tmp_path / "desktop", {"application/pdf": "viewer.desktop"})
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    assert tab.saving.open_button.isVisible()
    qtbot.mouseClick(tab.saving.open_button, Qt.MouseButton.LeftButton)
    assert opened == [str(target)]
    assert not any(isinstance(widget, PathDialog) for widget in QApplication.topLevelWidgets())

    # Where no viewer takes it, the same path dialog as Help > Open log folder's, with Copy.
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) and False)
    qtbot.mouseClick(tab.saving.open_button, Qt.MouseButton.LeftButton)
    dialog = next(widget for widget in QApplication.topLevelWidgets()
                  if isinstance(widget, PathDialog) and widget.isVisible())
    assert opened == [str(target)] * 2 and dialog.path.text() == str(target) and "PDF" in dialog.windowTitle()
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(target)
    dialog.close()

    # A CSV export selected: Open PDF is not offered beside it; back on the PDF, it is.
    choose(qtbot, tab, export_format="csv")
    qtbot.mouseClick(tab.request_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(r.export_format == "csv" and r.status == "finished" for r in tab.model.records),
                    timeout=WAIT)
    csv_record = next(r for r in tab.model.records if r.export_format == "csv")
    tab.select_export(csv_record.id)
    assert not tab.saving.open_button.isVisible()
    tab.select_export(record.id)
    assert tab.saving.open_button.isVisible()

    # Del (Edit > Delete) asks before the export leaves the list; Cancel keeps it.
    tab.select_export(csv_record.id)
    box = tab.delete_selection()
    assert box is not None and box.isVisible() and f"Remove export {csv_record.id}" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert any(r.id == csv_record.id for r in tab.model.records)
    tab.delete_selection().button(QMessageBox.StandardButton.Yes).click()
    assert not any(r.id == csv_record.id for r in tab.model.records)


def test_filters_are_sent_and_shape_the_csv(qtbot, live_context, server, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    pick(qtbot, tab, "project", "scanner", SCANNER_LAB)
    choose(qtbot, tab, severity=("critical", "high"), report_type=("sast", "secret_detection"))
    assert tab.options_bar.summary.full_text() == "CSV, severity critical or high, tool SAST or Secret detection"
    assert tab.options_bar.request_body() == {
        "export_format": "csv", "send_email": False,
        "filters": {"severity": ["critical", "high"], "report_type": ["sast", "secret_detection"]}}
    tab.request_export()
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    record = finished_record(tab)
    assert rest_get(server, f"/security/vulnerability_exports/{record.id}").json()["send_email"] is False
    download = rest_get(server, f"/security/vulnerability_exports/{record.id}/download")
    rows = list(csv.DictReader(io.StringIO(download.text, newline="")))
    # Of scanner-lab's four (high sast, medium dependency, low container, critical secret): the two asked for.
    assert sorted((row["Severity"], row["Tool"]) for row in rows) == [("critical", "secret_detection"),
                                                                       ("high", "sast")]

    choose(qtbot, tab, severity=(), report_type=(), state=("confirmed",))
    tab.request_export()
    qtbot.waitUntil(lambda: finished_record(tab) is not None and finished_record(tab).id != record.id, timeout=WAIT)
    download = rest_get(server, f"/security/vulnerability_exports/{finished_record(tab).id}/download")
    assert [row["Status"] for row in csv.DictReader(io.StringIO(download.text, newline=""))] == ["confirmed"]


@pytest.mark.expected_log(r"WARNING console\.context Requesting an export of .* failed: You already have an export")
def test_an_unfinished_export_of_the_same_scope_is_explained(qtbot, live_context, tmp_path):
    context = live_context
    # A server that produces no files: its exports stay "created", so a second one is refused with 429.
    with start_server(tmp_path / "server", extra_env={"OUTPOST_EXPORT_WORKER": "false"}) as idle:
        project = ApiHelper(idle).project()
        connect(qtbot, context, idle.url, idle.root_token)
        tab = make_tab(qtbot, context, tmp_path / "history")
        reported = []
        context.error_reported.connect(lambda title, message: reported.append((title, message)))
        pick(qtbot, tab, "project", project["path"], project["path_with_namespace"])
        first = tab.request_export()
        qtbot.waitUntil(first.done, timeout=WAIT)
        assert tab.model.rowCount() == 1 and reported == []
        second = tab.request_export()
        qtbot.waitUntil(second.done, timeout=WAIT)
        assert reported == [(f"Requesting an export of {project['path_with_namespace']} failed",
                             "You already have an export running for this project; it will finish shortly.")]
        reported.clear()
        tab.picker.set_kind("instance")
        for _ in range(2):
            task = tab.request_export()
            qtbot.waitUntil(task.done, timeout=WAIT)
        assert reported == [("Requesting an export of Instance (all my projects) failed",
                             "You already have an export running for the instance (all your projects); "
                             "it will finish shortly.")]
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def test_archive_dialog_exports_a_date_range_to_csv(qtbot, live_context, server, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    tab.picker.set_kind("instance")  # no project chosen
    tab.tab_actions()["archive_export"].trigger()
    dialog = tab.findChild(ArchiveExportDialog)
    assert dialog.isVisible() and dialog.status.text() == NO_PROJECT and not dialog.create_button.isEnabled()
    dialog.close()

    pick(qtbot, tab, "project", "scanner", SCANNER_LAB)
    qtbot.mouseClick(tab.archive_button, Qt.MouseButton.LeftButton)
    dialog = next(d for d in tab.findChildren(ArchiveExportDialog) if d.isVisible())
    assert give_accessible_names(dialog) == []
    assert "Days of detection" in dialog.date_note.text()  # which date the range filters on
    assert dialog.start_edit.accessibleName() == "Start date"
    assert "Days of detection" in dialog.date_note.text()  # which date the range filters on
    dialog.set_range(dt.date(2024, 3, 5), dt.date(2024, 3, 1))
    assert dialog.request() is None and dialog.status.text() == "The end date is before the start date."
    dialog.set_range(dt.date(2024, 3, 1), dt.date(2024, 3, 31))  # the demo's vulnerabilities: 2024-03-04
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.save_button.isEnabled, timeout=WAIT)
    assert dialog.status.text() == f"Archive export {dialog.export_id}: finished"
    body = rest_get(server, f"/security/vulnerability_archive_exports/{dialog.export_id}").json()
    assert (body["start_date"], body["end_date"]) == ("2024-03-01", "2024-03-31")

    save_dialog = dialog.save_as()
    suggested = "tools-scanner-lab_vulnerabilities_archive_2024-03-01..2024-03-31.csv"
    assert save_dialog.selectedFiles()[0].endswith(suggested)
    target = tmp_path / "archive.csv"
    save_dialog.selectFile(str(target))
    save_dialog.accept()
    qtbot.waitUntil(lambda: dialog.saving is not None and dialog.saving.done(), timeout=WAIT)
    rows = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8"), newline="")))
    assert rows[0][:3] == ["Tool", "Scanner Name", "Status"] and len(rows[0]) == 25
    assert len(rows) == 1 + 4
    size = target.stat().st_size
    assert dialog.status.text() == (f"Archive export {dialog.export_id} saved to {target}: 4 vulnerabilities "
                                    f"({size:,} bytes).")
    dialog.close()


def test_an_archive_saved_to_a_long_path_leaves_the_date_rows_alone(qtbot, live_context, server, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    pick(qtbot, tab, "project", "scanner", SCANNER_LAB)
    qtbot.mouseClick(tab.archive_button, Qt.MouseButton.LeftButton)
    dialog = next(d for d in tab.findChildren(ArchiveExportDialog) if d.isVisible())
    qtbot.waitExposed(dialog)
    heights = [edit.height() for edit in (dialog.start_edit, dialog.end_edit)]
    dialog.set_range(dt.date(2025, 1, 1), dt.date(2025, 1, 31))  # the demo's vulnerabilities are of 2024
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.save_button.isEnabled, timeout=WAIT)
    folder = tmp_path / ("a folder with a long name " * 4).strip()
    folder.mkdir()
    dialog.save_to(folder / dialog.suggested_name())
    qtbot.waitUntil(lambda: dialog.saving is not None and dialog.saving.done(), timeout=WAIT)
    assert "saved to" in dialog.status.text() and ": 0 vulnerabilities" in dialog.status.text()
    qtbot.wait(50)  # a layout pass
    assert [edit.height() for edit in (dialog.start_edit, dialog.end_edit)] == heights
    assert all(edit.height() >= edit.minimumSizeHint().height() for edit in (dialog.start_edit, dialog.end_edit))
    assert "None was first detected in the range: try an earlier start date." in dialog.status.text()
    dialog.close()


@pytest.fixture
def gitlab_17(qtbot, qloop_running, context):
    """The context signed in to a recorded GitLab 17.5 (tests/fixtures/gitlab/version.json)."""
    with RecordedGitLab() as recorded:
        Op(context, context.connect_to(recorded.url, GITLAB_TOKEN), description="Connecting").run()
        qtbot.waitUntil(lambda: context.is_connected, timeout=WAIT)
        yield context, recorded
        Op(context, context.disconnect(), description="Disconnecting").run()
        qtbot.waitUntil(lambda: not context.is_connected, timeout=WAIT)


def test_an_older_gitlab_gets_an_explanation_and_a_plain_request(qtbot, gitlab_17, tmp_path):
    context, gitlab = gitlab_17
    tab = make_tab(qtbot, context, tmp_path / "history")
    tab.options_bar.set_options(ExportOptions(export_format="pdf", send_email=True, severity=("high",)))
    assert tab.options_bar.summary.full_text() == "CSV, every vulnerability"
    dialog = tab.options_bar.open_dialog()
    assert dialog.note.isVisible()
    assert dialog.note.text() == (
        "This GitLab runs version 17.5.0-ee: it exports a CSV of every vulnerability. PDF, filters and the email "
        "when an export is ready need GitLab 18.5 or later (18.1 to 18.4 have PDF only behind a feature flag).")
    assert not dialog.format_buttons["pdf"].isEnabled() and not dialog.email.isEnabled()
    assert not dialog.filter_boxes["severity"]["high"].parentWidget().isEnabled()
    assert dialog.options() == ExportOptions()
    dialog.reject()

    reported = []
    context.error_reported.connect(lambda title, message: reported.append((title, message)))
    tab.picker.set_kind("project")
    qtbot.waitUntil(lambda: tab.picker.results.findText("diaspora/diaspora-client") >= 0, timeout=WAIT)
    tab.picker.results.setCurrentIndex(tab.picker.results.findText("diaspora/diaspora-client"))
    task = tab.request_export()
    qtbot.waitUntil(task.done, timeout=WAIT)
    assert tab.notice.text() == ULTIMATE_ONLY and reported == []
    sent = [raw for method, path, raw in gitlab.bodies
            if (method, path) == ("POST", "/api/v4/security/projects/4/vulnerability_exports")]
    assert sent == [b""]  # no GitLab 18 parameters for a GitLab that does not know them

    tab.tab_actions()["archive_export"].trigger()
    archive = next(d for d in tab.findChildren(ArchiveExportDialog) if d.isVisible())
    archive.request()
    qtbot.waitUntil(lambda: archive.status.text() == NOT_OFFERED, timeout=WAIT)
    assert reported == []
    archive_sent = [json.loads(raw) for method, path, raw in gitlab.bodies if path.endswith("archive_exports")]
    assert archive_sent and set(archive_sent[0]) == {"start_date", "end_date", "export_format"}
    archive.close()


def test_the_status_bar_says_finished_once_the_export_is(qtbot, live_context, server, tmp_path):
    context = live_context
    connect(qtbot, context, server.url, server.root_token)
    tab = make_tab(qtbot, context, tmp_path / "history")
    said: list[str] = []
    context.status_message.connect(said.append)
    pick(qtbot, tab, "project", "scanner", SCANNER_LAB)
    qtbot.mouseClick(tab.request_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    record = finished_record(tab)
    qtbot.waitUntil(lambda: f"Export {record.id} of {SCANNER_LAB} finished" in said, timeout=WAIT)
    last = [text for text in said if not text.endswith("…") and not text.endswith(": done")][-1]
    assert last == f"Export {record.id} of {SCANNER_LAB} finished"


def test_email_says_delivery_depends_on_the_mail_setup_a_non_administrator_cannot_see(qtbot, live_context, server,
                                                                                      tmp_path):
    _, token = ApiHelper(server).user()
    connect(qtbot, live_context, server.url, token)
    tab = make_tab(qtbot, live_context, tmp_path / "history")
    qtbot.waitUntil(lambda: live_context.user is not None and not live_context.is_admin, timeout=WAIT)
    dialog = tab.options_bar.open_dialog()
    assert dialog.email.isEnabled()  # the email may well work: it is offered, with what it depends on
    assert dialog.note.isVisibleTo(dialog)
    assert "depends on the server's mail setup, which only an administrator can see" in dialog.note.text()

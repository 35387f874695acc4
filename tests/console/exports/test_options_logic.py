"""The plain logic of the export options: request bodies, summaries, what each server version is offered,
archive date ranges and the page count of a saved PDF."""

from __future__ import annotations

import datetime as dt
import io
import threading

import pypdf
import pytest

from console.core.api.errors import ExportAlreadyRunning
from console.core.api.exports import ExportScope
from console.core.api.server import ServerInfo
from console.core.exports import saved_pdf
from console.core.exports.options import ExportOptions, archive_range_problem, offer_for
from console.core.exports.store import ExportHistory, ExportRecord
from outpost_model.instance import Kas, Version
from tests.console.exports.conftest import export_answer


def test_a_plain_csv_sends_nothing_and_options_send_gitlab_18_parameters():
    assert ExportOptions().body() == {}
    assert ExportOptions().summary() == "CSV, every vulnerability"
    options = ExportOptions(export_format="pdf", send_email=True, state=("detected", "confirmed"))
    assert options.body() == {"export_format": "pdf", "send_email": True,
                              "filters": {"state": ["detected", "confirmed"]}}
    assert options.summary() == "PDF, status detected or confirmed, emailed when ready"


NO_KAS = Kas(enabled=False, externalUrl=None, version=None)


@pytest.mark.parametrize(("version", "revision", "offered"), [
    ("17.5.0-ee", "4e963fe", False),
    ("18.4.2-ee", "0a1b2c3", False),
    ("18.5.0-ee", "0a1b2c3", True),
    ("19.0.0", "0a1b2c3", True),
    ("", "", False),
    ("18.6.0", "outpost-0.1.0", True),
])
def test_what_each_server_is_offered(version, revision, offered):
    offer = offer_for(ServerInfo(version=Version(version=version, revision=revision, kas=NO_KAS, enterprise=False)))
    assert (offer.pdf, offer.filters, offer.email) == (offered, offered, offered)
    assert bool(offer.note) is not offered
    wanted = ExportOptions(export_format="pdf", send_email=True, severity=("critical",))
    assert offer.allow(wanted) == (wanted if offered else ExportOptions())


def test_archive_ranges():
    today = dt.date(2026, 11, 26)
    assert archive_range_problem(dt.date(2026, 1, 1), dt.date(2026, 1, 1), today) is None
    assert archive_range_problem(dt.date(2026, 2, 1), dt.date(2026, 1, 1), today) == (
        "The end date is before the start date.")
    assert archive_range_problem(dt.date(2026, 12, 1), dt.date(2026, 12, 2), today) == (
        "The start date is in the future.")


def test_the_429_names_the_scope():
    running = ExportAlreadyRunning(scope="this group", status=429, detail="")
    assert running.message == "You already have an export running for this group; it will finish shortly."


@pytest.mark.parametrize("pages", [1, 3])
def test_pages_are_counted_as_a_pdf_reader_counts_them(tmp_path, pages):
    writer = pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=200)
    buffer = io.BytesIO()
    writer.write(buffer)
    path = tmp_path / "blank.pdf"
    path.write_bytes(buffer.getvalue())
    assert saved_pdf.describe(path) == (pages, len(buffer.getvalue()))
    assert saved_pdf.summary(1, 2048) == "PDF, 1 page, 2,048 bytes"


def test_the_history_keeps_each_export_s_format_and_request(tmp_path):
    request = ExportOptions(export_format="pdf", send_email=True, severity=("critical",)).body()
    record = ExportRecord.from_api(export_answer(7, "created", created_at="2026-11-26T08:00:00Z", format="pdf"),
                                   ExportScope("project", 4, "acme/web"), request)
    history = ExportHistory(tmp_path, "profile")
    history.save([record])
    assert history.load() == [record]
    # A history written before PDF exports: CSV, requested without parameters.
    history.path.write_text('[{"id": 1, "scope_kind": "instance", "scope_id": null, "scope_label": "Instance", '
                            '"status": "finished", "created_at": "2026-11-26T08:00:00Z"}]', encoding="utf-8")
    (old,) = history.load()
    assert (old.export_format, old.request) == ("csv", {})


def test_the_choices_are_read_back_from_the_request_they_made():
    chosen = ExportOptions(export_format="pdf", send_email=True, severity=("critical", "high"), report_type=("sast",))
    assert ExportOptions.of(chosen.body()) == chosen
    assert ExportOptions.of({}) == ExportOptions()  # a plain CSV sends no body
    assert ExportOptions.of({}, "pdf").summary() == "PDF, every vulnerability"  # a history from before the body


def test_two_histories_of_one_profile_save_side_by_side(tmp_path):
    # Two windows of one profile each hold a history on the same file, and save from worker threads.
    records = [ExportRecord.from_api(export_answer(number, "finished", created_at="2026-11-26T08:00:00Z"),
                                     ExportScope("instance", None, "Instance")) for number in range(1, 4)]
    histories = [ExportHistory(tmp_path, "profile"), ExportHistory(tmp_path, "profile")]
    failures: list[BaseException] = []

    def save_often(history: ExportHistory) -> None:
        try:
            for round_number in range(300):
                history.save(records[: 1 + round_number % 3])
        except BaseException as error:  # noqa: BLE001 - handed to the assertion below
            failures.append(error)

    threads = [threading.Thread(target=save_often, args=(history,)) for history in histories]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert histories[0].load() in (records[:1], records[:2], records[:3])
    assert [path.name for path in tmp_path.iterdir()] == ["profile.json"]

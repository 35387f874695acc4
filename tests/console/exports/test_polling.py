"""Watching an export (console.core.exports.polling): each answer's meaning and when to look again, without Qt."""

from __future__ import annotations

import datetime as dt

from console.core.api.exports import DEFAULT_POLL_SECONDS, ExportState
from console.core.exports import polling
from console.core.exports.store import ExportRecord
from outpost_model.exports import Export
from tests.console.exports.conftest import export_answer

NOW = dt.datetime(2026, 11, 26, 9, 0, tzinfo=dt.UTC)
CREATED = ExportRecord(id=7, scope_kind="project", scope_id=3, scope_label="acme/web", status="created",
                       created_at="2026-11-26T08:59:00Z")


def body(status: str, **times: str) -> Export:
    return export_answer(7, status, created_at=CREATED.created_at, **times)


def test_the_first_look_is_soon_and_later_ones_as_the_server_asks():
    assert polling.FIRST_POLL_SECONDS == 0.5
    assert polling.next_wait(ExportState(body("running"), 2.5)) == 2.5
    assert polling.next_wait(ExportState(body("running"), 0.0)) == DEFAULT_POLL_SECONDS  # no usable interval
    assert polling.next_wait(ExportState(body("finished"), None)) is None  # 200: it no longer runs


def test_a_running_export_is_stored_and_looked_at_again():
    step = polling.answered(CREATED, ExportState(body("running", started_at="2026-11-26T08:59:01Z"), 1.0))
    assert step.record is not None and step.record.status == "running"
    assert step.record.started_at == "2026-11-26T08:59:01Z"
    assert step.wait == 1.0 and not step.announce


def test_a_finished_or_failed_export_is_stored_announced_and_no_longer_watched():
    finished = body("finished", finished_at="2026-11-26T09:00:00Z", expires_at="2026-11-27T09:00:00Z")
    step = polling.answered(CREATED, ExportState(finished, None))
    assert step.record is not None and step.record.status == "finished" and step.announce and step.wait is None
    assert step.record.can_download(NOW)
    failed = polling.answered(CREATED, ExportState(body("failed"), None))
    assert failed.record is not None and failed.record.status == "failed" and failed.announce
    assert not failed.record.can_download(NOW)


def test_an_export_removed_from_the_list_meanwhile_ends_the_watch_unstored():
    assert polling.answered(None, ExportState(body("running"), 1.0)) == polling.Step(None, None)
    assert polling.vanished(None) == polling.Step(None, None)


def test_an_export_the_server_no_longer_has_is_gone_and_expired():
    step = polling.vanished(CREATED)
    assert step.record is not None and step.record.gone and step.wait is None and not step.announce
    assert step.record.is_expired(NOW) and not step.record.is_active


def test_announcement_and_running_statuses():
    assert polling.announcement(7, "acme/web", "finished") == "Export 7 of acme/web finished"
    assert [polling.is_running(s) for s in ("created", "running", "finished", "failed")] == [True, True, False, False]


def test_what_is_offered_for_the_selected_export():
    finished = ExportRecord(**{**CREATED.__dict__, "status": "finished", "expires_at": "2026-11-27T09:00:00Z"})
    assert polling.offered(finished, NOW, connected=True) == polling.Offered(save=True, preview=True)
    pdf = ExportRecord(**{**finished.__dict__, "export_format": "pdf"})
    assert polling.offered(pdf, NOW, connected=True) == polling.Offered(save=True)  # a PDF has no table
    expired = ExportRecord(**{**finished.__dict__, "expires_at": "2026-11-26T08:00:00Z"})
    assert polling.offered(expired, NOW, connected=True) == polling.Offered(regenerate=True)
    assert polling.offered(CREATED, NOW, connected=True) == polling.Offered()
    assert polling.offered(finished, NOW, connected=False) == polling.Offered()
    assert polling.offered(None, NOW, connected=True) == polling.Offered()

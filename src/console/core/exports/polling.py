"""Watching an export until it stops running: what each answer means and when to look again. No Qt: the
exports tab (views.py) sleeps, asks the server and stores what a step says.

An export is ``created``, then ``running``, then ``finished`` or ``failed``; while it runs the server answers
202 with a Poll-Interval (console.core.api.exports.ExportState.poll_seconds). The first look comes soon, as most
exports finish within a second; later ones as often as the server asks, or every DEFAULT_POLL_SECONDS where
it names no interval. An export the server no longer has (404: deleted after its lifetime) is marked gone,
which the tab shows as expired. Nothing is retried: a failed look ends the watch, and the next profile load
watches the exports still active again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from console.core.api.exports import DEFAULT_POLL_SECONDS, ExportState
from console.core.exports.store import ACTIVE_STATUSES, ExportRecord

# Most exports finish within a second; look once soon, then as often as the server asks.
FIRST_POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Step:
    """What one look at an export asks of the tab."""

    record: ExportRecord | None  # to store (None: nothing changed that is kept)
    wait: float | None  # seconds before the next look; None: stop watching
    announce: bool = False  # the export stopped running: say so (once, console.notifications)


def next_wait(state: ExportState) -> float | None:
    """Seconds before the next look at an export in ``state``; None once it no longer runs (no 202)."""
    if state.poll_seconds is None:
        return None
    return state.poll_seconds or DEFAULT_POLL_SECONDS


def answered(record: ExportRecord | None, state: ExportState) -> Step:
    """The server answered about the export; ``record`` is None once it was removed from the list."""
    if record is None:
        return Step(None, None)
    wait = next_wait(state)
    return Step(record.updated_from(state.body), wait, announce=wait is None)


def vanished(record: ExportRecord | None) -> Step:
    """The server no longer has the export (404): it is gone, and watching ends."""
    return Step(None if record is None else replace(record, gone=True), None)


def announcement(export_id: int, scope_label: str, status: str) -> str:
    """The notice of an export that stopped running ("Export 7 of acme/web finished")."""
    return f"Export {export_id} of {scope_label} {status}"


def is_running(status: str) -> bool:
    """Whether an export in ``status`` is still being produced (created or running)."""
    return status in ACTIVE_STATUSES


@dataclass(frozen=True)
class Offered:
    """What may be done with the selected export (the tab enables its buttons from it)."""

    save: bool = False  # Save As… and, for a CSV, Preview…
    preview: bool = False
    regenerate: bool = False  # an expired (or deleted) export is requested again


def offered(record: ExportRecord | None, now: dt.datetime, *, connected: bool) -> Offered:
    if record is None or not connected:
        return Offered()
    can_download = record.can_download(now)
    # A PDF has no table to preview: saving it says its pages and size.
    return Offered(save=can_download, preview=can_download and record.export_format == "csv",
                   regenerate=record.is_expired(now))

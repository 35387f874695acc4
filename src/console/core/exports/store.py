"""The exports requested from this console, kept per connection profile in a small JSON file.

The API cannot list exports, so the console remembers the ones it asked for.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import tempfile
import threading
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from console.core.api.exports import ExportScope
from console.core.timestamps import parse_time
from outpost_model.exports import ArchiveExport, Export

log = logging.getLogger(__name__)

ACTIVE_STATUSES = ("created", "running")


@dataclass(frozen=True)
class ExportRecord:
    id: int
    scope_kind: str
    scope_id: int | None
    scope_label: str
    status: str
    created_at: str
    expires_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    # Set once the server no longer has the export (deleted after its lifetime).
    gone: bool = False
    export_format: str = "csv"  # "csv" or "pdf"; histories written before PDF exports have only CSV
    # The create parameters it was requested with (format, email, filters), which Regenerate sends again.
    request: dict[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def from_api(cls, body: Export | ArchiveExport, scope: ExportScope,
                 request: dict[str, Any] | None = None) -> ExportRecord:
        return cls(id=body.id, scope_kind=scope.kind, scope_id=scope.id, scope_label=scope.label,
                   status=body.status, created_at=body.created_at or "", expires_at=body.expires_at,
                   started_at=body.started_at, finished_at=body.finished_at, export_format=body.format or "csv",
                   request=dict(request or {}))

    def updated_from(self, body: Export | ArchiveExport) -> ExportRecord:
        return replace(self, status=body.status, started_at=body.started_at, finished_at=body.finished_at,
                       expires_at=body.expires_at or self.expires_at)

    @property
    def scope(self) -> ExportScope:
        return ExportScope(self.scope_kind, self.scope_id, self.scope_label)

    @property
    def is_active(self) -> bool:
        return not self.gone and self.status in ACTIVE_STATUSES

    def is_expired(self, now: dt.datetime) -> bool:
        expires = parse_time(self.expires_at)
        return self.gone or (expires is not None and expires <= now)

    def can_download(self, now: dt.datetime) -> bool:
        return self.status == "finished" and not self.is_expired(now)


class ExportHistory:
    """Load and save the records of one profile. Both block on the file: the console calls them in a worker
    thread (console.operations), numbering its saves so an earlier list never replaces a later one."""

    def __init__(self, directory: Path, key: str) -> None:
        self.path = directory / f"{key}.json"
        self._lock = threading.Lock()
        self._numbered = 0
        self._written = 0

    def next_save(self) -> int:
        """The number of a save about to be handed to a worker thread (called where the records change)."""
        self._numbered += 1
        return self._numbered

    def load(self) -> list[ExportRecord]:
        try:
            items = json.loads(self.path.read_text(encoding="utf-8"))
            return [ExportRecord(**item) for item in items]
        except FileNotFoundError:
            return []
        except (ValueError, TypeError) as exc:
            log.warning("ignoring unreadable export history %s: %s", self.path.name, exc)
            return []

    def save(self, records: list[ExportRecord], number: int | None = None) -> None:
        """Write ``records``; a numbered save (see :meth:`next_save`) older than one written already is skipped."""
        with self._lock:
            if number is not None:
                if number < self._written:
                    return
                self._written = number
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # A temporary file of its own: two windows of one profile each have a history on the same file.
            handle, name = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.stem, suffix=".tmp")
            temporary = Path(name)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(json.dumps([asdict(r) for r in records], indent=1))
                temporary.replace(self.path)
            except BaseException:
                temporary.unlink(missing_ok=True)
                raise

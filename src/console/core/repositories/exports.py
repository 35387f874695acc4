"""The vulnerability exports this console requested, as the server last said them; no Qt here.

The API cannot list exports, so the console keeps the ones it asked for (console.core.exports.store's history
file, per profile). Whatever learns of them goes through :class:`ExportsRepository`: a request, the watcher's
look at a running export, the history file read by the exports tab or the Overview. The list, the watcher and
the Overview render what is held, so they cannot disagree; the Overview's figures are counted when asked
(:meth:`ExportsRepository.counts`), never kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from console.core.api.errors import NotFound
from console.core.api.exports import ExportsApi, ExportScope
from console.core.exports import polling
from console.core.exports.store import ExportRecord
from console.core.repositories.base import Repository
from console.core.store import Kind

INSTANCE = ""  # exports are the profile's, not a project's
EXPORTS: Kind[ExportRecord] = Kind("export")  # by id


@dataclass(frozen=True)
class ExportCounts:
    running: int
    finished: int
    latest_finished_id: int | None = None


class ExportsRepository(Repository):
    kind = EXPORTS

    def held(self) -> list[ExportRecord]:
        """The exports held, newest first."""
        return sorted(self.store.items(EXPORTS, INSTANCE).values(), key=lambda record: record.id, reverse=True)

    def record(self, export_id: int) -> ExportRecord | None:
        return self.store.get(EXPORTS, INSTANCE, str(export_id))

    def counts(self) -> ExportCounts:
        """What the Overview says of the exports: running, finished, and the latest finished one to open."""
        held = self.held()
        finished = [record for record in held if record.status == "finished" and not record.gone]
        latest = max(finished, key=lambda record: record.finished_at or "", default=None)
        return ExportCounts(running=sum(record.is_active for record in held), finished=len(finished),
                            latest_finished_id=latest.id if latest else None)

    def forget(self, export_id: int) -> None:
        self.store.remove(EXPORTS, INSTANCE, [str(export_id)])

    def take_history(self, from_file: Iterable[ExportRecord]) -> bool:
        """Hold the history file's exports not held yet (what is held is newer: a request or a look made while
        the file was read). True when exports are held that the file lacks, so the file must be written."""
        known = self.store.items(EXPORTS, INSTANCE)
        listed = {str(record.id): record for record in from_file}
        self.store.put_many(EXPORTS, INSTANCE, {key: record for key, record in listed.items() if key not in known})
        return bool(set(known) - set(listed)) or any(known[key] != listed[key] for key in set(known) & set(listed))

    # talking to the server -----------------------------------------------------------------------------------
    async def request(self, api: ExportsApi, scope: ExportScope, options: dict[str, Any], *,
                      replacing: int | None = None) -> ExportRecord:
        """Ask for an export of ``scope`` and hold it (in place of the export ``replacing``, regenerated)."""
        current = self.scope_guard()
        record = ExportRecord.from_api(await api.create(scope, options), scope, options)
        if current():
            if replacing is not None:
                self.forget(replacing)
            self.store.put(EXPORTS, INSTANCE, str(record.id), record)
        return record

    async def look(self, api: ExportsApi, export_id: int) -> polling.Step:
        """Ask the server about a running export and hold what it says (gone, when it no longer has it)."""
        current = self.scope_guard()
        try:
            state = await api.state(export_id)
        except NotFound:
            step = polling.vanished(self.record(export_id))
        else:
            step = polling.answered(self.record(export_id), state)
        if step.record is not None and current():
            self.store.put(EXPORTS, INSTANCE, str(step.record.id), step.record)
        return step

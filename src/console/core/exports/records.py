"""How the exports this console requested are held in the console's store (console.core.store); no Qt here.

The exports tab, the watcher and the overview all read them there and write what the server says into it:
the tab's list, the watcher's look at a running export and the overview's counts cannot disagree. The
profile's history file (console.core.exports.store) is where they outlive the console; the exports tab writes
it whenever they change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from console.core.exports.store import ExportRecord
from console.core.store import Kind, Store

KIND: Kind[ExportRecord] = Kind("export")
INSTANCE = ""  # exports are the profile's, not a project's


@dataclass(frozen=True)
class ExportCounts:
    running: int
    finished: int
    latest_finished_id: int | None = None


def held(store: Store) -> list[ExportRecord]:
    """The exports held, newest first."""
    return sorted(store.items(KIND, INSTANCE).values(), key=lambda r: r.id, reverse=True)


def record(store: Store, export_id: int) -> ExportRecord | None:
    return store.get(KIND, INSTANCE, str(export_id))


def write(store: Store, *updated: ExportRecord) -> None:
    store.put_many(KIND, INSTANCE, {str(item.id): item for item in updated})


def forget(store: Store, export_id: int) -> None:
    store.remove(KIND, INSTANCE, [str(export_id)])


def take_history(store: Store, from_file: Iterable[ExportRecord]) -> bool:
    """Hold the history file's exports the store lacks (what the store holds is newer: a request or a look made
    while the file was read). True when the store holds exports the file lacks, so the file must be written."""
    known = store.items(KIND, INSTANCE)
    listed = {str(item.id): item for item in from_file}
    store.put_many(KIND, INSTANCE, {key: item for key, item in listed.items() if key not in known})
    return bool(set(known) - set(listed)) or any(known[key] != listed[key] for key in set(known) & set(listed))


def counts(records: Iterable[ExportRecord]) -> ExportCounts:
    """What the overview says of the exports: running, finished, and the latest finished one to open."""
    records = list(records)
    finished = [item for item in records if item.status == "finished" and not item.gone]
    latest = max(finished, key=lambda item: item.finished_at or "", default=None)
    return ExportCounts(running=sum(item.is_active for item in records), finished=len(finished),
                        latest_finished_id=latest.id if latest else None)

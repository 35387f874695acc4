"""The exports tab's looks at its running exports, one watch per export until it stops running; no Qt here.

What each answer means is console.core.exports.polling's; what a look learns is written into the console's store
(console.core.exports.records), where the list, the overview and the watcher read it. The watches are the tab's
operations, so they end with the connection they were started on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from console.core.api.errors import NotFound
from console.core.exports import polling, records
from console.core.exports.store import ExportRecord
from console.operations import Op

if TYPE_CHECKING:
    from console.core.api.exports import ExportsApi
    from console.page_host import PageHost


class ExportWatches:
    """The running watches of ``host``'s exports; ``announce`` is told of each export that stopped running."""

    def __init__(self, host: PageHost[ExportsApi], announce: Callable[[ExportRecord], None]) -> None:
        self.host = host
        self.announce = announce
        self.running: dict[int, Op[None]] = {}

    def watch(self, record: ExportRecord) -> None:
        if record.id in self.running:
            return
        task = Op(self.host, self._watch(record.id), description=f"Checking export {record.id}", quiet=True).run()
        if not task.started:
            return
        self.running[record.id] = task
        export_id = record.id
        task.when_done(lambda: self.running.pop(export_id, None))

    def stop(self, export_id: int) -> None:
        if export_id in self.running:
            self.running[export_id].cancel()

    def stop_all(self) -> None:
        for task in self.running.values():
            task.cancel()
        self.running.clear()

    async def _watch(self, export_id: int) -> None:
        """Looks at the export until it stops running."""
        store = self.host.context.store
        await asyncio.sleep(polling.FIRST_POLL_SECONDS)
        while True:
            try:
                state = await self.host.api.state(export_id)
            except NotFound:
                step = polling.vanished(records.record(store, export_id))
            else:
                step = polling.answered(records.record(store, export_id), state)
            if step.record is not None:
                records.write(store, step.record)
                if step.announce:
                    self.announce(step.record)
            if step.wait is None:
                return
            await asyncio.sleep(step.wait)

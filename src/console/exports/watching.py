"""The exports tab's looks at its running exports, one watch per export until it stops running; no Qt here.

What each answer means is console.core.exports.polling's; each look goes through the exports repository
(console.core.repositories.exports), where the list, the overview and the watcher read what it learnt. The
watches are the tab's operations, so they end with the connection they were started on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from console.core.exports import polling
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
        exports = self.host.context.repositories.exports
        await asyncio.sleep(polling.FIRST_POLL_SECONDS)
        while True:
            step = await exports.look(self.host.api, export_id)
            if step.record is not None and step.announce:
                self.announce(step.record)
            if step.wait is None:
                return
            await asyncio.sleep(step.wait)

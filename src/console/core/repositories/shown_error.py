"""The error shown in the detail pane: its details and its latest stack trace, as the server last said them; no Qt.

The error list read them and kept its own copy beside the pane; now :meth:`ShownErrorRepository.fetch` writes the
details where the list's rows and every other reader of an error's detail find them (console.core.errors.records'
rules, so the two never disagree) and the stack trace under its own kind, and the pane, Copy as Markdown and the
tests read what is held. A read that lands after the connection changed writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from console.core.api.error_tracking import ErrorDetails, StackTrace
from console.core.errors import records
from console.core.repositories.base import Repository
from console.core.store import Kind

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi

TRACES: Kind[StackTrace] = Kind("error_stack_trace")  # the error's latest stack trace, by its id


class ShownError(NamedTuple):
    detail: ErrorDetails
    trace: StackTrace


class ShownErrorRepository(Repository):
    kind = TRACES
    kinds = (TRACES, records.DETAIL)

    def shown(self, project: str, error_id: str) -> ShownError | None:
        """The error's details and stack trace once both were read on this connection; None before."""
        detail, trace = records.detail(self.store, project, error_id), self.store.get(TRACES, project, error_id)
        return None if detail is None or trace is None else ShownError(detail, trace)

    async def fetch(self, api: ErrorTrackingApi, project: str, error_id: str) -> ShownError:
        current = self.scope_guard()
        detail, trace = await api.error(project, error_id)
        if current():
            records.write_detail(self.store, project, detail)
            self.store.put(TRACES, project, error_id, trace)
            self.read_now((project, error_id))
        return ShownError(detail, trace)

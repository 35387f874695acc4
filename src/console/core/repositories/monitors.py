"""A project's cron monitors and the latest check-ins of each, as the server last said them; no Qt here.

Whoever reads the monitors (the Monitors page, its Refresh, Mute and Pause, the Overview counting failing
ones) reads them through :meth:`MonitorsRepository.fetch`, and every view renders what is held: the Monitors
page can no longer say *ok* of a monitor the Overview has just counted as failing. How many fail is worked out
when asked (:meth:`failing`), never kept.
"""

from __future__ import annotations

from console.core.api.monitors import Monitor, MonitorCheckIn, MonitorsApi, is_failing, is_paused
from console.core.repositories.base import Repository
from console.core.store import Kind

ALL = ""  # the store's id of a project's whole list (its order is the server's)
MONITORS: Kind[tuple[Monitor, ...]] = Kind("monitors")
CHECK_INS: Kind[tuple[MonitorCheckIn, ...]] = Kind("check_ins")  # a monitor's latest, by its id


class MonitorsRepository(Repository):
    kind = MONITORS
    check_ins_kind = CHECK_INS
    kinds = (kind, check_ins_kind)
    # What a monitor's state is, worked out from it (for those that do not import the API module themselves).
    is_failing = staticmethod(is_failing)
    is_paused = staticmethod(is_paused)

    def monitors(self, project: str) -> list[Monitor] | None:
        """The project's monitors in the server's order; None when they were not read on this connection."""
        held = self.store.get(MONITORS, project, ALL)
        return None if held is None else list(held)

    def monitor(self, project: str, monitor_id: str) -> Monitor | None:
        return next((monitor for monitor in self.monitors(project) or () if monitor.id == monitor_id), None)

    def failing(self, project: str) -> int | None:
        """How many monitors fail in some environment (paused ones not counted); None when not read."""
        monitors = self.monitors(project)
        if monitors is None:
            return None
        return sum(1 for monitor in monitors if is_failing(monitor) and not is_paused(monitor))

    def check_ins(self, project: str, monitor_id: str) -> list[MonitorCheckIn] | None:
        held = self.store.get(CHECK_INS, project, monitor_id)
        return None if held is None else list(held)

    # reads ---------------------------------------------------------------------------------------------------
    async def fetch(self, api: MonitorsApi, project: str, project_id: int | None) -> list[Monitor]:
        current = self.scope_guard()
        monitors = await api.monitors(project, project_id)
        if current():
            self.store.put(MONITORS, project, ALL, tuple(monitors))
            self.read_now(project)
        return monitors

    async def fetch_check_ins(self, api: MonitorsApi, project: str, monitor_id: str) -> list[MonitorCheckIn]:
        current = self.scope_guard()
        check_ins = await api.check_ins(project, monitor_id)
        if current():
            self.store.put(CHECK_INS, project, monitor_id, tuple(check_ins))
        return check_ins

    async def update(self, api: MonitorsApi, project: str, monitor_id: str, *, muted: bool | None = None,
                     paused: bool | None = None) -> Monitor:
        """Mute, unmute, pause or resume; the held list takes the server's answer at once."""
        current = self.scope_guard()
        changed = await api.update(project, monitor_id, muted=muted, paused=paused)
        held = self.monitors(project)
        if current() and held is not None:
            self.store.put(MONITORS, project, ALL, tuple(changed if monitor.id == changed.id else monitor
                                                          for monitor in held))
        return changed

"""Desktop notifications and the watcher that produces them.

The watcher runs while the console runs, at the interval chosen per profile, and only when watching is
switched on (it is off by default). It reports exports of this profile that finish, new or regressed
errors in the watched projects (through console.core.error_news, whose looks the error list's own reads of the open
project share, watching or not), failing alert deliveries and cron monitors that fail or recover, as news
(AppContext.announce): the notification list has it, and the window hands it to a :class:`Notifier` (the
tray) when it is not the active window; tests swap in a recording one. Clicking a notification asks the
window to open what it is about.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QSystemTrayIcon, QWidget

from console.context import AppContext
from console.core.api.alerts import AlertsApi
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.api.errors import ApiError, readable
from console.core.api.exports import ExportsApi
from console.core.api.monitors import MonitorsApi
from console.core.errors.alert_form import CHANNEL_LABELS
from console.core.exports import polling
from console.core.exports.store import ExportHistory
from console.core.operations import blocking
from console.operations import Op
from console.window_state import ProfileState

log = logging.getLogger(__name__)

POLLING = "Checking for news"
Target = tuple[str, Any]  # ("exports", export id) or ("errors", (project path, error id))


class Notifier(Protocol):
    def notify(self, title: str, message: str, target: Target) -> None: ...


class TrayNotifier(QObject):
    """A system tray icon that shows notifications; where there is no tray, the status bar says them.

    Signals:
        activated(target): the user clicked the latest notification.
    """

    activated = Signal(object)

    def __init__(self, icon: QIcon, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._last_target: Target | None = None
        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(icon, self)
            self.tray.setToolTip("Outpost console")
            self.tray.messageClicked.connect(self._clicked)
            self.tray.show()

    def notify(self, title: str, message: str, target: Target) -> None:
        self._last_target = target
        if self.tray is not None and QSystemTrayIcon.supportsMessages():
            self.tray.showMessage(title, message)
        else:
            self._context.say(f"{title}: {message}")

    def _clicked(self) -> None:
        if self._last_target is not None:
            self.activated.emit(self._last_target)


class Watcher(QObject):
    """Polls for finished exports and new or regressed errors and announces them as news (AppContext.announce).
    A poll says nothing else: what it reads goes into the store, and the views show it."""

    def __init__(self, context: AppContext, state: ProfileState, *, history_dir: Path,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._state = state
        self._history_dir = history_dir
        self._announced_exports: set[int] = set()
        self._failing_deliveries: dict[str, set[int]] = {}  # per watched project, as the previous look saw them
        self._failing_monitors: dict[str, set[str]] = {}  # per watched project, as the previous look saw them
        self._looked: set[str] = set()  # watched projects whose first look (errors, deliveries, monitors) is done
        self._running: Op[None] | None = None
        self._poll_failing = False  # the failure is said once, and taken back when a poll works again
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        context.connection_changed.connect(self.restart)

    def restart(self) -> None:
        """Applies the profile's watch settings; the first poll only records what is already there."""
        self._announced_exports.clear()
        self._failing_deliveries.clear()
        self._failing_monitors.clear()
        self._looked.clear()
        self._poll_failing = False  # a connection change dismisses the window's failures
        self.timer.stop()
        if self._context.client is not None and self._state.watch_enabled:
            self.timer.start(self._state.watch_seconds * 1000)
            self.poll()

    def has_looked_at(self, path: str) -> bool:
        """Whether a whole look at the project is done: what fails from then on is news."""
        return path in self._looked

    def announce_export(self, export_id: int, text: str) -> None:
        """Notifies that an export stopped running, once per export: the exports tab and the poll both see it."""
        if export_id in self._announced_exports:
            return
        self._announced_exports.add(export_id)
        self._context.announce("Vulnerability export", text, ("exports", export_id))

    def poll(self) -> Op[None] | None:
        if self._context.client is None or (self._running is not None and not self._running.done()):
            return None
        self._running = Op(self._context, self.check_once(), description=POLLING, quiet=True).success(
            self._poll_worked).failure(self._poll_failed).run()
        return self._running

    def _poll_failed(self, exc: Exception) -> None:
        if self._poll_failing:
            log.info("%s failed again: %s", POLLING, readable(exc))
            return
        self._poll_failing = True
        self._context.report_error(f"{POLLING} failed", readable(exc))

    def _poll_worked(self, _: None) -> None:
        if self._poll_failing:
            self._poll_failing = False
            self._context.failure_ended(f"{POLLING} failed")

    async def check_once(self) -> None:
        client = self._context.client
        if client is None:
            return
        store, scope = self._context.store, self._context.store.scope
        from_file = await blocking(ExportHistory(self._history_dir, self._context.profile_key or "").load)
        if store.scope != scope:
            return  # the connection changed meanwhile: this look is about another profile
        exports_held = self._context.repositories.exports  # the exports list and the overview show what it holds
        exports_held.take_history(from_file)  # what it holds (the exports tab's) is newer
        exports = ExportsApi(client)
        for record in exports_held.held():
            if record.gone or record.id in self._announced_exports or not polling.is_running(record.status):
                continue
            step = await exports_held.look(exports, record.id)  # one the server no longer has is gone
            if step.announce and step.record is not None:
                self.announce_export(record.id, polling.announcement(record.id, record.scope_label,
                                                                     step.record.status))
        errors = ErrorTrackingApi(client)
        for path in self._state.watched_projects:
            try:
                await self._context.error_news.look(errors, path)  # shared with the error list's looks
                if errors.server.is_outpost:  # GitLab has no alert rules for integrated error tracking, nor monitors
                    await self._check_deliveries(AlertsApi(client), path)
                    await self._check_monitors(MonitorsApi(client), path)
                self._looked.add(path)
            except ApiError as exc:  # one project failing does not stop the others
                log.info("watching %s: %s", path, exc.message)

    async def _check_deliveries(self, api: AlertsApi, path: str) -> None:
        """Alert deliveries that started failing since the previous look (not test sends: the user sees those)."""
        alerts = self._context.repositories.alerts  # the Alerts page shows what is read here
        for rule in await alerts.fetch(api, path):
            await alerts.fetch_deliveries(api, path, rule.id)
        failing = {delivery_id: f"{rule.name}: {CHANNEL_LABELS.get(item.channel, item.channel)} to "
                                f"{item.target}: {item.lastError or item.status}"
                   for delivery_id, (rule, item) in alerts.failing_deliveries(path).items()}
        known = self._failing_deliveries.get(path)
        self._failing_deliveries[path] = set(failing)
        if known is None:
            return  # the first look records what already failed
        for delivery_id in sorted(set(failing) - known):
            self._context.announce(f"Alert delivery failing in {path}", failing[delivery_id], ("errors", path))

    async def _check_monitors(self, api: MonitorsApi, path: str) -> None:
        """Cron monitors that turned failing, or recovered, since the previous look (paused ones left out)."""
        # Read into the monitors repository: the Monitors page and the Overview show what this look saw.
        repository = self._context.repositories.monitors
        read = await repository.fetch(api, path, None)
        monitors = {monitor.slug: monitor for monitor in read if not repository.is_paused(monitor)}
        failing = {slug for slug, monitor in monitors.items() if repository.is_failing(monitor)}
        known = self._failing_monitors.get(path)
        self._failing_monitors[path] = failing
        if known is None:
            return  # the first look records what already fails
        for slug in sorted(failing - known):
            self._context.announce(f"Monitor failing in {path}", monitors[slug].name, ("errors", path))
        for slug in sorted((known - failing) & set(monitors)):
            self._context.announce(f"Monitor recovered in {path}", monitors[slug].name, ("errors", path))


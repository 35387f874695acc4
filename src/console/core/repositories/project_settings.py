"""A project's error tracking settings, client keys and retention limits, as the server last said them; no Qt.

The Settings, Client keys and Storage pages each kept their own copy of these; now each reads and saves through
its repository and renders what is held, so a page shows what another page saved (the Client keys page says at
once that an external Sentry's project does not use its keys). What the signed-in user may not see is held as
such (:data:`NOT_ALLOWED`, or the Storage page's reason), so the pages explain it rather than fail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from console.core.api.errors import Forbidden, NotFound
from console.core.errors.access import MAINTAINER_ONLY, maintainer_only
from console.core.repositories.base import Repository
from console.core.store import Kind
from outpost_model.error_tracking import ClientKey, TrackingSettings
from outpost_model.retention import Retention

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi

NOT_ALLOWED = "not allowed"  # held where the user's role is too low to read it
ALL = ""  # the store's id of a project's one value
NOT_AVAILABLE = ("This server does not offer retention settings (GitLab keeps error tracking data by its own "
                 "rules). They are available on Outpost servers.")
# Each project's one value, or what stands in for it (NOT_ALLOWED; for retention, why there is none).
TRACKING_SETTINGS: Kind[TrackingSettings | str] = Kind("tracking_settings")
CLIENT_KEYS: Kind[tuple[ClientKey, ...] | str] = Kind("client_keys")
RETENTION: Kind[Retention | str] = Kind("retention")


class TrackingSettingsRepository(Repository):
    kind = TRACKING_SETTINGS

    def settings(self, project: str) -> TrackingSettings | None:
        """The project's settings; None when not read, or not readable (:meth:`allowed` says which)."""
        held = self.store.get(TRACKING_SETTINGS, project, ALL)
        return held if isinstance(held, TrackingSettings) else None

    def allowed(self, project: str) -> bool | None:
        """Whether the user may read them; None when not read on this connection."""
        held = self.store.get(TRACKING_SETTINGS, project, ALL)
        return None if held is None else held != NOT_ALLOWED

    async def fetch(self, api: ErrorTrackingApi, project: str, project_id: int) -> TrackingSettings | None:
        current = self.scope_guard()
        settings = await maintainer_only(api.settings(project_id))
        if current():
            self.store.put(TRACKING_SETTINGS, project, ALL, NOT_ALLOWED if settings is None else settings)
            self.read_now(project)
        return settings

    async def save(self, api: ErrorTrackingApi, project: str, project_id: int, **changes: Any) -> TrackingSettings:
        current = self.scope_guard()
        saved = await api.save_settings(project_id, **changes)
        if current():
            self.store.put(TRACKING_SETTINGS, project, ALL, saved)
        return saved


class ClientKeysRepository(Repository):
    kind = CLIENT_KEYS

    def keys(self, project: str) -> list[ClientKey] | None:
        """The project's client keys; None when not read, or not readable (:meth:`allowed` says which)."""
        held = self.store.get(CLIENT_KEYS, project, ALL)
        return list(held) if isinstance(held, tuple) else None

    def allowed(self, project: str) -> bool | None:
        held = self.store.get(CLIENT_KEYS, project, ALL)
        return None if held is None else held != NOT_ALLOWED

    async def fetch(self, api: ErrorTrackingApi, project: str, project_id: int) -> list[ClientKey] | None:
        current = self.scope_guard()
        keys = await maintainer_only(api.client_keys(project_id))
        if current():
            self.store.put(CLIENT_KEYS, project, ALL, NOT_ALLOWED if keys is None else tuple(keys))
            self.read_now(project)
        return keys

    async def create(self, api: ErrorTrackingApi, project: str, project_id: int) -> ClientKey:
        """A new key; the held list is read again (the server orders it)."""
        key = await api.create_client_key(project_id)
        await self.fetch(api, project, project_id)
        return key

    async def delete(self, api: ErrorTrackingApi, project: str, project_id: int, key_id: int) -> None:
        await api.delete_client_key(project_id, key_id)
        await self.fetch(api, project, project_id)


class RetentionRepository(Repository):
    kind = RETENTION

    def retention(self, project: str) -> Retention | str | None:
        """The project's limits and usage, the reason they cannot be shown, or None when not read."""
        return self.store.get(RETENTION, project, ALL)

    def hold_reason(self, project: str, reason: str) -> None:
        """Why there is nothing to show (a GitLab, which has no such API)."""
        self.store.put(RETENTION, project, ALL, reason)

    async def fetch(self, api: ErrorTrackingApi, project: str, project_id: int) -> Retention | str:
        current = self.scope_guard()
        found: Retention | str
        try:
            found = await api.retention(project_id)
        except Forbidden:
            found = MAINTAINER_ONLY
        except NotFound:
            found = NOT_AVAILABLE
        if current():
            self.store.put(RETENTION, project, ALL, found)
            self.read_now(project)
        return found

    async def save(self, api: ErrorTrackingApi, project: str, project_id: int,
                   limits: dict[str, int | None]) -> Retention:
        current = self.scope_guard()
        saved = await api.save_retention(project_id, limits)
        if current():
            self.store.put(RETENTION, project, ALL, saved)
        return saved

"""Every repository of one console, on its one store (console.core.store); no Qt here."""

from __future__ import annotations

from console.core.repositories.alerts import AlertsRepository
from console.core.repositories.errors import ErrorsRepository
from console.core.repositories.monitors import MonitorsRepository
from console.core.repositories.project_settings import (
    ClientKeysRepository,
    RetentionRepository,
    TrackingSettingsRepository,
)
from console.core.repositories.projects import ProjectsRepository
from console.core.repositories.source_maps import SourceMapsRepository
from console.core.store import Store


class Repositories:
    """The kinds converted to typed repositories so far; the others are still read through their records modules
    (console.core.variables.records, console.core.exports.records), or kept by
    their pages (source maps)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.errors = ErrorsRepository(store)
        self.monitors = MonitorsRepository(store)
        self.tracking_settings = TrackingSettingsRepository(store)
        self.client_keys = ClientKeysRepository(store)
        self.retention = RetentionRepository(store)
        self.alerts = AlertsRepository(store)
        self.source_maps = SourceMapsRepository(store)
        self.projects = ProjectsRepository(store)

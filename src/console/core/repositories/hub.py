"""Every repository of one console, on its one store (console.core.store); no Qt here."""

from __future__ import annotations

from console.core.repositories.alerts import AlertsRepository
from console.core.repositories.errors import ErrorsRepository
from console.core.repositories.events import EventsRepository
from console.core.repositories.exports import ExportsRepository
from console.core.repositories.monitors import MonitorsRepository
from console.core.repositories.project_settings import (
    ClientKeysRepository,
    RetentionRepository,
    TrackingSettingsRepository,
)
from console.core.repositories.projects import ProjectsRepository
from console.core.repositories.shown_error import ShownErrorRepository
from console.core.repositories.source_maps import SourceMapsRepository
from console.core.repositories.variables import VariablesRepository
from console.core.store import Store


class Repositories:
    """One typed repository per kind the console shows (errors, the shown error, events, monitors, settings, client
    keys, retention, alerts, projects, source maps, variables, exports), made once per console on its one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.errors = ErrorsRepository(store)
        self.monitors = MonitorsRepository(store)
        self.tracking_settings = TrackingSettingsRepository(store)
        self.client_keys = ClientKeysRepository(store)
        self.retention = RetentionRepository(store)
        self.alerts = AlertsRepository(store)
        self.source_maps = SourceMapsRepository(store)
        self.shown_error = ShownErrorRepository(store)
        self.events = EventsRepository(store, self.errors)
        self.projects = ProjectsRepository(store)
        self.variables = VariablesRepository(store)
        self.exports = ExportsRepository(store)

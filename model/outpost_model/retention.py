"""A project's retention limits and storage use, and the instance's storage: Outpost's extensions of
GitLab's error tracking API (/projects/:id/error_tracking/retention, /error_tracking/storage)."""

from __future__ import annotations

from outpost_model.base import Entity, Time


class RetentionPolicy(Entity):
    """The limits; 0 means no limit."""

    retention_days: int
    events_per_error: int
    max_stored_bytes: int


class Retention(RetentionPolicy):
    """The project's limits in force, the instance's defaults they override, and what the project stores."""

    instance_defaults: RetentionPolicy
    # The limits the project sets itself (the others are the instance's).
    overridden: list[str]
    stored_events: int
    stored_bytes: int
    last_pruned_at: Time
    # The project's share of the event tables on disk, estimated; `disk_basis` says how it was measured.
    disk_bytes: int
    disk_basis: str
    # Source maps: bundles and release files stored, against the project's budget (0: none).
    artifact_bytes: int
    artifact_budget_bytes: int


class StoredUse(Entity):
    events: int
    payload_bytes: int
    disk_bytes: int


class ProjectStorage(StoredUse):
    project_id: int
    path_with_namespace: str


class Storage(StoredUse):
    """The instance's totals, and each project that stores events."""

    projects: list[ProjectStorage]
    disk_basis: str

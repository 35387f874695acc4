"""JSON shapes of GitLab's error tracking entities."""

from __future__ import annotations

from outpost_model.error_tracking import ClientKey as ClientKeyEntity
from outpost_model.error_tracking import RejectedOrigins, TrackingSettings
from outpost_server.compat.gitlab_time import iso
from outpost_server.error_tracking.ingest.dsn import dsn_for
from outpost_server.error_tracking.ingest.origins import split_stored
from outpost_server.error_tracking.models import ClientKey, ErrorTrackingSetting


def setting_entity(setting: ErrorTrackingSetting) -> TrackingSettings:
    """API::Entities::ErrorTracking::ProjectSetting, plus Outpost's browser origin fields."""
    return TrackingSettings(
        active=setting.enabled, project_name=setting.project_name, sentry_external_url=setting.sentry_external_url,
        api_url=setting.api_url, integrated=setting.integrated,
        allowed_origins=split_stored(setting.allowed_origins),
        rejected_origins=RejectedOrigins(count=setting.rejected_origin_count or 0,
                                         last_origin=setting.last_rejected_origin,
                                         last_at=iso(setting.last_rejected_at)))


def client_key_entity(key: ClientKey, *, base_url: str) -> ClientKeyEntity:
    """API::Entities::ErrorTracking::ClientKey."""
    return ClientKeyEntity(id=key.id, active=key.active, public_key=key.public_key,
                           sentry_dsn=dsn_for(base_url=base_url, public_key=key.public_key,
                                              project_id=key.project_id))

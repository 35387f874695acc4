"""JSON shapes of GitLab's error tracking entities."""

from __future__ import annotations

from .models import ClientKey, ErrorTrackingSetting
from .dsn import dsn_for


def setting_entity(setting: ErrorTrackingSetting) -> dict:
    """API::Entities::ErrorTracking::ProjectSetting."""
    return {
        "active": setting.enabled,
        "project_name": setting.project_name,
        "sentry_external_url": setting.sentry_external_url,
        "api_url": setting.api_url,
        "integrated": setting.integrated,
    }


def client_key_entity(key: ClientKey, *, base_url: str) -> dict:
    """API::Entities::ErrorTracking::ClientKey: exactly id, active, public_key, sentry_dsn."""
    return {
        "id": key.id,
        "active": key.active,
        "public_key": key.public_key,
        "sentry_dsn": dsn_for(base_url=base_url, public_key=key.public_key, project_id=key.project_id),
    }

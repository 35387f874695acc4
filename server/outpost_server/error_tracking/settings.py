"""A project's error tracking setting: enabled, backend, allowed origins and the origin refusals counted on it."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import utcnow
from outpost_server.error_tracking.client_keys import create_client_key
from outpost_server.error_tracking.models import ClientKey, ErrorTrackingSetting


def get_setting(session: Session, *, project: Project) -> ErrorTrackingSetting | None:
    return session.scalar(select(ErrorTrackingSetting).where(ErrorTrackingSetting.project_id == project.id))


def save_setting(
    session: Session,
    *,
    project: Project,
    enabled: bool,
    integrated: bool | None = None,
    create: bool = False,
) -> ErrorTrackingSetting | None:
    """Update (or with `create`, upsert) the project's setting; None when it does not exist.

    As GitLab does after saving, an enabled integrated setting gets its first client key.
    """
    setting = get_setting(session, project=project)
    if setting is None:
        if not create:
            return None
        setting = ErrorTrackingSetting(project_id=project.id, enabled=False, integrated=True)
        session.add(setting)
    setting.enabled = enabled
    if integrated is not None:
        setting.integrated = integrated
    setting.updated_at = utcnow()
    session.flush()
    if setting.integrated_enabled and not session.scalar(
        select(ClientKey.id).where(ClientKey.project_id == project.id).limit(1)
    ):
        create_client_key(session, project=project)
    return setting


def record_rejected_origins(session: Session, *, project_id: int, count: int, origin: str,
                            at: dt.datetime) -> None:
    """Count browser requests refused for their origin, the latest being `origin` at `at` (shown with the settings)."""
    session.execute(
        update(ErrorTrackingSetting)
        .where(ErrorTrackingSetting.project_id == project_id)
        .values(rejected_origin_count=ErrorTrackingSetting.rejected_origin_count + count,
                last_rejected_origin=origin[:255], last_rejected_at=at)
    )


def save_allowed_origins(session: Session, *, setting: ErrorTrackingSetting, origins: list[str]) -> None:
    setting.allowed_origins = "\n".join(origins) or None
    session.flush()

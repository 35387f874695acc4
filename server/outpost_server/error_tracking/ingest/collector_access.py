"""The collector's access check, as GitLab's collector `before` filter: project, enabled integrated setting,
active key. access_cache.py caches its outcomes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.error_tracking.ingest.origins import split_stored
from outpost_server.error_tracking.models import ClientKey
from outpost_server.error_tracking.settings import get_setting

PUBLIC_KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,255}")


@dataclass(frozen=True)
class CollectorTarget:
    """Outcome of checking a collector request: the project and its allowed origins, or GitLab's refusal."""

    project_id: int | None
    refusal: domain.NotFound | None
    allowed_origins: tuple[str, ...] = ()


def collector_target(session: Session, *, project_ident: str, public_key: str | None) -> CollectorTarget:
    """GitLab's collector `before` filter: project, integrated setting enabled, then (given a key) an active key."""
    from outpost_server.accounts.service import find_project

    project = find_project(session, project_ident)
    if project is None:
        return CollectorTarget(None, domain.NotFound("Project"))
    setting = get_setting(session, project=project)
    if setting is None or not setting.integrated_enabled:
        return CollectorTarget(None, domain.NotFound())
    allowed = tuple(split_stored(setting.allowed_origins))
    if public_key is None:
        return CollectorTarget(project.id, None, allowed)
    if not PUBLIC_KEY_SHAPE.fullmatch(public_key):
        # Not a key we could have issued (and NUL bytes would not even reach PostgreSQL).
        return CollectorTarget(None, domain.NotFound())
    active_key = session.scalar(
        select(ClientKey.id).where(
            ClientKey.project_id == project.id, ClientKey.public_key == public_key, ClientKey.active.is_(True)
        )
    )
    if active_key is None:
        return CollectorTarget(None, domain.NotFound())
    return CollectorTarget(project.id, None, allowed)

"""A project's client keys: the public keys its DSNs carry."""

from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import parse_id
from outpost_server.error_tracking.models import ClientKey

PUBLIC_KEY_PREFIX = "glet_"


def new_public_key() -> str:
    return PUBLIC_KEY_PREFIX + secrets.token_hex(16)


def create_client_key(session: Session, *, project: Project) -> ClientKey:
    key = ClientKey(project_id=project.id, public_key=new_public_key(), active=True)
    session.add(key)
    session.flush()
    return key


def client_keys_query(*, project: Project):
    return select(ClientKey).where(ClientKey.project_id == project.id).order_by(ClientKey.id)


def find_client_key(session: Session, *, project: Project, key_id: str) -> ClientKey | None:
    if (row_id := parse_id(key_id)) is None:
        return None
    return session.scalar(select(ClientKey).where(ClientKey.project_id == project.id, ClientKey.id == row_id))


def delete_client_key(session: Session, *, key: ClientKey) -> None:
    session.delete(key)
    session.flush()

"""The application_settings table: one JSON value per setting name."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from outpost_server.db import Base


class ApplicationSetting(Base):
    __tablename__ = "application_settings"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)


def get_setting(session: Session, key: str, default: Any = None) -> Any:
    value = session.scalar(select(ApplicationSetting.value).where(ApplicationSetting.key == key))
    return default if value is None else value


def set_setting(session: Session, key: str, value: Any) -> None:
    row = session.get(ApplicationSetting, key)
    if row is None:
        session.add(ApplicationSetting(key=key, value=value))
    else:
        row.value = value
    session.flush()

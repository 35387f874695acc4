"""Stored instance variables. Values are encrypted at rest, as GitLab does."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from outpost_server.db import Base, UTCDateTime, utcnow

ENV_VAR = 1
FILE = 2
VARIABLE_TYPES = {"env_var": ENV_VAR, "file": FILE}
VARIABLE_TYPE_NAMES = {number: name for name, number in VARIABLE_TYPES.items()}


class InstanceVariable(Base):
    __tablename__ = "ci_instance_variables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(255), unique=True)
    encrypted_value: Mapped[str] = mapped_column(Text)
    variable_type: Mapped[int] = mapped_column(Integer, default=ENV_VAR)
    protected: Mapped[bool] = mapped_column(Boolean, default=False)
    masked: Mapped[bool] = mapped_column(Boolean, default=False)
    raw: Mapped[bool] = mapped_column(Boolean, default=False)
    description: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    def __repr__(self) -> str:  # never the value
        return f"InstanceVariable(id={self.id!r}, key={self.key!r})"

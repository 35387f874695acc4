"""Instance variables: GitLab's model validations (Ci::InstanceVariable) and storage.

Validation messages and their order follow the Rails model: the key checks of Ci::HasVariable,
the masking rules of Ci::Maskable, the plan limit of Limitable, then the description length,
key uniqueness and value length declared on the model itself.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from sqlalchemy import Select, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.db import at_transaction_end
from outpost_server.security import SecretBox
from outpost_server.variables.models import ENV_VAR, VARIABLE_TYPES, InstanceVariable

KEY_MAX_LENGTH = 255
VALUE_MAX_LENGTH = 10_000
DESCRIPTION_MAX_LENGTH = 255
KEY_PATTERN = re.compile(r"\A[a-zA-Z0-9_]+\Z")
# Ci::Maskable::REGEX: one line, no spaces or variables, at least 8 characters of the Base64
# alphabet plus '@', ':', '.' and '~'.
MASK_PATTERN = re.compile(r"\A[a-zA-Z0-9_+=/@:.~-]{8,}\Z")
# Ci::Maskable::MASK_AND_RAW_REGEX, for masked values that are not expanded: at least 8
# characters without (ASCII) whitespace.
MASK_AND_RAW_PATTERN = re.compile(r"\A[^ \t\n\v\f\r]{8,}\Z")
# What Ruby's String#strip removes.
STRIPPED = " \t\n\v\f\r\0"

_creation_lock = threading.Lock()
_HOLDS_CREATION_LOCK = "outpost.variables.creation_lock"
_PG_CREATION_LOCK = 4_242_003


@lru_cache(maxsize=4)
def _box(secret_key: str) -> SecretBox:
    return SecretBox(secret_key)


def reveal(variable: InstanceVariable, *, secret_key: str) -> str | None:
    """The decrypted value, or None when it was encrypted with another secret key."""
    return _box(secret_key).decrypt(variable.encrypted_value)


def list_stmt() -> Select:
    return select(InstanceVariable).order_by(InstanceVariable.id)


def find_by_key(session: Session, *, key: str) -> InstanceVariable | None:
    return session.scalar(select(InstanceVariable).where(InstanceVariable.key == key))


def get_by_key(session: Session, *, key: str) -> InstanceVariable:
    variable = find_by_key(session, key=key)
    if variable is None:
        raise domain.NotFound("InstanceVariable")
    return variable


def validation_messages(session: Session, *, key: str, value: str, masked: bool, raw: bool,
                        description: str | None, existing_id: int | None, limit: int | None
                        ) -> dict[str, list[str]]:
    """Rails-style errors of a variable about to be saved; `limit` is checked on create only."""
    messages: dict[str, list[str]] = {}

    def add(attribute: str, message: str) -> None:
        messages.setdefault(attribute, []).append(message)

    if not key:
        add("key", "can't be blank")
    if len(key) > KEY_MAX_LENGTH:
        add("key", f"is too long (maximum is {KEY_MAX_LENGTH} characters)")
    if not KEY_PATTERN.match(key):
        add("key", "can contain only letters, digits and '_'.")
    if masked and not (MASK_AND_RAW_PATTERN if raw else MASK_PATTERN).match(value):
        add("value", "is invalid")
    if limit and (session.scalar(select(func.count()).select_from(InstanceVariable)) or 0) >= limit:
        add("base", f"Maximum number of ci instance level variables ({limit}) exceeded")
    if description and len(description) > DESCRIPTION_MAX_LENGTH:
        add("description", f"is too long (maximum is {DESCRIPTION_MAX_LENGTH} characters)")
    if key:
        taken = select(InstanceVariable.id).where(InstanceVariable.key == key)
        if existing_id is not None:
            taken = taken.where(InstanceVariable.id != existing_id)
        if session.scalar(taken) is not None:
            add("key", f"({key}) has already been taken")
    if len(value) > VALUE_MAX_LENGTH:
        add("value", f"The value of the provided variable exceeds the {VALUE_MAX_LENGTH} character limit")
    return messages


def hold_creation_lock(session: Session) -> None:
    """Serialises creations so the count limit holds under concurrent requests, until the transaction
    ends. PostgreSQL replicas share a transaction-scoped advisory lock; a SQLite database belongs to one
    process, where a thread lock suffices (released by whichever thread ends the transaction)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_CREATION_LOCK})
        return
    if session.info.get(_HOLDS_CREATION_LOCK):
        return
    _creation_lock.acquire()
    session.info[_HOLDS_CREATION_LOCK] = True

    def release() -> None:
        session.info.pop(_HOLDS_CREATION_LOCK, None)
        _creation_lock.release()

    at_transaction_end(session, release)


def create_variable(session: Session, *, secret_key: str, key: str, value: str, variable_type: str | None = None,
                    protected: bool | None = None, masked: bool | None = None, raw: bool | None = None,
                    description: str | None = None, limit: int) -> InstanceVariable:
    key = key.strip(STRIPPED)
    masked, raw = bool(masked), bool(raw)
    messages = validation_messages(session, key=key, value=value, masked=masked, raw=raw, description=description,
                                   existing_id=None, limit=limit)
    if messages:
        raise domain.Invalid(messages)
    variable = InstanceVariable(
        key=key, encrypted_value=_box(secret_key).encrypt(value),
        variable_type=VARIABLE_TYPES[variable_type] if variable_type else ENV_VAR,
        protected=bool(protected), masked=masked, raw=raw, description=description)
    session.add(variable)
    _flush_unique(session, key)
    return variable


def update_variable(session: Session, variable: InstanceVariable, *, secret_key: str, value: str | None = None,
                    variable_type: str | None = None, protected: bool | None = None, masked: bool | None = None,
                    raw: bool | None = None, description: str | None = None) -> str | None:
    """Applies the given changes (None = unchanged) and returns the variable's value."""
    current_value = value if value is not None else reveal(variable, secret_key=secret_key) or ""
    new_masked = variable.masked if masked is None else masked
    new_raw = variable.raw if raw is None else raw
    new_description = variable.description if description is None else description
    messages = validation_messages(session, key=variable.key, value=current_value, masked=new_masked, raw=new_raw,
                                   description=new_description, existing_id=variable.id, limit=None)
    if messages:
        raise domain.Invalid(messages)
    if value is not None:
        variable.encrypted_value = _box(secret_key).encrypt(value)
    if variable_type is not None:
        variable.variable_type = VARIABLE_TYPES[variable_type]
    if protected is not None:
        variable.protected = protected
    variable.masked, variable.raw, variable.description = new_masked, new_raw, new_description
    session.flush()
    return current_value


def delete_variable(session: Session, variable: InstanceVariable) -> None:
    session.delete(variable)
    session.flush()


def _flush_unique(session: Session, key: str) -> None:
    # Another replica may have inserted the same key between our check and this insert.
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise domain.Invalid({"key": [f"({key}) has already been taken"]}) from None
